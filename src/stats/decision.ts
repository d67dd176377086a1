import { resolvableChange } from './power.js';
import { minimumRounds as roundsForLevel } from './signed-rank.js';

/**
 * The decision rule of a run, in one place: how the run's false-verdict rate is shared between the
 * budgeted figures (Holm's step-down) and between the looks at each figure's data (an alpha-spending
 * function), the level of every bound, the level of a confirmation, and the rounds a look needs to
 * reach its level. Every stage that needs one of these asks the rule.
 *
 * The error budget, α = 1 - confidence, is spent one-sided:
 * - the regression side (the upper bound of a throughput interval, the lower bound of a latency one)
 *   holds the gate's promise: the chance that any budgeted figure of the run is failed on while it
 *   did not lose more than its budget is at most α;
 * - the other side (improvements, which are reported and never gated, and the "no worse than the
 *   budget" half of `unchanged`) gets its own α, shared by Bonferroni over the family and spent over
 *   the looks the same way: the chance that any real loss beyond its budget is passed as `unchanged`
 *   is at most α as well.
 */
export interface DecisionRule {
  /** The run's confidence; 1 - confidence is the one-sided error budget of each side. */
  readonly confidence: number;
  /** Looks at each figure's data (adaptive rounds): at `rounds`, then every `lookEvery`, and at `maxRounds`. */
  readonly looks: number;
  /** Rounds at which the spending reaches the whole share (information fraction 1). */
  readonly maxRounds: number;
  /**
   * The early look (Haybittle and Peto's idea): after `earlyRounds` rounds, a figure whose interval at
   * `earlyAlpha(share)` per side already lies wholly beyond (or within) its budget is decided there (src/stats/early.ts).
   */
  readonly earlyRounds: number;
  earlyAlpha(share: number): number;
  /**
   * The one-sided error a bound may spend at the look that ends after `rounds` rounds, when the
   * figure's share of the run's error is `share`: the spending function's increment since the look
   * before (a fixed fraction of the share, see `lookWeight`).
   */
  lookAlpha(rounds: number, share: number): number;
  /** The fraction of a figure's share spent at the look that ends after `rounds` rounds. */
  lookWeight(rounds: number): number;
  /**
   * The two-sided level of an interval read after `rounds` rounds (default: the last look) when
   * `figures` budgeted figures share the run, each bound at lookAlpha(rounds, alpha / figures).
   */
  intervalLevel(figures: number, rounds?: number): number;
  /**
   * The two-sided level a confirmation group is read at: each bound one-sided at 1 - confidence.
   * The first group already holds the family's rate (a regression must also pass it), and a second
   * test can only lower it; the fresh group only has to tell a real loss from a transient one.
   */
  readonly confirmationLevel: number;
  /** The fewest rounds (a look of the plan) whose bounds can reach their level when `figures` figures share the run. */
  minimumRounds(figures: number): number;
  /**
   * A figure's p-value for "it lost no more than its budget", comparable with the run's α by Holm's
   * step-down: the nominal one-sided p-value at its last look divided by that look's weight.
   */
  regressionP(nominalP: number, rounds: number): number;
  /**
   * The smallest change beyond its budget that a figure's bound catches with 95% power at the look that
   * ends after `rounds` rounds, when a round spreads `spread` (log units) and `figures` figures share
   * the run: what a run resolves (resolvableChange at the bound's level, the share not counting on
   * other figures' outcomes).
   */
  resolvable(spread: number, rounds: number, figures: number): number;
}

export interface RulePlan {
  confidence: number;
  /** Rounds before the first look. */
  rounds: number;
  /** Adaptive rounds go up to this many, a look every `lookEvery`. */
  maxRounds: number;
  lookEvery: number;
  /** The share of the error spent by information fraction t (0..1, with spending(1) = 1); default O'Brien–Fleming-like. */
  spending?: SpendingFunction;
  /** false: no early look, the planned looks spend the whole share (the rule before it: evaluate-offline compares both). */
  early?: boolean;
}

/** Cumulative fraction of a figure's error spent by information fraction t: 0 at 0, 1 at 1, nondecreasing. */
export type SpendingFunction = (t: number) => number;

/**
 * Hwang–Shih–DeCani spending (Hwang, Shih & DeCani, Stat Med 9:1439, 1990), as a fraction of α:
 * (1 - e^(-γt)) / (1 - e^(-γ)). γ = -4 spends like O'Brien & Fleming's boundary (Biometrics 35:549,
 * 1979): little at the early looks, most at the last ones.
 */
