import { profileSlug } from '../../src/explain/run.js';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  pullRequestEvent,
  runActionBundle,
  shallowWorkspace as shallowClone,
  type ActionInputs,
  type ActionEvent,
} from './action-helpers.js';
import { FakeGitHub } from './fake-github.js';
import { ALL_PAYLOADS, collapse, injectionProblems, renderHtml, visibleText } from '../inert.js';
import { changeShown, printedDurations, showsValue } from '../report-text.js';
import { inlineRepo, leftoverProcesses, removeFixtureRepos } from './helpers.js';

// One look at 5 rounds of short tasks: the action's tests are about what it reads, writes and posts.
const FAST = 'budget: 5%\nrounds: 5\nmax-rounds: 5\nconfirm: false\nmicro:\n  task-time: 50ms\n  processes: 1\n';
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
const shallowWorkspace = (fixture: string) => shallowClone(fixture, FAST, temps);
const runAction = (workspace: string, inputs: ActionInputs, event: ActionEvent) =>
  runActionBundle(workspace, inputs, event, { apiUrl: github.url, temps });

afterEach(async () => {
  // Every request and every response the action exchanged matched GitHub's OpenAPI description.
  expect(github.problems).toEqual([]);
  // Nothing the action started outlives it (found by pid and path, never by name).
  expect(await leftoverProcesses()).toEqual([]);
});

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
    const error = first.stdout
      .split('\n')
      .find((line) => line.startsWith('::error title=benchgate: bench/ids.bench.js > make request id regressed,'))!;
    expect(error).toMatch(
      /^::error title=benchgate: bench\/ids\.bench\.js > make request id regressed,file=bench\/ids\.bench\.js,line=4::bench\/ids\.bench\.js > make request id: .* \(budget 5%\)$/,
    );
    const shown = error.slice(error.indexOf('make request id: ') + 'make request id: '.length, error.indexOf(' (budget'));
    expect(changeShown(shown, bench.change), shown).toBe(true);
    expect(readFileSync(first.outputs['report-markdown']!, 'utf8')).toContain('### ❌ benchgate: regression');
    expect(first.summary).toContain('| 🔴 regression | bench/ids.bench.js &gt; make request id |');
    expect(injectionProblems(first.summary)).toEqual([]);
    expect(github.ours()).toHaveLength(1);
    expect(github.ours()[0]!.body.startsWith(`${MARKER}\n### ❌ benchgate: regression`)).toBe(true);
    expect(github.requests.filter((r) => r.startsWith('GET /repos/octo-org/todo-server/issues/7/comments'))).toHaveLength(2);
    // The regression is explained: both revisions' profiles are in profiles-dir, for upload-artifact.
    const slug = profileSlug('bench/ids.bench.js > make request id');
    expect(slug).toMatch(/^bench-ids\.bench\.js-make-request-id-[0-9a-f]{8}$/);
    expect(readdirSync(first.outputs['profiles-dir']!).sort()).toEqual([`${slug}.base.cpuprofile`, `${slug}.head.cpuprofile`]);
    expect(github.ours()[0]!.body).toMatch(
      /<summary>bench\/ids\.bench\.js &gt; make request id: where the time went<\/summary>[\s\S]*← makeId/,
    );
    // …and a notice on the function that got slower, so the diff shows where to look.
    const notice = first.stdout.split('\n').find((line) => line.startsWith('::notice title=benchgate: makeId got slower,'))!;
    expect(notice).toMatch(
      /^::notice title=benchgate: makeId got slower,file=src\/ids\.js,line=\d+::bench\/ids\.bench\.js > make request id: makeId costs .* per call at head, .* at base/,
    );
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
    // Identical code: a budget its rounds stay inside on a heavily loaded machine, so the verdict is a pass. (At 5%, the
    // 20 ns 'make request id' read 21-29% slower at head in 4 of 6 rounds of one loaded run: a bet on the noise.)
    const { workspace, baseSha, headSha } = shallowClone('untouched', FAST.replace('budget: 5%', 'budget: 50%'), temps);
    github.comments = [];
    github.denyCreate = true;
    try {
      const run = await runAction(
        workspace,
        // The solo-check input reaches the gate: each revision alone in 6 fresh processes, in the report and the summary.
        { 'fail-on-regression': 'true', 'solo-check': '6' },
        { name: 'pull_request', payload: pullRequestEvent(8, baseSha, headSha) },
      );
      expect(run.code, run.stdout).toBe(0);
      const report = JSON.parse(readFileSync(run.outputs['report-json']!, 'utf8'));
      expect(report.soloCheck).toMatchObject({ processes: 6 });
      const soloed = report.benchmarks.filter((b: { solo?: unknown }) => b.solo);
      expect(soloed.length).toBeGreaterThan(0);
      for (const b of soloed) expect([b.solo.base.processes, b.solo.head.processes]).toEqual([6, 6]);
      expect(run.stdout).toMatch(
        /::warning::benchgate could not comment on pull request #8: HTTP 403: the token may not write comments here\. On a pull request from a fork the token is read-only/,
      );
      // The summary says why there is no comment; the verdict stands.
      const shown = run.summary.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/\u200b/g, '');
      expect(shown).toContain('> benchgate could not comment on pull request #8: HTTP 403: the token may not write comments here.');
      // The heading's counts are the report's (a revision whose solo processes sat on speed levels adds ", N read on
      // speed levels": seen on CI's loaded Node 24 run).
      const heading = /solo check: (\d+) compared, (\d+) disagrees?(?:, (\d+) read on speed levels)? \(6 processes per revision\)/.exec(
        shown,
      );
      expect(heading, shown).not.toBeNull();
      type Soloed = { solo: { agreement: string; shared?: unknown } };
      const count = (keep: (b: Soloed) => boolean) => (soloed as Soloed[]).filter(keep).length;
      expect(Number(heading![1])).toBe(soloed.length);
      expect(Number(heading![2])).toBe(count((b) => b.solo.agreement === 'disagrees'));
      expect(Number(heading![3] ?? 0)).toBe(count((b) => b.solo.shared !== undefined && b.solo.agreement === 'agrees'));
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
    expect(run.stdout).toMatch(
      /::error::benchgate refuses to run in gate mode under pull_request_target: .*steal the token or the secrets/,
    );
    expect(github.requests.length).toBe(requests);
    expect(run.outputs).toEqual({});
  });

  it('checks head out beside base where the workspace is clean, and measures a workspace with changes as it is, saying so', async () => {
    // Both revisions at paths of one length and depth: from the workspace, work that resolves files per call read
    // head 2% faster than base in an A/A (src/action/run.ts, checkedOutCommit).
    const { workspace, baseSha, headSha } = shallowWorkspace('ids');
    const event = { name: 'pull_request', payload: pullRequestEvent(9, baseSha, headSha) };
    const clean = await runAction(workspace, {}, event);
    expect(JSON.parse(readFileSync(clean.outputs['report-json']!, 'utf8')).head).toEqual({ ref: 'HEAD', sha: headSha, dirty: false });
    expect(clean.stdout).toMatch(/install head: /);
    expect(clean.stdout).not.toContain('head: the workspace as it is');

    writeFileSync(path.join(workspace, 'README.md'), 'changed by a step before benchgate\n');
    const changed = await runAction(workspace, {}, event);
    expect(JSON.parse(readFileSync(changed.outputs['report-json']!, 'utf8')).head).toMatchObject({
      ref: 'working tree',
      sha: headSha,
      dirty: true,
    });
    expect(changed.stdout).toContain('head: the workspace as it is (it has changes to its commit)');
  });

  it('names the input at fault', async () => {
    const { workspace, baseSha, headSha } = shallowWorkspace('ids');
    const run = await runAction(
      workspace,
      { comment: 'sometimes' },
      { name: 'pull_request', payload: pullRequestEvent(10, baseSha, headSha) },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("::error::Input 'comment' must be one of always, on-change, on-regression, never, but got 'sometimes'.");
    const budgets = await runAction(
      workspace,
      { budgets: 'http > *: lots' },
      { name: 'pull_request', payload: pullRequestEvent(10, baseSha, headSha) },
    );
    expect(budgets.stdout).toContain(
      "::error::Input 'budgets' line 1 ('http > *: lots'): 'lots' is not a percentage from 0% to 99%, like 5%.",
    );
  });

  it("renders the pull request's text inert: task and file names and errors in the comment and the job summary, any field of a forged report.json in the comment", async () => {
    // A task named with every payload, a task that throws them, in a bench file whose name holds what a file name can.
    const file = 'bench/a|b ``` @someone #1 [x](javascript:alert(1)) <img src=x onerror=alert(1)> <!-- c --> <details> **b**.bench.js';
    const bench = `export default {\n  ${JSON.stringify(ALL_PAYLOADS)}: () => [1, 2, 3].reduce((a, b) => a + b, 0),\n  'throws': () => { throw new Error(${JSON.stringify(`boom ${ALL_PAYLOADS}`)}); },\n};\n`;
    const workspace = inlineRepo({ [file]: bench, 'benchgate.yml': FAST });
    const sha = (ref: string) => execFileSync('git', ['rev-parse', ref], { cwd: workspace, encoding: 'utf8' }).trim();
    const [baseSha, headSha] = [sha('main'), sha('feature')];
    github.comments = [];

    const gate = await runAction(
      workspace,
      { profile: 'never' },
      { name: 'pull_request', payload: pullRequestEvent(12, baseSha, headSha) },
    );
    expect(gate.outputs.verdict, gate.stdout).toBe('error');
    expect(github.ours()).toHaveLength(1);
    const comment = github.ours()[0]!.body;
    expect(comment.startsWith(`${MARKER}\n### ⚠️ benchgate: error`)).toBe(true);
    for (const markdown of [comment, gate.summary]) {
      expect(injectionProblems(markdown)).toEqual([]);
      // Still there for people to read: the names and the error, as text.
      const text = visibleText(renderHtml(markdown));
      expect(text).toContain(collapse(`${file} > ${ALL_PAYLOADS}`));
      expect(text).toContain(collapse(`${file} > throws`));
      expect(text).toContain(collapse(`boom ${ALL_PAYLOADS}`));
    }

    // The two-workflow pattern: the trusted workflow renders a report a fork's workflow uploaded, whose every text field may be hostile.
    const report = JSON.parse(readFileSync(gate.outputs['report-json']!, 'utf8'));
    report.base.ref = report.head.ref = report.summary = ALL_PAYLOADS;
    for (const b of report.benchmarks)
      Object.assign(b, { id: `${b.id} ${ALL_PAYLOADS}`, note: ALL_PAYLOADS, warning: ALL_PAYLOADS, error: ALL_PAYLOADS });
    Object.assign(report.environment, { node: ALL_PAYLOADS, os: ALL_PAYLOADS, arch: ALL_PAYLOADS });
    report.environment.cpus.model = ALL_PAYLOADS;
    report.run.conditions = { ...report.run.conditions, note: ALL_PAYLOADS };
    const forged = path.join(workspace, 'forged-report.json');
    writeFileSync(forged, JSON.stringify(report));
    const posted = await runAction(
      workspace,
      { mode: 'comment', 'report-json': forged },
      {
        name: 'workflow_run',
        payload: { workflow_run: { head_sha: headSha, event: 'pull_request', pull_requests: [{ number: 12, head: { sha: headSha } }] } },
      },
    );
    expect(posted.code, posted.stdout).toBe(0);
    expect(posted.stdout).toContain('PR comment: updated');
    const body = github.ours()[0]!.body;
    expect(injectionProblems(body)).toEqual([]);
    expect(visibleText(renderHtml(body)).split(collapse(ALL_PAYLOADS)).length).toBeGreaterThan(10);
  });

  it('posts the comment of an uploaded report from a workflow_run workflow (two-workflow pattern for forks)', async () => {
    const { workspace, baseSha, headSha } = shallowWorkspace('ids');
    github.comments = [];
    const gate = await runAction(
      workspace,
      { comment: 'never', profile: 'never' },
      { name: 'pull_request', payload: pullRequestEvent(11, baseSha, headSha) },
    );
    expect(gate.outputs.verdict).toBe('fail');
    expect(github.comments).toHaveLength(0);
    const report = gate.outputs['report-json']!;
    const posted = await runAction(
      workspace,
      { mode: 'comment', 'report-json': report },
      {
        name: 'workflow_run',
        payload: { workflow_run: { head_sha: headSha, event: 'pull_request', pull_requests: [{ number: 11, head: { sha: headSha } }] } },
      },
    );
    expect(posted.code, posted.stdout).toBe(0);
    expect(github.ours()).toHaveLength(1);
    expect(github.requests.at(-1)).toBe('POST /repos/octo-org/todo-server/issues/11/comments');
    const stale = await runAction(
      workspace,
      { mode: 'comment', 'report-json': report },
      {
        name: 'workflow_run',
        payload: { workflow_run: { head_sha: baseSha, event: 'pull_request', pull_requests: [{ number: 11, head: { sha: baseSha } }] } },
      },
    );
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain('refusing to comment');
  });
});
