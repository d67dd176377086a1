import path from 'node:path';
import { isRevisionName } from './revision.js';
import { parseAnchor, type AnchorSpec } from './anchor.js';
import { UserError } from '../util/errors.js';
import { neverPassed } from '../util/processes.js';
import type { PolicySource } from './policy.js';
import { SOLO_PROCESSES, SOLO_PROCESSES_RANGE, type BudgetRule, type MeasureKind, type ProfileMode } from './types.js';
import { BUDGET_FORM, parseBudget, parseDuration } from './units.js';

export type CommentMode = 'always' | 'on-change' | 'on-regression' | 'never';
export type ActionMode = 'gate' | 'comment' | 'merge' | 'drift';

/** Everything the action needs from its inputs and its event, parsed once and frozen. */
export interface ActionSettings {
  /**
   * gate: measure and report; comment: post the PR comment of a report made elsewhere (two-workflow
   * pattern for forks); merge: join the shard reports of a sharded suite and report them as one gate.
   */
  readonly mode: ActionMode;
  readonly workingDirectory: string;
  /** Config file relative to the working directory, or undefined for benchgate.yml. */
  readonly config: string | undefined;
  readonly base: string | undefined;
  /** A ref, or undefined for the checked-out commit (the working tree). */
  readonly head: string | undefined;
  readonly budget: number | undefined;
  readonly budgets: readonly BudgetRule[];
  readonly failOnRegression: boolean;
  readonly comment: CommentMode;
  readonly githubToken: string;
  readonly timeLimitMs: number | undefined;
  /** The measure input: time or counts, in place of micro.measure. */
  readonly measure: MeasureKind | undefined;
  readonly installTimeoutMs: number | undefined;
  /** Whose config decides pass or fail: base's (default: a pull request cannot loosen its own gate) or head's. */
  readonly policy: PolicySource;
  /** Variables the pull request's code may see beyond the allow-list (the env input: the workflow's, so trusted). */
  readonly env: readonly string[];
  /** comment mode: the report to post. */
  readonly reportJson: string | undefined;
  /** merge mode: the shard reports, a path or pattern relative to the working directory. */
  readonly shardReports: string | undefined;
  /** Names this gate's PR comment: the working directory, the config and the comment-key input (commentKeyOf). */
  readonly commentKey: string;
  /** Where the report files go; the .cpuprofile files go to its profiles/ folder. */
  readonly reportDir: string;
  readonly profile: ProfileMode;
  /** The solo-check input: fresh processes per revision for compare --solo-check's check, or undefined for none. */
  readonly soloProcesses: number | undefined;
  /** Gate mode under an event that runs with a write token (UNTRUSTED_EVENTS), allowed by the workflow. */
  readonly allowUntrustedEvent: boolean;
  /** The pull request to comment on, when there is one. */
  readonly pullRequest: { owner: string; repo: string; number: number } | undefined;
  /** GITHUB_REPOSITORY, split. */
  readonly repository: { owner: string; repo: string };
  readonly eventName: string;
  /**
   * The data branch that keeps main's history (docs/history.md), or undefined for none. Written only when
   * `historyWrites` (a push, schedule or dispatch on the default branch); read by pull request runs for their comment.
   */
  readonly history: string | undefined;
  readonly historyLimit: number;
  readonly historyWrites: boolean;
  /** The folder the history's site is written to on a run that records (the publish input), or undefined for none. */
  readonly publishDir: string | undefined;
  /** What drift compares HEAD with, and where the trend starts (tag:<pattern>, days:<n> or a revision); drift's cumulative budget. */
  readonly anchor: AnchorSpec;
  readonly driftBudget: number;
}

/** The parts of an event payload the inputs are defaulted from; every field is checked before use. */
export interface ActionEvent {
  pull_request?: { number?: unknown; base?: { sha?: unknown } };
  issue?: { number?: unknown; pull_request?: unknown };
  before?: unknown;
  merge_group?: { base_sha?: unknown; head_sha?: unknown };
  repository?: { default_branch?: unknown };
  ref?: unknown;
}

/**
 * Events whose workflows run with a write token and the repository's secrets while the pull request's
 * code can be at hand: gate mode would install and run that code (install script, bench files, server)
 * with them. Refused unless the workflow says every pull request is trusted (allow-untrusted-event).
 */
