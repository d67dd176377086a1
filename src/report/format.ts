import {
  formatBudget,
  formatConfidence,
  formatInterval,
  formatOps,
  formatShortPercent,
  isFiniteNumber,
  verdictWord,
} from '../util/format.js';
import type { ReportBenchmark } from './model.js';
import { roundLevelsLine } from './levels.js';

/**
 * A benchmark's change, "-12.3% [-14.1%, -10.2%]", or "–" when there is no change to show. An interval below the
 * heading's level (too few rounds) says the level it has: "-95.1% [-97.0%, -93.2%] at 93.8%".
 */
export function formatChange(benchmark: ReportBenchmark, options: { markCoarse?: boolean } = {}): string {
  const { change } = benchmark;
  if (!change || !isFiniteNumber(change.estimate)) return '–';
  return `${formatIntervalAt(change)}${benchmark.coarse === true && options.markCoarse ? ' (coarse)' : ''}`;
}

/** An interval, with the level it has where too few rounds kept it below its heading's: "… [-97.0%, -93.0%] at 93.8%". */
export function formatIntervalAt(change: { estimate: number; low: number; high: number; achieved?: number | undefined }): string {
  return `${formatInterval(change)}${isFiniteNumber(change.achieved) ? ` at ${formatConfidence(change.achieved)}` : ''}`;
}

/** A base or head cell: operations per second, or in counts mode instructions per call ("6.77k instr"). */
export function formatSide(benchmark: ReportBenchmark, side: 'base' | 'head'): string {
  if (benchmark.counts) {
    const figure = benchmark.counts[side]?.instructions;
    return isFiniteNumber(figure) ? `${formatOps(figure)} ${countUnit(benchmark.counts.figure)}` : '–';
  }
  return formatOps(benchmark[side]?.opsPerSec);
}

/** What the run resolves (ReportBenchmark.resolvable): "≈1.4%", "≈12%", or "–" when unknown (too few rounds, no comparison). */
export function formatResolvable(benchmark: ReportBenchmark): string {
  const { resolvable } = benchmark;
  if (!isFiniteNumber(resolvable)) return '–';
  return `≈${formatShortPercent(resolvable, resolvable < 0.1 ? 1 : 0)}`;
}

/** The table's footnote for the resolves column, the same in both reports: a counted row's comes from its seeds. */
export function resolvesLegend(benchmarks: readonly ReportBenchmark[]): string {
  const counted = benchmarks.some((b) => b.counts);
  const timed = benchmarks.some(timedFigures);
  const what = counted ? (timed ? "rounds (a counted row's: its seeds)" : 'seeds') : 'rounds';
  return `resolves: the smallest change this run's ${what} catch with 95% power beyond the budget, from their spread and never less than their interval shows`;
}

/** The table's footnote for the base and head columns, the same in both reports: the columns agree with the change. */
export const COLUMNS_LEGEND = 'base and head in operations per second: base the median over rounds, head base moved by the change';

/** The columns' legend of a counts-mode row (micro.measure: counts). */
export const COUNTS_LEGEND =
  "counts: base and head in instructions per call at full tiering (Valgrind's callgrind), the geometric mean over each " +
  "revision's seeds (head's is base's moved by the change); " +
  "the change in calls per instruction (fewer instructions a call is faster), its interval from the seeds' spread";

/** A count a call: "24.6k", and "0" for none (a function that did not run at a revision), never "0.00". */
export const formatCount = (x: number) => (x === 0 ? '0' : formatOps(x));

/** A counted figure's unit in a cell: "instr", or "cycles" (micro.count: cycles; a row's counts.figure, absent for instructions). */
export const countUnit = (figure: 'cycles' | 'instructions' | undefined) => (figure === 'cycles' ? 'cycles' : 'instr');

