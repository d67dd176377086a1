import picomatch from 'picomatch';
import type { BudgetRule, Config, MeasureKind, MicroConfig } from './types.js';

/** Characters of a pattern that are not wildcards: the more, the more specific the pattern. */
function literalLength(pattern: string): number {
  return pattern.replace(/[*?[\]{}!()]/g, '').length;
}

/**
 * The rule for one benchmark id among rules keyed by id pattern (budgets, micro.measures): an exact id wins, then the
 * matching pattern with the most literal characters (the first declared on a tie); undefined where none matches.
 * Patterns use picomatch with bash semantics, so `*` also crosses slashes in file paths.
 */
function ruleFor<R extends { readonly pattern: string }>(id: string, rules: readonly R[]): R | undefined {
  let best: R | undefined;
  for (const rule of rules) {
    if (rule.pattern === id) return rule;
    if (!picomatch.isMatch(id, rule.pattern, { bash: true, dot: true })) continue;
    if (!best || literalLength(rule.pattern) > literalLength(best.pattern)) best = rule;
  }
  return best;
}

/** The budget for one benchmark id: its rule in `budgets` (ruleFor), else the default. */
export function budgetFor(id: string, config: Pick<Config, 'budget' | 'budgets'>): number {
  return ruleFor<BudgetRule>(id, config.budgets)?.budget ?? config.budget;
}

/** What one micro-benchmark is measured in: its rule in micro.measures (ruleFor), else micro.measure. */
export function measureFor(id: string, micro: Pick<MicroConfig, 'measure' | 'measures'>): MeasureKind {
  return ruleFor(id, micro.measures)?.measure ?? micro.measure;
}