export const UNTRUSTED_EVENTS: Readonly<Record<string, string>> = {
  pull_request_target: "runs with a read/write token and the base repository's secrets",
  workflow_run: "runs with a read/write token and the repository's secrets, whatever workflow triggered it",
  issue_comment: "runs with a read/write token and the repository's secrets, triggered by anyone who can comment",
  pull_request_review: "runs with a read/write token and the repository's secrets for reviews of pull requests from forks alike",
  pull_request_review_comment:
    "runs with a read/write token and the repository's secrets for review comments on pull requests from forks alike",
};

/** Why gate mode is refused under `event`, and what to do instead. */
export function untrustedEventRefusal(event: string): string {
  return (
    `benchgate refuses to run in gate mode under ${event}: that event ${UNTRUSTED_EVENTS[event]}, and benchgate ` +
    `would install and execute the pull request's code (its install script, bench files and server). A malicious ` +
    `pull request could then steal the token or the secrets. Use the pull_request event (and, for comments ` +
    `on pull requests from forks, mode: comment under workflow_run: the two-workflow pattern in benchgate's ` +
    `docs/security.md), or set allow-untrusted-event: true if every pull request to this repository is trusted.`
  );
}

export interface ActionEnvironment {
  eventName: string;
  /** The parsed event payload. */
  event: ActionEvent;
  /** GITHUB_WORKSPACE */
  workspace: string;
  /** RUNNER_TEMP */
  runnerTemp: string;
  /** GITHUB_REPOSITORY, "owner/repo" */
  repository: string;
  /** GITHUB_REF: the branch or tag the workflow runs on (refs/heads/main). */
  ref?: string;
}

/** The events whose run may write the history (never a pull request's), and drift's. */
export const HISTORY_EVENTS = ['push', 'schedule', 'workflow_dispatch'];

const COMMENT_MODES: CommentMode[] = ['always', 'on-change', 'on-regression', 'never'];

/**
 * Parse the action's inputs strictly: a bad value is an error naming the input
 * and what it accepts. `input` returns '' for an input that was not given.
 */
export function parseActionInputs(input: (name: string) => string, env: ActionEnvironment): ActionSettings {
  const mode = oneOf(input, 'mode', ['gate', 'comment', 'merge', 'drift'], 'gate') as ActionMode;
  if (mode === 'drift' && !HISTORY_EVENTS.includes(env.eventName))
    throw new UserError(
      `mode: drift runs on push, schedule or workflow_dispatch (the default branch's own code), not ` +
        `under ${env.eventName || 'this event'}: a pull request's drift is its own gate's comparison.`,
    );
  const allowUntrustedEvent =
    booleanInput(input, 'allow-untrusted-event', false) ||
    (env.eventName === 'pull_request_target' && booleanInput(input, 'allow-pull-request-target', false));
  if (mode === 'gate' && env.eventName in UNTRUSTED_EVENTS && !allowUntrustedEvent)
    throw new UserError(untrustedEventRefusal(env.eventName));
  const workingDirectory = path.resolve(env.workspace, input('working-directory') || '.');
  const pullRequest = pullRequestOf(env);
  // drift compares with its anchor, never with the event's base.
  const base = mode === 'drift' ? undefined : revisionInput('base', input('base')) || defaultBase(env);
  const head = revisionInput('head', input('head'));
  const config = input('config') || undefined;
  if (mode === 'gate' && !base) {
    throw new UserError(
      `Input 'base' is required under ${env.eventName || 'this event'}: the event ` +
        `names no revision to compare against. Set it, e.g. base: main (or a release tag).`,
    );
  }
  return Object.freeze({
    mode,
    workingDirectory,
    config,
    base,
    head,
    budget: input('budget') ? budgetInput('budget', input('budget')) : undefined,
    budgets: Object.freeze(parseBudgets(input('budgets'))),
    failOnRegression: booleanInput(input, 'fail-on-regression', true),
    comment: oneOf(input, 'comment', COMMENT_MODES, 'always') as CommentMode,
    githubToken: input('github-token'),
    timeLimitMs: input('time-limit') ? durationInput('time-limit', input('time-limit')) : undefined,
    measure: measureInput(input('measure')),
    installTimeoutMs: input('install-timeout') ? durationInput('install-timeout', input('install-timeout')) : undefined,
    env: Object.freeze(envNames(input('env'))),
    policy: oneOf(input, 'policy', ['base', 'head'], 'base') as PolicySource,
    reportJson: input('report-json') ? path.resolve(workingDirectory, input('report-json')) : undefined,
    shardReports: input('shard-reports') || undefined,
    commentKey: commentKeyOf(path.relative(env.workspace, workingDirectory), config, input('comment-key')),
    reportDir: path.join(env.runnerTemp, 'benchgate'),
    profile: oneOf(input, 'profile', ['regressions', 'always', 'never'], 'regressions') as ProfileMode,
    soloProcesses: soloCheckInput(input('solo-check')),
    allowUntrustedEvent,
    pullRequest,
    repository: { owner: env.repository.split('/')[0] ?? '', repo: env.repository.split('/')[1] ?? '' },
    eventName: env.eventName,
    history: historyBranch(input('history')),
    historyLimit: countInput(input, 'history-limit', 1000, 10, 100_000),
    historyWrites: HISTORY_EVENTS.includes(env.eventName) && onDefaultBranch(env),
    publishDir: input('publish') ? path.resolve(env.workspace, input('publish')) : undefined,
    anchor: parseAnchor(input('anchor') || 'tag:v*', "Input 'anchor'"),
    driftBudget: input('drift-budget') ? budgetInput('drift-budget', input('drift-budget')) : 0.1,
  });
}

