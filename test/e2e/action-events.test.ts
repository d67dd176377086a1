import { readFileSync, rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pullRequestEvent, runActionBundle, shallowWorkspace, type ActionEvent, type ActionInputs } from './action-helpers.js';
import { FakeGitHub } from './fake-github.js';
import { execFileSync } from 'node:child_process';
import { inlineRepo, leftoverProcesses, removeFixtureRepos } from './helpers.js';

/**
 * Every GitHub event has a defined behaviour (the table in docs/github-action.md), and the comment
 * never turns a verdict into another: dist/action.js as the runner starts it, against the fake API.
 */

// One look at 5 rounds of short tasks, no profile: these tests are about what the action reads and writes.
const QUICK = 'budget: 5%\nrounds: 5\nmax-rounds: 5\nconfirm: false\nmicro:\n  task-time: 30ms\n  processes: 1\n';
const COMMENTS = '/repos/{owner}/{repo}/issues/{issue_number}/comments';

let github: FakeGitHub;
const temps: string[] = [];
let ws: { workspace: string; baseSha: string; headSha: string };
/** A genuine report of this workspace's pull request, for mode: comment. */
let report = '';

beforeAll(async () => {
  github = await FakeGitHub.start();
  ws = shallowWorkspace('ids', QUICK, temps);
  const gate = await run({ comment: 'never' }, { name: 'pull_request', payload: pullRequestEvent(30, ws.baseSha, ws.headSha) });
  expect(gate.outputs.verdict, gate.stdout).toBe('fail');
  report = gate.outputs['report-json']!;
}, 600_000);
afterAll(async () => {
  await github.close();
  removeFixtureRepos();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  github.comments = [];
  github.failures = [];
  github.author = 'github-actions[bot]';
  github.authenticatedAs = undefined;
  expect(github.problems.splice(0)).toEqual([]);
  expect(await leftoverProcesses()).toEqual([]);
});

function run(inputs: ActionInputs, event: ActionEvent) {
  return runActionBundle(ws.workspace, { profile: 'never', ...inputs }, event, { apiUrl: github.url, temps });
}

const reportOf = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { verdict: string; base: { sha: string } };
const commentRequests = () => github.requests.filter((r) => /\/issues\/\d+\/comments/.test(r));

describe('each event: what the gate compares, and whether it comments', () => {
  it('push: against the commit before the push, with no comment', async () => {
    const before = commentRequests().length;
    const push = await run({}, { name: 'push', payload: { before: ws.baseSha, after: ws.headSha, ref: 'refs/heads/main' } });
    expect(push.code, push.stdout).toBe(1);
    expect(reportOf(push.outputs['report-json']!)).toMatchObject({ verdict: 'fail', base: { sha: ws.baseSha } });
    expect(push.summary).toContain('benchgate: regression');
    expect(commentRequests().length).toBe(before);
  });

  it('push that created the branch: asks for a base, naming the input', async () => {
    const push = await run({}, { name: 'push', payload: { before: '0'.repeat(40), after: ws.headSha } });
    expect(push.code).toBe(1);
    expect(push.stdout).toContain("This push created the branch, so it has no 'before' commit to compare against: set the 'base' input");
    expect(push.outputs).toEqual({});
  });

  it('merge_group: against the queue’s base_sha (no base input needed), with no comment', async () => {
    const before = commentRequests().length;
    const queue = await run(
      {},
      {
        name: 'merge_group',
        payload: { merge_group: { base_sha: ws.baseSha, head_sha: ws.headSha, head_ref: 'gh-readonly-queue/main/pr-30' } },
      },
    );
    expect(queue.code, queue.stdout).toBe(1);
    expect(reportOf(queue.outputs['report-json']!)).toMatchObject({ verdict: 'fail', base: { sha: ws.baseSha } });
    expect(commentRequests().length).toBe(before);
  });

  it('workflow_dispatch and schedule: the base input is required, and with it they run, with no comment', async () => {
    const dispatch = await run({}, { name: 'workflow_dispatch', payload: { inputs: {} } });
    expect(dispatch.code).toBe(1);
    expect(dispatch.stdout).toContain("Input 'base' is required under workflow_dispatch: the event names no revision to compare against.");
    const before = commentRequests().length;
    const nightly = await run({ base: ws.baseSha }, { name: 'schedule', payload: { schedule: '0 3 * * *' } });
    expect(nightly.code, nightly.stdout).toBe(1);
    expect(reportOf(nightly.outputs['report-json']!)).toMatchObject({ verdict: 'fail', base: { sha: ws.baseSha } });
    expect(commentRequests().length).toBe(before);
  });

  it.each(['pull_request_target', 'workflow_run', 'issue_comment', 'pull_request_review', 'pull_request_review_comment'])(
    'refuses gate mode under %s, which would run the pull request’s code with a write token, before anything runs',
    async (event) => {
      const requests = github.requests.length;
      const payload = {
        ...pullRequestEvent(31, ws.baseSha, ws.headSha),
        issue: { number: 31, pull_request: { url: 'x' } },
        workflow_run: { event: 'pull_request', head_sha: ws.headSha },
      };
      const refused = await run({ base: ws.baseSha }, { name: event, payload });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain(`::error::benchgate refuses to run in gate mode under ${event}: that event `);
      expect(refused.stdout).toContain('set allow-untrusted-event: true if every pull request to this repository is trusted');
      expect(refused.stdout).not.toMatch(/round \d+ of/);
      expect(refused.outputs).toEqual({});
      expect(github.requests.length).toBe(requests);
    },
  );
});

