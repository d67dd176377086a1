import { codeBlockText, joinMarkup, Markup, md } from '../report/escape.js';
import { formatInterval, formatIntervalAt, verdictWord } from '../report/format.js';
import { compareFailed, confirmedRegression, unconfirmedRegression, type Report } from '../report/model.js';
import { certainPass } from '../stats/compare.js';
import { formatBudget, formatPercent } from '../util/format.js';
import type { BisectResult } from './bisect.js';
import { suspects, type BenchmarkTrend, type Interval, type MeasuredChange, type Trend } from './chain.js';
import { mermaidLines, trendChart, type TrendChart } from './mermaid.js';
import { headline, trendPicture } from './picture.js';

/** Pictures (and charts) drawn in full; the other benchmarks get their headline only (largest change first). */
const MAX_PICTURES = 8;

/** Largest cumulative loss first: what people should look at leads. */
function byLoss(trend: Trend): BenchmarkTrend[] {
  return [...trend.benchmarks].sort((a, b) => (a.cumulative?.estimate ?? 0) - (b.cumulative?.estimate ?? 0));
}

/** The trend pictures, as lines of plain text (a terminal, or the inside of a code block). */
export function trendText(trend: Trend, options: { driftBudget?: number } = {}): string[] {
  if (trend.records.length === 0) return [`main's trend: no history recorded yet after ${trend.anchor.label}`];
  const sorted = byLoss(trend);
  const lines = trendIntro(trend);
  for (const b of sorted.slice(0, MAX_PICTURES)) lines.push('', ...trendPicture(b, trend, options));
  if (sorted.length > MAX_PICTURES) {
    lines.push('');
    for (const b of sorted.slice(MAX_PICTURES)) lines.push(`${b.id}  ${headline(b, trend)}`);
  }
  return lines;
}

/** What the trend spans, and where the history stops short of the anchor. */
function trendIntro(trend: Trend): string[] {
  return [
    `main's trend since ${trend.anchor.label}: ${trend.records.length} push(es) to ${trend.head.slice(0, 7)}, each measured side by side with the one before`,
    ...(trend.brokenAt
      ? [
          `(the history does not reach back to ${trend.anchor.label}: it starts at ${trend.brokenAt.slice(0, 7)}, so the figures start there)`,
        ]
      : []),
  ];
}

/** The same, as a sentence under the summary's heading. */
function trendIntroMarkdown(trend: Trend): Markup {
  const broken = trend.brokenAt
    ? md` The history does not reach back to ${trend.anchor.label}: it starts at <code>${trend.brokenAt.slice(0, 7)}</code>, so the figures start there.`
    : md``;
  return md`${trend.records.length} push(es) up to <code>${trend.head.slice(0, 7)}</code>, each measured side by side with the one before.${broken}`;
}

/** The benchmarks charted: those with a series, largest loss first, as many as get a picture. */
function charted(trend: Trend): BenchmarkTrend[] {
  return byLoss(trend)
    .filter((b) => b.cumulative)
    .slice(0, MAX_PICTURES);
}

/**
 * The trend for a job summary: a Mermaid chart per benchmark first (people look before they read), then the
 * same as text pictures, folded: GitHub does not draw Mermaid everywhere (e-mail notifications, some apps).
 */
export function trendMarkdown(trend: Trend, options: { driftBudget?: number } = {}): Markup {
  const text = fenced(trendText(trend, options));
  const charts = charted(trend).flatMap((b) => trendChart(b, trend, options) ?? []);
  const others = trend.benchmarks.length - charts.length;
  const rest = others > 0 ? [md`<sub>${others} more benchmark(s) in the text below.</sub>`, md``] : [];
  const body = charts.length
    ? [trendIntroMarkdown(trend), md``, ...chartsMarkdown(charts), ...rest, folded(md`The trend as text`, text)]
    : [text];
  return joinMarkup([md`### Main's trend since ${trend.anchor.label}`, md``, ...body, md``]);
}

/** The end of the note under a chart that leaves older pushes out. */
const OLDER_LEFT_OUT = md`the older ones are left out of the chart, never out of its title's figures.`;

/** Each chart in a mermaid block, with a note under it when it leaves older pushes out. */
function chartsMarkdown(charts: readonly TrendChart[]): Markup[] {
  return charts.flatMap((chart) => [
    fenced(mermaidLines(chart), 'mermaid'),
    ...(chart.shown < chart.pushes
      ? [md`<sub>The newest ${chart.shown} of ${chart.pushes} pushes since ${chart.since}: ${OLDER_LEFT_OUT}</sub>`]
      : []),
    md``,
  ]);
}

