import quantile from '@stdlib/stats-base-dists-t-quantile';
import cdf from '@stdlib/stats-base-dists-t-cdf';
import { mean, sampleVariance } from 'simple-statistics';
import { decide, type Change, type Verdict } from './compare.js';

/**
 * Counts mode's comparison of one benchmark: each revision's instructions per call under several seeds (each seed a
 * process, reproducible to the instruction), so the spread across seeds is the spread between processes. The change
 * is in calls per instruction (fewer instructions a call is faster: the sign of time's throughput change), on the log
 * scale: the mean of each seed's ln(base / head) with the paired t interval (a seed gives both revisions the same file
 * order and V8 seeds, so what an untouched task inherits cancels in the pair; measured: docs/counts.md), or Welch's
 * where the revisions ran different seeds. Where no seed moves the change, the interval is the
 * estimate itself: the figure is exact, and its verdict needs no confidence to be spent. A revision counted under one
 * seed only has no interval: inconclusive, whatever its count.
 *
 * Written by hand on simple-statistics and stdlib's t distribution: neither has these intervals as such.
 */
export interface CountChange {
  change: Change;
  verdict: Verdict;
  /** The one-sided p-value of "it lost no more than its budget" (what Holm's step-down ranks). */
  regressionP: number;
  /** Each seed's ln(base count / head count) (unpaired: against the mean of head's), for the report's rounds. */
  logRatios: number[];
}

/** Below this relative spread a count is taken as not moving between seeds (a few instructions of a million). */
const EXACT = 1e-7;

export function compareCounts(base: readonly number[], head: readonly number[], budget: number, level: number): CountChange {
  if (base.length === 0 || head.length === 0 || ![...base, ...head].every((x) => Number.isFinite(x) && x > 0))
    throw new RangeError('counts need a positive count for every seed of both revisions');
  const x = base.map(Math.log);
  const y = head.map(Math.log);
  // Paired by seed where both revisions ran the same seeds (the schedule's way): a seed gives both the same file order
  // and hash and random seeds, so what an untouched task inherits is alike at both and cancels in the pair.
  const paired = x.length === y.length;
  const logRatios = paired ? x.map((value, i) => value - y[i]!) : x.map((value) => value - mean(y));
  const estimate = paired ? mean(logRatios) : mean(x) - mean(y);
  const floor = Math.log1p(-Math.min(budget, 0.999999));
  if (x.length < 2 || y.length < 2) {
    // One process at a revision says nothing of how processes differ: no interval, and no verdict but inconclusive.
    const change: Change = {
      estimate: Math.expm1(estimate),
      low: -1,
      high: Number.POSITIVE_INFINITY,
      confidence: level,
      achievedConfidence: 0,
    };
    return { change, verdict: 'inconclusive', regressionP: 1, logRatios };
  }
  const vx = sampleVariance(x);
  const vy = sampleVariance(y);
  const se = paired ? Math.sqrt(sampleVariance(logRatios) / logRatios.length) : Math.sqrt(vx / x.length + vy / y.length);
  if (se < EXACT) {
    const change: Change = {
      estimate: Math.expm1(estimate),
      low: Math.expm1(estimate),
      high: Math.expm1(estimate),
      confidence: level,
      achievedConfidence: 1,
    };
    return { change, verdict: decide(change, budget), regressionP: estimate < floor ? 0 : 1, logRatios };
  }
  const df = paired ? logRatios.length - 1 : welchDf(vx, x.length, vy, y.length);
  const q = quantile(1 - (1 - level) / 2, df);
  const change: Change = {
    estimate: Math.expm1(estimate),
    low: Math.expm1(estimate - q * se),
    high: Math.expm1(estimate + q * se),
    confidence: level,
    achievedConfidence: level,
  };
  // "Lost no more than the budget" is rejected when the change lies below the budget's floor: p = P(T >= t).
  const regressionP = 1 - cdf((floor - estimate) / se, df);
  return { change, verdict: decide(change, budget), regressionP, logRatios };
}

/** Welch–Satterthwaite degrees of freedom; a side of one seed contributes no variance and no degrees. */
function welchDf(vx: number, nx: number, vy: number, ny: number): number {
  const a = nx > 1 ? vx / nx : 0;
  const b = ny > 1 ? vy / ny : 0;
  const denominator = (nx > 1 ? (a * a) / (nx - 1) : 0) + (ny > 1 ? (b * b) / (ny - 1) : 0);
  return denominator > 0 ? ((a + b) * (a + b)) / denominator : Math.max(1, nx + ny - 2);
}
