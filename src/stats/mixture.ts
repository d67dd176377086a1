/**
 * Rounds whose changes fall in groups: a change that is one size in some processes and another in others (JIT
 * tiers, inlining decisions and GC timing settle per process, so a revision's code can run at a few speed levels,
 * and the change between two revisions with it). The median of such a mixture is no change any process had, and a
 * signed-rank interval over it assumes one distribution symmetric about one centre: it can lie wholly inside one
 * group and call that confident (uuid's v4 at 14 rounds near 0% and 20 near +130% read "+54.4% [+42.5%, +135.8%]").
 * So the groups are found in every figure's rounds (simple-statistics' ckmeans, optimal 1-D k-means, then the tests
 * below, written here: no package has a mixture test for 6 to 80 points), and a figure whose rounds fall in groups
 * is bounded over all of them: its interval is widened to hold each group's own interval, and a verdict stands only
 * if it holds for every group.
 */
import quantile from '@stdlib/stats-base-dists-t-quantile';
import cdf from '@stdlib/stats-base-dists-t-cdf';
import { ckmeans, mean, median, medianAbsoluteDeviation, sampleStandardDeviation } from 'simple-statistics';
import { achievedAlpha, hodgesLehmannBounds } from './signed-rank.js';
import { regressionNominalP, type Change } from './compare.js';

/** One group of rounds: its median change (relative) and how many rounds fell in it. */
export interface RoundGroup {
  change: number;
  rounds: number;
}

/** The fewest rounds in which groups are looked for. */
const LEAST_ROUNDS = 8;
/** The least gap between neighbouring groups' medians (ln): closer groups are one group's spread. */
const LEAST_GAP = 0.03;
/**
 * How far apart neighbouring groups' medians must be, in robust SDs within the groups (1.4826 MAD, pooled).
 * Calibrated by simulation (test/unit/mixture.test.ts): a normal or t(3) spread of 8 to 40 rounds is split in at
 * most 6% of draws at 8-10 rounds and under 2.5% from 16 on (a split only widens an interval: no false verdict can
 * come of it), while a uuid-like mixture (40% near 0, 60% near +130%) is found in every draw of 35 rounds and a
 * hapi-like one (69% near +5.5%, 31% near +22%, 2-2.5% spread) in about two of three draws of 16.
 */
const SEPARATION = 6;

/** How groups are told from one spread: each caller's calibration (its own tests). */
export interface GroupRule {
  /** The fewest values in which groups are looked for. */
  least: number;
  /** The fewest values a group must hold, of n. */
  smallest: (n: number) => number;
  /** The least gap between neighbouring groups' medians (ln). */
  gap: number;
  /** How far apart neighbouring medians must be, in the within-group spread pooled over every group. */
  separation: number;
  /** A group's spread (an SD, or a robust one). */
  spread: (values: number[]) => number;
}

/**
 * The groups a list of values (ln) falls in, lowest first, when they are groups and not one spread: the best split
 * into 2 (or 3) by ckmeans, kept when every group holds `smallest` values and each neighbouring pair of medians lies
 * at least `gap` and `separation` pooled spreads apart. Undefined when they are one spread (or too few, or not all
 * finite). The solo check's speed levels (solo.ts) and a figure's rounds (below) are read by it.
 */
export function groupsOf(values: readonly number[], rule: GroupRule): number[][] | undefined {
  const n = values.length;
  if (n < rule.least || !values.every(Number.isFinite)) return undefined;
  const smallest = rule.smallest(n);
  let found: number[][] | undefined;
  for (const k of [2, 3]) {
    if (n < k * smallest) break;
    const groups = split(values, k, smallest);
    if (groups && apart(groups, rule)) found = groups;
  }
  return found;
}

/**
 * The best split into k groups that each hold `smallest` values. A value or two far out at either end (one wild
 * process) takes a cluster of ckmeans's own and hides the groups: uuid's forward compare, rounds near 0% and near
 * −57% with one at −94%, was split {−94%} and everything else. So where the plain split leaves a group too small,
 * the values are split into k + 1 and a too-small cluster at an end joins its neighbour; `apart`'s robust spread
 * then reads that group without the wild value.
 */