export function hwangShihDeCani(gamma: number): SpendingFunction {
  return (t) => {
    const x = Math.min(1, Math.max(0, t));
    if (x === 0 || gamma === 0) return x;
    return (1 - Math.exp(-gamma * x)) / (1 - Math.exp(-gamma));
  };
}

/**
 * The Lan–DeMets O'Brien–Fleming-type spending function for a total error α (Lan & DeMets, Biometrika
 * 70:659, 1983): α(t) = 2 - 2Φ(z_{1-α/2} / √t). For reference and comparison; the rule does not use it,
 * because its shape depends on α (see decisionRule).
 */
export function lanDeMetsObrienFleming(alpha: number, t: number): number {
  if (t <= 0) return 0;
  const z = upperNormalQuantile(alpha / 2);
  return 2 * upperNormalTail(z / Math.sqrt(Math.min(1, t)));
}

/**
 * The rule. Across looks, alpha spending (Lan & DeMets 1983) with the O'Brien–Fleming-like
 * Hwang–Shih–DeCani function (γ = -4): the look that ends after n rounds may spend
 * share × (f(n / maxRounds) - f(previous look / maxRounds)), less the early look's weight at the last look. The looks' bounds are each read at that
 * increment, and the union bound over looks (Bonferroni with unequal shares) makes their sum, at most
 * the share, the chance of any false verdict on that side of the figure, however the rounds stop and
 * whatever the correlation between looks. The sharper group-sequential boundary (solved from the joint
 * normal law of the looks' statistics) would spend more at the last look, but it assumes independent
 * rounds and a continuous statistic; this machine's consecutive processes correlate (r ≈ 0.4–0.66,
 * ../shared/data/noise) and the exact signed-rank statistic is discrete. This family, unlike the
 * Lan–DeMets O'Brien–Fleming function, spends a fixed fraction of the share at each look whatever the
 * share, so each figure's evidence is one p-value (nominal p / look weight) that Holm's step-down can
 * rank (`stepDown`); and it spends enough at the first look (3.2% of the share at 10 of 40 rounds) for
 * one benchmark's first look to stay at 10 rounds, where Lan–DeMets' 0.2% needs 15.
 */
/**
 * The early look: after EARLY_ROUNDS rounds, each side of a figure may spend EARLY_WEIGHT of its share there (less
 * when the last planned look's increment is small: at most half of it; EARLY_WEIGHT_ONE_LOOK with one planned look),
 * taken out of the last planned look's weight (the largest: 40% of the share at 10 to 40 rounds), so the union bound
 * over all looks still holds the share and the first look needs the rounds it needed.
 * 3 rounds are the fewest with a spread of their own (2 degrees of freedom).
 */
export const EARLY_ROUNDS = 3;
export const EARLY_WEIGHT = 0.2;
/** With one planned look (no adaptive rounds), the early look takes less of it: that look is all the others have. */
export const EARLY_WEIGHT_ONE_LOOK = 0.05;

