import { hodgesLehmannBounds, signedRankP, type LocationInterval } from './signed-rank.js';

/**
 * What a comparison concludes about one benchmark. The gate asks one question of an interval, whether throughput
 * fell by more than the budget, and words every answer: `regression` (yes: the whole interval lies below -budget),
 * `inconclusive` (open: the interval straddles -budget, so a loss beyond the budget is possible), and three certain
 * passes, worded by what else the interval shows at the budget's scale, as a regression is: `improvement` (a gain
 * beyond the budget: the whole interval lies above +budget), `unchanged` (the interval lies within ±budget) and
 * `within-budget` (no loss beyond the budget, and a gain up to beyond it possible: the interval lies above -budget and
 * reaches past +budget). An improvement is read at the budget, not at 0: identical code must not be called faster
 * (or slower) once in every twenty runs, which a bound at 0 would do for one figure in twenty.
 *
 * unmeasured: compared at both revisions, but with too few rounds for the decision rule to judge it (the time
 * limit stopped the run before its first look, or before a regression's confirmation could reach its level).
 * It is never a pass: a result that was not measured is not a result.
 */
export type Verdict =
  'regression' | 'improvement' | 'unchanged' | 'within-budget' | 'inconclusive' | 'unmeasured' | 'error' | 'new' | 'removed';

/** The verdicts of a certain pass: no loss beyond the budget is possible at the interval's level. */
export const PASSES: readonly Verdict[] = ['improvement', 'unchanged', 'within-budget'];

/** Whether a verdict is a certain pass (the gate's question answered: no). */
export function certainPass(verdict: Verdict): boolean {
  return PASSES.includes(verdict);
}

/** A relative change of throughput: -0.12 means head does 12% fewer operations per second than base. */
export interface Change {
  estimate: number;
  low: number;
  high: number;
  /** Confidence the interval was asked to have (after the family-wise adjustment). */
  confidence: number;
  /** Confidence it really has; below `confidence` when there were too few rounds. */
  achievedConfidence: number;
  /**
   * A bound set by a group of rounds too small to reach its error (mixture.ts holdGroups): no verdict that rests on
   * that bound is read (a regression on `high`, a pass on `low`, for throughput; mirrored for latency).
   */
  unsure?: { low?: boolean; high?: boolean } | undefined;
}

/**
 * Estimate the change from per-round log ratios ln(head ops/s / base ops/s).
 * The Hodges–Lehmann estimate and the signed-rank interval are computed on the
 * log scale, where a slowdown and the matching speed-up are symmetric, then mapped
 * back to a relative change with exp(x) - 1 (monotone, so the interval stays valid).
 */
export function estimateChange(logRatios: readonly number[], confidence: number): Change {
  const alpha = 1 - confidence;
  return estimateChangeBounds(logRatios, alpha / 2, alpha / 2);
}

/** The same, each bound one-sided at its own error: the lower holds with 1 - lowerAlpha, the upper with 1 - upperAlpha. */
export function estimateChangeBounds(logRatios: readonly number[], lowerAlpha: number, upperAlpha: number): Change {
  return toChange(hodgesLehmannBounds(logRatios, lowerAlpha, upperAlpha), 1 - lowerAlpha - upperAlpha);
}

function toChange(interval: LocationInterval, confidence: number): Change {
  return {
    estimate: Math.expm1(interval.estimate),
    low: Math.expm1(interval.low),
    high: Math.expm1(interval.high),
    confidence,
    achievedConfidence: interval.achievedConfidence,
  };
}

/**
 * The one-sided p-value of "throughput fell by no more than the budget" (higher is better) or "latency
 * rose by no more than the budget" (lower is better): the exact signed-rank test of the log ratios
 * against ln(1 - budget), or ln(1 + budget). Below the bound's error exactly when the interval's
 * regression-side bound lies beyond the budget.
 */
export function regressionNominalP(logRatios: readonly number[], budget: number, lowerIsBetter = false): number {
  if (logRatios.length === 0 || !logRatios.every(Number.isFinite) || (!lowerIsBetter && budget >= 1)) return 1;
  return lowerIsBetter ? signedRankP(logRatios, Math.log1p(budget), 'above') : signedRankP(logRatios, Math.log1p(-budget), 'below');
}

/**
 * The verdict for a change against a budget (a fraction, 0.05 for 5%).
 * regression: confident throughput fell by more than the budget (the whole interval lies below -budget);
 * inconclusive: the interval straddles -budget (a loss beyond the budget is possible, and so is none), or it could
 * not reach the asked confidence; otherwise a certain pass: improvement when the whole interval lies above +budget,
 * unchanged when it lies within ±budget, within-budget when it lies above -budget and reaches past +budget.
 */
export function decide(change: Change, budget: number): Verdict {
  if (change.achievedConfidence < change.confidence - 1e-12) return 'inconclusive';
  if (change.high < -budget) return change.unsure?.high ? 'inconclusive' : 'regression';
  if (change.low < -budget || change.unsure?.low) return 'inconclusive';
  if (change.low > budget) return 'improvement';
  if (change.high <= budget && !change.unsure?.high) return 'unchanged';
  return 'within-budget';
}

/** The gate's question of a verdict, for machines: did the benchmark lose more than its budget (yes, no, open)? */
export function beyondBudget(verdict: Verdict): 'yes' | 'no' | 'open' | null {
  if (verdict === 'regression') return 'yes';
  if (certainPass(verdict)) return 'no';
  if (verdict === 'inconclusive' || verdict === 'unmeasured') return 'open';
  return null;
}

/** The verdict for a figure where higher is worse (latency): a rise beyond the budget is the regression. */
export function decideLowerIsBetter(change: Change, budget: number): Verdict {
  const mirrored: Change = {
    ...change,
    estimate: -change.estimate,
    low: -change.high,
    high: -change.low,
    unsure: change.unsure && { low: change.unsure.high, high: change.unsure.low },
  };
  return decide(mirrored, budget);
}
