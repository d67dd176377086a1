import { git } from '../checkout/git.js';
import type { AnchorSpec } from '../config/anchor.js';
import type { ActionSettings } from '../config/action-inputs.js';
import type { GateOptions } from '../gate/options.js';
import { runGate } from '../gate/run.js';
import { commitInfo, commitOf, resolveAnchor } from '../history/anchor.js';
import { newestTip, trendSince } from '../history/chain.js';
import { DRIFT_LABEL, upsertDriftIssue, type IssueApi } from '../history/issue.js';
import { writeSite } from '../history/publish.js';
import { recordOf, type HistoryRecord } from '../history/record.js';
import { driftMarkdown, driftState, trendLines, trendMarkdown } from '../history/render.js';
import { branchStore, codecBranchStore, type BranchApi, type HistoryStore, type Store } from '../history/store.js';
import { DRIFT_CODEC, DRIFT_LIMIT, driftRecordOf, type DriftRecord } from '../history/drift-record.js';
import { escapeText } from '../report/escape.js';
import type { Report } from '../report/model.js';
import { messageOf } from '../util/errors.js';
import { formatBudget } from '../util/format.js';

/** What the history steps need of the action: its API clients, a log, and what a published site is made with. */
export interface HistoryDeps {
  branchApi: (settings: ActionSettings) => BranchApi;
  issueApi: (settings: ActionSettings) => IssueApi;
  log: (line: string) => void;
  warn: (line: string) => void;
  /** The page's script and styles (dist/site), benchgate's version, and the server's URL (GITHUB_SERVER_URL). */
  site: { assets: string; version: string; serverUrl: string };
}

