import picomatch from 'picomatch';
import type { BudgetRule, Config } from './types.js';

/** Characters of a pattern that are not wildcards: the more, the more specific the pattern. */
function literalLength(pattern: string): number {
  return pattern.replace(/[*?[\]{}!()]/g, '').length;
}

/**
 * The budget for one benchmark id: an exact id wins, then the matching pattern
 * with the most literal characters (the first declared on a tie), then the default.
 * Patterns use picomatch with bash semantics, so `*` also crosses slashes in file paths.
 */
export function budgetFor(id: string, config: Pick<Config, 'budget' | 'budgets'>): number {
  let best: BudgetRule | undefined;
  for (const rule of config.budgets) {
    if (rule.pattern === id) return rule.budget;
    if (!picomatch.isMatch(id, rule.pattern, { bash: true, dot: true })) continue;
    if (!best || literalLength(rule.pattern) > literalLength(best.pattern)) best = rule;
  }
  return best ? best.budget : config.budget;
}
