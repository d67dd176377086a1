import { median } from 'simple-statistics';
import type { BenchmarkKind, BenchmarkSamples } from '../measure/types.js';
import { decide, estimateChange, familyConfidence, type Change, type Verdict } from './compare.js';

/** One revision's summary for one benchmark. */
export interface SideSummary {
  /** Median over rounds of ops/s. */
  opsPerSec: number;
  /** Rounds it ran in. */
  samples: number;
}

/** The statistical comparison of one benchmark between base and head. */
export interface Comparison {
  id: string;
  kind: BenchmarkKind;
  file: string | undefined;
  verdict: Verdict;
  budget: number;
  base: SideSummary | undefined;
  head: SideSummary | undefined;
  change: Change | undefined;
  /** The per-round log ratios the change was estimated from. */
  logRatios: readonly number[];
  error?: string | undefined;
}

export interface AnalyzeOptions {
  /** Confidence for the whole run; each interval gets its Bonferroni share. */
  confidence: number;
  budgetFor: (id: string) => number;
}

/**
 * Turn measured samples into comparisons with verdicts. The family over which
 * false alarms are controlled is every benchmark that has samples on both sides.
 */
export function analyze(benchmarks: readonly BenchmarkSamples[], options: AnalyzeOptions): Comparison[] {
  const family = benchmarks.filter((b) => !b.error && b.logRatios.length > 0).length;
  const level = familyConfidence(options.confidence, family);
  return benchmarks.map((benchmark) => {
    const budget = options.budgetFor(benchmark.id);
    const base = summarize(benchmark.base?.opsPerSec);
    const head = summarize(benchmark.head?.opsPerSec);
    const common = { id: benchmark.id, kind: benchmark.kind, file: benchmark.file, budget, base, head, logRatios: benchmark.logRatios };
    if (benchmark.error) return { ...common, verdict: 'error', change: undefined, error: benchmark.error };
    if (!benchmark.base) return { ...common, verdict: 'new', change: undefined };
    if (!benchmark.head) return { ...common, verdict: 'removed', change: undefined };
    if (benchmark.logRatios.length === 0) return { ...common, verdict: 'inconclusive', change: undefined };
    const change = estimateChange(benchmark.logRatios, level);
    return { ...common, verdict: decide(change, budget), change };
  });
}

function summarize(values: number[] | undefined): SideSummary | undefined {
  if (!values || values.length === 0) return undefined;
  return { opsPerSec: median(values), samples: values.length };
}
