/**
 * compare --solo-check's one effect on a verdict: where each revision alone in fresh processes reads a change apart from
 * the shared process's (or sat on speed levels, its estimate outside the shared interval), the verdict is read from both
 * intervals together. The check can make a verdict more cautious, never bolder.
 */
import type { BenchmarkSamples } from '../measure/types.js';
import { certainPass, decide } from '../stats/compare.js';
import { formatInterval } from './format.js';
import { resolutionSentence, type ReportBenchmark } from './model.js';
import { honestResolvable } from '../stats/analyze.js';
import { isFiniteNumber } from '../util/format.js';
import { soloComparison } from './solo.js';

/**
 * The verdicts the check may take back: those an interval decided. An `inconclusive` stays one (its interval may lie
 * beyond the budget with a confirmation that did not reproduce it, or fall short of its level: a span must not
 * decide it), and so do the verdicts no interval gave (unmeasured, error, new, removed).
 */
const DECIDED = new Set(['regression', 'improvement', 'unchanged', 'within-budget']);

/**
 * A benchmark with its solo figures. Where the solo interval lies apart from the shared one, the figure depends on
 * the process a revision runs in and the shared interval does not cover what fresh processes of each revision
 * measure: the benchmark's change becomes the span of both intervals (the shared estimate kept) and its verdict is
 * read from that span. So it does where the solo processes of a revision sat on speed levels and the solo estimate
 * lies outside the shared interval. Otherwise intervals that meet are no evidence of a difference: a solo estimate
 * outside a narrow shared interval is what a few noisy processes give (6 processes of a loaded run read +18.9%
 * [-16.0%, +54.1%] beside +0.9% [-2.7%, +9.0%]), and widening there would turn verdicts inconclusive for the check's
 * own noise.
 * A regression, improvement or unchanged verdict the span does not give again becomes `inconclusive` (a regression or a
 * pass that one kind of process does not show); nothing else changes, so the run's error rates stay the rule's. The
 * span keeps the shared interval's level in its `confidence`: one of its ends may be the solo interval's 95% bound,
 * and a span of the two is wider than either.
 */
export function judgedWithSolo(benchmark: ReportBenchmark, samples: BenchmarkSamples): ReportBenchmark {
  const shared = benchmark.change;
  if (!shared) return benchmark;
  const solo = soloComparison(samples, shared);
  if (!solo.change || !DECIDED.has(benchmark.verdict)) return { ...benchmark, solo };
  // Where a revision's fresh processes sat on distinct speeds, the shared process ran on one of them: a solo estimate
  // outside its interval is then the level's doing, not a few noisy processes' (issue 41: papaparse a93c5c9 with empty
  // lines, base at 8.8, 7.6 or 6.7 ms a call, read +55.7% [+37.5%, +78.3%] shared and +81.5% alone).
  const levels = [solo.base?.levels, solo.head?.levels].some(Boolean);
  const outside = solo.change.estimate < shared.low || solo.change.estimate > shared.high;
  if (solo.agreement !== 'disagrees' && !(levels && outside)) return { ...benchmark, solo };
  const change = { ...shared, low: Math.min(shared.low, solo.change.low), high: Math.max(shared.high, solo.change.high) };
  // The span holds the shared interval, so it can only keep the verdict or lose it: never a verdict of its own.
  // A pass the span still passes keeps passing, in the span's words (a loss within the budget may now hold 0).
  const spanned = decide({ ...change, achievedConfidence: change.confidence }, benchmark.budget);
  const verdict = spanned === benchmark.verdict || (certainPass(spanned) && certainPass(benchmark.verdict)) ? spanned : 'inconclusive';
  const lost = verdict === benchmark.verdict ? '' : ` (${benchmark.verdict} in the shared process alone)`;
  const apart = solo.agreement === 'disagrees' ? 'apart from' : 'on speed levels, its estimate outside';
  const said =
    `each revision alone in fresh processes reads ${formatInterval(solo.change)}, ${apart} the shared process's ` +
    `${formatInterval(shared)}: the verdict is read from both intervals together${lost}`;
  // What the run resolves is never less than the span printed beside it shows (as analyze's own figure): the
  // resolution warning, said from the old figure, is said again from the new one.
  const raised = honestResolvable(benchmark.resolvable ?? Number.NaN, change, (1 - change.confidence) / 2);
  const resolvable = isFiniteNumber(raised) ? raised : benchmark.resolvable;
  const rounds = benchmark.rounds.length;
  const before = resolutionSentence(benchmark.resolvable, benchmark.budget, benchmark.verdict, rounds);
  const after = resolutionSentence(resolvable, benchmark.budget, verdict, rounds);
  const others = (benchmark.warning ?? '').split('; ').filter((part) => part && part !== before);
  const warning = [...others, ...(after ? [after] : [])].join('; ') || undefined;
  const judged: ReportBenchmark = {
    ...benchmark,
    change,
    verdict,
    resolvable,
    note: [benchmark.note, said].filter(Boolean).join('; '),
    solo: { ...solo, shared },
  };
  if (warning) judged.warning = warning;
  else delete judged.warning;
  // The unconfirmed mark belongs to a regression only.
  if (verdict !== 'regression') delete judged.unconfirmed;
  return judged;
}
