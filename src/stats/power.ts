import { median, medianAbsoluteDeviation, probit, sampleStandardDeviation } from 'simple-statistics';
import { achievedAlpha, minimumRounds } from './signed-rank.js';

/**
 * Spread of one round's log ratio: 1.4826 × MAD (a robust standard deviation,
 * like the rank interval it predicts), or the sample SD when the MAD is 0.
 */
export function roundSpread(logRatios: readonly number[]): number {
  if (logRatios.length < 3) return Number.NaN;
  const mad = 1.4826 * medianAbsoluteDeviation([...logRatios]);
  return mad > 0 ? mad : sampleStandardDeviation([...logRatios]);
}

/**
 * The smallest change beyond a budget that `rounds` rounds with this spread
 * detect with the given power, as a relative change: the normal approximation
 * (z_{1-α/2} + z_power) · σ / √n, widened by 1/√0.955, the signed-rank
 * interval's asymptotic efficiency against the t-interval (Hollander & Wolfe §3.3).
 */
export function resolvableChange(spread: number, rounds: number, confidence: number, power = 0.95): number {
  if (!(spread >= 0) || rounds < 1) return Number.NaN;
  const z = probit(1 - (1 - confidence) / 2) + probit(power);
  return Math.expm1((z * spread) / Math.sqrt(rounds) / Math.sqrt(0.955));
}

/**
 * What an interval itself resolves: the change beyond the budget whose regression bound clears it with the given
 * power if the rounds spread as this interval says (its half-width on the log scale, h, read at one-sided error
 * `alpha`: a loss h beyond the budget clears it half the time, h · (z_α + z_power) / z_α with that power). Checks
 * `resolvableChange` against the interval beside it: never smaller than the half-width a reader sees.
 */
export function resolvableFromInterval(change: { low: number; high: number }, alpha: number, power = 0.95): number {
  if (!(change.low > -1 && change.high > -1 && alpha > 0 && alpha < 0.5)) return Number.NaN;
  const half = (Math.log1p(change.high) - Math.log1p(change.low)) / 2;
  const z = probit(1 - alpha);
  return Math.expm1((half * (z + probit(power))) / z);
}

/** Rounds needed to resolve `change` (relative) with this spread: the inverse of resolvableChange. */
export function roundsToResolve(spread: number, change: number, confidence: number, power = 0.95): number {
  const z = probit(1 - (1 - confidence) / 2) + probit(power);
  return Math.ceil(((z * spread) / Math.log1p(change)) ** 2 / 0.955);
}

/**
 * Student's t quantile for `df` degrees of freedom, by the Cornish–Fisher expansion of the normal quantile
 * (Abramowitz & Stegun 26.7.5, to the 1/df⁴ term; simple-statistics' probit for z): within 0.5% of the table from
 * 4 degrees of freedom on (5 rounds, the fewest a confirmation reads), which is all a size needs. Written here:
 * simple-statistics has no t quantile (early.ts has the exact one for 2).
 */
export function tQuantile(p: number, df: number): number {
  const z = probit(p);
  const [z3, z5, z7, z9] = [z ** 3, z ** 5, z ** 7, z ** 9];
  const terms = [
    (z3 + z) / 4,
    (5 * z5 + 16 * z3 + 3 * z) / 96,
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384,
    (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160,
  ];
  return terms.reduce((t, term, i) => t + term / df ** (i + 1), z);
}

/**
 * How many fresh rounds a confirmation needs to show again the loss the first group measured: the fewest
 * whose interval at `confidence` would clear the budget with the given power, if the fresh rounds spread as
 * the first group's did around its estimate ((t_{n−1} + z_power) · σ / √(0.955 n) ≤ the estimate's distance
 * beyond the budget, t at the error the signed-rank bound of n rounds really has), and at least the fewest whose
 * signed-rank interval reaches `confidence` at all. The power is nominal: the exact bound of 5 rounds (their
 * largest) reaches about 82% where the formula says 90%, which costs time (the group goes on), not a verdict. The
 * first group's estimate of a loss it found is more often too large than too small, so this is a first
 * size, never the last word: a fresh group that does not show the loss goes on to the first group's size
 * (`full`), as large as it was before there was a first size. `full` too when the first group has no loss
 * beyond the budget to size from.
 */
export function roundsToConfirm(logRatios: readonly number[], budget: number, confidence: number, full: number, power = 0.9): number {
  const least = minimumRounds(confidence);
  if (full <= least || logRatios.length < 3 || !logRatios.every(Number.isFinite) || !(budget < 1)) return full;
  const estimate = median([...logRatios]);
  const distance = Math.log1p(-budget) - estimate;
  const spread = roundSpread(logRatios);
  if (!(distance > 0) || !(spread >= 0)) return full;
  const zPower = probit(power);
  // The exact interval's bound is at the error its ranks reach (a step at or below the asked one): few rounds are
  // read at a higher level than asked, which the size must pay for (6 rounds at 95% reach 96.9%).
  for (let n = least; n < full; n++) {
    const error = achievedAlpha((1 - confidence) / 2, n);
    if (((tQuantile(1 - error, n - 1) + zPower) * spread) / Math.sqrt(0.955 * n) <= distance) return n;
  }
  return full;
}
