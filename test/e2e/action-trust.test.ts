import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isDeniedVariable } from '../../src/util/processes.js';
import { pullRequestEvent, runActionBundle, shallowWorkspace, type ActionEvent, type ActionInputs } from './action-helpers.js';
import { FakeGitHub } from './fake-github.js';
import { fixtureRepo, removeFixtureRepos, runCli } from './helpers.js';

/**
 * The trust boundary of the action: the pull request's code (install, build, bench files, server)
 * never sees a token, and mode: comment believes the workflow_run event, never the uploaded report.
 */

let github: FakeGitHub;
const temps: string[] = [];
beforeAll(async () => {
  github = await FakeGitHub.start();
});
afterAll(async () => {
  await github.close();
  removeFixtureRepos();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  github.comments = [];
  github.pulls = [];
  // Every request and response matched GitHub's OpenAPI description.
  expect(github.problems.splice(0)).toEqual([]);
});

const run = (workspace: string, inputs: ActionInputs, event: ActionEvent, extra: { env?: NodeJS.ProcessEnv; token?: string } = {}) =>
  runActionBundle(workspace, inputs, event, { apiUrl: github.url, temps, ...extra });

const secret = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** What a step's env: may hold under names no deny-list guesses, and the job files that steer later steps (BASH_ENV=, PATH). */
const stepSecrets = () => ({
  PGPASSWORD: secret('pg'),
  GH_PAT: secret('ghp'),
  DEPLOY_KEY: secret('deploykey'),
  SSH_KEY: secret('ssh'),
  DATABASE_URL: `postgres://app:${secret('db')}@db.invalid/app`,
  NPM_CONFIG__AUTHTOKEN: secret('npmrc'),
  GITHUB_ENV: path.join(os.tmpdir(), secret('github_env')),
  GITHUB_PATH: path.join(os.tmpdir(), secret('github_path')),
  GITHUB_STATE: path.join(os.tmpdir(), secret('github_state')),
});

describe("the pull request's code never sees a secret", () => {
  it('install, build, bench file and server find no token in their environment or in any ancestor environment they can read', async () => {
    const { workspace, baseSha, headSha } = shallowWorkspace('env-leak', undefined, temps);
    const leaks = mkdtempSync(path.join(os.tmpdir(), 'benchgate-leaks-'));
    temps.push(leaks);
    const token = secret('ghs_input');
    const secrets = {
      ACTIONS_RUNTIME_TOKEN: secret('runtime'),
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: secret('oidc'),
      ACTIONS_ID_TOKEN_REQUEST_URL: `https://oidc.invalid/${secret('url')}`,
      GITHUB_TOKEN: secret('ghs_env'),
      NPM_TOKEN: secret('npm'),
      NODE_AUTH_TOKEN: secret('node_auth'),
      DEPLOY_SECRET: secret('deploy'),
      ...stepSecrets(),
    };
    const result = await run(
      workspace,
      { profile: 'never', 'report-json': 'x' },
      { name: 'pull_request', payload: pullRequestEvent(21, baseSha, headSha) },
      { token, env: { ...secrets, LEAK_DIR: leaks } },
    );
    expect(result.outputs.verdict, result.stdout).not.toBe('error');

    const dumps = readdirSync(leaks).map((file) => ({ file, text: readFileSync(path.join(leaks, file), 'utf8') }));
    const roles = dumps.map((d) => d.file.split('-')[0]);
    // Each kind of child ran and reported (a test that found no dump would prove nothing).
    expect(roles.filter((r) => r === 'install').length, result.stdout).toBeGreaterThanOrEqual(1);
    expect(roles.filter((r) => r === 'build').length).toBeGreaterThanOrEqual(2);
    expect(roles.filter((r) => r === 'bench').length).toBeGreaterThanOrEqual(1);
    expect(roles.filter((r) => r === 'server').length).toBeGreaterThanOrEqual(2);
    expectNoLeak(dumps, [token, ...Object.values(secrets)]);
    // The action itself still had the token: the comment was posted with it.
    expect(github.ours()).toHaveLength(1);
    expect(github.authorizations.at(-1)).toBe(`token ${token}`);
    // And @actions/core still wrote the outputs and the summary, though the job files were kept from every child.
    expect(result.summary).toContain('benchgate');
  });

  it("the CLI in a CI step keeps the same from the code it runs: the job files and the step's credentials", async () => {
    const repo = fixtureRepo('env-leak');
    const leaks = mkdtempSync(path.join(os.tmpdir(), 'benchgate-leaks-'));
    temps.push(leaks);
    const secrets = {
      GITHUB_TOKEN: secret('ghs_env'),
      ...stepSecrets(),
      GITHUB_OUTPUT: path.join(os.tmpdir(), secret('github_output')),
      GITHUB_STEP_SUMMARY: path.join(os.tmpdir(), secret('github_step_summary')),
    };
    const run = await runCli(['compare', '--base', 'main', '--head', 'feature', '--profile', 'never'], repo, {
      env: { ...secrets, LEAK_DIR: leaks },
    });
    expect(run.code, run.stdout + run.stderr).toBeLessThan(2);
    const dumps = readdirSync(leaks).map((file) => ({ file, text: readFileSync(path.join(leaks, file), 'utf8') }));
    const roles = new Set(dumps.map((d) => d.file.split('-')[0]));
    expect([...roles].sort()).toEqual(['bench', 'build', 'install', 'server']);
    expectNoLeak(dumps, Object.values(secrets));
  });
});

