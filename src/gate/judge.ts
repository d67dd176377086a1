import type { HttpMeasurement } from '../measure/http/schedule.js';
import type { BenchmarkSamples, Measurement } from '../measure/types.js';
import { httpDetails } from '../report/http.js';
import { type ReportBenchmark, sortBenchmarks, toReportBenchmark } from '../report/model.js';
import { analyze, budgetedFigures } from '../stats/analyze.js';
import { decideFamily } from '../stats/family.js';
import { roundLevels } from '../stats/solo.js';
import { type RunContext, timeHint } from './plan.js';

/** Every measured benchmark judged once more, together: the final verdicts, at the level the whole run's figures set. */
export function judge(
  run: RunContext,
  micro: Measurement | undefined,
  http: HttpMeasurement | undefined,
): { benchmarks: ReportBenchmark[]; intervalLevel: number; figures: number } {
  const { analyzeOptions, rule, familyFigures, countedOnly } = run.plan;
  const samples = [...(micro?.benchmarks ?? []), ...(http?.benchmarks ?? [])];
  // The counted-only micro-benchmarks share the run's error as the looks counted them (plan.otherFigures).
  const figures = familyFigures ?? budgetedFigures(samples, analyzeOptions.latencyBudgetFor) + countedOnly;
  const firstLook = (benchmark: BenchmarkSamples) => {
    const measured = (benchmark.http ? http : micro) ?? { durationMs: 0, rounds: 0, plannedRounds: run.firstLook.rounds };
    return { rounds: measured.plannedRounds, hint: timeHint(benchmark.http ? 'http' : 'micro', measured, run) };
  };
  const comparisons = analyze(samples, { ...analyzeOptions, figures, firstLook });
  const benchmarks = comparisons.map((c, i) =>
    withRoundLevels(toReportBenchmark(c, samples[i]!.http ? httpDetails(samples[i]!, c) : undefined), samples[i]!),
  );
  return { benchmarks: sortBenchmarks(decideFamily(benchmarks, figures)), intervalLevel: rule.intervalLevel(figures), figures };
}
/** A micro-benchmark whose rounds sat on speed levels at a revision (not a spread) says so (ReportBenchmark.levels). */
function withRoundLevels(benchmark: ReportBenchmark, samples: BenchmarkSamples): ReportBenchmark {
  if (benchmark.kind !== 'micro' || !benchmark.change) return benchmark;
  // The i-th figure is round i's (a task is measured from the first round until it is decided).
  const base = roundLevels(samples.base?.opsPerSec ?? []);
  const head = roundLevels(samples.head?.opsPerSec ?? []);
  if (!base && !head) return benchmark;
  return { ...benchmark, levels: { ...(base ? { base } : {}), ...(head ? { head } : {}) } };
}
