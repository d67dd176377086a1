import { errorFunction, medianSorted, probit } from 'simple-statistics';

/**
 * Wilcoxon signed-rank machinery for one sample of paired differences
 * (here: per-round log ratios head/base). simple-statistics has quantiles and
 * the rank-sum test but not the signed-rank distribution, so this file holds
 * the hand-written parts, each checked against R in test/reference/.
 */

/** Above this many rounds the exact distribution is replaced by its normal approximation. */
const EXACT_LIMIT = 400;

const cdfCache = new Map<number, Float64Array>();

/**
 * Exact null CDF of the signed-rank statistic T+ for n untied observations:
 * P(T+ <= k) for k = 0..n(n+1)/2. Counting recursion over subsets of ranks
 * (Hollander & Wolfe, Nonparametric Statistical Methods, 3rd ed., §3.1),
 * kept as probabilities (halved each step) so n in the hundreds does not overflow.
 */
export function signedRankCdf(n: number): Float64Array {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`signedRankCdf needs a positive integer n, got ${n}`);
  const cached = cdfCache.get(n);
  if (cached) return cached;
  const max = (n * (n + 1)) / 2;
  let pmf = new Float64Array(max + 1);
  pmf[0] = 1;
  for (let rank = 1; rank <= n; rank++) {
    const next = new Float64Array(max + 1);
    const top = (rank * (rank + 1)) / 2;
    for (let k = 0; k <= top; k++) {
      const without = pmf[k]!;
      const withRank = k >= rank ? pmf[k - rank]! : 0;
      next[k] = (without + withRank) / 2;
    }
    pmf = next;
  }
  const cdf = new Float64Array(max + 1);
  let sum = 0;
  for (let k = 0; k <= max; k++) {
    sum += pmf[k]!;
    cdf[k] = Math.min(1, sum);
  }
  cdfCache.set(n, cdf);
  return cdf;
}

/** P(T+ <= k), exact for n <= EXACT_LIMIT, normal approximation with continuity correction above. */
export function psignrank(k: number, n: number): number {
  const max = (n * (n + 1)) / 2;
  if (k < 0) return 0;
  if (k >= max) return 1;
  if (n <= EXACT_LIMIT) return signedRankCdf(n)[Math.floor(k)]!;
  const mean = max / 2;
  const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24);
  return normalCdf((Math.floor(k) + 0.5 - mean) / sd);
}

/** Smallest k with P(T+ <= k) >= p: the same definition as R's qsignrank. */
export function qsignrank(p: number, n: number): number {
  const max = (n * (n + 1)) / 2;
  if (n <= EXACT_LIMIT) {
    const cdf = signedRankCdf(n);
    // A relative tolerance like R's (fuzz 1e-7) so p landing exactly on a step is not pushed up by rounding.
    const target = p * (1 - 64 * Number.EPSILON);
    for (let k = 0; k <= max; k++) if (cdf[k]! >= target) return k;
    return max;
  }
  const mean = max / 2;
  const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24);
  return Math.max(0, Math.min(max, Math.ceil(mean + probit(p) * sd - 0.5)));
}

function normalCdf(z: number): number {
  return 0.5 * (1 + errorFunction(z / Math.SQRT2));
}

/** Sorted Walsh averages (x_i + x_j) / 2 for i <= j. */
export function walshAverages(values: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) {
    for (let j = i; j < values.length; j++) out.push((values[i]! + values[j]!) / 2);
  }
  return out.sort((a, b) => a - b);
}

export interface LocationInterval {
  /** Hodges–Lehmann estimate: the median of the Walsh averages. */
  estimate: number;
  low: number;
  high: number;
  /** The confidence the interval really has (exact ranks come in steps). */
  achievedConfidence: number;
}

/**
 * Hodges–Lehmann estimate of the centre of a symmetric distribution with the
 * distribution-free confidence interval that inverts the signed-rank test
 * (Hollander & Wolfe §3.3; same steps as R's wilcox.test(conf.int = TRUE, exact = TRUE)).
 */
