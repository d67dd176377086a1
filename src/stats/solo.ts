/**
 * The solo check's statistics: each revision measured alone in fresh processes (as production runs one
 * revision), so base's and head's figures are two independent samples, not pairs. The change is the
 * Hodges–Lehmann estimate of the shift of ln(ops/s), with the distribution-free interval of the Mann–Whitney
 * test (written here: simple-statistics has the test's statistic but not this interval), which holds when a
 * revision's processes fall on a few speed levels, where a mean and SD would not. Levels are found with
 * simple-statistics' ckmeans (optimal one-dimensional k-means).
 */
import { median, probit, sampleStandardDeviation } from 'simple-statistics';
import { groupsOf } from './mixture.js';

export interface SoloChange {
  /** Relative change of ops/s, head against base, with its interval at `confidence`. */
  estimate: number;
  low: number;
  high: number;
  confidence: number;
}

/** Speeds a revision's fresh processes settle on, when they are levels and not spread. */
export interface ProcessLevels {
  /** Each level's median ops/s, slowest first, and how many processes sat on it. */
  levels: { opsPerSec: number; processes: number }[];
  /** A compare's own rounds: the two levels are the two task orders the rounds alternate, each order's ops/s. */
  byOrder?: { declared: number; reversed: number };
}

/**
 * The change of ops/s from head's processes against base's: the median of all pairwise differences of
 * ln(ops/s), and the order statistics of those differences at the interval's ends, C-th from each end where C - 1
 * is the largest u with P(U <= u) <= alpha/2 under the Mann–Whitney U's exact null distribution (Hollander &
 * Wolfe, "Nonparametric Statistical Methods", 4.3; the same interval as R's wilcox.test(conf.int = TRUE)).
 */
export function soloChange(base: readonly number[], head: readonly number[], confidence = 0.95): SoloChange | undefined {
  const b = base.filter((x) => x > 0 && Number.isFinite(x)).map(Math.log);
  const h = head.filter((x) => x > 0 && Number.isFinite(x)).map(Math.log);
  if (b.length < 2 || h.length < 2) return undefined;
  const differences = b.flatMap((x) => h.map((y) => y - x)).sort((x, y) => x - y);
  const c = Math.max(1, criticalCount(b.length, h.length, (1 - confidence) / 2));
  return {
    estimate: Math.expm1(median(differences)),
    low: Math.expm1(differences[c - 1]!),
    high: Math.expm1(differences[differences.length - c]!),
    confidence,
  };
}

/** The largest products n·m whose exact distribution is computed (48 processes a revision); beyond, the normal approximation. */
const EXACT_PRODUCT = 48 * 48;

/** C: one more than the largest u with P(U <= u) <= tail, for the Mann–Whitney U of samples of n and m (0 when none is). */
function criticalCount(n: number, m: number, tail: number): number {
  if (n * m > EXACT_PRODUCT) {
    const z = probit(1 - tail);
    return Math.floor((n * m) / 2 - z * Math.sqrt((n * m * (n + m + 1)) / 12));
  }
  const cdf = uDistribution(n, m);
  let total = 0;
  let u = 0;
  for (; u < cdf.length; u++) {
    total += cdf[u]!;
    if (total > tail) break;
  }
  return u;
}

/**
 * P(U = u) for u = 0..n·m under the null hypothesis, by the recurrence p(i, j, u) = i/(i+j) p(i-1, j, u-j) +
 * j/(i+j) p(i, j-1, u): the last of the i + j ranked values is from the first sample (adding j to U) or not.
 */
function uDistribution(n: number, m: number): number[] {
  // row[j] holds p(i, j, ·) for the current i.
  let row: number[][] = Array.from({ length: m + 1 }, () => [1]);
  for (let i = 1; i <= n; i++) {
    const next: number[][] = [[1]];
    for (let j = 1; j <= m; j++) {
      const p = new Array<number>(i * j + 1).fill(0);
      const fromFirst = row[j]!;
      const fromSecond = next[j - 1]!;
      for (let u = 0; u <= i * j; u++) p[u] = (i / (i + j)) * (u >= j ? (fromFirst[u - j] ?? 0) : 0) + (j / (i + j)) * (fromSecond[u] ?? 0);
      next.push(p);
    }
    row = next;
  }
  return row[m]!;
}

