import type { ActionSettings } from '../config/action-inputs.js';
import { runGate, type GateOptions } from '../gate.js';
import { commitInfo, commitOf, parseAnchor, resolveAnchor } from '../history/anchor.js';
import { trendSince } from '../history/chain.js';
import { DRIFT_LABEL, upsertDriftIssue, type IssueApi } from '../history/issue.js';
import { recordOf } from '../history/record.js';
import { driftMarkdown, trendLines, trendMarkdown } from '../history/render.js';
import { branchStore, type BranchApi, type HistoryStore } from '../history/store.js';
import { formatBudget } from '../util/format.js';
import type { Report } from '../report/model.js';
import { messageOf } from '../util/errors.js';

/** What the history steps need of the action: its API clients and a log. */
export interface HistoryDeps {
  branchApi: (settings: ActionSettings) => BranchApi;
  issueApi: (settings: ActionSettings) => IssueApi;
  log: (line: string) => void;
  warn: (line: string) => void;
}

/** The gate's history file on the data branch: one per gate key, so gates sharing the branch never mix. */
export function historyFileOf(gateKey: string): string {
  return `history/${gateKey.replace(/#/g, '@')}.jsonl`;
}

function storeOf(settings: ActionSettings, deps: HistoryDeps): HistoryStore {
  return branchStore(deps.branchApi(settings), {
    branch: settings.history!,
    file: historyFileOf(settings.commentKey),
    limit: settings.historyLimit,
    log: deps.log,
  });
}

/** The drift issue's marker: one issue per gate key. */
function driftMarker(gateKey: string): string {
  return `<!-- benchgate drift: ${gateKey.replace(/-{2,}/g, '-').replace(/>/g, '')} -->`;
}

/**
 * After a gate's compare, with `history` set. On a push (schedule, dispatch) of the default branch: append the
 * compare as a record and return the trend for the summary. Under a pull request: read the history (the token
 * may be read-only) and return the comment's small trend. A history that cannot be read or written is a
 * warning: it never changes the gate's verdict. Returns the markdown to add, or undefined.
 */
export async function historyStep(report: Report, settings: ActionSettings, deps: HistoryDeps): Promise<string | undefined> {
  const store = storeOf(settings, deps);
  const spec = parseAnchor(settings.anchor, "Input 'anchor'");
  const anchor = spec.kind === 'tag' ? spec : undefined;
  try {
    if (settings.historyWrites) {
      if (!report.base || !report.head || report.verdict === 'error') {
        deps.warn(`benchgate: nothing recorded in ${store.where}: the compare measured nothing.`);
        return undefined;
      }
      const info = await commitInfo(report.head.sha, report.base.sha, settings.workingDirectory);
      const record = recordOf(report, settings.commentKey, info, new Date());
      if (!record) return undefined;
      await store.append([record]);
      deps.log(`benchgate: recorded ${record.benchmarks.length} benchmark(s) of ${record.commit.slice(0, 7)} in ${store.where}`);
      // The chained estimate between anchored runs, against the drift budget: drift decides, this suspects.
      const trend = trendSince(await store.read(), settings.commentKey, { head: record.commit, anchor });
      return trendMarkdown(trend, { driftBudget: settings.driftBudget }).markup;
    }
    if (!settings.pullRequest) return undefined;
    // Main's trend up to the pull request's base: what this pull request adds to.
    const records = await store.read();
    if (!records.length) return undefined;
    const base = report.base?.sha;
    const own = records.filter((r) => r.gate === settings.commentKey);
    const head = own.some((r) => r.commit === base) ? base : own.at(-1)?.commit;
    return trendLines(trendSince(records, settings.commentKey, { head, anchor }), report)?.markup;
  } catch (error) {
    deps.warn(
      `benchgate: the history (${store.where}) could not be ${settings.historyWrites ? 'written' : 'read'}: ${messageOf(error).split('\n')[0]}. The verdict stands.`,
    );
    return undefined;
  }
}

/**
 * mode: drift. HEAD (the default branch's own code) against the anchor, side by side, every benchmark at the
 * drift budget; the history, when there is one, supplies the trend and the commits it suspects. A broken
 * budget opens or updates one issue. Returns the report and the markdown for the summary.
 */
export async function driftStep(
  settings: ActionSettings,
  deps: HistoryDeps,
  gate: Omit<GateOptions, 'cwd' | 'base' | 'head'>,
): Promise<{ report: Report; markdown: string }> {
  const cwd = settings.workingDirectory;
  const head = await commitOf(settings.head ?? 'HEAD', cwd);
  const anchor = await resolveAnchor(parseAnchor(settings.anchor, "Input 'anchor'"), head, cwd);
  deps.log(
    `benchgate drift: ${head.slice(0, 7)} against ${anchor.label} (${anchor.commit.slice(0, 7)}) at a ${formatBudget(settings.driftBudget)} drift budget`,
  );
  const report = await runGate({
    ...gate,
    cwd,
    base: anchor.commit,
    head,
    overrides: { ...gate.overrides, driftBudget: settings.driftBudget },
  });
  let trend;
  if (settings.history) {
    try {
      trend = trendSince(await storeOf(settings, deps).read(), settings.commentKey, { head, anchor });
    } catch (error) {
      deps.warn(`benchgate: the history could not be read: ${messageOf(error).split('\n')[0]}; the drift is judged without it.`);
    }
  }
  const marker = driftMarker(settings.commentKey);
  const markdown = driftMarkdown({ report, trend, driftBudget: settings.driftBudget, anchorLabel: anchor.label, marker });
  if (report.verdict === 'error') return { report, markdown };
  const broken = report.benchmarks.filter((b) => b.verdict === 'regression');
  const title = broken.length
    ? `benchgate drift: ${broken.length} benchmark(s) lost more than ${formatBudget(settings.driftBudget)} since ${anchor.label}`
    : `benchgate drift: within ${formatBudget(settings.driftBudget)} of ${anchor.label} again`;
  try {
    const outcome = await upsertDriftIssue(deps.issueApi(settings), { marker, title, body: markdown, broken: broken.length > 0 });
    if (outcome.action !== 'none') deps.log(`benchgate: drift issue #${outcome.number} ${outcome.action}`);
  } catch (error) {
    deps.warn(
      `benchgate could not open or update the drift issue (label ${DRIFT_LABEL}): ${messageOf(error).split('\n')[0]}. Give the job permissions: issues: write.`,
    );
  }
  return { report, markdown };
}