/** The run is on the repository's default branch: the event's ref is refs/heads/<default_branch>. */
function onDefaultBranch(env: ActionEnvironment): boolean {
  const branch = env.event.repository?.default_branch;
  const ref = typeof env.event.ref === 'string' ? env.event.ref : env.ref;
  return typeof branch === 'string' && branch !== '' && ref === `refs/heads/${branch}`;
}

/** The history input: a branch name for the data branch, or '' for no history. */
function historyBranch(value: string): string | undefined {
  if (!value) return undefined;
  if (!isRevisionName(value) || /^[0-9a-f]{7,64}$/i.test(value) || /[~^]/.test(value))
    throw new UserError(`Input 'history' must name the branch that keeps the history, e.g. benchgate-history, but got '${value}'.`);
  return value;
}

function countInput(input: (name: string) => string, name: string, fallback: number, min: number, max: number): number {
  const value = input(name);
  if (value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UserError(`Input '${name}' must be a whole number from ${min} to ${max}, but got '${value}'.`);
  return n;
}

/**
 * One key per gate, so that two gates on one pull request keep two comments: the project's directory
 * in the repository and its config file ("packages/api/benchgate.yml"), and the comment-key input
 * for gates that share both (a matrix over Node versions: comment-key: node-${{ matrix.node }}).
 * Only characters that cannot end the HTML comment it goes into.
 */
export function commentKeyOf(directory: string, config: string | undefined, key: string): string {
  const file = path.posix.join(directory.split(path.sep).join('/') || '.', config ?? 'benchgate.yml');
  return sanitizeCommentKey(key ? `${file}#${key}` : file);
}

/** Letters, digits and . _ / # @ + - only, no "--", at most 200 characters. */
export function sanitizeCommentKey(key: string): string {
  return key
    .replace(/[^\w./#@+-]/g, '_')
    .replace(/-{2,}/g, '-')
    .slice(0, 200);
}

/** A base or head input: a branch, tag or sha, never something git would take for an option. */
function revisionInput(name: string, value: string): string | undefined {
  if (!value) return undefined;
  if (!isRevisionName(value))
    throw new UserError(`Input '${name}' must be a branch, tag or commit sha (e.g. main or a 40-character sha), but got '${value}'.`);
  return value;
}

/** pull_request (and its kin): the PR's base sha; push: the commit before the push; merge_group: the queue's base; otherwise none. */
function defaultBase(env: ActionEnvironment): string | undefined {
  const pr = env.event.pull_request;
  if (typeof pr?.base?.sha === 'string' && pr.base.sha) return revisionInput('base', pr.base.sha);
  if (env.eventName === 'merge_group') {
    const sha = env.event.merge_group?.base_sha;
    if (typeof sha !== 'string' || !sha) throw new UserError("The merge_group event names no base_sha: set the 'base' input.");
    return revisionInput('base', sha);
  }
  if (env.eventName === 'push') {
    const before = typeof env.event.before === 'string' ? env.event.before : '';
    if (/^0+$/.test(before))
      throw new UserError(
        "This push created the branch, so it has no 'before' commit to compare against: set the 'base' input (e.g. base: main).",
      );
    return revisionInput('base', before);
  }
  return undefined;
}

/**
 * The pull request to comment on, from the event: pull_request and its kin name it; issue_comment only when
 * the issue is a pull request. workflow_run's is found from its run (mode: comment and merge); push,
 * merge_group, schedule and workflow_dispatch have none, so they never comment.
 */
function pullRequestOf(env: ActionEnvironment): ActionSettings['pullRequest'] {
  const [owner, repo] = env.repository.split('/');
  const number =
    env.eventName === 'merge_group'
      ? undefined
      : (env.event.pull_request?.number ?? (env.event.issue?.pull_request ? env.event.issue.number : undefined));
  if (!owner || !repo || typeof number !== 'number') return undefined;
  return { owner, repo, number };
}

/** "pattern: budget" per line; blank lines and # comments are skipped. */
export function parseBudgets(text: string): BudgetRule[] {
  const rules: BudgetRule[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const split = line.lastIndexOf(':');
    if (split <= 0)
      throw new UserError(`Input 'budgets' line ${index + 1} ('${line}') is not 'pattern: budget', e.g. 'bench/ids.bench.js > *: 10%'.`);
    const pattern = line
      .slice(0, split)
      .trim()
      .replace(/^(['"])(.*)\1$/, '$2');
    rules.push({ pattern, budget: budgetInput(`budgets' line ${index + 1} ('${line}'`, line.slice(split + 1).trim(), true) });
  });
  return rules;
}

function budgetInput(name: string, value: string, inLine = false): number {
  if (!BUDGET_FORM.test(value)) {
    throw new UserError(
      inLine
        ? `Input '${name}): '${value}' is not a percentage from 0% to 99%, like 5%.`
        : `Input '${name}' must be a percentage from 0% to 99%, like 5%, but got '${value}'.`,
    );
  }
  return parseBudget(value);
}

function durationInput(name: string, value: string): number {
  try {
    return parseDuration(value);
  } catch {
    throw new UserError(`Input '${name}' must be a duration like 90s or 5m, but got '${value}'.`);
  }
}

/** The solo-check input: false or empty (none), true (SOLO_PROCESSES processes per revision), or how many. */
function soloCheckInput(value: string): number | undefined {
  if (value === '' || value === 'false') return undefined;
  if (value === 'true') return SOLO_PROCESSES;
  const [min, max] = SOLO_PROCESSES_RANGE;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max)
    throw new UserError(
      `Input 'solo-check' must be true, false, or the fresh processes per revision, a whole number from ${min} to ${max}, but got '${value}'.`,
    );
  return n;
}

function booleanInput(input: (name: string) => string, name: string, fallback: boolean): boolean {
  const value = input(name);
  if (value === '') return fallback;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UserError(`Input '${name}' must be true or false, but got '${value}'.`);
}

function oneOf(input: (name: string) => string, name: string, allowed: string[], fallback: string): string {
  const value = input(name);
  if (value === '') return fallback;
  if (!allowed.includes(value)) throw new UserError(`Input '${name}' must be one of ${allowed.join(', ')}, but got '${value}'.`);
  return value;
}

/** The env input: variable names, one per line or separated by commas or spaces; never the runner's own files or credentials. */
function envNames(text: string): string[] {
  const names = text.split(/[\s,]+/).filter(Boolean);
  for (const name of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new UserError(`Input 'env' must list variable names (letters, digits, _), but got '${name}'.`);
    if (neverPassed(name))
      throw new UserError(
        `Input 'env' lists '${name}': the job files, the action's inputs, the runner's ` +
          `ACTIONS_* credentials and GITHUB_TOKEN never reach the pull request's code.`,
      );
  }
  return names;
}

function measureInput(text: string): MeasureKind | undefined {
  if (!text) return undefined;
  if (text === 'time' || text === 'counts' || text === 'both') return text;
  throw new UserError(`Input 'measure' is '${text}': it is time, counts or both.`);
}
