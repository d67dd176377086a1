/**
 * compare --solo-check in the report: each benchmark's change with each revision alone in fresh processes,
 * beside the shared process's, the speed levels those processes fell on, and whether the two changes agree.
 * Where they do not, the verdict is read from both intervals together (solo-verdict.ts).
 */
import { median } from 'simple-statistics';
import type { BenchmarkSamples } from '../measure/types.js';
import { roundLevels, soloChange, type ProcessLevels, type SoloChange } from '../stats/solo.js';

export interface SoloSide {
  /** Fresh processes that measured it. */
  processes: number;
  /** Median ops/s over the processes. */
  opsPerSec: number;
  /** Each process's ops/s, in the order they ran. */
  runs: number[];
  /** Present when its processes sat on 2 or 3 speeds (stats/solo.ts, processLevels), with each task order's where they are the orders. */
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
   * Set when the verdict was read from both (the two disagree on a decided verdict, or a revision sat on speed levels
   * and the solo estimate lies outside the shared interval): the shared process's own
   * interval, before the benchmark's change became the span of both (`judgedWithSolo`).
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
    // The i-th process is round i's, whose task order alternates as a compare's rounds do.
    const levels = roundLevels(of?.opsPerSec ?? []);
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
