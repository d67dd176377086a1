import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from './fake-github.js';
import { changeShown, printedDurations, showsValue } from '../report-text.js';
import { fixtureRepo, leftoverProcesses, removeFixtureRepos, watchProcesses } from './helpers.js';

const ACTION = fileURLToPath(new URL('../../dist/action.js', import.meta.url));
const FAST = 'budget: 5%\nmicro:\n  task-time: 150ms\n';
const MARKER = '<!-- benchgate: benchgate.yml -->';

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
afterEach(async () => {
  // Every request and every response the action exchanged matched GitHub's OpenAPI description.
  expect(github.problems).toEqual([]);
  // Nothing the action started outlives it (found by pid and path, never by name).
  expect(await leftoverProcesses()).toEqual([]);
});

/** A shallow clone (depth 1) of a fixture's feature branch, as actions/checkout leaves it: the base commit is missing. */
function shallowWorkspace(fixture: string): { workspace: string; baseSha: string; headSha: string } {
  const origin = fixtureRepo(fixture, { config: FAST });
  const sha = (ref: string) => execFileSync('git', ['rev-parse', ref], { cwd: origin, encoding: 'utf8' }).trim();
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'benchgate-workspace-')));
  temps.push(workspace);
  execFileSync('git', ['clone', '-q', '--depth', '1', '--branch', 'feature', `file://${origin}`, workspace]);
  return { workspace, baseSha: sha('main'), headSha: sha('feature') };
}

interface ActionRun {
  code: number | null;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
}

/** Run dist/action.js the way the runner does: INPUT_* variables (hyphens kept), an event payload, and the GITHUB_* files. */
function runAction(workspace: string, inputs: Record<string, string>, event: { name: string; payload: object }): Promise<ActionRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-runner-'));
  temps.push(dir);
  const files = { event: path.join(dir, 'event.json'), output: path.join(dir, 'output'), summary: path.join(dir, 'summary.md') };
  writeFileSync(files.event, JSON.stringify(event.payload));
  writeFileSync(files.output, '');
  writeFileSync(files.summary, '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_WORKSPACE: workspace,
    GITHUB_REPOSITORY: 'octo-org/todo-server',
    GITHUB_API_URL: github.url,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '4242',
    RUNNER_TEMP: dir,
    'INPUT_GITHUB-TOKEN': 'ghs_fake_token_for_tests',
    ...Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value])),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ACTION], { cwd: workspace, env });
    const watch = watchProcesses(child.pid!, [workspace]);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stdout += chunk));
    // A safety net for a hung run, never a measure of speed.
    const timer = setTimeout(() => {
      watch.sample();
      for (const p of watch.seen()) if (p.alive) process.kill(p.pid, 'SIGKILL');
      reject(new Error(`action timed out\n${stdout}`));
    }, 600_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      watch.stop();
      resolve({ code, stdout: unescapeCommands(stdout), outputs: parseOutputs(readFileSync(files.output, 'utf8')), summary: readFileSync(files.summary, 'utf8') });
    });
  });
}

/** Workflow commands escape %, CR, LF (and : and , in properties); read the log as a person would. */
function unescapeCommands(text: string): string {
  return text.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');
}

/** GITHUB_OUTPUT's heredoc format: name<<delimiter, value lines, delimiter. */
function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const match = /^([^<]+)<<(.+)$/.exec(lines[i]!);
    if (!match) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== match[2]; i++) value.push(lines[i]!);
    outputs[match[1]!] = value.join('\n');
  }
  return outputs;
}

function pullRequestEvent(number: number, baseSha: string, headSha: string) {
  return {
    action: 'synchronize',
    number,
    pull_request: {
      number,
      title: 'Use a uuid v4 for request ids `$(rm -rf ~)`',
      head: { ref: 'feature; echo pwned', sha: headSha, repo: { full_name: 'octo-org/todo-server', fork: false } },
      base: { ref: 'main', sha: baseSha, repo: { full_name: 'octo-org/todo-server' } },
    },
    repository: { full_name: 'octo-org/todo-server', name: 'todo-server', owner: { login: 'octo-org' } },
    sender: { login: 'contributor' },
  };
}

