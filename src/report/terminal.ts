import { styleText } from 'node:util';
import type { Verdict } from '../stats/compare.js';

import { terminalText as printable } from './escape.js';
import { formatBudget, formatConfidence, formatDuration } from '../util/format.js';
import {
  besideSection,
  columnsLegend,
  fitDistinct,
  fitMiddle as fit,
  formatChange,
  formatResolvable,
  formatSide,
  resolvesLegend,
  verdictsLegend,
  verdictWord,
  wrapText,
  longestWord,
  benchmarkNotes,
  notedIds,
} from './format.js';
import { groupByFile, groupingHelps, ungrouped } from './groups.js';
import { profileSections } from './profile-sections.js';
import { SOLO_LEGEND, soloSections } from './solo-sections.js';
import { httpSections } from './http-sections.js';
import { NATIVE_LEGEND, nativeSections, nativeSummary } from './native-sections.js';
import { headlinePassWords, sortBenchmarks, unconfirmedRegression, verdictCounts, type Report, type ReportBenchmark } from './model.js';

export interface TerminalOptions {
  color: boolean;
  /** Columns the table may use. */
  width?: number;
}

type Style = Parameters<typeof styleText>[0];

const MARK: Record<Verdict, { mark: string; style: Style }> = {
  regression: { mark: '✗', style: ['red', 'bold'] },
  error: { mark: '!', style: ['magenta', 'bold'] },
  inconclusive: { mark: '?', style: 'yellow' },
  unmeasured: { mark: '…', style: ['magenta', 'bold'] },
  improvement: { mark: '↑', style: 'green' },
  new: { mark: '+', style: 'cyan' },
  removed: { mark: '-', style: 'cyan' },
  unchanged: { mark: '✓', style: 'dim' },
  'within-budget': { mark: '✓', style: 'dim' },
};

/** A verdict's mark and style; a verdict that is not one of ours gets a plain '?'. */
function markOf(verdict: unknown): { mark: string; style: Style } {
  return typeof verdict === 'string' && Object.hasOwn(MARK, verdict) ? MARK[verdict as Verdict] : { mark: '?', style: 'reset' };
}

/** The longest word of a name the table keeps whole, widening its column past the terminal's width where it must. */
const MAX_WORD = 32;

/**
 * The verdict table and summary for a terminal, at most `width` (100) columns
 * wide. Every string from a benchmark, a revision or the report goes through
 * `printable` (escape.ts), so none can carry a control sequence to the terminal.
 */
