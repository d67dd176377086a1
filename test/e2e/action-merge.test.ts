import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pullRequestEvent, runActionBundle } from './action-helpers.js';
import { FakeGitHub } from './fake-github.js';
import { inlineRepo, leftoverProcesses, removeFixtureRepos, runCli } from './helpers.js';

/**
 * mode: merge, as the job that `needs:` the shard jobs runs it: their reports downloaded into a
 * folder, joined into one report with one sticky comment (the gate's marker), one job summary and
 * one failed check. It runs no code of the pull request.
 */

const MARKER = '<!-- benchgate: benchgate.yml -->';
let github: FakeGitHub;
const temps: string[] = [];
let workspace = '';
let baseSha = '';
let headSha = '';

beforeAll(async () => {
  github = await FakeGitHub.start();
  workspace = inlineRepo(
    {
      'benchgate.yml': 'budget: 30%\nrounds: 5\nmax-rounds: 5\nmicro:\n  task-time: 50ms\n  processes: 1\n',
      'src/sum.js': 'export const sum = (n) => { let s = 0; for (let i = 0; i < n; i++) s += i; return s; };\n',
      'bench/sum.bench.js': "import { sum } from '../src/sum.js';\nexport default { 'sum of 100': () => sum(100) };\n",
      'bench/strings.bench.js': "export default { join: () => ['a', 'b', 'c'].join('-') };\n",
    },
    { 'src/sum.js': 'export const sum = (n) => { let s = 0; for (let i = 0; i < n * 20; i++) s += i; return s; };\n' },
  );
  const sha = (ref: string) => execFileSync('git', ['rev-parse', ref], { cwd: workspace, encoding: 'utf8' }).trim();
  [baseSha, headSha] = [sha('main'), sha('feature')];
  const out = mkdtempSync(path.join(os.tmpdir(), 'benchgate-shard-jobs-'));
  temps.push(out);
  for (const i of [1, 2]) {
    const file = path.join(out, `shard-${i}.json`);
    const run = await runCli(
      ['compare', '--base', baseSha, '--head', headSha, '--shard', `${i}/2`, '--profile', 'never', '--json', file],
      workspace,
    );
    expect(run.code === 0 || run.code === 1, run.stderr).toBe(true);
  }
  // What actions/download-artifact leaves in the merge job: each shard's report in one folder.
  mkdirSync(path.join(workspace, 'shards'));
  for (const i of [1, 2]) copyFileSync(path.join(out, `shard-${i}.json`), path.join(workspace, 'shards', `shard-${i}.json`));
}, 600_000);

afterAll(async () => {
  await github.close();
  removeFixtureRepos();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  expect(github.problems).toEqual([]);
  expect(await leftoverProcesses()).toEqual([]);
});

const merge = (inputs: Record<string, string>) =>
  runActionBundle(
    workspace,
    { mode: 'merge', ...inputs },
    { name: 'pull_request', payload: pullRequestEvent(9, baseSha, headSha) },
    { apiUrl: github.url, temps },
  );

describe('the action in mode: merge', () => {
  it('posts one comment for the whole suite, writes one summary and fails the check on the regression', async () => {
    github.comments = [];
    const run = await merge({ 'shard-reports': 'shards/*.json' });
    expect(run.code, run.stdout).toBe(1);
    expect(run.outputs).toMatchObject({ verdict: 'fail', regressions: '1' });
    expect(run.stdout).toMatch(/::error::benchgate: fail: 1 regression/);
    const comments = github.ours();
    expect(comments).toHaveLength(1);
    // The same marker a gate without shards uses: the sharded gate updates the same sticky comment.
    expect(comments[0]!.body.startsWith(`${MARKER}\n`)).toBe(true);
    for (const body of [comments[0]!.body, run.summary]) {
      expect(body).toContain('bench/sum.bench.js &gt; sum of 100');
      expect(body).toContain('bench/strings.bench.js &gt; join');
    }
    const report = JSON.parse(readFileSync(run.outputs['report-json']!, 'utf8'));
    expect(report).toMatchObject({ verdict: 'fail', commentKey: 'benchgate.yml', run: { shards: 2 } });

    // The next push: the same comment, updated.
    const again = await merge({ 'shard-reports': 'shards/*.json' });
    expect(again.code).toBe(1);
    expect(github.ours()).toHaveLength(1);
  });

  it('fails the check, naming the missing shard, when a shard’s report is not there', async () => {
    github.comments = [];
    const run = await merge({ 'shard-reports': 'shards/shard-1.json' });
    expect(run.code).toBe(1);
    expect(run.outputs.verdict).toBe('error');
    expect(run.stdout).toContain('::error::benchgate: Shard 2/2 is missing');
    expect(run.summary).toContain('Shard 2/2 is missing');
    expect(github.ours()).toHaveLength(1);
    expect(github.ours()[0]!.body).toContain('Shard 2/2 is missing');
  });

  it('refuses shards that compared against another base than the pull request’s', async () => {
    github.comments = [];
    const run = await runActionBundle(
      workspace,
      { mode: 'merge', 'shard-reports': 'shards/*.json', comment: 'never' },
      { name: 'pull_request', payload: pullRequestEvent(9, headSha, headSha) },
      { apiUrl: github.url, temps },
    );
    expect(run.outputs.verdict).toBe('error');
    expect(run.stdout).toContain(`but this workflow's base is ${headSha}`);
  });

  it('under workflow_run (the fork setup), comments on the pull request the run names, under this workflow’s key', async () => {
    github.comments = [];
    const workflowRun = (sha: string) => ({
      name: 'workflow_run',
      payload: {
        workflow_run: {
          event: 'pull_request',
          head_sha: sha,
          head_branch: 'feature',
          head_repository: { owner: { login: 'octo-org' } },
          pull_requests: [{ number: 12, head: { sha } }],
        },
      },
    });
    const run = await runActionBundle(workspace, { mode: 'merge', 'shard-reports': 'shards/*.json' }, workflowRun(headSha), {
      apiUrl: github.url,
      temps,
    });
    expect(run.code, run.stdout).toBe(1);
    expect(run.outputs.verdict).toBe('fail');
    expect(github.ours()).toHaveLength(1);
    expect(github.ours()[0]!.body.startsWith(`${MARKER}\n`)).toBe(true);
    expect(github.requests).toContain('POST /repos/octo-org/todo-server/issues/12/comments');
    // Shard reports of another commit than the run tested are refused, and the refusal is what is posted.
    const other = await runActionBundle(workspace, { mode: 'merge', 'shard-reports': 'shards/*.json' }, workflowRun(baseSha), {
      apiUrl: github.url,
      temps,
    });
    expect(other.outputs.verdict).toBe('error');
    expect(other.stdout).toContain(`but the workflow run that uploaded them tested ${baseSha}: refusing them.`);
  });

  it('asks for the shard reports', async () => {
    const run = await merge({ comment: 'never' });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("Input 'shard-reports' is required with mode: merge");
  });
});