/** A block folded under a summary line, for the text fallback under charts. */
function folded(summary: Markup, block: Markup): Markup {
  return joinMarkup([md`<details><summary>${summary}</summary>`, md``, block, md``, md`</details>`]);
}

/**
 * The PR comment's small trend: per benchmark, main's chained change since the anchor and this PR's own.
 * "main since v1.4.0: -6.0% ±1.5%; this PR: -2.1%"
 */
export function trendLines(trend: Trend, report: Report, options: { driftBudget?: number } = {}): Markup | undefined {
  const rows = byLoss(trend).filter((b) => b.cumulative);
  if (rows.length === 0) return undefined;
  const lines = rows.slice(0, 10).map((b) => {
    const pr = report.benchmarks.find((x) => x.id === b.id)?.change;
    const c = b.cumulative!;
    return md`- ${b.id}: main since ${trend.anchor.label}: ${formatPercent(c.estimate)} ±${plusMinus(c)}; this PR: ${pr ? formatPercent(pr.estimate) : '–'}`;
  });
  const more = rows.length > 10 ? [md`- and ${rows.length - 10} more (in the history job's summary)`] : [];
  // The charts of the benchmarks listed first: main's points, then this PR's own change chained onto the last.
  const benchmarks = charted(trend);
  const pullRequest = (id: string): MeasuredChange | null => report.benchmarks.find((x) => x.id === id)?.change ?? null;
  const charts = benchmarks.flatMap((b) => trendChart(b, trend, { ...options, pullRequest: pullRequest(b.id) }) ?? []);
  const pictures = benchmarks.flatMap((b, i) => [...(i ? [''] : []), ...trendPicture(b, trend, options)]);
  return joinMarkup([
    md`<details><summary>Main's trend since ${trend.anchor.label} (${trend.records.length} pushes, chained side-by-side changes)</summary>`,
    md``,
    ...lines,
    ...more,
    md``,
    ...chartsMarkdown(charts),
    folded(md`The charts as text (main's pushes only)`, fenced(pictures)),
    md``,
    md`</details>`,
  ]);
}

function plusMinus(c: Interval): string {
  return formatPercent((c.high - c.low) / 2).replace(/^\+/, '');
}

/** What a drift compare concluded: a broken budget, a budget that holds for every benchmark, or no conclusion. */
export type DriftState = 'broken' | 'holds' | 'undecided' | 'failed';

export function driftState(report: Report): DriftState {
  // A regression the time limit kept from its confirmation fails the run, but opens no drift issue: undecided.
  if (report.benchmarks.some(confirmedRegression)) return 'broken';
  // The compare failed (a build, a crash); a benchmark the time limit left unmeasured is undecided, not failed.
  if (compareFailed(report)) return 'failed';
  // Only what was measured and found within the budget holds; anything else (inconclusive, unmeasured) is no answer.
  const judged = report.benchmarks.filter((b) => b.verdict !== 'new' && b.verdict !== 'removed');
  return judged.length > 0 && judged.every((b) => certainPass(b.verdict)) ? 'holds' : 'undecided';
}

/** Shared by the drift issue and the drift summary: what broke, by how much since the anchor, and who the history suspects. */
export function driftMarkdown(options: {
  report: Report;
  trend: Trend | undefined;
  driftBudget: number;
  anchor: { commit: string; label: string };
  marker: string;
}): string {
  const { report, trend, driftBudget, anchor } = options;
  const broken = report.benchmarks.filter(confirmedRegression);
  const undecided = report.benchmarks.filter(
    (b) => b.verdict === 'inconclusive' || b.verdict === 'unmeasured' || b.verdict === 'error' || unconfirmedRegression(b),
  );
  const budget = formatBudget(driftBudget);
  const out: Markup[] = [];
  const head = report.head ? report.head.sha.slice(0, 7) : '?';
  const headline: Record<DriftState, Markup> = {
    broken: md`### ❌ benchgate drift: ${broken.length} benchmark(s) lost more than ${budget} since ${anchor.label}`,
    holds: md`### ✅ benchgate drift: every benchmark within ${budget} of ${anchor.label}`,
    undecided: md`### 🟡 benchgate drift: undecided, ${undecided.length} benchmark(s) not shown within ${budget} of ${anchor.label}`,
    failed: md`### ⚠️ benchgate drift: the compare with ${anchor.label} failed`,
  };
  out.push(
    headline[driftState(report)],
    md``,
    md`Measured side by side: ${anchor.label} @ <code>${anchor.commit.slice(0, 7)}</code> against <code>${head}</code>, in one job.`,
    md``,
  );
  if (report.error) out.push(md`The drift compare failed: ${String(report.error).split('\n')[0]}`, md``);
  if (broken.length) {
    out.push(md`| benchmark | change since ${anchor.label} | drift budget | commits the history suspects |`, md`|---|---|---|---|`);
    for (const b of broken) {
      const chained = trend?.benchmarks.find((t) => t.id === b.id);
      const suspected = chained ? suspects(chained) : [];
      const list = suspected.length
        ? joinMarkup(
            suspected.map((p) => md`<code>${p.commit.slice(0, 7)}</code> ${p.subject.slice(0, 60)} (${formatPercent(p.step!.estimate)})`),
            '<br>',
          )
        : md`–`;
      const c = b.change!;
      // The brackets stay literal markup here (an interpolated text would be escaped).
      out.push(
        md`| ${b.id} | ${formatPercent(c.estimate)} [${formatPercent(c.low)}, ${formatPercent(c.high)}] | ${formatBudget(b.budget)} | ${list} |`,
      );
    }
    // The anchor's sha, not its label: a label may be "30 days ago (abc1234)", and a code span shows entities as they are.
    out.push(
      md``,
      md`Find the commit: <code>npx benchgate bisect --good ${anchor.commit.slice(0, 12)}</code> (side-by-side compares over the range).`,
      md``,
    );
  }
  if (trend) out.push(trendMarkdown(trend, { driftBudget }));
  return `${options.marker}\n${joinMarkup(out).markup}`;
}