describe('mode: comment under workflow_run: the comment is robust', () => {
  const event = (): ActionEvent => ({
    name: 'workflow_run',
    payload: { workflow_run: { event: 'pull_request', head_sha: ws.headSha, pull_requests: [{ number: 30, head: { sha: ws.headSha } }] } },
  });
  const comment = (inputs: ActionInputs = {}) => run({ mode: 'comment', 'report-json': report, ...inputs }, event());

  it("finds its own comment with a GitHub App's token, which cannot ask GET /user: one comment, updated", async () => {
    github.author = 'benchgate-app[bot]';
    expect((await comment()).stdout).toContain('PR comment: created');
    const again = await comment();
    expect(again.stdout).toContain('PR comment: updated');
    expect(github.ours('benchgate-app[bot]')).toHaveLength(1);
    // And with a token that can ask who it is, by that name.
    github.authenticatedAs = 'benchgate-app[bot]';
    expect((await comment()).stdout).toContain('PR comment: updated');
  });

  it('retries a 5xx and posts the comment', async () => {
    github.failures = [{ method: 'post', template: COMMENTS, status: 502, message: 'Bad Gateway' }];
    const posted = await comment();
    expect(posted.code, posted.stdout).toBe(0);
    expect(posted.stdout).toContain('PR comment: created');
    expect(github.ours()).toHaveLength(1);
    expect(github.failures).toEqual([]);
  });

  it('a comment GitHub keeps refusing (422) is a warning and a line in the summary, never a failed step', async () => {
    github.failures = [1, 2, 3].map(() => ({ method: 'post', template: COMMENTS, status: 422, message: 'Validation Failed' }));
    const refused = await comment();
    expect(refused.code, refused.stdout).toBe(0);
    expect(refused.stdout).toMatch(
      /::warning::benchgate could not comment on pull request #30: GitHub answered HTTP 422 \(Validation Failed/,
    );
    // In the summary as text (escaped there: GitHub's message is not ours to render as markdown).
    const shown = refused.summary.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/\u200b/g, '');
    expect(shown).toContain('> benchgate could not comment on pull request #30: GitHub answered HTTP 422 (Validation Failed');
    expect(github.ours()).toHaveLength(0);
  });

  it('tells a rate limit apart from a read-only token', async () => {
    const reset = Math.floor(Date.now() / 1000) + 3600;
    github.failures = [
      {
        method: 'post',
        template: COMMENTS,
        status: 403,
        message: 'API rate limit exceeded for installation ID 1.',
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset), 'x-ratelimit-limit': '5000' },
      },
    ];
    const limited = await comment();
    expect(limited.code, limited.stdout).toBe(0);
    expect(limited.stdout).toContain(
      `::warning::benchgate could not comment on pull request #30: GitHub's API rate limit was reached (it resets at ${new Date(reset * 1000).toISOString()})`,
    );
    expect(limited.stdout).not.toContain('read-only');
  });
});

describe("in the action, base's config decides, and the comment shows what the pull request changes", () => {
  // Head does twenty times the work, and its benchgate.yml lets any benchmark lose 99%.
  const SUM = (n: number) => `export default { 'sum': () => { let s = 0; for (let i = 0; i < ${n}; i++) s += i; return s; } };\n`;
  const loosened = () => {
    const repo = inlineRepo(
      { 'benchgate.yml': QUICK, 'bench/a.bench.js': SUM(100) },
      { 'benchgate.yml': QUICK.replace('budget: 5%', 'budget: 99%'), 'bench/a.bench.js': SUM(2000) },
    );
    const sha = (ref: string) => execFileSync('git', ['rev-parse', ref], { cwd: repo, encoding: 'utf8' }).trim();
    return { repo, event: { name: 'pull_request', payload: pullRequestEvent(40, sha('main'), sha('feature')) } };
  };
  const shown = (text: string) => text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/\u200b/g, '');

  it("fails a regression that the pull request's own budget of 99% would pass, and says the change applies once merged", async () => {
    const { repo, event } = loosened();
    const gate = await runActionBundle(repo, { profile: 'never' }, event, { apiUrl: github.url, temps });
    expect(gate.code, gate.stdout).toBe(1);
    expect(gate.outputs.verdict).toBe('fail');
    const body = shown(github.ours()[0]!.body);
    expect(body).toContain(
      "> This change edits the gate's policy in its config: budget 5% → 99%. They apply once merged: this run was judged by base's.",
    );
    expect(JSON.parse(readFileSync(gate.outputs['report-json']!, 'utf8')).policy).toEqual({
      from: 'base',
      changes: [{ setting: 'budget', base: '5%', head: '99%' }],
    });
  });

  it("with policy: head, judges by the pull request's config, and says so", async () => {
    const { repo, event } = loosened();
    const gate = await runActionBundle(repo, { profile: 'never', policy: 'head' }, event, { apiUrl: github.url, temps });
    expect(gate.code, gate.stdout).toBe(0);
    expect(gate.outputs.verdict).toBe('pass');
    expect(shown(gate.summary)).toContain(
      "> This change edits the gate's policy in its config: budget 5% → 99%. This run was judged by them (the gate takes its policy from the change itself).",
    );
  });
});
