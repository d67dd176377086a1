import type { Verdict } from '../stats/compare.js';
import { codeBlockText, escapeLines, joinMarkup, Markup, md } from './escape.js';
import { formatBudget, formatConfidence, formatFixed } from '../util/format.js';
import {
  besideSection,
  columnsLegend,
  timedFigures,
  formatChange,
  formatResolvable,
  formatSide,
  benchmarkNotes,
  notedIds,
  resolvesLegend,
  verdictWord,
} from './format.js';
import { httpSections } from './http-sections.js';
import { changeChart } from './chart.js';
import { groupByFile, groupingHelps, ungrouped } from './groups.js';
import { profileSections } from './profile-sections.js';
import { NATIVE_LEGEND, nativeSections, nativeSummary } from './native-sections.js';
import { SOLO_LEGEND, soloSections } from './solo-sections.js';
import { headlinePassWords, sortBenchmarks, unconfirmedRegression, verdictCounts, type Report, type ReportBenchmark } from './model.js';
import { runLine } from './terminal.js';

const ICON: Record<Verdict, string> = {
  regression: '🔴',
  error: '⚠️',
  inconclusive: '🟡',
  unmeasured: '⏳',
  improvement: '🟢',
  new: '🆕',
  removed: '➖',
  unchanged: '⚪',
  'within-budget': '⚪',
};

const HEADLINE: Record<string, Markup> = {
  pass: md`✅ benchgate: pass`,
  fail: md`❌ benchgate: regression`,
  error: md`⚠️ benchgate: error`,
};

/** An own key of a table of ours, so a value from a report ("constructor", "__proto__", anything) finds nothing it should not. */
function lookup<T>(table: Record<string, T>, key: unknown): T | undefined {
  return typeof key === 'string' && Object.hasOwn(table, key) ? table[key] : undefined;
}

/**
 * The report as GitHub-flavoured markdown, ready to be a PR comment. It is
 * built with `md` templates, which escape every interpolated value (escape.ts),
 * so a task name, error, ref or any field of a report made elsewhere cannot
 * inject markdown, HTML or a mention; only the renderer's own fragments are Markup.
 */
/** "This change edits the gate's policy: budget 5% → 99%. They apply once merged: this run used base's." */
export function policyNote(report: Report): string | undefined {
  const changes = report.policy?.changes ?? [];
  if (!changes.length) return undefined;
  const list = changes.map((c) => `${c.setting} ${c.base} → ${c.head}`).join(', ');
  return report.policy!.from === 'base'
    ? `This change edits the gate's policy in its config: ${list}. They apply once merged: this run was judged by base's.`
    : `This change edits the gate's policy in its config: ${list}. This run was judged by them (the gate takes its policy from the change itself).`;
}

