/** Parsers for the unit-bearing strings of the config ("5%", "30s"); the schema has already checked their form. */

/**
 * The one form of a budget, from 0% to 99.x%: the config schema's definitions.budget.pattern is the
 * same expression (a test keeps them equal), and the action's budget inputs are checked with it.
 */
export const BUDGET_FORM = /^\d{1,2}(\.\d+)?%$/;

/** "5%" → 0.05, for a budget (BUDGET_FORM). */
export function parseBudget(text: string): number {
  if (!BUDGET_FORM.test(text.trim())) throw new RangeError(`'${text}' is not a percentage from 0% to 99%, like 5%`);
  return parsePercent(text);
}

/** "5%" → 0.05 */
export function parsePercent(text: string): number {
  const match = /^(\d+(?:\.\d+)?)%$/.exec(text.trim());
  if (!match) throw new RangeError(`'${text}' is not a percentage like 5%`);
  return Number(match[1]) / 100;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000 };

/** "500ms" → 500, "2s" → 2000, "1.5m" → 90000 */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(text.trim());
  if (!match) throw new RangeError(`'${text}' is not a duration like 500ms, 30s or 2m`);
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}