function split(values: readonly number[], k: number, smallest: number): number[][] | undefined {
  const enough = (groups: number[][]) => groups.length === k && groups.every((g) => g.length >= smallest);
  const plain = ckmeans([...values], k);
  if (enough(plain)) return plain;
  const more = ckmeans([...values], k + 1);
  if (more.length !== k + 1) return undefined;
  if (more[0]!.length < smallest) more.splice(0, 2, [...more[0]!, ...more[1]!]);
  else if (more[k]!.length < smallest) more.splice(k - 1, 2, [...more[k - 1]!, ...more[k]!]);
  return enough(more) ? more : undefined;
}

/** A figure's rounds: from 8, groups of at least 3 and an eighth, 3% and 6 robust SDs apart (calibration above). */
const ROUNDS: GroupRule = {
  least: LEAST_ROUNDS,
  smallest: (n) => Math.max(3, Math.ceil(n / 8)),
  gap: LEAST_GAP,
  separation: SEPARATION,
  spread: robustSd,
};

/** The groups a figure's rounds (ln ratios) fall in, slowest first (groupsOf with ROUNDS), or undefined. */
export function roundGroups(logRatios: readonly number[]): number[][] | undefined {
  return groupsOf(logRatios, ROUNDS);
}

function robustSd(values: number[]): number {
  const mad = 1.4826 * medianAbsoluteDeviation(values);
  return mad > 0 ? mad : sampleStandardDeviation(values);
}

function apart(groups: number[][], rule: GroupRule): boolean {
  const within = pooled(groups, rule.spread);
  for (let i = 1; i < groups.length; i++) {
    const gap = median(groups[i]!) - median(groups[i - 1]!);
    if (gap < rule.gap || gap < rule.separation * within) return false;
  }
  return true;
}

/** A figure's rounds as groups for the report: each group's median change and size. */
export function describeGroups(groups: readonly number[][]): RoundGroup[] {
  return groups.map((g) => ({ change: Math.expm1(median(g)), rounds: g.length }));
}

/**
 * Below this many rounds a group is bounded by Student's t, not by its signed-rank interval: a signed-rank bound of
 * m rounds holds at 2^-m at best (its extreme round), so a group of 6 rounds, all of them at -57% against a 25%
 * budget, could never bound a regression at a share of 0.25%, and the row read `inconclusive` beside an interval
 * [-64.6%, -56.3%] wholly beyond the budget (fixtures/isolate-state on Node 24, a clean-clone CI run). A location
 * test needs a scale for that: the group's own spread, and never less than the spread within the groups pooled over
 * all of them (a cluster's own spread is cut short by its edges), with the group's own m - 1 degrees of freedom
 * (where no group has any spread, rounds that repeat exactly, there is no scale to test with, and the signed-rank bound
 * stands). From 20 rounds the signed-rank interval reaches (2^-20, about 1e-6, is below the error a look at 20 to 40
 * rounds leaves a family of 1,000 figures at 95%; 12 was not: at 20 rounds a look's weight leaves a family of 144 about
 * 2e-5, which 12 to 15 rounds cannot reach).
 */
const T_BELOW = 20;
/** A standard error this small (ln) is rounds that repeat exactly, up to floating point. */
const NO_SPREAD = 1e-9;

/**
 * The spread within the groups, pooled over them by their degrees of freedom (each group's `spread`, squared, weighted
 * by its rounds less one), or 0 where no group has two rounds: how far apart groups are (apart) and a small group's
 * scale (tTerms).
 */
function pooled(groups: readonly (readonly number[])[], spread: (values: number[]) => number): number {
  const df = groups.reduce((sum, g) => sum + g.length - 1, 0);
  if (df <= 0) return 0;
  return Math.sqrt(groups.reduce((sum, g) => sum + (g.length > 1 ? (g.length - 1) * spread([...g]) ** 2 : 0), 0) / df);
}

