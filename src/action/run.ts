import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type * as Core from '@actions/core';
import { git, GIT_FETCH_TIMEOUT_MS } from '../checkout/git.js';
import { hasChanges } from '../checkout/revisions.js';
import { parseActionInputs, type ActionSettings } from '../config/action-inputs.js';
import { CONFIG_FILE } from '../config/load.js';
import { errorReport, runGate } from '../gate/run.js';
import { installValgrind } from '../measure/counts/callgrind.js';
import { commentMarker, fitComment, regressionAnnotations, upsertComment, type CommentApi, type PullRequestApi } from '../report/github.js';
import { renderMarkdown } from '../report/markdown.js';
import type { Report } from '../report/model.js';
import { escapeText, terminalText } from '../report/escape.js';
import { mergeShards } from '../report/merge.js';
import { readReport, reportFiles } from '../report/read.js';
import { describeFailure, messageOf, UserError } from '../util/errors.js';
import { roundOf } from '../util/format.js';
import { killAll } from '../util/processes.js';
import { forgetSecrets, restoreJobFiles } from '../util/secrets.js';
import { signalExitCode, trapSignals } from '../util/signals.js';
import type { MeasureProgress } from '../measure/types.js';
import { driftStep, historyBase, historyStep, type HistoryDeps } from './history.js';

export interface ActionDeps {
  core: Pick<typeof Core, 'getInput' | 'setOutput' | 'setFailed' | 'warning' | 'error' | 'notice' | 'info' | 'summary'>;
  env: NodeJS.ProcessEnv;
  /** A comment client for a repository and PR, made from the token and the API URL. */
  commentApi: (settings: ActionSettings, pr: NonNullable<ActionSettings['pullRequest']>) => CommentApi;
  /** Finds a fork's pull request by its head (mode: comment, when the event cannot name it). */
  pullRequestApi: (settings: ActionSettings) => PullRequestApi;
  /** The history's data branch (git data API) and drift's issue. */
  branchApi: HistoryDeps['branchApi'];
  issueApi: HistoryDeps['issueApi'];
  runnerPath: string;
  probePath: string;
  version: string;
}

/**
 * A progress line for the job's log. It may hold text from the pull request (bench ids, file names,
 * errors), and the runner reads a line that starts with `::` as a workflow command: so one line
 * (control characters and line breaks shown as ?), and never starting with `::`.
 */
export function logLine(line: string): string {
  return terminalText(line).replace(/^(\s*):/, '$1?');
}

