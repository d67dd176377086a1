import { mean as meanOf, sampleStandardDeviation } from 'simple-statistics';
import type { Change } from './compare.js';

/**
 * The early look's interval: after the first rounds, a t interval on the mean log ratio (2 degrees of freedom
 * from 3 rounds), each side at its own one-sided error. The signed-rank interval the planned looks use cannot
 * be narrow from 3 rounds at any useful level (its one-sided p is at least 1/8), whatever the data; a t interval
 * can, when the rounds agree far more closely than the change is large: a −81% step whose rounds spread 2%
 * clears a 10% budget at 99.9% from 3 rounds. It assumes the rounds' log ratios are roughly normal; spent at a
 * small share of the error (EARLY_WEIGHT) and checked on the real noise samples (scripts/evaluate-offline.mjs),
 * it adds no false verdict there. The quantile is written here: simple-statistics has none of Student's t.
 */
export function earlyChange(logRatios: readonly number[], lowerAlpha: number, upperAlpha: number): Change {
  const n = logRatios.length;
  if (n !== 3) throw new Error(`the early look reads 3 rounds, not ${n}`);
  const mean = meanOf([...logRatios]);
  const se = sampleStandardDeviation([...logRatios]) / Math.sqrt(n);
  return {
    estimate: Math.expm1(mean),
    low: Math.expm1(mean - tQuantile2(1 - lowerAlpha) * se),
    high: Math.expm1(mean + tQuantile2(1 - upperAlpha) * se),
    confidence: 1 - lowerAlpha - upperAlpha,
    achievedConfidence: 1 - lowerAlpha - upperAlpha,
  };
}

/** Student's t quantile with 2 degrees of freedom, exact: t = (2p − 1) / √(2p(1 − p)). */
export function tQuantile2(p: number): number {
  return (2 * p - 1) / Math.sqrt(2 * p * (1 - p));
}