describe('the GitHub Action, run from its bundle', () => {
  it('comments once, updates the same comment on the next push, and fails the step on a regression', async () => {
    const { workspace, baseSha, headSha } = shallowWorkspace('ids');
    expect(() => execFileSync('git', ['cat-file', '-e', `${baseSha}^{commit}`], { cwd: workspace, stdio: 'ignore' })).toThrow();
    github.comments = [];
    github.seed(130, MARKER); // two pages at 100 per page; some other people's comments quote our marker
    const event = { name: 'pull_request', payload: pullRequestEvent(7, baseSha, headSha) };

    const first = await runAction(workspace, {}, event);
    expect(first.code, first.stdout).toBe(1);
    expect(first.stdout).toContain(`fetching base ${baseSha}`);
    expect(first.stdout).toMatch(/::error::benchgate: fail: 1 regression/);
    expect(first.outputs).toMatchObject({ verdict: 'fail', regressions: '1' });
    const report = JSON.parse(readFileSync(first.outputs['report-json']!, 'utf8'));
    expect(report).toMatchObject({ verdict: 'fail', pullRequest: { owner: 'octo-org', repo: 'todo-server', number: 7 } });
    const [bench] = report.benchmarks;
    // An error annotation on the task's line, with the change the report holds.
    const error = first.stdout.split('\n').find((line) => line.startsWith('::error title=benchgate: bench/ids.bench.js > make request id regressed,'))!;
    expect(error).toMatch(/^::error title=benchgate: bench\/ids\.bench\.js > make request id regressed,file=bench\/ids\.bench\.js,line=4::bench\/ids\.bench\.js > make request id: .* \(budget 5%\)$/);
    const shown = error.slice(error.indexOf('make request id: ') + 'make request id: '.length, error.indexOf(' (budget'));
    expect(changeShown(shown, bench.change), shown).toBe(true);
    expect(readFileSync(first.outputs['report-markdown']!, 'utf8')).toContain('### ❌ benchgate: regression');
    expect(first.summary).toContain('| 🔴 regression | bench/ids.bench.js &gt; make request id |');
    expect(github.ours()).toHaveLength(1);
    expect(github.ours()[0]!.body.startsWith(`${MARKER}\n### ❌ benchgate: regression`)).toBe(true);
    expect(github.requests.filter((r) => r.startsWith('GET /repos/octo-org/todo-server/issues/7/comments'))).toHaveLength(2);
    // The regression is explained: both revisions' profiles are in profiles-dir, for upload-artifact.
    expect(readdirSync(first.outputs['profiles-dir']!).sort()).toEqual(['bench-ids.bench.js-make-request-id.base.cpuprofile', 'bench-ids.bench.js-make-request-id.head.cpuprofile']);
    expect(github.ours()[0]!.body).toMatch(/<summary>bench\/ids\.bench\.js &gt; make request id: where the time went<\/summary>[\s\S]*← makeId/);
    // …and a notice on the function that got slower, so the diff shows where to look.
    const notice = first.stdout.split('\n').find((line) => line.startsWith('::notice title=benchgate: makeId got slower,'))!;
    expect(notice).toMatch(/^::notice title=benchgate: makeId got slower,file=src\/ids\.js,line=\d+::bench\/ids\.bench\.js > make request id: makeId costs .* per call at head, .* at base/);
    const [atHead, atBase] = printedDurations(notice.slice(notice.indexOf(' costs ')));
    const [makeId] = bench.profile.ownCode;
    expect(makeId.function).toBe('makeId');
    expect(showsValue(atHead!, makeId.headPerOpUs), notice).toBe(true);
    expect(showsValue(atBase!, makeId.basePerOpUs), notice).toBe(true);
    expect(makeId.headPerOpUs).toBeGreaterThan(makeId.basePerOpUs);

    const second = await runAction(workspace, { profile: 'never' }, event);
    expect(second.code).toBe(1);
    expect(second.outputs['profiles-dir']).toBe('');
    expect(github.ours()[0]!.body).not.toContain('where the time went');
    expect(second.stdout).toContain('PR comment: updated');
    expect(github.ours()).toHaveLength(1);
    expect(github.comments).toHaveLength(131);
  });

  it('only warns when the token may not comment (a pull request from a fork), and still writes the summary and reports', async () => {
    const { workspace, baseSha, headSha } = shallowWorkspace('untouched');
    github.comments = [];
    github.denyCreate = true;
    try {
      const run = await runAction(workspace, { 'fail-on-regression': 'true' }, { name: 'pull_request', payload: pullRequestEvent(8, baseSha, headSha) });
      expect(run.code, run.stdout).toBe(0);
      expect(run.stdout).toMatch(/::warning::benchgate could not comment on pull request #8 \(HTTP 403\)/);
      expect(run.outputs.verdict).toBe('pass');
      expect(existsSync(run.outputs['report-json']!)).toBe(true);
      expect(run.summary).toContain('### ✅ benchgate: pass');
      expect(github.comments).toHaveLength(0);
    } finally {
      github.denyCreate = false;
    }
  });

  it('refuses to run under pull_request_target unless told to', async () => {
    const { workspace, baseSha, headSha } = shallowWorkspace('ids');
    github.comments = [];
    const requests = github.requests.length;
    const run = await runAction(workspace, {}, { name: 'pull_request_target', payload: pullRequestEvent(9, baseSha, headSha) });
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/::error::benchgate refuses to run under pull_request_target: .*steal the token or the secrets/);
    expect(github.requests.length).toBe(requests);
    expect(run.outputs).toEqual({});
  });

  it('names the input at fault', async () => {
    const { workspace, baseSha, headSha } = shallowWorkspace('ids');
    const run = await runAction(workspace, { comment: 'sometimes' }, { name: 'pull_request', payload: pullRequestEvent(10, baseSha, headSha) });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("::error::Input 'comment' must be one of always, on-change, on-regression, never, but got 'sometimes'.");
    const budgets = await runAction(workspace, { budgets: 'http > *: lots' }, { name: 'pull_request', payload: pullRequestEvent(10, baseSha, headSha) });
    expect(budgets.stdout).toContain("::error::Input 'budgets' line 1 ('http > *: lots'): 'lots' is not a percentage from 0% to 99%, like 5%.");
  });

  it('posts the comment of an uploaded report from a workflow_run workflow (two-workflow pattern for forks)', async () => {
    const { workspace, baseSha, headSha } = shallowWorkspace('ids');
    github.comments = [];
    const gate = await runAction(workspace, { comment: 'never' }, { name: 'pull_request', payload: pullRequestEvent(11, baseSha, headSha) });
    expect(gate.outputs.verdict).toBe('fail');
    expect(github.comments).toHaveLength(0);
    const report = gate.outputs['report-json']!;
    const posted = await runAction(workspace, { mode: 'comment', 'report-json': report }, { name: 'workflow_run', payload: { workflow_run: { head_sha: headSha, event: 'pull_request', pull_requests: [] } } });
    expect(posted.code, posted.stdout).toBe(0);
    expect(github.ours()).toHaveLength(1);
    expect(github.requests.at(-1)).toBe('POST /repos/octo-org/todo-server/issues/11/comments');
    const stale = await runAction(workspace, { mode: 'comment', 'report-json': report }, { name: 'workflow_run', payload: { workflow_run: { head_sha: baseSha, event: 'pull_request', pull_requests: [] } } });
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain('refusing to comment');
  });
});