export function renderMarkdown(report: Report): string {
  // A pass with open rows says so in the headline, not only in the rows below it.
  const words = headlinePassWords(report);
  const how = words ? md` — ${words}` : md``;
  const out: Markup[] = [md`### ${lookup(HEADLINE, report.verdict) ?? md`❔ benchgate: ${report.verdict}`}${how}`, md``];
  if (report.error) out.push(md`The run failed: ${String(report.error).split(/\r\n?|\n/)[0]}`, md``, details(md`Error`, pre(report.error)));
  else out.push(md`**${verdictCounts(report.benchmarks)}**`, md``);
  if (report.base && report.head) {
    const dirtyNote = report.head.dirty === true ? md` (with uncommitted changes)` : md``;
    const head = md`head ${report.head.ref} @ <code>${shortSha(report.head.sha)}</code>${dirtyNote}`;
    out.push(md`Base ${report.base.ref} @ <code>${shortSha(report.base.sha)}</code> · ${head}`, md``);
  }
  const policy = policyNote(report);
  if (policy) out.push(md`> [!WARNING]\n> ${policy}`, md``);
  const benchmarks = sortBenchmarks(report.benchmarks);
  if (benchmarks.length) {
    const level = report.run ? formatConfidence(report.run.intervalConfidence) : '95%';
    // Counted rows carry their unit in each cell (instr, cycles); the header names ops/s only where every row is timed
    // and one has a figure (a counted load test that failed before its count has none, and no counts either).
    const unit = !benchmarks.some((b) => b.counts) && benchmarks.some(timedFigures) ? md` ops/s` : md``;
    out.push(md`| | Benchmark | Base${unit} | Head${unit} | Change [${level} CI] | Budget | Resolves |`, md`|---|---|--:|--:|---|--:|--:|`);
    // Many benchmarks of one file: a heading row per file, each row the rest of its id (as in the terminal).
    const grouped = groupingHelps(benchmarks.map((b) => b.id));
    for (const group of grouped ? groupByFile(benchmarks) : ungrouped(benchmarks)) {
      if (group.file !== undefined) out.push(md`| | <b>${group.file}</b> | | | | | |`);
      for (const { item: b, name } of group.rows) {
        const [base, head] = [formatSide(b, 'base'), formatSide(b, 'head')];
        const change = formatChange(b, { markCoarse: true });
        out.push(md`| ${verdictCell(b)} | ${name} | ${base} | ${head} | ${change} | ${formatBudget(b.budget)} | ${formatResolvable(b)} |`);
      }
    }
    const legends = [columnsLegend(benchmarks), resolvesLegend(benchmarks)].filter(Boolean).join('. ');
    out.push(md``, md`<sub>${legends}</sub>`, md``);
    const chart = changeChart(benchmarks, { grouped });
    // A code block shows its characters as they are: nothing in it is markdown or HTML, once no line can close it.
    if (chart.length) out.push(new Markup(['```text', ...chart.map(codeBlockText), '```'].join('\n')), CHART_LEGEND, md``);
  }
  for (const b of benchmarks.filter((b) => b.profile)) {
    const went = 'measure' in b.profile! ? 'where the instructions went' : 'where the time went';
    out.push(details(md`${b.id}: ${went}`, profileMarkdown(b.id, b.profile!, report)), md``);
  }
  for (const b of benchmarks.filter((b) => b.http)) out.push(details(md`${b.id}: latency and server`, httpMarkdown(b.id, b.http!)), md``);
  const native = nativeMarkdown(report);
  if (native) out.push(native, md``);
  const solo = soloMarkdown(report);
  if (solo) out.push(solo, md``);
  const beside = besideMarkdown(report);
  if (beside) out.push(beside, md``);
  for (const { ids, text } of benchmarkNotes(benchmarks)) out.push(md`> [!NOTE]\n> ${notedIds(ids)}: ${text}`, md``);
  const errors = benchmarks.filter((b) => b.error);
  if (errors.length)
    out.push(details(md`Errors (${errors.length})`, joinMarkup(errors.map((b) => md`<b>${b.id}</b>\n${pre(b.error)}`))), md``);
  if (report.run) out.push(md`<sub>${runLine(report)} · ${environmentLine(report)}</sub>`, md``);
  if (report.run?.conditions?.note) out.push(md`> [!NOTE]\n> ${report.run.conditions.note}`, md``);
  out.push(details(md`How to read this`, report.benchmarks.some((b) => b.counts) ? HOW_TO_READ_COUNTS : HOW_TO_READ), md``);
  return joinMarkup(out).markup;
}

/** "🔴 regression", "🔴 regression (unconfirmed)"; a verdict that is not one of ours shows as text, inert. */
function verdictCell(b: ReportBenchmark): Markup {
  const icon = lookup(ICON, b.verdict);
  const mark = unconfirmedRegression(b) ? md` (unconfirmed)` : md``;
  return icon ? md`${icon} ${verdictWord(b.verdict)}${mark}` : md`❔ ${b.verdict}`;
}

function shortSha(sha: unknown): string {
  return typeof sha === 'string' ? sha.slice(0, 7) : '';
}

function httpMarkdown(id: string, http: NonNullable<ReportBenchmark['http']>): Markup {
  const sections = httpSections(id, http);
  const parts = [md`**${sections.title}**`, md``];
  if (sections.requests) parts.push(table(sections.requests.header, sections.requests.rows), md``);
  parts.push(table(sections.latency.header, sections.latency.rows), md``);
  if (sections.latencyNote) parts.push(md`${sections.latencyNote}`, md``);
  parts.push(md`${sections.failures}`);
  if (sections.server) parts.push(md``, table(sections.server.header, sections.server.rows));
  if (sections.cpu) parts.push(md``, md`${sections.cpu}`);
  if (sections.rate) parts.push(md``, md`${sections.rate}`);
  if (sections.duet) parts.push(md``, md`${sections.duet}`);
  if (sections.schedule) parts.push(md``, md`${sections.schedule}`);
  if (sections.note) parts.push(md``, md`<sub>${sections.note}</sub>`);
  if (sections.moved.length) parts.push(md``, ...sections.moved.map((line) => md`- moved: ${line}`));
  return joinMarkup(parts);
}