export function decisionRule(plan: RulePlan): DecisionRule {
  const spending = plan.spending ?? hwangShihDeCani(-4);
  const looks = lookCount(plan.rounds, plan.maxRounds, plan.lookEvery);
  const maxRounds = Math.max(plan.rounds, plan.maxRounds);
  const grid = lookRounds(plan.rounds, plan.maxRounds, plan.lookEvery);
  const alpha = 1 - plan.confidence;
  // One look: nothing to spend across. Several: the increment since the plan's look before this one
  // (a look past the plan, when the first look had to be raised beyond maxRounds, is the only one and gets the last increment).
  const increment = (at: number) => {
    const before = grid.filter((n) => n < at).at(-1) ?? 0;
    return spending(at / maxRounds) - spending(before / maxRounds);
  };
  // The early look's weight comes out of the last planned look's, the largest (at most half of it), so the first
  // look needs no more rounds than without it; with one planned look, out of that one.
  const earlyWeight = plan.early === false ? 0 : looks === 1 ? EARLY_WEIGHT_ONE_LOOK : Math.min(EARLY_WEIGHT, increment(maxRounds) / 2);
  const lookWeight = (rounds: number) => {
    if (looks === 1) return 1 - earlyWeight;
    const at = Math.min(rounds, maxRounds);
    return increment(at) - (at >= maxRounds ? earlyWeight : 0);
  };
  const lookAlpha = (rounds: number, share: number) => share * lookWeight(rounds);
  const share = (figures: number) => alpha / Math.max(1, figures);
  const reaches = (rounds: number, figures: number) => roundsForOneSided(lookAlpha(rounds, share(figures))) <= rounds;
  return Object.freeze({
    confidence: plan.confidence,
    looks,
    maxRounds,
    // No early look: none of its rounds is ever enough.
    earlyRounds: earlyWeight > 0 ? EARLY_ROUNDS : Infinity,
    earlyAlpha: (share: number) => share * earlyWeight,
    lookAlpha,
    lookWeight,
    intervalLevel: (figures: number, rounds = maxRounds) => 1 - 2 * lookAlpha(rounds, share(figures)),
    confirmationLevel: 1 - 2 * alpha,
    minimumRounds: (figures: number) =>
      looks === 1
        ? roundsForOneSided(lookAlpha(maxRounds, share(figures)))
        : (grid.find((n) => reaches(n, figures)) ?? roundsForOneSided(lookAlpha(maxRounds, share(figures)))),
    regressionP: (nominalP: number, rounds: number) => Math.min(1, nominalP / lookWeight(rounds)),
    resolvable: (spread: number, rounds: number, figures: number) =>
      resolvableChange(spread, rounds, 1 - 2 * lookAlpha(rounds, share(figures))),
  });
}

/**
 * Holm's step-down procedure (Holm, Scand J Statist 6:65, 1979) over a family of `family` figures, of
 * which `pValues` are in view (the others, measured by another shard or not yet, count as never
 * rejected, which keeps it sound: a p-value of 1 is a valid one). The smallest p-value is compared
 * with α/family, the next with α/(family - 1), …, stopping at the first that fails; ties are ranked
 * together, as the order among equal p-values cannot change what passes. Holm rejects exactly the
 * p-values at or below α / (family - rejected), so that is the share every figure's regression bound
 * is read at: the intervals agree with the decisions.
 */
export function stepDown(pValues: readonly number[], alpha: number, family = pValues.length): { rejected: boolean[]; share: number } {
  const m = Math.max(family, pValues.length, 1);
  const sorted = pValues.map((p) => (Number.isFinite(p) ? p : 1)).sort((a, b) => a - b);
  let rejections = 0;
  while (rejections < sorted.length && sorted[rejections]! <= alpha / (m - rejections)) rejections++;
  const share = alpha / Math.max(1, m - rejections);
  return { rejected: pValues.map((p) => Number.isFinite(p) && p <= share), share };
}

/**
 * Adaptive rounds: a look after `rounds`, then every `lookEvery` rounds up to `maxRounds` (the last
 * rounds, however few, end in a look too).
 */
export function lookCount(rounds: number, maxRounds: number, lookEvery: number): number {
  return lookRounds(rounds, maxRounds, lookEvery).length;
}

/** The rounds after which the plan looks: rounds, rounds + lookEvery, …, and maxRounds. */
export function lookRounds(rounds: number, maxRounds: number, lookEvery: number): number[] {
  if (maxRounds <= rounds) return [rounds];
  const out: number[] = [];
  for (let n = rounds; n < maxRounds; n += lookEvery) out.push(n);
  return [...out, maxRounds];
}

/** The fewest rounds whose exact one-sided signed-rank bound can reach level 1 - alpha: 2^-n < alpha. */
function roundsForOneSided(alpha: number): number {
  return roundsForLevel(1 - 2 * alpha);
}

/** P(Z > z) = erfc(z / √2) / 2, with Numerical Recipes' erfcc (Chebyshev fit, relative error < 1.2e-7 everywhere). */
function upperNormalTail(z: number): number {
  const x = z / Math.SQRT2;
  const a = Math.abs(x);
  const t = 1 / (1 + 0.5 * a);
  const poly = [-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277];
  const erfc = t * Math.exp(-a * a + poly.reduceRight((sum, c) => sum * t + c, 0));
  return (x >= 0 ? erfc : 2 - erfc) / 2;
}

/** The z with P(Z > z) = p, by bisection on upperNormalTail (precise in the far tail, where probit approximations are not). */
function upperNormalQuantile(p: number): number {
  let low = -40;
  let high = 40;
  for (let i = 0; i < 200; i++) {
    const mid = (low + high) / 2;
    if (upperNormalTail(mid) > p) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}
