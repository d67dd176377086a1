import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type * as Core from '@actions/core';
import { git, GIT_FETCH_TIMEOUT_MS } from '../checkout/git.js';
import { parseActionInputs, sanitizeCommentKey, type ActionSettings } from '../config/action-inputs.js';
import { CONFIG_FILE } from '../config/load.js';
import { errorReport, runGate } from '../gate.js';
import { commentMarker, fitComment, regressionAnnotations, upsertComment, type CommentApi, type PullRequestApi } from '../report/github.js';
import { renderMarkdown } from '../report/markdown.js';
import type { Report } from '../report/model.js';
import { terminalText } from '../report/escape.js';
import { mergeShards } from '../report/merge.js';
import { readReport, reportFiles } from '../report/read.js';
import { describeFailure, messageOf, UserError } from '../util/errors.js';
import { killAll } from '../util/processes.js';
import { forgetSecrets, restoreJobFiles } from '../util/secrets.js';
import { signalExitCode, trapSignals } from '../util/signals.js';

export interface ActionDeps {
  core: Pick<typeof Core, 'getInput' | 'setOutput' | 'setFailed' | 'warning' | 'error' | 'notice' | 'info' | 'summary'>;
  env: NodeJS.ProcessEnv;
  /** A comment client for a repository and PR, made from the token and the API URL. */
  commentApi: (settings: ActionSettings, pr: NonNullable<ActionSettings['pullRequest']>) => CommentApi;
  /** Finds a fork's pull request by its head (mode: comment, when the event cannot name it). */
  pullRequestApi: (settings: ActionSettings) => PullRequestApi;
  runnerPath: string;
  probePath: string;
  version: string;
}

const PULL_REQUEST_TARGET = `benchgate refuses to run under pull_request_target: that event runs with a read/write token and the base repository's secrets, and benchgate would install and execute the pull request's code (its install script, bench files and server). A malicious pull request could then steal the token or the secrets. Use the pull_request event (and the two-workflow pattern for comments on pull requests from forks: docs/security.md in benchgate's repository), or set allow-pull-request-target: true if every pull request to this repository is trusted.`;

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
    });
    // The inputs are read: from here on the token lives only in `settings`, never in an environment a child could read.
    const { forgotten, wiped, jobFiles } = forgetSecrets(env);
    restore = () => restoreJobFiles(jobFiles, env);
    if (forgotten.length)
      core.info(
        `benchgate: ${forgotten.length} secret variable(s) kept from every process it starts${wiped ? ' and wiped from its own /proc environ' : ''}`,
      );
    if (settings.mode !== 'gate') {
      // No code of the pull request runs in these modes: nothing to keep the job files from.
      restore();
      if (settings.mode === 'comment') return await commentFromReport(settings, event, deps);
      return await publish(mergedReport(settings, deps.version), settings, deps);
    }
    if (settings.eventName === 'pull_request_target' && !settings.allowPullRequestTarget) throw new UserError(PULL_REQUEST_TARGET);
    await ensureCommit(settings.base!, settings.workingDirectory, core);
    let report: Report;
    try {
      report = await runGate({
        cwd: settings.workingDirectory,
        base: settings.base!,
        head: settings.head,
        configFile: settings.config,
        overrides: {
          timeLimitMs: settings.timeLimitMs,
          installTimeoutMs: settings.installTimeoutMs,
          budget: settings.budget,
          budgets: settings.budgets,
        },
        runnerPath: deps.runnerPath,
        probePath: deps.probePath,
        toolVersion: deps.version,
        profile: settings.profile,
        childEnv: settings.env,
        profileDir: path.join(settings.reportDir, 'profiles'),
        log: (line) => core.info(logLine(line)),
        onProgress: (p) => core.info(`round ${p.round} of ${p.rounds}`),
        onCleanup: (cleanup) => trap.onCleanup(cleanup),
      });
    } catch (error) {
      killAll();
      report = errorReport(describeFailure(error), deps.version);
    }
    // The run is over and its children with it.
    restore();
    if (settings.pullRequest) report.pullRequest = settings.pullRequest;
    report.commentKey = settings.commentKey;
    await publish(report, settings, deps);
  } catch (error) {
    restore();
    await failWithSummary(errorReport(messageOf(error), deps.version), deps);
  } finally {
    trap.release();
  }
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
async function publish(report: Report, settings: ActionSettings, deps: ActionDeps): Promise<void> {
  const { core, env } = deps;
  mkdirSync(settings.reportDir, { recursive: true });
  const markdown = renderMarkdown(report);
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
  await core.summary.addRaw(markdown, true).write();

  const configFile = path.resolve(settings.workingDirectory, settings.config ?? CONFIG_FILE);
  const workspace = env.GITHUB_WORKSPACE ?? settings.workingDirectory;
  for (const annotation of regressionAnnotations(report, settings.workingDirectory, workspace, configFile)) {
    core[annotation.level](annotation.message, {
      title: annotation.title,
      ...(annotation.file ? { file: annotation.file } : {}),
      ...(annotation.line ? { startLine: annotation.line } : {}),
    });
  }
  await comment(report, markdown, settings, deps);

  if (report.verdict === 'error') core.setFailed(`benchgate: ${report.error ? report.error.split('\n')[0] : report.summary}`);
  else if (report.verdict === 'fail' && settings.failOnRegression) core.setFailed(`benchgate: ${report.summary} (see the job summary)`);
}

async function comment(report: Report, markdown: string, settings: ActionSettings, deps: ActionDeps): Promise<void> {
  const { core, env } = deps;
  if (!settings.pullRequest || settings.comment === 'never') return;
  const runUrl = env.GITHUB_RUN_ID
    ? `${env.GITHUB_SERVER_URL ?? 'https://github.com'}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}`
    : undefined;
  try {
    const outcome = await upsertComment(deps.commentApi(settings, settings.pullRequest), {
      mode: settings.comment,
      marker: commentMarker(settings.commentKey),
      body: fitComment(markdown, runUrl),
      report,
    });
    core.info(`PR comment: ${outcome}`);
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 403 || status === 404) {
      core.warning(
        `benchgate could not comment on pull request #${settings.pullRequest.number} (HTTP ${status}): on a pull request from a fork the token is read-only. The job summary and the report files are written; to get the comment, use the two-workflow pattern (benchgate's docs/security.md, "Pull requests from forks").`,
      );
      return;
    }
    throw error;
  }
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
  // The report's own pull request, if any, is ignored; its comment key only picks which of this pull request's gate comments to update.
  const commentKey = report.commentKey ? sanitizeCommentKey(report.commentKey) : settings.commentKey;
  await comment(report, renderMarkdown(report), { ...settings, commentKey, pullRequest: { ...settings.repository, number } }, deps);
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
      `mode: comment runs in a workflow triggered by workflow_run (benchgate's docs/security.md, "Pull requests from forks"), not on '${settings.eventName}': refusing to comment.`,
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
      `${open.length === 0 ? 'No' : open.length} open pull request(s) of ${settings.repository.owner}/${settings.repository.repo} have the head ${owner}:${branch} at ${headSha}: refusing to comment.`,
    );
  }
  return { number: open[0]!.number, headSha };
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