/** The whole action; never throws: every failure, Error or not, fails the step with its message. */
export async function runAction(deps: ActionDeps): Promise<void> {
  const { core, env } = deps;
  let settings: ActionSettings | undefined;
  /** Give @actions/core back the job files (outputs, summary) once no child of the run can be alive. */
  let restore = () => undefined as void;
  const trap = trapSignals({
    announce: (signal) =>
      core.warning(`benchgate: ${signal} received (job cancelled): stopping benchmark processes and removing worktrees`),
    exitCode: signalExitCode,
    // A crash of benchgate itself: the report, summary, outputs and comment still say what happened, and the step fails.
    onCrash: async (error) => {
      const report = errorReport(`benchgate crashed: ${describeFailure(error)}`, deps.version);
      restore();
      if (!settings) return failWithSummary(report, deps);
      if (settings.pullRequest) report.pullRequest = settings.pullRequest;
      report.commentKey = settings.commentKey;
      await publish(report, settings, deps).catch(() => failWithSummary(report, deps));
    },
  });
  try {
    const event = env.GITHUB_EVENT_PATH ? (JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as Record<string, unknown>) : {};
    settings = parseActionInputs((name) => core.getInput(name), {
      eventName: env.GITHUB_EVENT_NAME ?? '',
      event,
      workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
      runnerTemp: env.RUNNER_TEMP ?? path.join(env.GITHUB_WORKSPACE ?? process.cwd(), '.benchgate'),
      repository: env.GITHUB_REPOSITORY ?? '',
      ...(env.GITHUB_REF ? { ref: env.GITHUB_REF } : {}),
    });
    // The inputs are read: from here on the token lives only in `settings`, never in an environment a child could read.
    const { forgotten, wiped, jobFiles } = forgetSecrets(env);
    restore = () => restoreJobFiles(jobFiles, env);
    if (forgotten.length)
      core.info(
        `benchgate: ${forgotten.length} secret variable(s) kept from every process it starts${wiped ? ' and wiped from its own /proc environ' : ''}`,
      );
    if (settings.mode === 'comment' || settings.mode === 'merge') {
      // No code of the pull request runs in these modes: nothing to keep the job files from.
      restore();
      if (settings.mode === 'comment') return await commentFromReport(settings, event, deps);
      return await publishMerged(settings, event, deps);
    }
    const gate = {
      configFile: settings.config,
      overrides: {
        timeLimitMs: settings.timeLimitMs,
        measure: settings.measure,
        installTimeoutMs: settings.installTimeoutMs,
        budget: settings.budget,
        budgets: settings.budgets,
      },
      runnerPath: deps.runnerPath,
      probePath: deps.probePath,
      toolVersion: deps.version,
      profile: settings.profile,
      // Counts mode on a runner without Valgrind: GitHub's Ubuntu runners install it in about 20 s.
      installCallgrind: installValgrind,
      soloCheck: settings.soloProcesses === undefined ? undefined : { processes: settings.soloProcesses },
      childEnv: settings.env,
      policy: settings.policy,
      profileDir: path.join(settings.reportDir, 'profiles'),
      log: (line: string) => core.info(logLine(line)),
      onProgress: (p: MeasureProgress) => core.info(roundOf(p)),
      onCleanup: (cleanup: () => void) => trap.onCleanup(cleanup),
    };
    const history = historyDeps(deps);
    let report: Report;
    /** Markdown after the report, in the summary and the comment: the trend, or the drift's findings. */
    let extra: string | undefined;
    try {
      if (settings.mode === 'drift') {
        ({ report, markdown: extra } = await driftStep(settings, history, gate));
      } else {
        let base = settings.base!;
        await ensureCommit(base, settings.workingDirectory, core);
        if (settings.history && settings.historyWrites) {
          const head = await git(['rev-parse', '--verify', `${settings.head ?? 'HEAD'}^{commit}`], settings.workingDirectory);
          base = await historyBase(settings, history, head, base);
        }
        const head = settings.head ?? (await checkedOutCommit(settings.workingDirectory, core));
        report = await runGate({ ...gate, cwd: settings.workingDirectory, base, head });
      }
    } catch (error) {
      killAll();
      report = errorReport(describeFailure(error), deps.version);
    }
    // The run is over and its children with it.
    restore();
    if (settings.pullRequest) report.pullRequest = settings.pullRequest;
    report.commentKey = settings.commentKey;
    if (settings.mode === 'gate' && settings.history) extra = await historyStep(report, settings, history);
    await publish(report, settings, deps, extra);
  } catch (error) {
    restore();
    await failWithSummary(errorReport(messageOf(error), deps.version), deps);
  } finally {
    trap.release();
  }
}

/** The history steps' view of the action: its API clients, and the job log. */
function historyDeps(deps: ActionDeps): HistoryDeps {
  return {
    branchApi: deps.branchApi,
    issueApi: deps.issueApi,
    log: (line) => deps.core.info(logLine(line)),
    warn: (line) => deps.core.warning(logLine(line)),
    site: {
      assets: path.join(path.dirname(deps.runnerPath), 'site'),
      version: deps.version,
      serverUrl: deps.env.GITHUB_SERVER_URL ?? 'https://github.com',
    },
  };
}

/** Fail the step with the report's error; the job summary is always written, also when the run could not start. */
async function failWithSummary(report: Report, deps: ActionDeps): Promise<void> {
  deps.core.setFailed(report.error ?? report.summary);
  await deps.core.summary
    .addRaw(renderMarkdown(report), true)
    .write()
    .catch(() => undefined);
}