/** The gate's history file on the data branch: one per gate key (no `..`: it stays inside history/), so gates sharing the branch never mix. */
export function historyFileOf(gateKey: string): string {
  const name = gateKey
    .replace(/#/g, '@')
    .split('/')
    .map((part) => (/^\.+$/.test(part) ? '_' : part))
    .join('/');
  return `history/${name}.jsonl`;
}

/** The gate's drift verdicts on the data branch, beside its history: drift/<gate key>.jsonl. */
function driftStoreOf(settings: ActionSettings, deps: HistoryDeps): Store<DriftRecord> {
  return codecBranchStore(
    deps.branchApi(settings),
    {
      branch: settings.history!,
      file: historyFileOf(settings.commentKey).replace(/^history\//, 'drift/'),
      limit: DRIFT_LIMIT,
      log: deps.log,
    },
    DRIFT_CODEC,
  );
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

/** Where the trend starts: a tag pattern as it is (the records carry their tags), anything else resolved to its commit. */
async function trendAnchor(spec: AnchorSpec, head: string, cwd: string) {
  return spec.kind === 'tag' ? spec : resolveAnchor(spec, head, cwd);
}

/**
 * The base a recording push compares with: the newest recorded commit of this gate when it is an ancestor of
 * the head, else the event's. A push whose job was cancelled or skipped left no record; comparing with the
 * last recorded commit makes this record span it, so the chain never breaks.
 */
export async function historyBase(settings: ActionSettings, deps: HistoryDeps, head: string, eventBase: string): Promise<string> {
  try {
    const own = (await storeOf(settings, deps).read()).filter((r) => r.gate === settings.commentKey);
    const last = newestTip(own);
    if (!last || last === eventBase) return eventBase;
    await git(['merge-base', '--is-ancestor', last, head], settings.workingDirectory);
    if (last !== head)
      deps.log(`benchgate: comparing with ${last.slice(0, 7)}, the newest recorded commit (the pushes since it were not recorded)`);
    return last === head ? eventBase : last;
  } catch {
    return eventBase; // no history yet, or its newest commit is not in this checkout's history: the event's base
  }
}

/**
 * After a gate's compare, with `history` set. On a push (schedule, dispatch) of the default branch: append the
 * compare as a record and return the trend for the summary. Under a pull request: read the history (the token
 * may be read-only) and return the comment's small trend. A history that cannot be read or written is a
 * warning, in the log and the summary: it never changes the gate's verdict. Returns the markdown to add, or undefined.
 */
export async function historyStep(report: Report, settings: ActionSettings, deps: HistoryDeps): Promise<string | undefined> {
  const store = storeOf(settings, deps);
  const cwd = settings.workingDirectory;
  try {
    if (settings.historyWrites) {
      const info = report.base && report.head ? await commitInfo(report.head.sha, report.base.sha, cwd) : undefined;
      const record = info && recordOf(report, settings.commentKey, info, new Date());
      if (!record) return warning(deps, `nothing recorded in ${store.where}: the run compared no two commits.`);
      const written = await store.append([record]);
      deps.log(`benchgate: recorded ${record.benchmarks.length} benchmark(s) of ${record.commit.slice(0, 7)} in ${store.where}`);
      const published = settings.publishDir ? await publishSite(written, settings, deps) : '';
      // The chained estimate between anchored runs, against the drift budget: drift decides, this suspects.
      const anchor = await trendAnchor(settings.anchor, record.commit, cwd);
      const trend = trendSince(written, settings.commentKey, { head: record.commit, anchor });
      return `${trendMarkdown(trend, { driftBudget: settings.driftBudget }).markup}${published}`;
    }
    if (!settings.pullRequest) return undefined;
    // Main's trend up to the pull request's base: what this pull request adds to.
    const records = await store.read();
    const own = records.filter((r) => r.gate === settings.commentKey);
    if (!own.length) return undefined;
    const base = report.base?.sha;
    const head = own.some((r) => r.commit === base) ? base : newestTip(own);
    const anchor = await trendAnchor(settings.anchor, head!, cwd);
    const trend = trendSince(records, settings.commentKey, { head, anchor });
    return trendLines(trend, report, { driftBudget: settings.driftBudget })?.markup;
  } catch (error) {
    return warning(
      deps,
      `the history (${store.where}) could not be ${settings.historyWrites ? 'written' : 'read'}: ${messageOf(error).split('\n')[0]}. The verdict stands.`,
    );
  }
}

/** The site of this gate's records, written to the publish folder; a failure is a warning, never the verdict. */
async function publishSite(records: readonly HistoryRecord[], settings: ActionSettings, deps: HistoryDeps): Promise<string> {
  const { owner, repo } = settings.repository;
  try {
    const drift = await driftStoreOf(settings, deps).read();
    const written = writeSite(
      settings.publishDir!,
      records.filter((r) => r.gate === settings.commentKey),
      {
        title: `${owner}/${repo}: benchmark history`,
        version: deps.site.version,
        generated: new Date(),
        releases: settings.anchor.kind === 'tag' ? settings.anchor.pattern : undefined,
        repository: `${deps.site.serverUrl}/${owner}/${repo}`,
        assets: deps.site.assets,
        drift,
      },
    );
    deps.log(
      `benchgate: published the history's site to ${settings.publishDir} (${written.files} files, ${Math.round(written.bytes / 1024)} kB)`,
    );
    return '';
  } catch (error) {
    return `\n${warning(deps, `the history's site could not be written to ${settings.publishDir}: ${messageOf(error).split('\n')[0]}. The verdict stands.`)}`;
  }
}

function warning(deps: HistoryDeps, text: string): string {
  deps.warn(`benchgate: ${text}`);
  return `> [!WARNING]\n> ${escapeText(text)}\n`;
}

/**
 * mode: drift. HEAD (the default branch's own code) against the anchor, side by side, every benchmark at the
 * drift budget; the history, when there is one, supplies the trend and the commits it suspects. A broken
 * budget opens or updates one issue; a budget shown to hold updates an open one; an undecided or failed compare
 * leaves the issue as it is. Returns the report and the markdown for the summary.
 */
export async function driftStep(
  settings: ActionSettings,
  deps: HistoryDeps,
  gate: Omit<GateOptions, 'cwd' | 'base' | 'head'>,
): Promise<{ report: Report; markdown: string }> {
  const cwd = settings.workingDirectory;
  const head = await commitOf(settings.head ?? 'HEAD', cwd);
  const anchor = await resolveAnchor(settings.anchor, head, cwd);
  const budget = formatBudget(settings.driftBudget);
  deps.log(`benchgate drift: ${head.slice(0, 7)} against ${anchor.label} (${anchor.commit.slice(0, 7)}) at a ${budget} drift budget`);
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
  if (settings.history) {
    // Kept beside the history for the published site's drift column; a failure is a warning, never the verdict.
    const record = driftRecordOf(report, settings.commentKey, anchor, settings.driftBudget, new Date());
    if (record)
      await driftStoreOf(settings, deps)
        .append([record])
        .then(() => deps.log(`benchgate: drift ${record.state}: recorded on branch ${settings.history}`))
        .catch((error: unknown) => deps.warn(`benchgate: the drift could not be recorded: ${messageOf(error).split('\n')[0]}`));
  }
  const marker = driftMarker(settings.commentKey);
  const markdown = driftMarkdown({ report, trend, driftBudget: settings.driftBudget, anchor, marker });
  const state = driftState(report);
  if (state === 'failed' || state === 'undecided') {
    deps.log(
      `benchgate: the drift is ${state === 'failed' ? 'unknown (the compare failed)' : 'undecided'}: the drift issue is left as it is`,
    );
    return { report, markdown };
  }
  const broken = report.benchmarks.filter((b) => b.verdict === 'regression').length;
  const title =
    state === 'broken'
      ? `benchgate drift: ${broken} benchmark(s) lost more than ${budget} since ${anchor.label}`
      : `benchgate drift: every benchmark within ${budget} of ${anchor.label} again`;
  try {
    const outcome = await upsertDriftIssue(deps.issueApi(settings), { marker, title, body: markdown, broken: state === 'broken' });
    if (outcome.action !== 'none') deps.log(`benchgate: drift issue #${outcome.number} ${outcome.action}`);
  } catch (error) {
    deps.warn(
      `benchgate could not open or update the drift issue (label ${DRIFT_LABEL}): ${messageOf(error).split('\n')[0]}. Give the job permissions: issues: write.`,
    );
  }
  return { report, markdown };
}
