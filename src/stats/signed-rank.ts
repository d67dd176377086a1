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
  const n = values.length;
  if (n === 0) throw new RangeError('hodgesLehmann needs at least one value');
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must lie in (0, 1), got ${confidence}`);
  const walsh = walshAverages(values);
  const alpha = 1 - confidence;
  let qu = qsignrank(alpha / 2, n);
  if (qu === 0) qu = 1;
  const ql = (n * (n + 1)) / 2 - qu;
  const achievedAlpha = 2 * psignrank(qu - 1, n);
  return {
    estimate: medianSorted(walsh),
    low: walsh[qu - 1]!,
    high: walsh[ql]!,
    achievedConfidence: 1 - Math.min(1, achievedAlpha),
  };
}

/** The fewest rounds whose exact signed-rank interval can reach the given confidence at all. */
export function minimumRounds(confidence: number): number {
  // The widest interval, [min, max], has confidence 1 - 2 / 2^n.
  const alpha = 1 - confidence;
  return Math.max(2, Math.ceil(1 + Math.log2(1 / alpha)));
}