const JOB_FILE = /^(GITHUB_ENV|GITHUB_OUTPUT|GITHUB_PATH|GITHUB_STATE|GITHUB_STEP_SUMMARY)=./;

/**
 * No child's environment, and no environment of any ancestor a child could read (/proc/PID/environ, up to
 * pid 1), holds any of `values` or a job file's path: benchgate's own process is among those ancestors.
 */
function expectNoLeak(dumps: { file: string; text: string }[], values: string[]): void {
  for (const { file, text } of dumps) {
    for (const value of values) expect(text.includes(value), `${file} holds ${value.slice(0, 12)}…`).toBe(false);
    const dump = JSON.parse(text) as { env: Record<string, string>; ancestors: Record<string, string[]> };
    // Only the allow-list, and LEAK_DIR, which the fixture's benchgate.yml lists (env:).
    expect(
      Object.keys(dump.env).filter((name) => name !== 'LEAK_DIR' && isDeniedVariable(name)),
      file,
    ).toEqual([]);
    expect(
      Object.keys(dump.env).filter((name) => JOB_FILE.test(`${name}=x`)),
      file,
    ).toEqual([]);
    // benchgate's own process is among the ancestors, and it was readable: what a child may not see was wiped from it.
    expect(Object.keys(dump.ancestors).length, file).toBeGreaterThan(0);
    for (const [pid, env] of Object.entries(dump.ancestors)) {
      expect(
        env.filter((line) => line.startsWith('unreadable')),
        `${file}: ancestor ${pid}`,
      ).toEqual([]);
      expect(
        env.filter((line) => JOB_FILE.test(line)),
        `${file}: ancestor ${pid}`,
      ).toEqual([]);
    }
  }
}

/** A report made by a real gate run on the untouched fixture, then tampered with. */
let genuine: { report: Record<string, any>; headSha: string; baseSha: string; workspace: string };

function tampered(change: (report: Record<string, any>) => void): string {
  const report = structuredClone(genuine.report);
  change(report);
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'benchgate-report-')), 'report.json');
  temps.push(path.dirname(file));
  writeFileSync(file, JSON.stringify(report));
  return file;
}

const workflowRun = (headSha: string, pulls: { number: number; sha: string }[], extra: Record<string, unknown> = {}): ActionEvent => ({
  name: 'workflow_run',
  payload: {
    workflow_run: {
      head_sha: headSha,
      event: 'pull_request',
      head_branch: 'feature',
      head_repository: { full_name: 'fork-owner/todo-server', owner: { login: 'fork-owner' } },
      pull_requests: pulls.map((pr) => ({
        number: pr.number,
        head: { sha: pr.sha, ref: 'feature' },
        base: { sha: genuine.baseSha, ref: 'main' },
      })),
      ...extra,
    },
  },
});

const comment = (report: string, event: ActionEvent, inputs: ActionInputs = {}) =>
  run(genuine.workspace, { mode: 'comment', 'report-json': report, ...inputs }, event);

