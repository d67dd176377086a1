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

/**
 * Counts' looks at the seeds (adaptive seeds): the first after EARLY_SEEDS seeds, the last after all of them, each look
 * spending half of a row's one-sided error (Bonferroni over the two looks: the chance of a false verdict at either is
 * at most the row's share, however the seeds stop). A row whose first look settles it (settledEarly) keeps that look's
 * verdict; the others are counted under the remaining seeds. Half each, so both looks read their intervals at one level
 * (the table states one). With micro.seeds at most EARLY_SEEDS, one look spends the whole share. The rule's trade on
 * 444 counted rows of 3 seeds and 52 runs of a 5% loss on fastify: docs/counts.md.
 */
export const EARLY_SEEDS = 2;

export interface SeedLook {
  seeds: number[];
  /** The fraction of a row's one-sided error this look spends. */
  weight: number;
}

export function seedLooks(seeds: readonly number[]): SeedLook[] {
  if (seeds.length <= EARLY_SEEDS) return [{ seeds: [...seeds], weight: 1 }];
  return [
    { seeds: seeds.slice(0, EARLY_SEEDS), weight: 0.5 },
    { seeds: seeds.slice(EARLY_SEEDS), weight: 0.5 },
  ];
}

/**
 * How wide (a share of its budget) a row's interval may be for its first look to settle it. Two seeds give the t
 * interval one degree of freedom, so a decided row may still be several points wide; stopping there traded a quotable
 * estimate for time (hapi 6b67d24 settled at +10.0% [+7.9%, +12.2%] with a 5% budget, fastify 5f4871f's third seed
 * read [+2.5%, +5.0%]). At half the budget, an early estimate is within a quarter of the budget either way, as
 * precise as a row counted under every seed typically is: docs/counts.md has what it costs in servers and time.
 */
export const SETTLE_WIDTH = 0.5;

/**
 * A row the first look settles: decided (not inconclusive), with an interval no wider than half its budget
 * (SETTLE_WIDTH). What stops early never changes the error's bound: each look spends its own share.
 */
export function settledEarly(row: { verdict: string; change: { low: number; high: number } | null; budget: number }): boolean {
  if (!row.change) return true;
  const decided = row.verdict !== 'inconclusive' && row.verdict !== 'unmeasured';
  return decided && row.change.high - row.change.low <= row.budget * SETTLE_WIDTH;
}

/**
 * `level`: the two-sided level of the interval (each side at its look's share of the error). `weight`: the fraction of
 * the row's error that share is (seedLooks): regressionP is the nominal p-value over it, as Holm's step-down ranks a
 * timed figure's at its look (stats/decision.ts).
 */
export function compareCounts(base: readonly number[], head: readonly number[], budget: number, level: number, weight = 1): CountChange {
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
  const regressionP = Math.min(1, (1 - cdf((floor - estimate) / se, df)) / weight);
  return { change, verdict: decide(change, budget), regressionP, logRatios };
}

/** Welch–Satterthwaite degrees of freedom; a side of one seed contributes no variance and no degrees. */
function welchDf(vx: number, nx: number, vy: number, ny: number): number {
  const a = nx > 1 ? vx / nx : 0;
  const b = ny > 1 ? vy / ny : 0;
  const denominator = (nx > 1 ? (a * a) / (nx - 1) : 0) + (ny > 1 ? (b * b) / (ny - 1) : 0);
  return denominator > 0 ? ((a + b) * (a + b)) / denominator : Math.max(1, nx + ny - 2);
}
