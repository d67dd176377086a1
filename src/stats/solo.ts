/**
 * The solo check's statistics: each revision measured alone in fresh processes (as production runs one
 * revision), so base's and head's figures are two independent samples, not pairs. The change is the
 * Hodges–Lehmann estimate of the shift of ln(ops/s), with the distribution-free interval of the Mann–Whitney
 * test (written here: simple-statistics has the test's statistic but not this interval), which holds when a
 * revision's processes fall on a few speed levels, where a mean and SD would not. Levels are found with
 * simple-statistics' ckmeans (optimal one-dimensional k-means).
 */
import { ckmeans, median, probit, sampleStandardDeviation } from 'simple-statistics';

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
}

/**
 * The change of ops/s from head's processes against base's: the median of all pairwise differences of
 * ln(ops/s), and the order statistics of those differences that the Mann–Whitney U's normal approximation puts
 * at the interval's ends (Hollander & Wolfe, "Nonparametric Statistical Methods", 4.3).
 */
export function soloChange(base: readonly number[], head: readonly number[], confidence = 0.95): SoloChange | undefined {
  const b = base.filter((x) => x > 0).map(Math.log);
  const h = head.filter((x) => x > 0).map(Math.log);
  if (b.length < 2 || h.length < 2) return undefined;
  const differences = b.flatMap((x) => h.map((y) => y - x)).sort((x, y) => x - y);
  const n = b.length;
  const m = h.length;
  const z = probit(1 - (1 - confidence) / 2);
  const k = Math.max(0, Math.floor((n * m) / 2 - z * Math.sqrt((n * m * (n + m + 1)) / 12)));
  return {
    estimate: Math.expm1(median(differences)),
    low: Math.expm1(differences[k]!),
    high: Math.expm1(differences[differences.length - 1 - k]!),
    confidence,
  };
}

/** The least gap between two levels, relative (ln ops/s): closer speeds are one level's spread. */
const LEVEL_GAP = 0.05;
/** How far apart, in the levels' own SDs, two levels must be: levels, not one spread cut in two. */
const LEVEL_SEPARATION = 4;

/**
 * Whether a revision's per-process figures sit on 2 or 3 speeds rather than spread around one: the best split
 * into 2 (or 3) groups by ckmeans, kept when every group holds at least 2 processes and a sixth of them, and
 * each neighbouring pair of groups lies at least LEVEL_GAP and LEVEL_SEPARATION pooled SDs apart.
 */
export function processLevels(opsPerSec: readonly number[]): ProcessLevels | undefined {
  const logs = opsPerSec.filter((x) => x > 0).map(Math.log);
  if (logs.length < 6) return undefined;
  let found: number[][] | undefined;
  for (const k of [2, 3]) {
    if (logs.length < 2 * k) break;
    const groups = ckmeans(logs, k);
    if (groups.every((g) => g.length >= Math.max(2, logs.length / 6)) && separated(groups)) found = groups;
  }
  if (!found) return undefined;
  return { levels: found.map((g) => ({ opsPerSec: Math.exp(median(g)), processes: g.length })) };
}

function separated(groups: number[][]): boolean {
  const spread = (g: number[]) => (g.length >= 2 ? sampleStandardDeviation(g) : 0);
  for (let i = 1; i < groups.length; i++) {
    const [a, b] = [groups[i - 1]!, groups[i]!];
    const gap = median(b) - median(a);
    const pooled = Math.sqrt((spread(a) ** 2 + spread(b) ** 2) / 2);
    if (gap < LEVEL_GAP || gap < LEVEL_SEPARATION * pooled) return false;
  }
  return true;
}