function profileMarkdown(id: string, profile: NonNullable<ReportBenchmark['profile']>, report: Report): Markup {
  const sections = profileSections(id, profile);
  const parts = [md`**${sections.title}**`, md``];
  if (sections.disagreement) parts.push(md`⚠️ ${sections.disagreement}`, md``);
  if (sections.error) parts.push(pre(sections.error));
  else if (sections.rows.length === 0) parts.push(md`No function costs more per operation at head.`);
  else parts.push(table(sections.header, sections.rows, 2));
  if (sections.fell?.length) parts.push(md``, md`and cost less at head:`, md``, table(sections.header, sections.fell, 2));
  if (sections.ownCode.length) parts.push(md``, ...sections.ownCode.map((line) => md`- in the project's code: ${line}`));
  if (sections.files.length) {
    const where = report.pullRequest
      ? "in the action's profiles-dir output (upload it with actions/upload-artifact)"
      : report.run?.profile?.dir
        ? `in ${report.run.profile.dir}`
        : '';
    const files = joinMarkup(
      sections.files.map((file) => md`<code>${file}</code>`),
      ', ',
    );
    parts.push(md``, md`<sub>Profiles: ${files} ${where} (open them in Chrome DevTools or speedscope)</sub>`);
  }
  return joinMarkup(parts);
}

/**
 * compare --native-check: a section per run, open when a native change disagrees with benchgate's; a heading row
 * per bench file, a row per benchmark, then the file's notes. Every name and note is the pull request's: escaped.
 */
function nativeMarkdown(report: Report): Markup | undefined {
  const sections = nativeSections(report);
  if (!sections) return undefined;
  const summary = sections.error ? md`Native runs (--native-check): failed` : md`Native runs (--native-check): ${nativeSummary(sections)}`;
  const parts: Markup[] = [];
  if (sections.error) parts.push(pre(sections.error));
  const rows = sections.files.flatMap((file) => [
    md`| <b>${file.heading}</b> | | | | | |`,
    ...file.rows.map(
      (row) =>
        md`| ${joinMarkup(
          row.map((cell, i) => (i === 5 && cell === 'disagrees' ? md`<b>${cell}</b>` : md`${cell}`)),
          ' | ',
        )} |`,
    ),
  ]);
  if (rows.length)
    parts.push(
      md`| ${joinMarkup(
        sections.header.map((h) => md`${h}`),
        ' | ',
      )} |`,
      md`|---|--:|--:|--:|--:|---|`,
      ...rows,
    );
  const notes = sections.files.flatMap((file) => file.notes.map((note) => md`- native run of ${file.file}: ${note}`));
  if (notes.length) parts.push(md``, ...notes);
  parts.push(md``, md`<sub>${NATIVE_LEGEND}</sub>`);
  const open = sections.disagree > 0 ? md` open` : md``;
  return md`<details${open}><summary>${summary}</summary>\n\n${joinMarkup(parts)}\n\n</details>`;
}

/** measure: both: the figure beside each row's, in a section of its own, open where the two part. Names escaped. */
function besideMarkdown(report: Report): Markup | undefined {
  const section = besideSection(report.benchmarks);
  if (!section) return undefined;
  const open = report.benchmarks.some((b) => b.beside?.agrees === false) ? md` open` : md``;
  const body = joinMarkup([table(section.header, section.rows), md``, md`<sub>${section.legend}</sub>`]);
  return md`<details${open}><summary>${section.title}</summary>\n\n${body}\n\n</details>`;
}

