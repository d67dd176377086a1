import { minimumRounds as roundsForLevel } from './signed-rank.js';

/**
 * The decision rule of a run, in one place: which figures share the run's false-verdict rate, how
 * many looks each gets, the level every interval is read at, the level of a confirmation, and the
 * rounds an interval needs to reach its level. Every stage that needs one of these asks the rule;
 * a change to the statistics (another multiple-comparison procedure, alpha spending across looks)
 * is a change to this file.
 */
export interface DecisionRule {
  /** Confidence for the whole run: all budgeted figures, all looks. */
  readonly confidence: number;
  /** Looks at each benchmark's data (adaptive rounds); each is paid for. */
  readonly looks: number;
  /** The level each interval is read at when `figures` budgeted figures share the run. */
  intervalLevel(figures: number): number;
  /**
   * The level a confirmation group is read at: the run's own confidence. The first group already
   * holds the family-wise rate and a second test can only lower it; the fresh group only has to tell
   * a real loss from a transient one.
   */
  readonly confirmationLevel: number;
  /** The fewest rounds whose interval can reach intervalLevel(figures). */
  minimumRounds(figures: number): number;
}

export interface RulePlan {
  confidence: number;
  /** Rounds before the first look. */
  rounds: number;
  /** Adaptive rounds go up to this many, a look every `lookEvery`. */
  maxRounds: number;
  lookEvery: number;
}

/**
 * Bonferroni over every (budgeted figure, look) pair: each interval at 1 - alpha / (figures × looks).
 * A union bound, so it holds however early adaptive rounds stop and whatever the figures' correlation.
 */
export function decisionRule(plan: RulePlan): DecisionRule {
  const looks = lookCount(plan.rounds, plan.maxRounds, plan.lookEvery);
  const intervalLevel = (figures: number) => familyConfidence(plan.confidence, figures * looks);
  return Object.freeze({
    confidence: plan.confidence,
    looks,
    intervalLevel,
    confirmationLevel: plan.confidence,
    minimumRounds: (figures: number) => roundsForLevel(intervalLevel(figures)),
  });
}

/**
 * Adaptive rounds: a look after `rounds`, then every `lookEvery` rounds up to `maxRounds` (the last
 * rounds, however few, end in a look too).
 */
export function lookCount(rounds: number, maxRounds: number, lookEvery: number): number {
  return maxRounds > rounds ? 1 + Math.ceil((maxRounds - rounds) / lookEvery) : 1;
}

/**
 * Bonferroni: each of `family` intervals gets level 1 - alpha/family, so the chance that any one of
 * them misses its true value (and so raises a false alarm) stays below alpha for the whole run.
 */
export function familyConfidence(confidence: number, family: number): number {
  return 1 - (1 - confidence) / Math.max(1, family);
}