/** The legend of rows counted in cycles (micro.count: cycles): what the estimate is, and is not. */
export const CYCLES_LEGEND =
  "cycles: estimated from callgrind's cache model, an instruction a cycle, a first-level miss 10 more, a last-level miss " +
  "100 more (KCachegrind's weights): a model's cycles, not this machine's (no branch prediction, overlap or prefetching)";

/** The same for a load test counted (http[].measure: counts): a request sent one at a time is its call. */
export const SERVER_COUNTS_LEGEND =
  "counted load tests: instructions per request, the server's threads together, its requests sent one at a time under callgrind";

/** A timed row with a figure in its columns: a row with none (an error before anything was measured) needs no legend of them. */
export const timedFigures = (b: ReportBenchmark) => !b.counts && (b.base !== null || b.head !== null || b.change !== null);

/** The legends of the columns this report's rows use. */
export function columnsLegend(benchmarks: readonly ReportBenchmark[]): string {
  const counted = benchmarks.some((b) => b.counts);
  const timed = benchmarks.some(timedFigures);
  const servers = benchmarks.some((b) => b.counts && b.kind === 'http');
  const cycles = benchmarks.some((b) => b.counts?.figure === 'cycles' || b.beside?.figure === 'cycles');
  return [
    ...(timed ? [COLUMNS_LEGEND] : []),
    ...(counted ? [COUNTS_LEGEND] : []),
    ...(servers ? [SERVER_COUNTS_LEGEND] : []),
    ...(cycles ? [CYCLES_LEGEND] : []),
  ].join('. ');
}

/**
 * What each verdict word says of its interval, the same as the markdown's "How to read this": the gate asks of each
 * interval whether the figure fell by more than the budget.
 */
const VERDICT_MEANINGS: Record<string, string> = {
  regression: 'regression: the whole interval below -budget (fails)',
  inconclusive:
    'inconclusive: a loss beyond the budget is possible, the interval straddles -budget or is short of its level ' +
    '(its note says why): not a failure, not a pass to rely on',
  unmeasured: 'unmeasured: too few rounds for a verdict: a failure, never a pass',
  improvement: 'improvement: a certain pass, the whole interval above +budget',
  unchanged: 'unchanged: a certain pass, the interval within ±budget',
  'within-budget': 'within budget: a certain pass, no loss beyond the budget, the interval reaching past +budget',
};

/** The verdict words a report's rows use, each with what it says of the interval, in one line (the terminal's legend). */
export function verdictsLegend(verdicts: Iterable<string>): string | undefined {
  const used = new Set(verdicts);
  const words = Object.entries(VERDICT_MEANINGS).flatMap(([verdict, meaning]) => (used.has(verdict) ? [meaning] : []));
  return words.length ? words.join('; ') : undefined;
}

export { formatInterval, verdictWord };

/** The sentence a verdict stands for, used by both reports. */
export function explainVerdict(benchmark: ReportBenchmark): string {
  const budget = formatBudget(benchmark.budget);
  switch (benchmark.verdict) {
    case 'regression':
      return `throughput fell by more than its ${budget} budget`;
    case 'improvement':
      return `throughput rose by more than ${budget}`;
    case 'unchanged':
      return `within ±${budget}`;
    case 'within-budget':
      return `no loss beyond the ${budget} budget (a gain beyond it is possible)`;
    case 'inconclusive':
      return `the interval straddles -${budget} or is short of its level: a loss beyond the budget is possible, more rounds would decide`;
    case 'unmeasured':
      return 'too few rounds for a verdict: not a pass';
    case 'new':
      return 'only at head';
    case 'removed':
      return 'only at base';
    case 'error':
      return benchmark.error ?? 'failed';
  }
}

/** Shorten a long text in the middle, keeping a benchmark id's file start and task end: "bench/a…task". */
export function fitMiddle(text: string, width: number): string {
  if (text.length <= width) return text;
  const keep = width - 1;
  const start = Math.ceil(keep / 2);
  return `${text.slice(0, start)}…${text.slice(text.length - (keep - start))}`;
}