describe('mode: comment trusts the workflow_run event, not the report', () => {
  beforeAll(async () => {
    const { workspace, baseSha, headSha } = shallowWorkspace(
      'untouched',
      'budget: 50%\nrounds: 2\nmax-rounds: 2\nconfirm: false\nmicro:\n  task-time: 50ms\n',
      temps,
    );
    const gate = await run(
      workspace,
      { comment: 'never', profile: 'never' },
      { name: 'pull_request', payload: pullRequestEvent(11, baseSha, headSha) },
    );
    expect(gate.outputs['report-json'], gate.stdout).toBeTruthy();
    genuine = { report: JSON.parse(readFileSync(gate.outputs['report-json']!, 'utf8')), headSha, baseSha, workspace };
    expect(genuine.report.pullRequest.number).toBe(11);
  });

  it('comments on the pull request the event names, whatever number the report claims', async () => {
    const report = tampered((r) => (r.pullRequest = { owner: 'octo-org', repo: 'todo-server', number: 999 }));
    const posted = await comment(report, workflowRun(genuine.headSha, [{ number: 11, sha: genuine.headSha }]));
    expect(posted.code, posted.stdout).toBe(0);
    expect(github.requests.filter((r) => r.startsWith('POST'))).toContain('POST /repos/octo-org/todo-server/issues/11/comments');
    expect(github.requests.some((r) => r.includes('/issues/999/'))).toBe(false);
  });

  it("finds a fork's pull request by the event's head branch and commit, and refuses when none matches", async () => {
    github.pulls = [
      { number: 12, head: { owner: 'fork-owner', ref: 'feature', sha: genuine.headSha } },
      { number: 13, head: { owner: 'someone-else', ref: 'feature', sha: genuine.headSha } },
    ];
    const posted = await comment(
      tampered(() => undefined),
      workflowRun(genuine.headSha, []),
    );
    expect(posted.code, posted.stdout).toBe(0);
    expect(github.requests).toContain('GET /repos/octo-org/todo-server/pulls?head=fork-owner%3Afeature&state=open&per_page=100');
    expect(github.requests.at(-1)).toBe('POST /repos/octo-org/todo-server/issues/12/comments');

    github.pulls = [{ number: 12, head: { owner: 'fork-owner', ref: 'feature', sha: genuine.baseSha } }]; // pushed again since
    const stale = await comment(
      tampered(() => undefined),
      workflowRun(genuine.headSha, []),
    );
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain(
      `No open pull request(s) of octo-org/todo-server have the head fork-owner:feature at ${genuine.headSha}: refusing to comment.`,
    );
  });

  it('refuses a report of another commit, a report from another event, and an event that is not a pull request run', async () => {
    const otherSha = tampered((r) => (r.head.sha = genuine.baseSha));
    const wrongCommit = await comment(otherSha, workflowRun(genuine.headSha, [{ number: 11, sha: genuine.headSha }]));
    expect(wrongCommit.code).toBe(1);
    expect(wrongCommit.stdout).toContain('refusing to comment');

    const notWorkflowRun = await comment(
      tampered(() => undefined),
      { name: 'pull_request', payload: pullRequestEvent(11, genuine.baseSha, genuine.headSha) },
    );
    expect(notWorkflowRun.code).toBe(1);
    expect(notWorkflowRun.stdout).toContain(
      "mode: comment finds its pull request from a workflow_run event (benchgate's docs/security.md, \"Pull requests from forks\"), not from 'pull_request': refusing to comment.",
    );

    const push = await comment(
      tampered(() => undefined),
      workflowRun(genuine.headSha, [], { event: 'push' }),
    );
    expect(push.code).toBe(1);
    expect(push.stdout).toContain("triggered by 'push', not by a pull request");
    expect(github.comments).toHaveLength(0);
  });

  it('refuses a 10 MB report, an over-long name and a report that is not of benchgate shape, before rendering anything', async () => {
    const event = workflowRun(genuine.headSha, [{ number: 11, sha: genuine.headSha }]);
    const huge = await comment(
      tampered((r) => (r.benchmarks[0].id = 'x'.repeat(10 * 1024 * 1024))),
      event,
    );
    expect(huge.code).toBe(1);
    expect(huge.stdout).toMatch(/report .* is 10\.\d MB, more than benchgate writes/);

    const long = await comment(
      tampered((r) => (r.benchmarks[0].id = 'x'.repeat(100_000))),
      event,
    );
    expect(long.code).toBe(1);
    expect(long.stdout).toContain('/benchmarks/0/id must NOT have more than 16384 characters');

    const shape = await comment(
      tampered((r) => (r.benchmarks[0].verdict = '<img src=x onerror=alert(1)>')),
      event,
    );
    expect(shape.code).toBe(1);
    expect(shape.stdout).toContain('/benchmarks/0/verdict must be equal to one of the allowed values');

    const extra = await comment(
      tampered((r) => (r.benchmarks[0].markdown = '**bold**')),
      event,
    );
    expect(extra.code).toBe(1);
    expect(extra.stdout).toContain('must NOT have additional properties');
    expect(github.comments).toHaveLength(0);
  });
});

describe('one comment per gate', () => {
  it('two gates of a monorepo and the legs of a matrix each keep their own comment, named by the workflow, never by the report', async () => {
    const event = workflowRun(genuine.headSha, [{ number: 11, sha: genuine.headSha }]);
    // The comment workflows of packages/api, packages/web and two matrix legs of packages/api, each with its gate's inputs.
    const gates: [string, ActionInputs][] = [
      ['packages/api/benchgate.yml', { 'working-directory': 'packages/api' }],
      ['packages/web/benchgate.yml', { 'working-directory': 'packages/web' }],
      ['packages/api/benchgate.yml#node-20', { 'working-directory': 'packages/api', 'comment-key': 'node-20' }],
      ['packages/api/benchgate.yml#node-24', { 'working-directory': 'packages/api', 'comment-key': 'node-24' }],
    ];
    for (const [, inputs] of gates)
      expect(
        (
          await comment(
            tampered(() => undefined),
            event,
            inputs,
          )
        ).code,
      ).toBe(0);
    expect(github.ours().map((c) => c.body.split('\n')[0])).toEqual(gates.map(([key]) => `<!-- benchgate: ${key} -->`));
    // The next push updates each gate's own comment; a report claiming another gate's key (the report is the pull
    // request's file) changes nothing: the web gate's comment workflow updates the web comment.
    const forged = await comment(
      tampered((r) => (r.commentKey = gates[0]![0])),
      event,
      gates[1]![1],
    );
    expect(forged.stdout).toContain('PR comment: updated');
    expect(github.ours()).toHaveLength(4);
    expect(github.ours().map((c) => c.body.split('\n')[0])).toEqual(gates.map(([key]) => `<!-- benchgate: ${key} -->`));
  });
});
