import { medianAbsoluteDeviation, probit, sampleStandardDeviation } from 'simple-statistics';

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

/** Rounds needed to resolve `change` (relative) with this spread: the inverse of resolvableChange. */
export function roundsToResolve(spread: number, change: number, confidence: number, power = 0.95): number {
  const z = probit(1 - (1 - confidence) / 2) + probit(power);
  return Math.ceil(((z * spread) / Math.log1p(change)) ** 2 / 0.955);
}
