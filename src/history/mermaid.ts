import { mermaidString } from '../report/escape.js';
import { fitMiddle } from '../report/format.js';
import { chainedWith, type BenchmarkTrend, type Interval, type MeasuredChange, type Trend } from './chain.js';
import { headline, MAX_COLUMNS, niceRange, seriesStart } from './picture.js';

/** What the x axis calls a pull request's own point, after main's pushes. */
const PULL_REQUEST_LABEL = 'this PR';

/** Axis labels and titles longer than this are cut in the middle: the chart stays readable, the text keeps them whole. */
const LABEL_WIDTH = 24;
const ID_WIDTH = 80;

/**
 * Mermaid's own colours for xychart lines are pale in its default theme (the first is #ECECFF, nearly white):
 * the estimate in blue, the band's two edges in grey and the drift budget in red, which read in light and dark themes.
 */
const PALETTE = ['#2f81f7', '#8c959f', '#8c959f', '#e5534b'];

/** One point of a chart: where a benchmark stood after a push (or after the pull request), and what the x axis calls it. */
export interface ChartPoint {
  label: string;
  change: Interval;
}

/** A benchmark's trend as a chart draws it: titles and labels as they are (escaped only when written out). */
export interface TrendChart {
  title: string;
  /** Where the series starts: the first point, when it is shown, and the zero of the y axis. */
  since: string;
  points: ChartPoint[];
  /** The pushes in the series, and how many of the newest the chart shows. */
  pushes: number;
  shown: number;
  driftBudget?: number;
}

/**
 * A benchmark's series since its start (the anchor, or the push after a gap) as chart points: the start at zero,
 * then each push at its chained change, labelled by its release tag or short sha; the newest MAX_COLUMNS pushes
 * only (then without the start). With `pullRequest`, its own change chained onto main's last point, as the last
 * point. Undefined when the benchmark has no series yet.
 */
export function trendChart(
  benchmark: BenchmarkTrend,
  trend: Trend,
  options: { driftBudget?: number; pullRequest?: MeasuredChange | null } = {},
): TrendChart | undefined {
  const after = benchmark.points.slice(benchmark.points.findIndex((p) => p.commit === benchmark.from) + 1);
  const series = after.flatMap((p) => (p.cumulative ? [{ label: p.tags[0] ?? p.commit.slice(0, 7), change: p.cumulative }] : []));
  if (series.length === 0 || !benchmark.cumulative) return undefined;
  const shown = series.slice(-MAX_COLUMNS);
  const since = seriesStart(benchmark, trend);
  const points = [
    ...(shown.length === series.length ? [{ label: since, change: { estimate: 0, low: 0, high: 0 } }] : []),
    ...shown,
    ...(options.pullRequest ? [{ label: PULL_REQUEST_LABEL, change: chainedWith(benchmark.cumulative, options.pullRequest) }] : []),
  ];
  return {
    title: `${fitMiddle(benchmark.id, ID_WIDTH)}  ${headline(benchmark, trend)}`,
    since,
    points,
    pushes: series.length,
    shown: shown.length,
    ...(options.driftBudget === undefined ? {} : { driftBudget: options.driftBudget }),
  };
}

/**
 * The chart as the lines of a Mermaid xychart-beta: the chained estimate as a line, the 95% band as two more
 * lines (its low and high edges: xychart draws lines and bars only, and a bar starts at the axis, so it cannot
 * float between low and high), the drift budget as a flat line; percent on the y axis. Every label and title
 * goes through mermaidString: tags and benchmark ids come from pushes and pull requests.
 */
export function mermaidLines(chart: TrendChart): string[] {
  const budget = chart.driftBudget === undefined ? undefined : -chart.driftBudget;
  const values = chart.points.flatMap((p) => [p.change.low, p.change.high]).filter(Number.isFinite);
  const [bottom, top] = niceRange(Math.min(0, ...values, ...(budget === undefined ? [] : [budget])), Math.max(0, ...values));
  const lines: [string, number[]][] = [
    ['estimate', chart.points.map((p) => p.change.estimate)],
    ['95% band, low', chart.points.map((p) => p.change.low)],
    ['95% band, high', chart.points.map((p) => p.change.high)],
    ...(budget === undefined ? [] : [['drift budget', chart.points.map(() => budget)] as [string, number[]]]),
  ];
  const labels = distinct(chart.points.map((p) => fitMiddle(p.label, LABEL_WIDTH)));
  return [
    '---',
    'config:',
    '  xyChart:',
    '    height: 320',
    '  themeVariables:',
    '    xyChart:',
    `      plotColorPalette: "${PALETTE.slice(0, lines.length).join(', ')}"`,
    '---',
    'xychart-beta',
    `  title ${mermaidString(chart.title)}`,
    `  x-axis ${mermaidString('push (release tag or commit)')} [${labels.map(mermaidString).join(', ')}]`,
    `  y-axis ${mermaidString(`change since ${fitMiddle(chart.since, LABEL_WIDTH)} (%)`)} ${percent(bottom)} --> ${percent(top)}`,
    ...lines.map(([name, line]) => `  line ${mermaidString(name)} [${line.map(percent).join(', ')}]`),
  ];
}

/** A fraction as a number of percent xychart reads: two decimals at most, never an exponent, NaN or infinity. */
function percent(fraction: number): string {
  const clamped = Math.min(Math.max(Number.isNaN(fraction) ? 0 : fraction, -1), 1e4);
  return String(Number((clamped * 100).toFixed(2)));
}

/** Labels made unique (a band axis draws points with the same label at one place): a repeat gets " (2)", " (3)"... */
function distinct(labels: readonly string[]): string[] {
  const used = new Set<string>();
  return labels.map((label) => {
    let unique = label;
    for (let n = 2; used.has(unique); n++) unique = `${label} (${n})`;
    used.add(unique);
    return unique;
  });
}