/**
 * Labels of at most `width` characters for texts shown side by side, each fitted as fitMiddle fits it, except where two
 * different texts would read alike (`cookie.stri…et-cookies` for both 10 and 100 set-cookies): those show the part
 * where their group first differs, with an ellipsis on each side that was cut.
 */
export function fitDistinct(texts: readonly string[], width: number): string[] {
  const fitted = texts.map((text) => fitMiddle(text, width));
  const groups = new Map<string, number[]>();
  fitted.forEach((label, i) => groups.set(label, [...(groups.get(label) ?? []), i]));
  for (const members of groups.values()) {
    const originals = new Set(members.map((i) => texts[i]!));
    if (originals.size < 2) continue;
    const differ = firstDifference(members.map((i) => texts[i]!));
    for (const i of members) fitted[i] = windowAround(texts[i]!, differ, width);
  }
  return fitted;
}

function firstDifference(texts: readonly string[]): number {
  for (let at = 0; ; at++) if (texts.some((text) => text[at] !== texts[0]![at])) return at;
}

function windowAround(text: string, at: number, width: number): string {
  if (text.length <= width) return text;
  const room = Math.max(1, width - 2);
  const start = Math.max(0, Math.min(at - Math.floor(room / 2), text.length - room));
  const end = Math.min(text.length, start + room + (start === 0 ? 1 : 0));
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}

/**
 * A text as lines of at most `width` characters (`restWidth` after the first), broken at spaces where it
 * can, after a separator (. / - _ : , > | @ #) in a word longer than a line, and inside a word only when it has none:
 * every other character is kept, so a long id stays whole and identifiable.
 */