/** bisect's result for a terminal; its last lines name the first bad commit (or say why none is named). */
export function bisectText(result: BisectResult): string[] {
  const short = (sha: string) => sha.slice(0, 7);
  const lines = [
    `bisect: ${result.commits.length} commit(s) after ${short(result.good)} up to ${short(result.bad)}; ${result.compares} ` +
      `compare(s)${result.skipped?.length ? `, ${result.skipped.length} commit(s) skipped as untestable` : ''}`,
  ];
  for (const step of result.steps) {
    const changes = step.changes
      .filter((c) => result.targets.length === 0 || result.targets.includes(c.id))
      .map((c) => `${c.id} ${c.change ? formatIntervalAt(c.change) : '–'} ${verdictWord(c.verdict)}`)
      .join('; ');
    lines.push(
      step.outcome === 'skipped'
        ? `  ${short(step.commit)} skipped: ${step.reason}`
        : `  ${short(step.commit)} ${step.outcome}${step.extended ? ' (extended)' : ''}: ${changes}`,
    );
  }
  if (result.noLoss) {
    lines.push(`no benchmark matching lost its budget from ${short(result.good)} to ${short(result.bad)}: nothing to bisect`);
    return lines;
  }
  if (result.undecided?.skipped) {
    lines.push(
      `undecided: only commits that could not be tested are left between ${short(result.undecided.after)} ` +
        `(good) and ${short(result.undecided.upTo)} (bad): the first bad commit is ` +
        `one of ${[...result.undecided.skipped, result.undecided.upTo].map(short).join(', ')}`,
    );
    return lines;
  }
  if (result.undecided && result.error) {
    // Good against bad did not run to a figure (an install, a build, a crash): there is nothing to search yet.
    lines.push(
      result.error,
      `undecided: nothing to search until ${short(result.good)} and ${short(result.bad)} compare; fix what failed above`,
    );
    return lines;
  }
  if (result.undecided) {
    lines.push(
      `undecided: the first bad commit is after ${short(result.undecided.after)} and up to ${short(result.undecided.upTo)}, ` +
        `but a compare stayed inconclusive after more rounds; raise time-limit or max-rounds, or narrow --benchmark`,
    );
    return lines;
  }
  const first = result.firstBad!;
  const changes = first.changes.map(
    (c) => `${c.id}: ${formatInterval(c.step)} in this commit, ${formatPercent(c.sinceGood.estimate)} since ${short(result.good)}`,
  );
  if (!first.alone) {
    lines.push(
      `the loss looks spread over several commits: no single step is shown to lose the budget ` +
        `alone (the budget is first broken at ${short(first.commit.sha)} ${first.commit.subject})`,
      'largest steps:',
      ...(result.largestSteps ?? []).map((s) => `  ${short(s.from)}..${short(s.to)} ${s.id}: ${formatInterval(s.step)}`),
    );
    return lines;
  }
  lines.push(`first bad commit: ${first.commit.sha} ${first.commit.subject}`, ...changes.map((c) => `  ${c}`));
  return lines;
}

function fenced(lines: readonly string[], language = 'text'): Markup {
  // Inside the fence every character shows as it is; codeBlockText keeps a bench id or a tag from closing it.
  return joinMarkup([md`\`\`\`${language}`, ...lines.map((line) => new Markup(codeBlockText(line))), md`\`\`\``]);
}