/** Write the report files, outputs, job summary, annotations and comment; then fail the step when it must. */
async function publish(report: Report, settings: ActionSettings, deps: ActionDeps, extra?: string): Promise<void> {
  const { core, env } = deps;
  mkdirSync(settings.reportDir, { recursive: true });
  const markdown = extra ? `${renderMarkdown(report)}\n${extra}\n` : renderMarkdown(report);
  const jsonPath = path.join(settings.reportDir, 'report.json');
  const markdownPath = path.join(settings.reportDir, 'report.md');
  writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(markdownPath, markdown);
  const regressions = report.benchmarks.filter((b) => b.verdict === 'regression').length;
  core.setOutput('verdict', report.verdict);
  core.setOutput('regressions', String(regressions));
  core.setOutput('report-json', jsonPath);
  core.setOutput('report-markdown', markdownPath);
  // Empty when nothing was profiled, so `if: steps.x.outputs.profiles-dir` guards an upload step.
  core.setOutput('profiles-dir', report.run?.profile?.dir ?? '');
  // Empty when no site was written this run (not a recording run, or it could not be written).
  const site = settings.publishDir && existsSync(path.join(settings.publishDir, 'index.html')) ? settings.publishDir : '';
  core.setOutput('site-dir', site);
  // The comment first: when it cannot be posted, the summary says why (it never changes the verdict).
  const commentProblem = await comment(report, markdown, settings, deps);
  await core.summary.addRaw(commentProblem ? `${markdown}\n> [!WARNING]\n> ${escapeText(commentProblem)}\n` : markdown, true).write();

  const configFile = path.resolve(settings.workingDirectory, settings.config ?? CONFIG_FILE);
  const workspace = env.GITHUB_WORKSPACE ?? settings.workingDirectory;
  for (const annotation of regressionAnnotations(report, settings.workingDirectory, workspace, configFile)) {
    core[annotation.level](annotation.message, {
      title: annotation.title,
      ...(annotation.file ? { file: annotation.file } : {}),
      ...(annotation.line ? { startLine: annotation.line } : {}),
    });
  }

  if (report.verdict === 'error') core.setFailed(`benchgate: ${report.error ? report.error.split('\n')[0] : report.summary}`);
  else if (report.verdict === 'fail' && settings.failOnRegression) core.setFailed(`benchgate: ${report.summary} (see the job summary)`);
}

/**
 * Post or update the gate's comment. A comment that cannot be posted never changes the gate's verdict:
 * it is a warning, and what it returns (why) goes into the job summary. Retries of 5xx answers and waits
 * for rate limits happen in the client (Octokit's retry and throttling plugins) before an error gets here.
 */
async function comment(report: Report, markdown: string, settings: ActionSettings, deps: ActionDeps): Promise<string | undefined> {
  const { core, env } = deps;
  if (!settings.pullRequest || settings.comment === 'never') return undefined;
  const runUrl = env.GITHUB_RUN_ID
    ? `${env.GITHUB_SERVER_URL ?? 'https://github.com'}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
    : undefined;
  const marker = commentMarker(settings.commentKey);
  try {
    const outcome = await upsertComment(deps.commentApi(settings, settings.pullRequest), {
      mode: settings.comment,
      marker,
      body: fitComment(markdown, runUrl, { marker }),
      report,
    });
    core.info(`PR comment: ${outcome}`);
    return undefined;
  } catch (error) {
    const problem =
      `benchgate could not comment on pull request #${settings.pullRequest.number}: ` +
      `${whyNoComment(error)} The verdict stands as reported here and in the report files.`;
    core.warning(problem);
    return problem;
  }
}

/** What a failed comment request means for the user: a rate limit, a read-only token, or GitHub failing. */
export function whyNoComment(error: unknown): string {
  const { status, response } = error as { status?: number; response?: { headers?: Record<string, string | undefined> } };
  const headers = response?.headers ?? {};
  const message = messageOf(error).split('\n')[0]!.slice(0, 300);
  if ((status === 403 || status === 429) && (headers['x-ratelimit-remaining'] === '0' || /rate limit/i.test(message))) {
    const reset = Number(headers['x-ratelimit-reset']);
    const at = Number.isFinite(reset) && reset > 0 ? ` (it resets at ${new Date(reset * 1000).toISOString()})` : '';
    return `GitHub's API rate limit was reached${at}, and waiting longer would hold the job: HTTP ${status}, ${message}.`;
  }
  if (status === 403 || status === 404)
    return (
      `HTTP ${status}: the token may not write comments here. On a pull request from a fork the ` +
      `token is read-only: to get the comment, use the two-workflow pattern (benchgate's docs/security.md, ` +
      `"Pull requests from forks"); otherwise give the job permissions: pull-requests: write.`
    );
  if (status !== undefined) return `GitHub answered HTTP ${status} (${message}), also after retries.`;
  return `the request failed (${message}), also after retries.`;
}

