/**
 * compare --solo-check in the report: each benchmark's change with each revision alone in fresh processes,
 * beside the shared process's, the speed levels those processes fell on, and whether the two changes agree.
 * Where they do not, the verdict is read from both intervals together (`judgedWithSolo`): the check can make a
 * verdict more cautious, never bolder.
 */
import { median } from 'simple-statistics';
import type { BenchmarkSamples } from '../measure/types.js';
import { decide } from '../stats/compare.js';
import { processLevels, soloChange, type ProcessLevels, type SoloChange } from '../stats/solo.js';
import { formatInterval } from './format.js';
import type { ReportBenchmark } from './model.js';

export interface SoloSide {
  /** Fresh processes that measured it. */
  processes: number;
  /** Median ops/s over the processes. */
  opsPerSec: number;
  /** Each process's ops/s, in the order they ran. */
  runs: number[];
  /** Present when its processes sat on 2 or 3 speeds (stats/solo.ts, processLevels). */
  levels?: ProcessLevels;
}

export interface SoloComparison {
  base: SoloSide | null;
  head: SoloSide | null;
  /** The change of ops/s with each revision alone (95%); null when a revision has too few processes. */
  change: SoloChange | null;
  /** `agrees`: the solo interval meets the shared one; `disagrees`: they are apart; `unknown`: no solo interval. */
  agreement: 'agrees' | 'disagrees' | 'unknown';
  /** Why a side has no figures (it failed alone). */
  error?: string;
  /**
   * Set when the two disagree: the shared process's own interval, before the benchmark's change became the span of
   * both (`judgedWithSolo`).
   */
  shared?: { estimate: number; low: number; high: number; confidence: number };
}

export interface SoloCheckInfo {
  /** Fresh processes per revision. */
  processes: number;
  durationMs: number;
  error?: string;
}

/** The solo figures of one benchmark, against its shared-process change (the verdict's interval). */
export function soloComparison(samples: BenchmarkSamples, shared: { low: number; high: number }): SoloComparison {
  const side = (of: BenchmarkSamples['base']): SoloSide | null => {
    const ops = (of?.opsPerSec ?? []).filter((x) => x > 0);
    if (!ops.length) return null;
    const levels = processLevels(ops);
    return { processes: ops.length, opsPerSec: median(ops), runs: ops, ...(levels ? { levels } : {}) };
  };
  const change = soloChange(samples.base?.opsPerSec ?? [], samples.head?.opsPerSec ?? []) ?? null;
  const agreement = !change ? 'unknown' : change.high < shared.low || change.low > shared.high ? 'disagrees' : 'agrees';
  return {
    base: side(samples.base),
    head: side(samples.head),
    change,
    agreement,
    ...(samples.error ? { error: samples.error } : {}),
  };
}

/** Verdicts read from an interval against the budget; the others (unmeasured, error, new, removed) stay as they are. */
const FROM_INTERVAL = new Set(['regression', 'improvement', 'unchanged', 'inconclusive']);

/**
 * A benchmark with its solo figures. Where the solo interval lies apart from the shared one, the figure depends on
 * the process a revision runs in and the shared interval does not cover what fresh processes of each revision
 * measure: the benchmark's change becomes the span of both intervals (the shared estimate kept) and its verdict is
 * read from that span. Intervals that meet are no evidence of a difference: a solo estimate outside a narrow shared
 * interval is what a few noisy processes give (6 processes of a loaded run read +18.9% [-16.0%, +54.1%] beside
 * +0.9% [-2.7%, +9.0%]), and widening there would turn verdicts inconclusive for the check's own noise.
 * A span holds each interval, so it can only turn a verdict `inconclusive` (a regression or a pass that one kind of
 * process does not show), never make one: the run's error rates stay what the rule gives them.
 */
export function judgedWithSolo(benchmark: ReportBenchmark, samples: BenchmarkSamples): ReportBenchmark {
  const shared = benchmark.change;
  if (!shared) return benchmark;
  const solo = soloComparison(samples, shared);
  if (solo.agreement !== 'disagrees' || !solo.change || !FROM_INTERVAL.has(benchmark.verdict)) return { ...benchmark, solo };
  const change = { ...shared, low: Math.min(shared.low, solo.change.low), high: Math.max(shared.high, solo.change.high) };
  const verdict = decide({ ...change, achievedConfidence: change.confidence }, benchmark.budget);
  const said =
    `each revision alone in fresh processes reads ${formatInterval(solo.change)}, apart from the shared process's ` +
    `${formatInterval(shared)}: the verdict is read from both intervals together${verdict === benchmark.verdict ? '' : ` (${benchmark.verdict} in the shared process alone)`}`;
  return { ...benchmark, change, verdict, note: [benchmark.note, said].filter(Boolean).join('; '), solo: { ...solo, shared } };
}