/** A small group's mean, standard error and degrees of freedom for Student's t (T_BELOW), given the pooled SD. */
function tTerms(g: readonly number[], pooledSd: number): { centre: number; se: number; df: number } {
  const own = g.length > 1 ? sampleStandardDeviation([...g]) : 0;
  return { centre: mean([...g]), se: Math.max(own, pooledSd) / Math.sqrt(g.length), df: Math.max(1, g.length - 1) };
}

/** A group's one-sided bound (ln) at error alpha: Student's t below T_BELOW rounds, else its signed-rank bound. */
function groupBound(g: readonly number[], pooledSd: number, alpha: number, which: 'low' | 'high'): { bound: number; short: number } {
  const { centre, se, df } = tTerms(g, pooledSd);
  // No spread within any group (rounds that repeat exactly): no scale to test with, so the signed-rank bound stands.
  if (g.length < T_BELOW && se > NO_SPREAD) {
    const t = quantile(1 - alpha, df);
    return { bound: which === 'low' ? centre - t * se : centre + t * se, short: 0 };
  }
  const reached = achievedAlpha(alpha, g.length);
  if (reached > alpha) return { bound: which === 'low' ? Math.min(...g) : Math.max(...g), short: reached - alpha };
  return { bound: hodgesLehmannBounds(g, alpha, alpha)[which], short: 0 };
}

/**
 * One group's p-value of "throughput fell by no more than the budget" (latency: "rose by no more"), by the same test
 * its bound uses (groupBound), so a bound beyond the budget at alpha and a p-value below alpha agree: Student's t
 * below T_BELOW rounds, else the signed-rank test (regressionNominalP).
 */
export function groupRegressionP(g: readonly number[], groups: readonly number[][], budget: number, lowerIsBetter = false): number {
  const { centre, se, df } = tTerms(g, pooled(groups, sampleStandardDeviation));
  if (g.length >= T_BELOW || se <= NO_SPREAD) return regressionNominalP(g, budget, lowerIsBetter);
  if (!lowerIsBetter && budget >= 1) return 1;
  const limit = lowerIsBetter ? Math.log1p(budget) : Math.log1p(-budget);
  const t = (centre - limit) / se;
  return lowerIsBetter ? 1 - cdf(t, df) : cdf(t, df);
}

/**
 * The interval that holds every group: from the lowest group's lower bound to the highest group's upper bound,
 * each group's bound one-sided at the same error as the figure's (groupBound: Student's t for a group of fewer than
 * T_BELOW rounds, else its own signed-rank bound, and its extreme round where even that many cannot reach the error,
 * when no verdict resting on that bound is read), and never narrower than the figure's own interval. The estimate
 * stays the figure's own (what the rounds measured together); the verdict is read from the bounds.
 */
export function holdGroups(change: Change, groups: readonly number[][], lowerAlpha: number, upperAlpha: number): Change {
  // A bound a group cannot reach at its error leaves no verdict resting on it (compare.ts decide: `unsure`), as its
  // p-value for Holm cannot reach the share either. Only a side an unreached group sets counts: a group of gains that
  // cannot reach its level does not weaken the bound below the others.
  const within = pooled(groups, sampleStandardDeviation);
  const side = (which: 'low' | 'high') => {
    const alpha = which === 'low' ? lowerAlpha : upperAlpha;
    let value = which === 'low' ? change.low : change.high;
    let short = 0;
    for (const g of groups) {
      const { bound, short: missed } = groupBound(g, within, alpha, which);
      const at = Math.expm1(bound);
      if (which === 'low' ? at < value : at > value) [value, short] = [at, missed];
    }
    return { value, short };
  };
  const low = side('low');
  const high = side('high');
  const unsure = { ...(low.short > 0 ? { low: true } : {}), ...(high.short > 0 ? { high: true } : {}) };
  return { ...change, low: low.value, high: high.value, ...(low.short > 0 || high.short > 0 ? { unsure } : {}) };
}

/** "in 14 of 35 rounds −2.1%, in 21 +130%". */
export function groupsText(groups: readonly RoundGroup[], format: (x: number) => string): string {
  const total = groups.reduce((sum, g) => sum + g.rounds, 0);
  return groups.map((g, i) => `in ${g.rounds}${i === 0 ? ` of ${total}` : ''} rounds ${format(g.change)}`).join(', ');
}