/** The least gap between two levels, relative (ln ops/s): closer speeds are one level's spread. */
const LEVEL_GAP = 0.05;
/**
 * How far apart neighbouring levels must be, in the SD within the groups (pooled over all of them): calibrated by
 * simulation (test/unit/solo.test.ts) so that one log-normal spread of 10 to 24 processes, 3% to 10% wide, is
 * called levels in under 2% of draws, while two levels 15% apart with 2% spread each are found nearly always.
 */
const LEVEL_SEPARATION = 6;

/**
 * Where a revision's two levels are the two task orders the rounds alternate (`reversed(i)` of round i, the i-th
 * figure): every round of one order nearest one level, every round of the other nearest the other, at least 3 rounds
 * of each (at fewer, process levels would fall on the orders' pattern by chance too often), each order's speed. Then
 * the speed follows the tasks run before it in the process (a shared function a neighbour made polymorphic), not the process.
 */
export function levelsFollowOrder(
  opsPerSec: readonly number[],
  levels: ProcessLevels,
  reversed: (round: number) => boolean,
): { declared: number; reversed: number } | undefined {
  if (levels.levels.length !== 2) return undefined;
  const logs = levels.levels.map((level) => Math.log(level.opsPerSec));
  const nearest = (ops: number) => (Math.abs(Math.log(ops) - logs[0]!) <= Math.abs(Math.log(ops) - logs[1]!) ? 0 : 1);
  const seen = { declared: [] as number[], reversed: [] as number[] };
  opsPerSec.forEach((ops, round) => {
    if (ops > 0 && Number.isFinite(ops)) seen[reversed(round) ? 'reversed' : 'declared'].push(nearest(ops));
  });
  const [declared, backwards] = [new Set(seen.declared), new Set(seen.reversed)];
  if (seen.declared.length < 3 || seen.reversed.length < 3 || declared.size !== 1 || backwards.size !== 1) return undefined;
  const [d, r] = [[...declared][0]!, [...backwards][0]!];
  return d === r ? undefined : { declared: levels.levels[d]!.opsPerSec, reversed: levels.levels[r]!.opsPerSec };
}

/**
 * Whether a revision's per-process figures sit on 2 or 3 speeds rather than spread around one: the best split
 * into 2 (or 3) groups by ckmeans, kept when every group holds at least 2 processes and a sixth of them, and
 * each neighbouring pair of groups lies at least LEVEL_GAP and LEVEL_SEPARATION pooled SDs apart (mixture.ts groupsOf).
 */
export function processLevels(opsPerSec: readonly number[]): ProcessLevels | undefined {
  const logs = opsPerSec.filter((x) => x > 0 && Number.isFinite(x)).map(Math.log);
  const found = groupsOf(logs, {
    least: 6,
    smallest: (n) => Math.max(2, n / 6),
    gap: LEVEL_GAP,
    separation: LEVEL_SEPARATION,
    spread: (g) => sampleStandardDeviation(g),
  });
  if (!found) return undefined;
  return { levels: found.map((g) => ({ opsPerSec: Math.exp(median(g)), processes: g.length })) };
}

/** Whether round `round` (0-based) runs its tasks in reverse: rounds 2 and 3 of every 4. */
export const reversedAt = (round: number): boolean => Math.floor(round / 2) % 2 === 1;

/**
 * The speed levels of a revision's figures, the i-th round i's (a compare's rounds or the solo check's processes, both
 * alternating the task order by reversedAt), with each order's speed where the two levels are the two orders.
 */
export function roundLevels(opsPerSec: readonly number[]): ProcessLevels | undefined {
  const levels = processLevels(opsPerSec);
  const byOrder = levels && levelsFollowOrder(opsPerSec, levels, reversedAt);
  return levels && byOrder ? { ...levels, byOrder } : levels;
}
