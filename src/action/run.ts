import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type * as Core from '@actions/core';
import { parseActionInputs, type ActionSettings } from '../config/action-inputs.js';
import { CONFIG_FILE } from '../config/load.js';
import { errorReport, runGate } from '../gate.js';
import { commentMarker, fitComment, regressionAnnotations, upsertComment, type CommentApi } from '../report/github.js';
import { renderMarkdown } from '../report/markdown.js';
import type { Report } from '../report/model.js';
import { describeFailure, messageOf, UserError } from '../util/errors.js';
import { killAll } from '../util/processes.js';
import { trapSignals } from '../util/signals.js';

const run = promisify(execFile);

export interface ActionDeps {
  core: Pick<typeof Core, 'getInput' | 'setOutput' | 'setFailed' | 'warning' | 'error' | 'notice' | 'info' | 'summary'>;
  env: NodeJS.ProcessEnv;
  /** A comment client for a repository and PR, made from the token and the API URL. */
  commentApi: (settings: ActionSettings, pr: NonNullable<ActionSettings['pullRequest']>) => CommentApi;
  runnerPath: string;
  probePath: string;
  version: string;
}

const PULL_REQUEST_TARGET = `benchgate refuses to run under pull_request_target: that event runs with a read/write token and the base repository's secrets, and benchgate would install and execute the pull request's code (its install script, bench files and server). A malicious pull request could then steal the token or the secrets. Use the pull_request event (and the two-workflow pattern for comments on pull requests from forks, see the README), or set allow-pull-request-target: true if every pull request to this repository is trusted.`;

/** The whole action; never throws: every failure, Error or not, fails the step with its message. */
export async function runAction(deps: ActionDeps): Promise<void> {
  const { core, env } = deps;
  const trap = trapSignals({
    announce: (signal) => core.warning(`benchgate: ${signal} received (job cancelled): stopping benchmark processes and removing worktrees`),
    exitCode: () => 1,
  });
  try {
    const settings = parseActionInputs((name) => core.getInput(name), {
      eventName: env.GITHUB_EVENT_NAME ?? '',
      event: env.GITHUB_EVENT_PATH ? (JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as Record<string, unknown>) : {},
      workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
      runnerTemp: env.RUNNER_TEMP ?? path.join(env.GITHUB_WORKSPACE ?? process.cwd(), '.benchgate'),
      repository: env.GITHUB_REPOSITORY ?? '',
    });
    if (settings.mode === 'comment') return await commentFromReport(settings, deps);
    if (settings.eventName === 'pull_request_target' && !settings.allowPullRequestTarget) throw new UserError(PULL_REQUEST_TARGET);
    await ensureCommit(settings.base!, settings.workingDirectory, core);
    let report: Report;
    try {
      report = await runGate({
        cwd: settings.workingDirectory,
        base: settings.base!,
        head: settings.head,
        configFile: settings.config,
        overrides: { timeLimitMs: settings.timeLimitMs, budget: settings.budget, budgets: settings.budgets },
        runnerPath: deps.runnerPath,
        probePath: deps.probePath,
        toolVersion: deps.version,
        profile: settings.profile,
        profileDir: path.join(settings.reportDir, 'profiles'),
        log: (line) => core.info(line),
        onProgress: (p) => core.info(`round ${p.round} of ${p.rounds}`),
        onCleanup: trap.onCleanup,
      });
    } catch (error) {
      killAll();
      report = errorReport(describeFailure(error), deps.version);
    }
    if (settings.pullRequest) report.pullRequest = settings.pullRequest;
    await publish(report, settings, deps);
  } catch (error) {
    core.setFailed(messageOf(error));
    // The job summary is always written, also when the run could not start.
    await core.summary
      .addRaw(renderMarkdown(errorReport(messageOf(error), deps.version)), true)
      .write()
      .catch(() => undefined);
  } finally {
    trap.release();
  }
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
    core[annotation.level](annotation.message, { title: annotation.title, ...(annotation.file ? { file: annotation.file } : {}), ...(annotation.line ? { startLine: annotation.line } : {}) });
  }
  await comment(report, markdown, settings, deps);

  if (report.verdict === 'error') core.setFailed(`benchgate: ${report.error ? report.error.split('\n')[0] : report.summary}`);
  else if (report.verdict === 'fail' && settings.failOnRegression) core.setFailed(`benchgate: ${report.summary} (see the job summary)`);
}

async function comment(report: Report, markdown: string, settings: ActionSettings, deps: ActionDeps): Promise<void> {
  const { core, env } = deps;
  if (!settings.pullRequest || settings.comment === 'never') return;
  const runUrl = env.GITHUB_RUN_ID ? `${env.GITHUB_SERVER_URL ?? 'https://github.com'}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : undefined;
  try {
    const outcome = await upsertComment(deps.commentApi(settings, settings.pullRequest), {
      mode: settings.comment,
      marker: commentMarker(settings.config ?? CONFIG_FILE),
      body: fitComment(markdown, runUrl),
      report,
    });
    core.info(`PR comment: ${outcome}`);
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status === 403 || status === 404) {
      core.warning(
        `benchgate could not comment on pull request #${settings.pullRequest.number} (HTTP ${status}): on a pull request from a fork the token is read-only. The job summary and the report files are written; to get the comment, use the two-workflow pattern (README, "Pull requests from forks").`,
      );
      return;
    }
    throw error;
  }
}

/**
 * The two-workflow pattern: a workflow_run workflow (trusted, with a write
 * token) posts the comment for a report that the pull_request workflow uploaded.
 * The report's head must be the commit the triggering run tested.
 */
async function commentFromReport(settings: ActionSettings, deps: ActionDeps): Promise<void> {
  if (!settings.reportJson) throw new UserError("Input 'report-json' is required with mode: comment: the report.json the gate's workflow uploaded.");
  const report = JSON.parse(readFileSync(settings.reportJson, 'utf8')) as Report;
  const pr = report.pullRequest ?? settings.pullRequest;
  if (!pr) throw new UserError(`${settings.reportJson} names no pull request: it was not made by benchgate on a pull_request event.`);
  const event = deps.env.GITHUB_EVENT_PATH ? (JSON.parse(readFileSync(deps.env.GITHUB_EVENT_PATH, 'utf8')) as { workflow_run?: { head_sha?: string } }) : {};
  const testedSha = event.workflow_run?.head_sha;
  if (testedSha && report.head?.sha !== testedSha) {
    throw new UserError(`The report is of ${report.head?.sha ?? 'no commit'}, but the workflow run that uploaded it tested ${testedSha}: refusing to comment.`);
  }
  // The body is rendered here from the report's data, escaped, never taken as markdown from the untrusted run.
  // Only the number comes from the report: the repository is always the one this workflow runs in.
  await comment(report, renderMarkdown(report), { ...settings, pullRequest: { ...settings.repository, number: pr.number } }, deps);
}

/** With a shallow checkout the base commit may be missing: fetch just it. */
async function ensureCommit(sha: string, cwd: string, core: ActionDeps['core']): Promise<void> {
  try {
    await run('git', ['cat-file', '-e', `${sha}^{commit}`], { cwd });
    return;
  } catch {
    core.info(`fetching base ${sha} (depth 1): the checkout does not have it`);
  }
  try {
    await run('git', ['fetch', '--no-tags', '--depth=1', 'origin', sha], { cwd });
  } catch (error) {
    throw new UserError(`The base commit ${sha} is not in the checkout and could not be fetched from origin: ${messageOf(error).split('\n').slice(-2).join(' ')}`);
  }
}