export function hodgesLehmann(values: readonly number[], confidence: number): LocationInterval {
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must lie in (0, 1), got ${confidence}`);
  const alpha = 1 - confidence;
  return hodgesLehmannBounds(values, alpha / 2, alpha / 2);
}

/**
 * The same estimate with each bound one-sided at its own error: the lower bound holds with
 * 1 - lowerAlpha, the upper with 1 - upperAlpha (each is the one-sided signed-rank test inverted,
 * Hollander & Wolfe §3.3), so the interval holds with 1 - lowerAlpha - upperAlpha.
 */
export function hodgesLehmannBounds(values: readonly number[], lowerAlpha: number, upperAlpha: number): LocationInterval {
  const n = values.length;
  if (n === 0) throw new RangeError('hodgesLehmann needs at least one value');
  for (const a of [lowerAlpha, upperAlpha])
    if (!(a > 0 && a < 0.5)) throw new RangeError(`a one-sided error must lie in (0, 0.5), got ${a}`);
  const walsh = walshAverages(values);
  const max = (n * (n + 1)) / 2;
  // The k-th smallest Walsh average is a lower bound at 1 - P(T+ <= k - 1); the k-th largest an upper one.
  const lower = boundRank(lowerAlpha, n);
  const upper = boundRank(upperAlpha, n);
  const missed = (rank: number, asked: number) => {
    const achieved = psignrank(rank - 1, n);
    return { achieved, short: Math.max(0, achieved - asked) };
  };
  const low = missed(lower, lowerAlpha);
  const high = missed(upper, upperAlpha);
  const achievedAlpha = low.achieved + high.achieved;
  return {
    estimate: medianSorted(walsh),
    low: walsh[lower - 1]!,
    high: walsh[max - upper]!,
    // A bound that cannot reach its level (too few rounds) leaves the interval short by what it misses.
    achievedConfidence:
      low.short + high.short > 0
        ? Math.min(1 - achievedAlpha, 1 - lowerAlpha - upperAlpha - low.short - high.short)
        : 1 - Math.min(1, achievedAlpha),
  };
}

/** The one-sided error the signed-rank bound of n rounds really has when `alpha` is asked (ranks come in steps: at most alpha, once reachable). */
export function achievedAlpha(alpha: number, n: number): number {
  return psignrank(boundRank(alpha, n) - 1, n);
}

/** The rank of the Walsh average that bounds at one-sided error alpha (the widest, rank 1, when none reaches it). */
function boundRank(alpha: number, n: number): number {
  const rank = qsignrank(alpha, n);
  return rank === 0 ? 1 : rank;
}

/**
 * One-sided exact signed-rank p-value against a shifted centre: for 'below', H1 is "the centre lies
 * below `centre`", and the p-value is P(T+ <= #{Walsh averages >= centre}) (Hollander & Wolfe §3.1,
 * T+ counted through the Walsh averages, §3.2); 'above' mirrors it. Rejecting at alpha when p < alpha
 * is the same as the one-sided bound of hodgesLehmannBounds at alpha lying beyond `centre`.
 */
export function signedRankP(values: readonly number[], centre: number, side: 'below' | 'above'): number {
  const n = values.length;
  if (n === 0) return 1;
  const walsh = walshAverages(values);
  const against = side === 'below' ? walsh.filter((w) => w >= centre).length : walsh.filter((w) => w <= centre).length;
  return psignrank(against, n);
}

/** The fewest rounds whose exact signed-rank interval can reach the given confidence at all. */
export function minimumRounds(confidence: number): number {
  // The widest interval, [min, max], has confidence 1 - 2 / 2^n.
  const alpha = 1 - confidence;
  return Math.max(2, Math.ceil(1 + Math.log2(1 / alpha)));
}
