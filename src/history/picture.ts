import { formatInterval } from '../report/format.js';
import { formatShortPercent } from '../util/format.js';
import type { BenchmarkTrend, Interval, Trend } from './chain.js';

/** The most pushes drawn; older ones are left out of the picture and the chart (never out of the figures). */
export const MAX_COLUMNS = 40;
const HEIGHT = 9;

/**
 * Main's cumulative change of one benchmark since the anchor, as a picture in plain characters: each push
 * a column (● its chained estimate, │ its 95% band), zero as a dotted line, the drift budget as ═, releases
 * marked ▲ under their push. Plain text in a code block: it reads the same in a job summary, a PR comment
 * and a terminal, in light and dark themes (the characters are in WGL4, so the columns stay aligned), e.g.
 *
 *   lookup  since v1.4.0: -6.0% [-7.4%, -4.6%] over 8 pushes
 *       +2% ┤
 *        0% ┼●·●··························
 *           │    ●  ●
 *           │          ●  │  │
 *           │             ●  ●  ●
 *      -10% ┤═══════════════════════════ drift budget
 *           └▲────────────────────────
 *            v1.4.0
 */
export function trendPicture(benchmark: BenchmarkTrend, trend: Trend, options: { driftBudget?: number } = {}): string[] {
  const title = `${benchmark.id}  ${headline(benchmark, trend)}`;
  const points = benchmark.points.slice(-MAX_COLUMNS);
  const shown: (Interval | null)[] = [
    ...(points.length === benchmark.points.length ? [{ estimate: 0, low: 0, high: 0 }] : []),
    ...points.map((p) => p.cumulative),
  ];
  const tagged = [...(points.length === benchmark.points.length ? [[anchorTag(trend)].filter(Boolean)] : []), ...points.map((p) => p.tags)];
  if (shown.every((c) => !c)) return [title, '  (no measured change yet)'];
  const budget = options.driftBudget === undefined ? undefined : -options.driftBudget;
  const values = [0, ...shown.flatMap((c) => (c ? [c.low, c.high] : [])), ...(budget === undefined ? [] : [budget])];
  const [bottom, top] = niceRange(Math.min(...values), Math.max(...values));
  const rowOf = (v: number) => Math.round(((top - v) / (top - bottom)) * (HEIGHT - 1));
  const zeroRow = rowOf(0);
  const budgetRow = budget === undefined ? -1 : rowOf(budget);
  const labels = new Map<number, string>([
    [0, signed(top)],
    [HEIGHT - 1, signed(bottom)],
    [zeroRow, '0%'],
    ...(budgetRow >= 0 ? ([[budgetRow, signed(budget!)]] as [number, string][]) : []),
  ]);
  const labelWidth = Math.max(...[...labels.values()].map((l) => l.length));
  const lines = [title];
  for (let row = 0; row < HEIGHT; row++) {
    const label = labels.get(row) ?? '';
    const axis = row === zeroRow ? '┼' : labels.has(row) ? '┤' : '│';
    const cells = shown.map((c) => {
      const background = row === budgetRow ? '═' : row === zeroRow ? '·' : ' ';
      if (!c) return `${background}${background}`;
      if (rowOf(c.estimate) === row) return `●${background}`;
      if (rowOf(c.high) <= row && row <= rowOf(c.low)) return `│${background}`;
      return `${background}${background}`;
    });
    const suffix = row === budgetRow ? ' drift budget' : '';
    lines.push(`${label.padStart(labelWidth)} ${axis}${cells.join('').trimEnd()}${suffix}`);
  }
  lines.push(`${' '.repeat(labelWidth)} └${tagged.map((tags) => (tags.length ? '▲─' : '──')).join('')}`);
  const releases = tagged.flatMap((tags, i) => (tags.length ? [`${' '.repeat(labelWidth + 2 + 2 * i)}${tags[0]}`] : []));
  // One release name per line, under its mark: names never overlap, however close the releases are.
  lines.push(...releases.slice(-3));
  return lines;
}

/** "since v1.4.0: -6.0% [-7.4%, -4.6%] over 8 pushes": the words the picture and the PR comment share. */
export function headline(benchmark: BenchmarkTrend, trend: Trend): string {
  const since = seriesStart(benchmark, trend);
  const pushes = benchmark.points.filter((p) => p.step).length;
  const c = benchmark.cumulative;
  if (!c) return `since ${since}: not measured`;
  return `since ${since}: ${formatInterval(c)} over ${pushes} push${pushes === 1 ? '' : 'es'}`;
}

/** Where a benchmark's series starts, as people call it: the anchor's label, or the short sha where it restarted. */
export function seriesStart(benchmark: BenchmarkTrend, trend: Trend): string {
  return benchmark.from === trend.anchor.commit ? trend.anchor.label : benchmark.from.slice(0, 7);
}

function anchorTag(trend: Trend): string {
  return /^[0-9a-f]{7}$/.test(trend.anchor.label) ? '' : trend.anchor.label;
}

function signed(fraction: number): string {
  const text = formatShortPercent(fraction, 1);
  return fraction > 0 ? `+${text}` : text;
}

/** A range holding every value, widened to whole steps of 1, 2, 5, 10...% so the axis labels are round. */
export function niceRange(min: number, max: number): [number, number] {
  const span = Math.max(max - min, 0.01);
  const step = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5].find((s) => span / s <= 8) ?? 1;
  return [Math.floor(min / step - 1e-9) * step, Math.ceil(max / step + 1e-9) * step];
}
