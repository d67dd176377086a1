import { measureFor } from '../config/budgets.js';
import type { GateMeasure, MeasureKind, MicroConfig } from '../config/types.js';
import { certainPass } from '../stats/compare.js';
import { sortBenchmarks, type Beside, type ReportBenchmark } from '../report/model.js';
import { formatPercent } from '../util/format.js';
import { verdictWord } from '../report/format.js';

/** The rows of a run that counted, and the level its table's heading states. */
interface Judged {
  benchmarks: ReportBenchmark[];
  figures: number;
  intervalLevel: number;
}

/**
 * A run's rows where micro-benchmarks were counted: each micro-benchmark as micro.measure or its pattern in
 * micro.measures says (measureFor): counts in place of time, time alone, or both, the row the figure micro.gate names
 * with the other beside it. Counts are judged at one look, at the Bonferroni share over the run's figures (theirs,
 * the timed-only ones and the load tests'); a heading states the lower of the levels its rows were read at, and the
 * larger of the two stages' families.
 */
export function joinCounted(
  timed: Judged,
  counted: { benchmarks: ReportBenchmark[]; figures: number; level: number },
  micro: Pick<MicroConfig, 'measure' | 'measures' | 'gate'>,
  withHttp: boolean,
): Judged {
  // Each stage measured only its tasks (splitByMeasure); a task's row from the other stage (none but a task no
  // inventory saw) is left out. An error row never is: a file that failed names the file, not a task, and whatever
  // failed was not measured, which must fail the run, never pass it.
  const other = (b: ReportBenchmark, stage: MeasureKind) => b.kind === 'micro' && !b.error && measureFor(b.id, micro) === stage;
  const timedRows = timed.benchmarks.filter((b) => !other(b, 'counts'));
  const countedRows = counted.benchmarks.filter((b) => !other(b, 'time'));
  const benchmarks = sortBenchmarks(withBeside(timedRows, countedRows, micro.gate));
  // Which figure each row's verdict is: counts (a row with counts) or time (the rest, load tests' included).
  const byCounts = benchmarks.some((b) => b.counts);
  const byTime = withHttp || benchmarks.some((b) => !b.counts && b.kind === 'micro' && b.file !== null);
  if (!byCounts) return { benchmarks, figures: timed.figures, intervalLevel: timed.intervalLevel };
  if (!byTime) return { benchmarks, figures: counted.figures, intervalLevel: counted.level };
  return {
    benchmarks,
    figures: Math.max(timed.figures, counted.figures),
    intervalLevel: Math.min(timed.intervalLevel, counted.level),
  };
}

/**
 * micro.measure: both. Each micro-benchmark was timed and counted; its row is the figure micro.gate names (its
 * verdict, columns and interval), with the other beside it (`beside`) and whether the two agree. A benchmark only
 * one of them has (a file that failed in one) keeps the row it has. Load tests are timed only: their rows pass
 * through.
 */
export function withBeside(timed: readonly ReportBenchmark[], counted: readonly ReportBenchmark[], gate: GateMeasure): ReportBenchmark[] {
  const countedById = new Map(counted.map((b) => [b.id, b]));
  const timedIds = new Set(timed.map((b) => b.id));
  const rows = timed.map((time) => {
    const count = time.kind === 'micro' ? countedById.get(time.id) : undefined;
    if (!count) return time;
    return gate === 'time' ? besideOf(time, count, 'counts') : besideOf(count, time, 'time');
  });
  // Counted only (the timed stage did not see it: a file that failed there is an error row of its own).
  return [...rows, ...counted.filter((b) => !timedIds.has(b.id))];
}

/** The same answer in words: unchanged and within budget are both a pass with no claimed gain. */
function sameWord(a: string, b: string): boolean {
  const word = (verdict: string) => (verdict === 'within-budget' ? 'unchanged' : verdict);
  return word(a) === word(b);
}

function besideOf(gated: ReportBenchmark, other: ReportBenchmark, measure: GateMeasure): ReportBenchmark {
  const agreement = agree(gated, other);
  const side = (which: 'base' | 'head') =>
    measure === 'counts' ? (other.counts?.[which]?.instructions ?? null) : (other[which]?.opsPerSec ?? null);
  const beside: Beside = {
    measure,
    ...(measure === 'counts' && other.counts?.figure ? { figure: other.counts.figure } : {}),
    verdict: other.verdict,
    change: other.change
      ? { estimate: other.change.estimate, low: other.change.low, high: other.change.high, confidence: other.change.confidence }
      : null,
    base: side('base'),
    head: side('head'),
    agrees: agreement.agrees,
    ...(other.error ? { error: other.error } : {}),
  };
  const notes = [gated.note, agreement.note].filter((part): part is string => Boolean(part));
  return { ...gated, beside, ...(notes.length ? { note: notes.join('; ') } : {}) };
}

/**
 * Whether time and counts tell one story: null where either has no interval (nothing to compare); false where one
 * reads a regression and the other a certain pass, or where their intervals do not meet and their verdicts differ
 * (time unchanged beside counts +196%); true otherwise: a 100-fold loss in time beside a 33-fold one in instructions
 * is one story, a regression, whose sizes differ as counts and time do, and the note says the two sizes where their
 * intervals do not meet. Where they part, the note says so and why counts may: they are not time.
 */
export function agree(gated: ReportBenchmark, other: ReportBenchmark): { agrees: boolean | null; note?: string } {
  const [a, b] = [gated.change, other.change];
  if (!a || !b || ![a.low, a.high, b.low, b.high].every(Number.isFinite)) return { agrees: null };
  const meet = a.low <= b.high && b.low <= a.high;
  const opposite =
    (gated.verdict === 'regression' && certainPass(other.verdict)) || (other.verdict === 'regression' && certainPass(gated.verdict));
  const [time, counts] = other.counts && !gated.counts ? [gated, other] : [other, gated];
  const interval = (row: ReportBenchmark) =>
    `${formatPercent(row.change!.estimate)} [${formatPercent(row.change!.low)}, ${formatPercent(row.change!.high)}] (${verdictWord(row.verdict)})`;
  if (!opposite && meet) return { agrees: true };
  // One verdict, sizes apart (a 39-fold loss in time read 9.4-fold in instructions): one story, and the sizes said.
  // Said for a change both call one (a regression, an improvement); two passes of narrow intervals need no word.
  if (!opposite && sameWord(gated.verdict, other.verdict))
    return ['regression', 'improvement'].includes(gated.verdict)
      ? {
          agrees: true,
          note:
            `time and counts agree on the verdict, not on its size: time ${interval(time)}, counts ${interval(counts)}: counts do ` +
            'not see memory and caches, frequent collections, waiting or other threads (docs/counts.md)',
        }
      : { agrees: true };
  return {
    agrees: false,
    note:
      `time and counts part: time ${interval(time)}, counts ${interval(counts)}: counts are not time, they do not see ` +
      "memory and caches, frequent collections, waiting or other threads (docs/counts.md); the verdict is the gated figure's",
  };
}