/**
 * mode: merge, in a job that `needs:` the shards' jobs and downloaded their reports: one report for
 * the whole suite, published as a gate's (its comment key, so one sticky comment). It runs no code
 * of the pull request; the shard reports are untrusted files (a shard's job ran that code), each
 * read through the size cap and the schema. Anything that keeps them from adding up to the suite
 * (a failed, missing or repeated shard, other commits) is an error report that fails the step.
 */
function mergedReport(settings: ActionSettings, version: string): Report {
  let report: Report;
  try {
    if (!settings.shardReports)
      throw new UserError("Input 'shard-reports' is required with mode: merge: the shard reports, e.g. shards/*.json.");
    const files = reportFiles([settings.shardReports], settings.workingDirectory);
    report = mergeShards(files.map((file) => ({ file: path.relative(settings.workingDirectory, file), report: readReport(file) })));
    if (settings.base && /^[0-9a-f]{40}$/.test(settings.base) && report.base?.sha !== settings.base)
      throw new UserError(
        `The shard reports compare against ${report.base?.sha ?? 'no commit'}, but this workflow's base is ${settings.base}: refusing them.`,
      );
  } catch (error) {
    report = errorReport(describeFailure(error), version);
  }
  // Whatever the shards wrote there is theirs; these are the event's and this gate's.
  delete report.pullRequest;
  if (settings.pullRequest) report.pullRequest = settings.pullRequest;
  report.commentKey = settings.commentKey;
  return report;
}

/**
 * mode: merge publishes as the gate would: under pull_request (shards and merge in one workflow) the event
 * names the pull request; under workflow_run (the fork setup: the shards ran in a pull_request workflow),
 * the run names it, with the same checks as mode: comment: the merged report must be of the run's commit.
 */
async function publishMerged(settings: ActionSettings, event: WorkflowEvent, deps: ActionDeps): Promise<void> {
  let report = mergedReport(settings, deps.version);
  if (settings.eventName !== 'workflow_run') return publish(report, settings, deps);
  const { number, headSha } = await pullRequestOfRun(settings, event, deps);
  if (report.verdict !== 'error' && report.head?.sha !== headSha)
    report = errorReport(
      `The shard reports are of ${report.head?.sha ?? 'no commit'}, but the workflow run that uploaded them tested ${headSha}: refusing them.`,
      deps.version,
    );
  const pullRequest = { ...settings.repository, number };
  report.pullRequest = pullRequest;
  report.commentKey = settings.commentKey;
  await publish(report, { ...settings, pullRequest }, deps);
}

/**
 * The two-workflow pattern: a workflow_run workflow (trusted, with a write token) posts the
 * comment for a report that a pull_request workflow uploaded. That report was written by the
 * pull request's own code, so it decides nothing: the pull request and the commit come from the
 * workflow_run event (which GitHub writes), the report must be of that commit, and it is read
 * through a size cap and the report schema before anything of it is rendered (escaped).
 */
async function commentFromReport(settings: ActionSettings, event: WorkflowEvent, deps: ActionDeps): Promise<void> {
  if (!settings.reportJson)
    throw new UserError("Input 'report-json' is required with mode: comment: the report.json the gate's workflow uploaded.");
  const { number, headSha } = await pullRequestOfRun(settings, event, deps);
  const report = readReport(settings.reportJson);
  if (report.head?.sha !== headSha) {
    throw new UserError(
      `The report is of ${report.head?.sha ?? 'no commit'}, but the workflow run that uploaded it tested ${headSha}: refusing to comment.`,
    );
  }
  // The report's own pull request and comment key are ignored (it is the pull request's file): this workflow's inputs name the gate.
  const problem = await comment(report, renderMarkdown(report), { ...settings, pullRequest: { ...settings.repository, number } }, deps);
  if (problem) await deps.core.summary.addRaw(`> [!WARNING]\n> ${escapeText(problem)}\n`, true).write();
}

/**
 * The pull request a workflow_run event is about, and the commit its run tested, from the event
 * alone: workflow_run.pull_requests names same-repository pull requests; for a fork it is empty
 * (GitHub leaves it so), and the one open pull request whose head is the run's head branch and
 * commit is asked of the API. Anything else is refused.
 */