export function wrapText(text: string, width: number, restWidth = width): string[] {
  const lines: string[] = [];
  let rest = text;
  for (let room = Math.max(1, width); rest.length > room; room = Math.max(1, restWidth)) {
    const space = rest.lastIndexOf(' ', room);
    if (space > 0) {
      lines.push(rest.slice(0, space));
      rest = rest.slice(space + 1);
      continue;
    }
    // A word longer than the line (a task id, a path): broken after a separator in it, "cookie." / "stringifySetCookie",
    // never inside a word where it has one.
    const at = lastSeparator(rest.slice(0, room));
    const cut = at > 0 ? at + 1 : room;
    lines.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  lines.push(rest);
  return lines;
}

/** The longest run of a text that wrapText cannot break: a word between spaces, or its part between separators. */
export function longestWord(text: string): number {
  return Math.max(0, ...text.split(' ').flatMap((word) => word.split(/(?<=[./\-_:,>|@#])/).map((part) => part.length)));
}

/** The last separator a long word may be broken after (not its first character), or -1. */
function lastSeparator(text: string): number {
  for (let i = text.length - 1; i > 0; i--) if ('./-_:,>|@#'.includes(text[i]!)) return i;
  return -1;
}

/**
 * The progress line's time left, steadied: half the last estimate (less the time since) and half the new one, so a
 * round that ran faster or slower than the others (task times reallocated, a busy neighbour) moves it by half, not
 * all ("~1m55s left" then "~31s left" on the next round). A new target of rounds starts it afresh.
 */
export function steadyTimeLeft(): (p: { remainingMs: number; elapsedMs: number; rounds: number }) => number {
  let last: { remainingMs: number; elapsedMs: number; rounds: number } | undefined;
  return (p) => {
    const shown =
      last && last.rounds === p.rounds && p.elapsedMs >= last.elapsedMs
        ? Math.max(0, (last.remainingMs - (p.elapsedMs - last.elapsedMs) + p.remainingMs) / 2)
        : p.remainingMs;
    last = { remainingMs: shown, elapsedMs: p.elapsedMs, rounds: p.rounds };
    return shown;
  };
}

/** What "agrees" means in the section of measure: both (gate/both.ts agree). */
const AGREES_LEGEND =
  'agrees: the intervals meet or the verdicts are the same, and neither reads a regression where the other reads a certain pass';

/**
 * measure: both: the figure beside each row's (ReportBenchmark.beside), the same in both reports; undefined where no
 * row has one. Every cell is text: each report escapes it as it escapes a row.
 */
export function besideSection(
  benchmarks: readonly ReportBenchmark[],
): { title: string; header: string[]; rows: string[][]; legend: string } | undefined {
  const rows = benchmarks.filter((b) => b.beside);
  if (!rows.length) return undefined;
  const measure = rows[0]!.beside!.measure;
  const gated = measure === 'counts' ? 'time' : 'counts';
  const count = (agrees: boolean | null) => rows.filter((b) => b.beside!.agrees === agrees).length;
  const figure = (value: number | null) =>
    value === null || !isFiniteNumber(value)
      ? '–'
      : measure === 'counts'
        ? `${formatOps(value)} ${countUnit(rows[0]!.beside!.figure)}`
        : formatOps(value);
  return {
    title: `${measure} beside ${gated} (measure: both; the verdicts are ${gated}'s): ${count(true)} agree, ${count(false)} part, ${count(null)} open`,
    header: ['benchmark', 'base', 'head', `change (${measure})`, 'its verdict', 'agrees'],
    rows: rows.map((b) => {
      const beside = b.beside!;
      return [
        b.id,
        figure(beside.base),
        figure(beside.head),
        beside.change ? formatInterval(beside.change) : '–',
        beside.error ? 'error' : verdictWord(beside.verdict),
        beside.agrees === null ? 'open' : beside.agrees ? 'yes' : 'no',
      ];
    }),
    legend:
      measure === 'counts'
        ? `counts: ${rows[0]!.beside!.figure === 'cycles' ? 'estimated cycles' : 'instructions'} per call under callgrind (the change in calls per count); ` +
          `${AGREES_LEGEND}. Where they part, trust time for what users wait on: ` +
          'counts do not see memory, caches, collections, waiting or other threads'
        : `time: operations per second, paired round by round; ${AGREES_LEGEND}`,
  };
}

/** Every row's note, warning and speed levels, in that order, each text once (notesOnce): what both reports print. */
export function benchmarkNotes(benchmarks: readonly ReportBenchmark[]): { ids: string[]; text: string }[] {
  return [
    ...notesOnce(benchmarks.filter((b) => b.note).map((b) => ({ id: b.id, text: b.note! }))),
    ...notesOnce(benchmarks.filter((b) => b.warning).map((b) => ({ id: b.id, text: b.warning! }))),
    ...notesOnce(benchmarks.filter((b) => b.levels).map((b) => ({ id: b.id, text: roundLevelsLine(b.levels!) }))),
  ];
}

/**
 * A report's notes, one per text: where three or more benchmarks carry the same note (a time limit that cut 38 of
 * reselect's rows short, each with the same 400-character fix), it is said once, naming every benchmark it is for.
 * In the order the benchmarks come; each entry's ids in that order too.
 */
function notesOnce(entries: readonly { id: string; text: string }[]): { ids: string[]; text: string }[] {
  const byText = new Map<string, string[]>();
  for (const { id, text } of entries) byText.set(text, [...(byText.get(text) ?? []), id]);
  const out: { ids: string[]; text: string }[] = [];
  for (const { id, text } of entries) {
    const ids = byText.get(text)!;
    if (ids.length >= 3) {
      if (ids[0] === id) out.push({ ids, text });
    } else out.push({ ids: [id], text });
  }
  return out;
}

/** "bench/a.js > x" for one benchmark, "3 benchmarks (a, b, c)" for a note said once for several. */
export function notedIds(ids: readonly string[]): string {
  return ids.length === 1 ? ids[0]! : `${ids.length} benchmarks (${ids.join(', ')})`;
}
