import type { Verdict } from '../stats/compare.js';
import { formatBudget, formatChange, formatConfidence, formatOps } from './format.js';
import { httpSections } from './http-sections.js';
import { changeChart } from './chart.js';
import { profileSections } from './profile-sections.js';
import { sortBenchmarks, verdictCounts, type Report, type ReportBenchmark } from './model.js';
import { runLine } from './terminal.js';

const ICON: Record<Verdict, string> = {
  regression: '🔴',
  error: '⚠️',
  inconclusive: '🟡',
  improvement: '🟢',
  new: '🆕',
  removed: '➖',
  unchanged: '⚪',
};

const HEADLINE = { pass: '✅ benchgate: pass', fail: '❌ benchgate: regression', error: '⚠️ benchgate: error' };

/**
 * The report as GitHub-flavoured markdown, ready to be a PR comment. Every
 * string that comes from a benchmark or a revision is escaped, so a task name
 * cannot inject markdown, HTML or a mention.
 */
export function renderMarkdown(report: Report): string {
  const out: string[] = [`### ${HEADLINE[report.verdict]}`, ''];
  if (report.error) out.push(`The run failed: ${escapeInline(report.error.split('\n')[0]!)}`, '', details('Error', pre(report.error)));
  else out.push(`**${escapeInline(verdictCounts(report.benchmarks))}**`, '');
  if (report.base && report.head) {
    out.push(`Base ${escapeInline(report.base.ref)} @ \`${report.base.sha.slice(0, 7)}\` · head ${escapeInline(report.head.ref)} @ \`${report.head.sha.slice(0, 7)}\`${report.head.dirty ? ' (with uncommitted changes)' : ''}`, '');
  }
  const benchmarks = sortBenchmarks(report.benchmarks);
  if (benchmarks.length) {
    const level = report.run ? formatConfidence(report.run.intervalConfidence) : '95%';
    out.push(`| | Benchmark | Base ops/s | Head ops/s | Change [${level} CI] | Budget |`, '|---|---|--:|--:|---|--:|');
    for (const b of benchmarks) {
      out.push(`| ${ICON[b.verdict]} ${b.verdict} | ${escapeInline(b.id)} | ${formatOps(b.base?.opsPerSec)} | ${formatOps(b.head?.opsPerSec)} | ${escapeInline(formatChange(b))} | ${formatBudget(b.budget)} |`);
    }
    out.push('');
    const chart = changeChart(benchmarks);
    // A code block renders the characters as they are: nothing in it is markdown or HTML.
    if (chart.length) out.push('```text', ...chart.map((line) => line.replace(/`/g, "'").replace(/[\u0000-\u001f\u007f]/g, '?')), '```', CHART_LEGEND, '');
  }
  for (const b of benchmarks.filter((b) => b.profile)) out.push(details(`${b.id}: where the time went`, profileMarkdown(b.id, b.profile!, report)), '');
  for (const b of benchmarks.filter((b) => b.http)) out.push(details(`${b.id}: latency and server`, httpMarkdown(b.id, b.http!)), '');
  for (const b of benchmarks.filter((b) => b.note)) out.push(`> [!NOTE]\n> ${escapeInline(b.id)}: ${escapeInline(b.note!)}`, '');
  const warned = benchmarks.filter((b) => b.warning);
  for (const b of warned) out.push(`> [!NOTE]\n> ${escapeInline(b.id)}: ${escapeInline(b.warning!)}`, '');
  const errors = benchmarks.filter((b) => b.error);
  if (errors.length) out.push(details(`Errors (${errors.length})`, errors.map((b) => `<b>${escapeHtml(b.id)}</b>\n${pre(b.error!)}`).join('\n')), '');
  if (report.run) out.push(`<sub>${escapeInline(runLine(report))} · ${escapeInline(environmentLine(report))}</sub>`, '');
  if (report.run?.conditions?.note) out.push(`> [!NOTE]\n> ${escapeInline(report.run.conditions.note)}`, '');
  out.push(details('How to read this', HOW_TO_READ), '');
  return out.join('\n');
}

function httpMarkdown(id: string, http: NonNullable<ReportBenchmark['http']>): string {
  const sections = httpSections(id, http);
  const parts = [`**${escapeInline(sections.title)}**`, '', table(sections.latency.header, sections.latency.rows), '', escapeInline(sections.failures)];
  if (sections.server) parts.push('', table(sections.server.header, sections.server.rows));
  if (sections.note) parts.push('', `<sub>${escapeInline(sections.note)}</sub>`);
  if (sections.moved.length) parts.push('', ...sections.moved.map((line) => `- moved: ${escapeInline(line)}`));
  return parts.join('\n');
}

function profileMarkdown(id: string, profile: NonNullable<ReportBenchmark['profile']>, report: Report): string {
  const sections = profileSections(id, profile);
  const parts = [`**${escapeInline(sections.title)}**`, ''];
  if (sections.error) parts.push(pre(sections.error));
  else if (sections.rows.length === 0) parts.push('No function costs more per operation at head.');
  else parts.push(table(sections.header, sections.rows, 2));
  if (sections.ownCode.length) parts.push('', ...sections.ownCode.map((line) => `- in the project's code: ${escapeInline(line)}`));
  if (sections.files.length) {
    const where = report.pullRequest ? "in the action's profiles-dir output (upload it with actions/upload-artifact)" : report.run?.profile?.dir ? `in ${report.run.profile.dir}` : '';
    parts.push('', `<sub>Profiles: ${sections.files.map((file) => `<code>${escapeHtml(file)}</code>`).join(', ')} ${escapeInline(where)} (open them in Chrome DevTools or speedscope)</sub>`);
  }
  return parts.join('\n');
}

/** A markdown table: the first `left` columns left-aligned, the rest (figures) right-aligned. */
function table(header: string[], rows: string[][], left = 1): string {
  return [`| ${header.map(escapeInline).join(' | ')} |`, `|${header.map((_, i) => (i < left ? '---' : '--:')).join('|')}|`, ...rows.map((row) => `| ${row.map(escapeInline).join(' | ')} |`)].join('\n');
}

const CHART_LEGEND = '<sub>● estimate, ─ its confidence interval, │ the budget either side of ¦ 0; « » past the end of the axis.</sub>';

function environmentLine(report: Report): string {
  const env = report.environment;
  const load = env.loadAverage ? `, load average ${env.loadAverage.before[0]!.toFixed(2)} → ${env.loadAverage.after[0]!.toFixed(2)}` : '';
  return `Node ${env.node} on ${env.os}/${env.arch}, ${env.cpus.count} × ${env.cpus.model}${load}`;
}

const HOW_TO_READ = [
  'Each benchmark runs base and head in the same processes, alternating short timed blocks; every round is a fresh process.',
  'Change is head against base in operations per second, with a distribution-free confidence interval (Hodges–Lehmann estimate, Wilcoxon signed-rank interval over rounds), widened so the whole table shares one false-alarm rate.',
  '<b>regression</b>: the whole interval lies below −budget. <b>improvement</b>: above +budget. <b>unchanged</b>: inside ±budget. <b>inconclusive</b>: anything else — not a failure.',
].join('<br>\n');

function details(summary: string, body: string): string {
  return `<details><summary>${escapeHtml(summary)}</summary>\n\n${body}\n\n</details>`;
}

function pre(text: string): string {
  return `<pre>${escapeHtml(text)}</pre>`;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Text safe in a markdown table cell or paragraph: HTML-escaped, markdown
 * punctuation backslash-escaped, pipes escaped, newlines flattened, and @ made
 * inert so a name cannot mention anyone.
 */
export function escapeInline(text: string): string {
  return escapeHtml(text.replace(/[\r\n]+/g, ' '))
    .replace(/[\\`*_{}[\]()#+\-!|~]/g, (char) => `\\${char}`)
    .replace(/@/g, '@\u200b');
}