/** The parts of a workflow_run event payload this file reads; every field is checked before use. */
interface WorkflowEvent {
  workflow_run?: {
    event?: unknown;
    head_sha?: unknown;
    head_branch?: unknown;
    head_repository?: { owner?: { login?: unknown } };
    pull_requests?: { number?: unknown; head?: { sha?: unknown } }[];
  };
}

async function pullRequestOfRun(
  settings: ActionSettings,
  event: WorkflowEvent,
  deps: ActionDeps,
): Promise<{ number: number; headSha: string }> {
  const run = event.workflow_run;
  if (settings.eventName !== 'workflow_run' || !run)
    throw new UserError(
      `mode: ${settings.mode} finds its pull request from a workflow_run event (benchgate's ` +
        `docs/security.md, "Pull requests from forks"), not from '${settings.eventName}': refusing to comment.`,
    );
  if (run.event !== 'pull_request')
    throw new UserError(
      `The workflow run was triggered by '${String(run.event)}', not by a pull request: there is no pull request to comment on.`,
    );
  const headSha = typeof run.head_sha === 'string' ? run.head_sha : '';
  if (!/^[0-9a-f]{40}$/.test(headSha)) throw new UserError('The workflow_run event names no head commit: refusing to comment.');
  const named = (Array.isArray(run.pull_requests) ? run.pull_requests : []).filter(
    (pr) => pr.head?.sha === headSha && typeof pr.number === 'number',
  );
  if (named.length === 1) return { number: named[0]!.number as number, headSha };
  if (named.length > 1)
    throw new UserError(
      `The workflow run's commit ${headSha} is the head of ${named.length} pull requests: refusing to guess which to comment on.`,
    );
  const owner = run.head_repository?.owner?.login;
  const branch = run.head_branch;
  if (typeof owner !== 'string' || typeof branch !== 'string')
    throw new UserError('The workflow_run event names no pull request and no head branch: refusing to comment.');
  const open = (await deps.pullRequestApi(settings).openPullRequests(`${owner}:${branch}`)).filter((pr) => pr.head.sha === headSha);
  if (open.length !== 1) {
    throw new UserError(
      `${open.length === 0 ? 'No' : open.length} open pull request(s) of ${settings.repository.owner}/${settings.repository.repo} ` +
        `have the head ${owner}:${branch} at ${headSha}: refusing to comment.`,
    );
  }
  return { number: open[0]!.number, headSha };
}

/**
 * What to test where the head input is empty: the checked-out commit, checked out beside base, so that both run from
 * paths of one length and depth (<tmp>/benchgate-<hash>/base and /head). From the workspace
 * (/home/runner/work/<repo>/<repo>), head's files resolve through other paths than base's, and work that resolves or
 * opens files per call costs otherwise: an A/A of fast-querystring's import() benchmark read head 1.7-2.1% faster
 * than base in all 6 tasks, each interval clear of zero, and 0.0-0.5% with both checked out (docs/reports.md).
 * A workspace with changes anywhere in its repository (a step before this one wrote files git sees, in this package or
 * another it imports) is measured as it is, and the log says so. Answers `HEAD`, which the checkout resolves, so the
 * report and comment name it so (and not by a second copy of its sha).
 */
async function checkedOutCommit(cwd: string, core: ActionDeps['core']): Promise<string | undefined> {
  if (await hasChanges(cwd, git, 'repository')) {
    core.info(
      'head: the workspace as it is (it has changes to its commit): base runs from a checkout of its own, at another path, ' +
        'so work that resolves or opens files per call may read a difference the code does not make',
    );
    return undefined;
  }
  return 'HEAD';
}

/** With a shallow checkout the base commit may be missing: fetch just it (the input was checked to be a revision, not an option). */
async function ensureCommit(sha: string, cwd: string, core: ActionDeps['core']): Promise<void> {
  try {
    await git(['cat-file', '-e', '--end-of-options', `${sha}^{commit}`], cwd);
    return;
  } catch {
    core.info(`fetching base ${sha} (depth 1): the checkout does not have it`);
  }
  try {
    await git(['fetch', '--no-tags', '--depth=1', 'origin', '--end-of-options', sha], cwd, { timeoutMs: GIT_FETCH_TIMEOUT_MS });
  } catch (error) {
    throw new UserError(
      `The base commit ${sha} is not in the checkout and could not be fetched from origin: ${messageOf(error).split('\n').slice(-2).join(' ')}`,
    );
  }
}
