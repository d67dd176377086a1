import type { Verdict } from './compare.js';

/** What the family's decision needs of one benchmark's result. */
export interface FamilyMember {
  id: string;
  verdict: Verdict;
}

/**
 * The final verdicts of a family of `familySize` budgeted figures, from the per-benchmark results:
 * the one place a run's verdicts are settled, for an unsharded run and for merged shards alike.
 *
 * Today each result was already judged at the level the whole family sets (decisionRule's
 * intervalLevel(familySize), confirmation included), so every verdict stands. A step-down
 * procedure (Holm) re-derives them here from what each result carries: its per-round ratios
 * (`rounds`/`logRatios`), its confirmation group and its budget.
 */
export function decideFamily<T extends FamilyMember>(results: readonly T[], familySize: number): T[] {
  if (!Number.isInteger(familySize) || familySize < 0) throw new RangeError(`family size ${familySize} is not a whole number`);
  return [...results];
}
