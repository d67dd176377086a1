import { mean, sampleVariance } from 'simple-statistics';

/**
 * Variance components of a nested experiment, and the repetition counts that make its mean the most precise for
 * the time spent: Kalibera & Jones, "Rigorous benchmarking in reasonable time" (ISMM 2013), sections 3-4.
 * simple-statistics has the sample variance but not the nested estimator, so the few lines of it are here.
 *
 * A level is one kind of repetition: for an HTTP duet, pairs of server processes (the top), blocks of load
 * within a pair, windows within a block (the bottom). Measurements are nested arrays: `[pair][block]` or
 * `[pair][block][window]`, every leaf a number (ln(head / base) here).
 */
export type Nested = number | readonly Nested[];

export interface Components {
  /** The grand mean: the mean of the top level's group means. */
  mean: number;
  /**
   * The unbiased variance each level adds, bottom first (K&J's T²_i): [0] is the bottom level's own variance,
   * [levels - 1] the top's (between pairs). Clamped at 0: a level whose estimate is negative adds nothing seen.
   */
  variances: number[];
  /** The biased per-level variances K&J call S²_i, bottom first: what each level's group means spread. */
  spreads: number[];
  /** The mean number of repetitions at each level below the top, bottom first (K&J's n_i). */
  repetitions: number[];
}

/**
 * The variance components of a nested experiment (K&J's T²_i from S²_i: T²_1 = S²_1, T²_i = S²_i − S²_{i−1} / n_{i−1}).
 * Groups at a level may differ a little in size (a block left out of a pair): n_i is then their mean, as an
 * approximation. A level whose groups hold fewer than two repetitions has no spread to read: its S² is NaN.
 */
export function varianceComponents(data: readonly Nested[]): Components {
  const depth = levelsOf(data);
  // groups[i]: every group at level i + 1 (bottom first), each as the values of its children (their means above the bottom).
  const groups: number[][][] = Array.from({ length: depth }, () => []);
  const walk = (node: readonly Nested[], level: number): number => {
    const values = node.map((child) => (typeof child === 'number' ? child : walk(child, level - 1)));
    groups[level - 1]!.push(values);
    return mean(values);
  };
  const grand = walk(data, depth);
  const spreads = groups.map((level) => {
    const withSpread = level.filter((values) => values.length >= 2);
    return withSpread.length === 0 ? NaN : mean(withSpread.map((values) => sampleVariance(values)));
  });
  const repetitions = groups.slice(0, -1).map((level) => mean(level.map((values) => values.length)));
  const variances = spreads.map((s, i) => Math.max(0, i === 0 ? s : s - spreads[i - 1]! / repetitions[i - 1]!));
  return { mean: grand, variances, spreads, repetitions };
}

function levelsOf(node: Nested): number {
  if (typeof node === 'number') return 0;
  if (node.length === 0) throw new Error('varianceComponents: an empty group');
  return 1 + levelsOf(node[0]!);
}

/**
 * How many repetitions of the lower level per repetition of the upper level make the mean the most precise for
 * the time spent (K&J's r_i = sqrt(c_upper · T²_lower / (c_lower · T²_upper))): costly upper repetitions (a slow
 * server start) and a noisy lower level call for more lower repetitions; a noisy upper level (process-to-process
 * offsets) for fewer. Infinity when the upper level adds no variance (then one upper repetition would do).
 *
 * It is the minimum of (T²_upper + T²_lower / r) · (c_upper + r · c_lower) over r, the variance of the mean times
 * the time it took, continuous in r; the caller rounds and bounds it.
 */
export function optimalRepetitions(upperCost: number, lowerCost: number, upperVariance: number, lowerVariance: number): number {
  if (!(upperCost >= 0 && lowerCost > 0 && lowerVariance >= 0 && upperVariance >= 0)) return NaN;
  if (upperVariance === 0) return lowerVariance === 0 ? 1 : Infinity;
  return Math.sqrt((upperCost * lowerVariance) / (lowerCost * upperVariance));
}

/**
 * The variance of the grand mean of one upper repetition of `r` lower ones, times its cost: what a schedule spends
 * for a given precision (smaller is better). Comparing two schedules by it compares intervals at equal time.
 */
export function costOfPrecision(upperCost: number, lowerCost: number, upperVariance: number, lowerVariance: number, r: number): number {
  return (upperVariance + lowerVariance / r) * (upperCost + r * lowerCost);
}