export function renderTerminal(report: Report, options: TerminalOptions): string {
  const paint = (style: Style, text: string) => (options.color ? styleText(style, text, { validateStream: false }) : text);
  const width = options.width ?? 100;
  const lines: string[] = [];
  if (report.base && report.head) {
    lines.push(
      `benchgate: base ${printable(report.base.ref)} @ ${printable(String(report.base.sha).slice(0, 7))} ` +
        `vs head ${printable(report.head.ref)} @ ` +
        `${printable(String(report.head.sha).slice(0, 7))}${report.head.dirty ? ' (with uncommitted changes)' : ''}`,
      '',
    );
  }
  const benchmarks = sortBenchmarks(report.benchmarks);
  if (benchmarks.length) {
    const level = report.run ? formatConfidence(report.run.intervalConfidence) : '95%';
    const allHeader = ['verdict', 'benchmark', 'base', 'head', `change [${level} CI]`, 'budget', 'resolves'];
    const allCells = (b: ReportBenchmark, name: string) => [
      `${markOf(b.verdict).mark} ${printable(verdictWord(b.verdict))}${unconfirmedRegression(b) ? ' (unconfirmed)' : ''}`,
      name,
      formatSide(b, 'base'),
      formatSide(b, 'head'),
      formatChange(b, { markCoarse: true }),
      formatBudget(b.budget),
      formatResolvable(b),
    ];
    const allWidths = allHeader.map((h, i) => Math.max(h.length, ...benchmarks.map((b) => allCells(b, printable(b.id))[i]!.length)));
    const roomFor = (widths: number[]) =>
      Math.max(12, width - widths.reduce((sum, w, i) => (i === 1 ? sum : sum + w), 0) - 2 * (widths.length - 1));
    // The resolves column gives way when its 10 columns are what would make whole ids wrap: the notes still warn
    // where it matters (a budget below it), and the JSON and markdown always have it.
    const resolves = allWidths[1]! <= roomFor(allWidths) || allWidths[1]! > roomFor(allWidths.slice(0, -1));
    const header = resolves ? allHeader : allHeader.slice(0, -1);
    const cells = (b: ReportBenchmark, name: string) => (resolves ? allCells(b, name) : allCells(b, name).slice(0, -1));
    const widths = resolves ? allWidths : allWidths.slice(0, -1);
    const room = roomFor(widths);
    // Many ids of one file, or ids too long for their column, read best under a heading per file, each row
    // showing the rest of its id, wrapped rather than cut: cut ids of one file can read alike.
    const grouped = groupingHelps(
      benchmarks.map((b) => b.id),
      widths[1]! > room,
    );
    const groups = grouped ? groupByFile(benchmarks) : ungrouped(benchmarks);
    const indent = grouped ? '  ' : '';
    const names = groups.flatMap((g) => g.rows.map((row) => `${g.file === undefined ? '' : indent}${printable(row.name)}`));
    widths[1] = Math.min(room, Math.max(header[1]!.length, ...names.map((name) => name.length)));
    // A name breaks between words, never inside one (counts' wide columns left 13 for "nonSimpleDomain": "nonSimpleDoma"
    // / "in"): the column holds its longest word on a continuation line, the row wider than `width` if it must, up to
    // MAX_WORD (a word longer than that, a hash, is cut).
    const word = Math.min(MAX_WORD, Math.max(0, ...groups.flatMap((g) => g.rows.map((row) => longestWord(printable(row.name))))));
    widths[1] = Math.max(widths[1], word + indent.length + 2);
    const align = (row: string[]) =>
      row
        .map((cell, i) => (i >= 2 && i !== 4 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd();
    const gap = ' '.repeat(widths[0]! + 2);
    lines.push(paint('bold', align(header)));
    for (const group of groups) {
      if (group.file !== undefined && grouped)
        for (const line of wrapText(printable(group.file), width - gap.length)) lines.push(paint('bold', `${gap}${line}`));
      const rowIndent = group.file === undefined ? '' : indent;
      for (const { item, name } of group.rows) {
        // Continuation lines sit two columns further in, so they never read as a row or a heading.
        const [first = '', ...more] = wrapText(printable(name), widths[1] - rowIndent.length, widths[1] - rowIndent.length - 2);
        const line = align(cells(item, `${rowIndent}${first}`));
        const verdictWidth = widths[0]!;
        lines.push(paint(markOf(item.verdict).style, line.slice(0, verdictWidth)) + line.slice(verdictWidth));
        for (const rest of more) lines.push(`${gap}${rowIndent}  ${rest}`.trimEnd());
      }
    }
    for (const line of wrapText(columnsLegend(benchmarks), width)) lines.push(paint('dim', line));
    if (resolves) for (const line of wrapText(resolvesLegend(benchmarks), width)) lines.push(paint('dim', line));
    const legend = verdictsLegend(benchmarks.map((b) => b.verdict));
    if (legend) for (const line of wrapText(legend, width)) lines.push(paint('dim', line));
    if (benchmarks.some((b) => b.kind === 'http'))
      lines.push(
        paint(
          'dim',
          benchmarks.some((b) => b.http?.cpu?.verdict)
            ? 'HTTP: an operation is a request answered as expected; requests per CPU-second is gated too (below)'
            : 'HTTP: an operation is a request answered with a status it expects',
        ),
      );
    lines.push('');
  }
  for (const b of benchmarks.filter((b) => b.http)) {
    const sections = httpSections(b.id, b.http!);
    // Wrapped, not cut: its end says what the request expects.
    for (const line of wrapText(printable(sections.title), width)) lines.push(paint('bold', line));
    if (sections.requests) lines.push(...indentLines(printableTable(sections.requests.header, sections.requests.rows)));
    lines.push(...indentLines(printableTable(sections.latency.header, sections.latency.rows)));
    if (sections.latencyNote) for (const line of wrapText(printable(sections.latencyNote), width - 2)) lines.push(`  ${line}`);
    lines.push(`  ${printable(sections.failures)}`);
    if (sections.server) lines.push(...indentLines(printableTable(sections.server.header, sections.server.rows)));
    if (sections.cpu) lines.push(`  ${printable(sections.cpu)}`);
    if (sections.rate) lines.push(`  ${printable(sections.rate)}`);
    if (sections.duet) lines.push(`  ${printable(sections.duet)}`);
    if (sections.schedule) lines.push(`  ${printable(sections.schedule)}`);
    if (sections.note) lines.push(paint('dim', `  ${printable(sections.note)}`));
    for (const line of sections.moved) lines.push(paint(['yellow'], `  moved: ${printable(line)}`));
    lines.push('');
  }
  for (const b of benchmarks.filter((b) => b.profile)) {
    const sections = profileSections(b.id, b.profile!);
    for (const line of wrapText(printable(sections.title), width)) lines.push(paint('bold', line));
    if (sections.disagreement)
      for (const line of wrapText(printable(sections.disagreement), width - 2)) lines.push(paint('yellow', `  ${line}`));
    if (sections.error)
      lines.push(
        ...printable(sections.error, { keepNewlines: true })
          .split('\n')
          .map((line) => paint('yellow', `  ${line}`)),
      );
    else if (sections.rows.length === 0) lines.push('  no function costs more per operation at head');
    else lines.push(...indentLines(plainTable(sections.header, fitColumns(sections.rows))));
    if (sections.fell?.length) {
      lines.push('  and cost less at head:');
      lines.push(...indentLines(plainTable(sections.header, fitColumns(sections.fell))));
    }
    for (const line of sections.ownCode) lines.push(`  in the project's code: ${printable(line)}`);
    lines.push('');
  }
  if (report.run?.profile?.dir)
    lines.push(paint('dim', `CPU profiles (Chrome DevTools, speedscope): ${printable(report.run.profile.dir)}`), '');
  lines.push(...nativeLines(report, paint, width));
  lines.push(...soloLines(report, paint, width));
  const beside = besideSection(benchmarks);
  if (beside) {
    for (const line of wrapText(printable(beside.title), width)) lines.push(paint('bold', line));
    // Two ids alike at both ends stay apart (fitDistinct), as in the native and solo tables.
    const labels = fitDistinct(
      beside.rows.map(([id]) => id!),
      40,
    );
    const rows = beside.rows.map(([, ...rest], i) => [labels[i]!, ...rest]);
    lines.push(...indentLines(printableTable(beside.header, rows)));
    for (const line of wrapText(beside.legend, width - 2)) lines.push(paint('dim', `  ${line}`));
    lines.push('');
  }
  for (const { ids, text } of benchmarkNotes(benchmarks))
    lines.push(paint('yellow', `note: ${printable(notedIds(ids))}: ${printable(text)}`));
  if (benchmarks.some((b) => b.warning || b.note || b.levels)) lines.push('');
  for (const b of benchmarks.filter((b) => b.error)) {
    lines.push(
      paint(MARK.error.style, `! ${printable(b.id)}`),
      ...printable(b.error, { keepNewlines: true })
        .split('\n')
        .map((line) => `    ${line}`),
    );
  }
  if (benchmarks.some((b) => b.error)) lines.push('');
  if (report.error) lines.push(paint(MARK.error.style, `error: ${printable(report.error, { keepNewlines: true })}`));
  const heads = {
    pass: paint(['green', 'bold'], 'PASS'),
    fail: paint(['red', 'bold'], 'FAIL'),
    error: paint(['magenta', 'bold'], 'ERROR'),
  };
  const head = Object.hasOwn(heads, report.verdict) ? heads[report.verdict] : printable(report.verdict);
  const words = headlinePassWords(report);
  const how = words ? ` (${words})` : '';
  if (!report.error) lines.push(`${head}${how}: ${verdictCounts(report.benchmarks)}`);
  if (report.run) lines.push(paint('dim', printable(runLine(report))));
  if (report.run?.conditions?.note) lines.push(paint('yellow', `note: ${printable(report.run.conditions.note)}`));
  return lines.join('\n');
}

/** "10 rounds in 31s (alternate) · 95% for all 3 budgeted figures together (Holm, one-sided; each interval 99.8% at the last look)" */
export function runLine(report: Report): string {
  const run = report.run!;
  // Reports written before the figures were recorded: Bonferroni, so the family's size reads back from the level.
  const family = run.figures ?? Math.round((1 - run.confidence) / Math.max(1e-12, 1 - run.intervalConfidence));
  const adaptive = run.maxRounds && run.maxRounds > run.plannedRounds ? ` (adaptive, ${run.plannedRounds} to ${run.maxRounds})` : '';
  const confirmed = run.confirmRounds ? ` + ${run.confirmRounds} to confirm` : '';
  // Rounds of several processes (noise per process): how many processes the rounds took in all.
  const processes = run.processes && run.processes > run.rounds + (run.confirmRounds ?? 0) ? `, ${run.processes} processes` : '';
  // Fewer rounds than planned: the time limit cut them, or the early look decided every benchmark (by design), or
  // nothing was left to compare (every benchmark an error, new or removed): no look decided anything then.
  const compared = report.benchmarks === undefined || report.benchmarks.some((b) => b.rounds?.length > 0);
  const short = !compared ? ' (nothing to compare)' : ' (ended at the early look)';
  const rounds =
    run.rounds < run.plannedRounds && run.limited !== false
      ? `${run.rounds} of ${run.plannedRounds} rounds${processes}`
      : `${run.rounds} rounds${run.rounds < run.plannedRounds ? short : adaptive}${confirmed}${processes}`;
  const confidence =
    family > 1
      ? run.figures !== undefined
        ? `${formatConfidence(run.confidence)} for all ${family} budgeted figures together (Holm, ` +
          `one-sided; each interval ${formatConfidence(run.intervalConfidence)} at the last look)`
        : `each interval ${formatConfidence(run.intervalConfidence)}, so ${formatConfidence(run.confidence)} for all ${family} budgeted figures together`
      : `${formatConfidence(run.confidence)} confidence`;
  const parts = [];
  if (run.plannedRounds > 0) parts.push(`${rounds} (${run.isolation} isolation)`);
  if (run.counts)
    parts.push(`${countedSeeds(run.counts.seeds.length, report.benchmarks ?? [])} (${run.counts.processes} callgrind processes)`);
  if (run.httpRounds !== undefined)
    parts.push(
      `${run.httpRounds} HTTP rounds${run.httpConfirmRounds ? ` + ${run.httpConfirmRounds} to confirm` : ''} ` +
        `(${run.httpMode} servers${typeof run.httpCpus === 'string' ? `; ${run.httpCpus}` : ''})`,
    );
  const cut = run.limited ? ` · the time limit (${formatDuration(run.timeLimitMs)}) cut rounds short` : '';
  // Merged shards ran side by side: their rounds and time are the longest shard's.
  const shards = run.shards ? ` on ${run.shards} shards (the longest)` : '';
  return `${parts.join(' and ')} in ${formatDuration(run.measureMs)}${shards}${cut} · ${confidence}`;
}

/** compare --native-check: per bench file, the harness's own figures beside benchgate's change; disagreements in yellow. */
function nativeLines(report: Report, paint: (style: Style, text: string) => string, width: number): string[] {
  const sections = nativeSections(report);
  if (!sections) return [];
  const summary = sections.error ? `failed: ${printable(sections.error)}` : nativeSummary(sections);
  const lines = [paint('bold', `native runs (--native-check): ${summary}`)];
  for (const file of sections.files) {
    for (const line of wrapText(printable(file.heading), width)) lines.push(paint('bold', line));
    if (file.rows.length) {
      const rest = sections.header.slice(1).map((h, i) => Math.max(h.length, ...file.rows.map((row) => row[i + 1]!.length)));
      const room = Math.max(12, width - 2 - rest.reduce((sum, w) => sum + w + 2, 0));
      const labels = fitDistinct(
        file.rows.map((row) => printable(row[0]!)),
        room,
      );
      const table = plainTable(
        sections.header,
        file.rows.map((row, r) => row.map((cell, i) => (i === 0 ? labels[r]! : printable(cell)))),
      );
      table.forEach((line, i) => lines.push(i > 0 && file.rows[i - 1]![5] === 'disagrees' ? paint('yellow', `  ${line}`) : `  ${line}`));
    }
    // Notes wrapped to the width (a run's last lines of output keep their own breaks), continuation lines further in.
    for (const note of file.notes)
      for (const line of printable(note, { keepNewlines: true }).split('\n'))
        for (const [i, part] of wrapText(line, width - 2, width - 4).entries()) lines.push(paint('yellow', `${i ? '    ' : '  '}${part}`));
  }
  for (const line of wrapText(NATIVE_LEGEND, width)) lines.push(paint('dim', line));
  lines.push('');
  return lines;
}

function soloLines(report: Report, paint: (style: Style, text: string) => string, width: number): string[] {
  if (!report.soloCheck) return [];
  const sections = soloSections(report.benchmarks, report.soloCheck);
  const lines = wrapText(printable(sections.heading), width).map((line) => paint('bold', line));
  if (sections.rows.length) {
    const rest = sections.header.slice(1).map((h, i) => Math.max(h.length, ...sections.rows.map((row) => row[i + 1]!.length)));
    const room = Math.max(12, width - 2 - rest.reduce((sum, w) => sum + w + 2, 0));
    const labels = fitDistinct(
      sections.rows.map((row) => printable(row[0]!)),
      room,
    );
    const table = plainTable(
      sections.header,
      sections.rows.map((row, r) => row.map((cell, i) => (i === 0 ? labels[r]! : printable(cell)))),
    );
    table.forEach((line, i) => lines.push(i > 0 && sections.rows[i - 1]![3] === 'disagrees' ? paint('yellow', `  ${line}`) : `  ${line}`));
  }
  for (const note of sections.notes)
    for (const [i, part] of wrapText(printable(note), width - 2, width - 4).entries())
      lines.push(paint('yellow', `${i ? '    ' : '  '}${part}`));
  for (const line of wrapText(SOLO_LEGEND, width)) lines.push(paint('dim', line));
  lines.push('');
  return lines;
}

/** Columns padded to their widest cell; the first column left-aligned, the others right-aligned. */
function plainTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  return [header, ...rows].map((row) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

function printableTable(header: string[], rows: string[][]): string[] {
  return plainTable(
    header.map((cell) => printable(cell)),
    rows.map((row) => row.map((cell) => printable(cell))),
  );
}

function indentLines(lines: string[]): string[] {
  return lines.map((line) => `  ${line}`);
}

/** A profile table's cells fitted: its two name columns (function, where) at 40, each kept distinct; figures at 16. */
function fitColumns(rows: readonly (readonly string[])[]): string[][] {
  const names = [0, 1].map((column) =>
    fitDistinct(
      rows.map((row) => printable(row[column] ?? '')),
      40,
    ),
  );
  return rows.map((row, r) => row.map((cell, i) => (i < 2 ? names[i]![r]! : fit(printable(cell), 16))));
}

/**
 * How many seeds the counted rows took: one number where every row was judged on all of them, else how many rows the
 * first look's seeds settled (adaptive seeds, stats/counts.ts) and how many went on.
 */
function countedSeeds(seeds: number, benchmarks: readonly { counts?: { seeds: number[] } | undefined }[]): string {
  const counted = benchmarks.flatMap((b) => (b.counts ? [b.counts.seeds.length] : []));
  const fewer = counted.filter((n) => n < seeds).length;
  if (!fewer || fewer === counted.length) return `counts under ${fewer ? Math.max(...counted) : seeds} seed(s) a revision`;
  return `counts under ${Math.min(...counted)} seed(s) a revision for ${fewer} row(s), ${seeds} for the ${counted.length - fewer} they left open`;
}
