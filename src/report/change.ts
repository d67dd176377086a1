import type { Change } from '../stats/compare.js';
import { formatConfidence } from '../util/format.js';

/**
 * A change as a report carries it. `achieved`: the confidence the interval really has, set where too few rounds kept it
 * below `confidence` (the level it was asked for); `unsure`: a bound set by a group of rounds too small to reach its
 * level. No verdict rests on either.
 */
export interface ReportChange {
  estimate: number;
  low: number;
  high: number;
  confidence: number;
  achieved?: number;
  unsure?: { low?: boolean; high?: boolean };
}

export function reportChange(change: Change): ReportChange {
  const short = change.achievedConfidence < change.confidence - 1e-12;
  const unsure = change.unsure && (change.unsure.low || change.unsure.high) ? change.unsure : undefined;
  return {
    estimate: change.estimate,
    low: change.low,
    high: change.high,
    confidence: change.confidence,
    ...(short ? { achieved: change.achievedConfidence } : {}),
    ...(unsure ? { unsure: { ...(unsure.low ? { low: true } : {}), ...(unsure.high ? { high: true } : {}) } } : {}),
  };
}

/**
 * Why an open verdict (inconclusive, unmeasured) stands beside an interval that does not straddle the budget, which
 * the legend says an open row's does: the interval is short of its level, or the bound that would decide rests on a
 * group of rounds too small. Undefined where the interval straddles the budget or neither holds. `lowerIsBetter`: a
 * latency, whose regression side is +budget.
 */
export function openBecause(
  change: ReportChange,
  verdict: string | null | undefined,
  budget: number,
  options: { lowerIsBetter?: boolean; rounds?: number } = {},
): string | undefined {
  if (verdict !== 'inconclusive' && verdict !== 'unmeasured') return undefined;
  // Mirrored for a latency: the side a regression is read from is the lower bound above +budget.
  const { low, high, unsure } = options.lowerIsBetter
    ? { low: -change.high, high: -change.low, unsure: change.unsure && { low: change.unsure.high, high: change.unsure.low } }
    : change;
  if (low < -budget && high >= -budget) return undefined;
  if (change.achieved !== undefined && change.achieved < change.confidence - 1e-12)
    return (
      `its interval is at ${formatConfidence(change.achieved)} confidence, the most ${options.rounds === undefined ? 'its' : options.rounds} rounds give, ` +
      `short of the ${formatConfidence(change.confidence)} a verdict needs: no verdict rests on it`
    );
  const beyond = high < -budget;
  if (beyond ? unsure?.high : unsure?.low) {
    const bound = beyond !== Boolean(options.lowerIsBetter) ? 'upper' : 'lower';
    return `its ${bound} bound rests on a group of rounds too small to reach the interval's level (the rounds fell in groups): no verdict rests on it`;
  }
  return undefined;
}