/** A markdown table: the first `left` columns left-aligned, the rest (figures) right-aligned. */
function table(header: string[], rows: string[][], left = 1): Markup {
  const row = (cells: string[]) =>
    md`| ${joinMarkup(
      cells.map((cell) => md`${cell}`),
      ' | ',
    )} |`;
  return joinMarkup([row(header), new Markup(`|${header.map((_, i) => (i < left ? '---' : '--:')).join('|')}|`), ...rows.map(row)]);
}

const CHART_LEGEND = new Markup(
  '<sub>● estimate, ─ its confidence interval, │ the budget either side of ¦ 0; « » past the end of the axis.</sub>',
);

function environmentLine(report: Report): string {
  const env = report.environment;
  const load = env.loadAverage
    ? `, load average ${formatFixed(env.loadAverage.before?.[0], 2)} → ${formatFixed(env.loadAverage.after?.[0], 2)}`
    : '';
  return `Node ${env.node} on ${env.os}/${env.arch}, ${env.cpus.count} × ${env.cpus.model}${load}`;
}

const HOW_TO_READ = new Markup(
  [
    'Each benchmark runs base and head in the same processes, alternating short timed blocks; every round is a fresh process.',
    'Change is head against base in operations per second, with a distribution-free confidence interval (Hodges–Lehmann estimate,' +
      ' Wilcoxon signed-rank interval over rounds), widened so the whole table shares one false-alarm rate.',
    'A load test is judged at its budget on two throughput figures: successful requests/s (its row) and requests per CPU-second' +
      " of the server's main thread (in its details, where Linux shows the servers' CPU); losing more than the budget in either is a regression.",
    'The gate asks one question of each interval: did throughput fall by more than the budget?' +
      ' <b>regression</b>: yes, the whole interval lies below −budget (fails).' +
      ' <b>inconclusive</b>: open, the interval straddles −budget or is short of its level (too few rounds: the change column' +
      ' says the level it has, the note why), so a loss beyond the budget is possible — not a failure, and not a pass to rely on.' +
      ' Certain passes (no loss beyond the budget): <b>improvement</b>, the whole interval lies above +budget;' +
      ' <b>unchanged</b>, within ±budget; <b>within budget</b>, above −budget and reaching past +budget.' +
      ' <b>unmeasured</b>: too few rounds for a verdict (the time limit cut it short) — a failure, never a pass.',
  ].join('<br>\n'),
);

/** The same for a run whose micro-benchmarks were counted (micro.measure: counts): what its rows are instead. */
const HOW_TO_READ_COUNTS = new Markup(
  [
    "Counted rows were counted, not timed: instructions per call at full tiering under Valgrind's callgrind, each revision in " +
      "processes of its own, one per seed (V8's hash and random seeds, and the order the bench files load in); a counted load " +
      "test's call is a request, sent one at a time, its server's threads counted together. " +
      'The same code under the same seed reads the same count.',
    "Change is head against base in calls per instruction (fewer instructions a call reads as faster), the mean of each seed's pair, " +
      'with a paired t interval over seeds, widened so the whole table shares one false-alarm rate; where no seed moves the change, ' +
      'the interval is the estimate itself. Counts do not see memory stalls, waiting or time: docs/counts.md.',
    ...HOW_TO_READ.markup.split('<br>\n').slice(2),
  ].join('<br>\n'),
);

/** A collapsed section: the summary stays on the `<details>` line (an HTML block ends at a blank line), the body is markdown. */
function details(summary: Markup, body: Markup): Markup {
  return md`<details><summary>${summary}</summary>\n\n${body}\n\n</details>`;
}

/** Untrusted text kept as lines, in a `<pre>` (an HTML block that only `</pre>` ends, and that cannot be in it). */
function pre(text: unknown): Markup {
  return new Markup(`<pre>${escapeLines(text)}</pre>`);
}

/** compare --solo-check: a table of the shared and solo changes, a line per speed level found, and the legend. */
function soloMarkdown(report: Report): Markup | undefined {
  if (!report.soloCheck) return undefined;
  const sections = soloSections(report.benchmarks, report.soloCheck);
  const parts = [md`${sections.heading}`, md``];
  if (sections.rows.length) parts.push(table(sections.header, sections.rows, 1));
  if (sections.notes.length) parts.push(md``, ...sections.notes.map((note) => md`- ${note}`));
  parts.push(md``, md`${SOLO_LEGEND}`);
  return joinMarkup(parts);
}
