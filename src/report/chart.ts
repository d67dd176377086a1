import { formatPercent, formatShortPercent } from '../util/format.js';
import { wrapText } from './format.js';
import { groupByFile, ungrouped } from './groups.js';
import type { ReportBenchmark } from './model.js';

/** Scales the chart can take, in percent. */
const SCALES = [2, 5, 10, 15, 20, 30, 50, 100];

/**
 * Every compared benchmark's change as one line of text: its interval (─) and
 * estimate (●) on a shared axis, with its own budget lines (│) and zero (¦),
 * e.g.
 *
 *   etag   ·······───●──│······¦······│·············    -7.5%
 *   parse  ·············│·····─●─·····│·············     0.0%
 *   uuid   «············│······¦······│·············   -99.0%
 *
 * Plain characters in a code block, so it reads the same in a PR comment, a
 * job summary and a terminal; all of them are in WGL4 (the set every
 * monospace font on GitHub's font stack covers), so the columns stay aligned.
 * Values past the axis end in « or ».
 */
export function changeChart(
  benchmarks: readonly ReportBenchmark[],
  options: { cells?: number; labelWidth?: number; grouped?: boolean } = {},
): string[] {
  const rows = benchmarks.filter((b) => b.change);
  if (rows.length === 0) return [];
  const cells = options.cells ?? 41;
  const half = (cells - 1) / 2;
  // Wide enough for three budgets and for the interval ends within five budgets; farther ones run off the end.
  const budget = Math.max(...rows.map((b) => b.budget));
  const reach = rows.flatMap((b) => [Math.abs(b.change!.low), Math.abs(b.change!.high)]).filter((x) => x <= 5 * budget);
  const widest = Math.round(Math.max(3 * budget, 1.05 * Math.max(0, ...reach)) * 1e6) / 1e4;
  const scale = (SCALES.find((s) => s >= widest) ?? 100) / 100;
  const at = (fraction: number) => Math.round(half + (fraction / scale) * half);
  // Grouped by file as the table is: a heading line per file, each row labelled with the rest of its id.
  const groups = options.grouped ? groupByFile(rows) : ungrouped(rows);
  const labels = groups.flatMap((g) => g.rows.map((row) => `${g.file === undefined ? '' : '  '}${row.name}`));
  const labelWidth = Math.min(options.labelWidth ?? 40, Math.max(...labels.map((label) => label.length)));
  const bar = (b: ReportBenchmark) => {
    const line = Array.from({ length: cells }, () => '·');
    line[half] = '¦';
    const { low, high, estimate } = b.change!;
    const from = Math.max(0, at(low));
    const to = Math.min(cells - 1, at(high));
    for (let cell = from; cell <= to; cell++) line[cell] = '─';
    if (at(low) < 0) line[0] = '«';
    if (at(high) > cells - 1) line[cells - 1] = '»';
    // The budget lines stay visible inside an interval: whether it crosses them is the verdict.
    for (const edge of [-b.budget, b.budget]) {
      const cell = at(edge);
      if (cell >= 0 && cell < cells) line[cell] = '│';
    }
    const point = at(estimate);
    if (point >= 0 && point < cells) line[point] = '●';
    else line[point < 0 ? 0 : cells - 1] = point < 0 ? '«' : '»';
    return `${line.join('')}  ${formatPercent(estimate).padStart(7)}`;
  };
  // A label too long for its column wraps onto lines of its own, whole: cut labels of one file can read alike.
  const lines = groups.flatMap((group) => {
    const indent = group.file === undefined ? '' : '  ';
    const heading = group.file === undefined ? [] : [group.file];
    return heading.concat(
      group.rows.flatMap(({ item, name }) => {
        const [first = '', ...more] = wrapText(name, labelWidth - indent.length, labelWidth - indent.length - 2);
        return [`${`${indent}${first}`.padEnd(labelWidth)}  ${bar(item)}`, ...more.map((rest) => `${indent}  ${rest}`)];
      }),
    );
  });
  const pct = (x: number) => formatShortPercent(x, 0);
  const axis = `${' '.repeat(labelWidth + 2)}${`-${pct(scale)}`.padEnd(half)}0${`+${pct(scale)}`.padStart(cells - half - 1)}`;
  return [...lines, axis];
}
