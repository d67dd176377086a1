import { describe, expect, it } from 'vitest';
import { parseActionInputs, parseBudgets } from '../../src/config/action-inputs.js';
import { commentMarker, fitComment, upsertComment, type CommentApi } from '../../src/report/github.js';
import type { Report } from '../../src/report/model.js';
import { actionEnv, actionInputs } from '../action-env.js';

const env = actionEnv;
const inputs = actionInputs;

describe('action inputs', () => {
  it('defaults base to the pull request base and parses every input', () => {
    const settings = parseActionInputs(
      inputs({
        budget: '7%',
        budgets: 'http > *: 15%\n# note\n"bench/a.bench.js > x": 2%',
        comment: 'on-regression',
        'time-limit': '3m',
        'working-directory': 'packages/api',
      }),
      env(),
    );
    expect(settings).toMatchObject({
      mode: 'gate',
      base: 'b'.repeat(40),
      head: undefined,
      budget: 0.07,
      budgets: [
        { pattern: 'http > *', budget: 0.15 },
        { pattern: 'bench/a.bench.js > x', budget: 0.02 },
      ],
      comment: 'on-regression',
      failOnRegression: true,
      timeLimitMs: 180_000,
      workingDirectory: '/w/packages/api',
      reportDir: '/t/benchgate',
      pullRequest: { owner: 'octo', repo: 'todo', number: 5 },
    });
  });

  it('reads solo-check as off, the default processes, or a number of them, and names the input when it is neither', () => {
    expect(parseActionInputs(inputs({}), env()).soloProcesses).toBeUndefined();
    expect(parseActionInputs(inputs({ 'solo-check': 'false' }), env()).soloProcesses).toBeUndefined();
    expect(parseActionInputs(inputs({ 'solo-check': 'true' }), env()).soloProcesses).toBe(12);
    expect(parseActionInputs(inputs({ 'solo-check': '24' }), env()).soloProcesses).toBe(24);
    for (const bad of ['5', '49', '12.5', 'yes', '-6'])
      expect(() => parseActionInputs(inputs({ 'solo-check': bad }), env())).toThrow(
        `Input 'solo-check' must be true, false, or the fresh processes per revision, a whole number from 6 to 48, but got '${bad}'.`,
      );
  });

  it('defines each event: its base, its pull request, and gate mode refused where it would hand the pull request a write token', () => {
    const c = 'c'.repeat(40);
    // merge_group: the queue's base, and no pull request to comment on.
    const queue = parseActionInputs(
      inputs({}),
      env({ eventName: 'merge_group', event: { merge_group: { base_sha: c, head_sha: 'd'.repeat(40) } } }),
    );
    expect(queue).toMatchObject({ base: c, pullRequest: undefined });
    // issue_comment: a pull request only when the issue is one (mode merge may run there; gate mode may not).
    const onIssue = (issue: object) => parseActionInputs(inputs({ mode: 'merge' }), env({ eventName: 'issue_comment', event: { issue } }));
    expect(onIssue({ number: 7 }).pullRequest).toBeUndefined();
    expect(onIssue({ number: 7, pull_request: { url: 'x' } }).pullRequest).toEqual({ owner: 'octo', repo: 'todo', number: 7 });
    for (const eventName of [
      'pull_request_target',
      'workflow_run',
      'issue_comment',
      'pull_request_review',
      'pull_request_review_comment',
    ]) {
      expect(() => parseActionInputs(inputs({ base: c }), env({ eventName }))).toThrow(
        `benchgate refuses to run in gate mode under ${eventName}`,
      );
      expect(parseActionInputs(inputs({ base: c, 'allow-untrusted-event': 'true' }), env({ eventName })).allowUntrustedEvent).toBe(true);
    }
    // The older input allows pull_request_target alone.
    expect(parseActionInputs(inputs({ 'allow-pull-request-target': 'true' }), env({ eventName: 'pull_request_target' })).mode).toBe('gate');
    expect(() => parseActionInputs(inputs({ base: c, 'allow-pull-request-target': 'true' }), env({ eventName: 'workflow_run' }))).toThrow(
      'refuses to run in gate mode under workflow_run',
    );
    // mode: comment and merge run no code of the pull request: allowed under workflow_run.
    expect(parseActionInputs(inputs({ mode: 'comment' }), env({ eventName: 'workflow_run' })).mode).toBe('comment');
  });

  it('reads the env input: variable names, never the job files or the token', () => {
    expect(parseActionInputs(inputs({ env: 'DATABASE_URL\nBENCH_SIZE, REDIS_HOST' }), env()).env).toEqual([
      'DATABASE_URL',
      'BENCH_SIZE',
      'REDIS_HOST',
    ]);
    expect(() => parseActionInputs(inputs({ env: 'GITHUB_OUTPUT' }), env())).toThrow("Input 'env' lists 'GITHUB_OUTPUT'");
    expect(() => parseActionInputs(inputs({ env: 'A=B' }), env())).toThrow("Input 'env' must list variable names");
  });

  it('takes the push event before commit, and asks for a base where there is none', () => {
    expect(parseActionInputs(inputs({}), env({ eventName: 'push', event: { before: 'c'.repeat(40) } })).base).toBe('c'.repeat(40));
    expect(() => parseActionInputs(inputs({}), env({ eventName: 'push', event: { before: '0'.repeat(40) } }))).toThrow(
      /created the branch/,
    );
    expect(() => parseActionInputs(inputs({}), env({ eventName: 'workflow_dispatch', event: {} }))).toThrow(
      "Input 'base' is required under workflow_dispatch: the event names no revision to compare against.",
    );
  });

  it('names the input and what it accepts', () => {
    expect(() => parseActionInputs(inputs({ 'fail-on-regression': 'yes' }), env())).toThrow(
      "Input 'fail-on-regression' must be true or false, but got 'yes'.",
    );
    expect(() => parseActionInputs(inputs({ budget: '-5%' }), env())).toThrow(
      "Input 'budget' must be a percentage from 0% to 99%, like 5%, but got '-5%'.",
    );
    expect(() => parseActionInputs(inputs({ 'time-limit': 'soon' }), env())).toThrow(
      "Input 'time-limit' must be a duration like 90s or 5m, but got 'soon'.",
    );
    expect(() => parseBudgets('no colon here')).toThrow("Input 'budgets' line 1 ('no colon here') is not 'pattern: budget'");
  });
});

const report = (verdict: Report['verdict']): Report => ({
  version: 1,
  tool: { name: 'benchgate', version: '0' },
  verdict,
  summary: verdict,
  base: null,
  head: null,
  benchmarks: [],
  run: null,
  environment: { node: 'v24', os: 'Linux', arch: 'x64', cpus: { model: 'x', count: 2 } },
});

function fakeApi(
  comments: { id: number; body: string; user: { login: string; type?: string } }[],
  me?: string,
): CommentApi & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    whoAmI: async () => me,
    listComments: async () => comments,
    createComment: async (body) => void calls.push(`create ${body.split('\n')[0]}`),
    updateComment: async (id, body) => void calls.push(`update ${id} ${body.split('\n')[0]}`),
  };
}

describe('the PR comment', () => {
  const marker = commentMarker('benchgate.yml');

  it('updates only its own comment: same marker and same author', async () => {
    const api = fakeApi([
      { id: 1, body: `someone quoting ${marker}`, user: { login: 'alice', type: 'User' } },
      { id: 2, body: `${marker}\nold`, user: { login: 'github-actions[bot]', type: 'Bot' } },
    ]);
    expect(await upsertComment(api, { mode: 'always', marker, body: 'new', report: report('pass') })).toBe('updated');
    expect(api.calls).toEqual([`update 2 ${marker}`]);
  });

  it('keeps two gates apart by their config path', async () => {
    const api = fakeApi([
      { id: 2, body: `${commentMarker('packages/api/benchgate.yml')}\nold`, user: { login: 'github-actions[bot]', type: 'Bot' } },
    ]);
    expect(await upsertComment(api, { mode: 'always', marker, body: 'new', report: report('pass') })).toBe('created');
  });

  it('on-regression: silent on a clean PR, but keeps an earlier comment current when the PR is clean again', async () => {
    expect(await upsertComment(fakeApi([]), { mode: 'on-regression', marker, body: 'ok', report: report('pass') })).toBe('skipped');
    expect(await upsertComment(fakeApi([]), { mode: 'on-regression', marker, body: 'bad', report: report('fail') })).toBe('created');
    const api = fakeApi([{ id: 9, body: `${marker}\nregression`, user: { login: 'benchgate-bot' } }], 'benchgate-bot');
    expect(await upsertComment(api, { mode: 'on-regression', marker, body: 'all clear', report: report('pass') })).toBe('updated');
  });

  it("stays under GitHub's size limit and never leaves a details section open", () => {
    const long = `### head\n<details><summary>x</summary>\n\n${'| row |\n'.repeat(20_000)}</details>\n`;
    const body = fitComment(long, 'https://github.com/o/r/actions/runs/1');
    expect(body.length).toBeLessThan(65_536);
    expect(body.match(/<details>/g)!.length).toBe(body.match(/<\/details>/g)!.length);
    expect(body).toContain('the whole report is in the job summary of [this run](https://github.com/o/r/actions/runs/1)');
    expect(fitComment('short', undefined)).toBe('short');
  });

  it('counts the marker in the limit: a long comment key never makes a body GitHub refuses', async () => {
    const longMarker = commentMarker(`packages/${'x'.repeat(190)}/benchgate.yml`);
    const long = `### head\n${'| a row of the table |\n'.repeat(5_000)}`;
    const posted: string[] = [];
    const api = { ...fakeApi([]), createComment: async (body: string) => void posted.push(body) };
    await upsertComment(api, {
      mode: 'always',
      marker: longMarker,
      body: fitComment(long, undefined, { marker: longMarker }),
      report: report('pass'),
    });
    expect(posted).toHaveLength(1);
    expect(posted[0]!.startsWith(`${longMarker}\n`)).toBe(true);
    expect(posted[0]!.length).toBeLessThanOrEqual(65_536);
    // Cut close to the limit, not far short of it: the marker is what was set aside.
    expect(posted[0]!.length).toBeGreaterThan(65_536 - 200);
  });

  it('finds its own comment without asking who it is (an app token, GET /user failing): marker and a bot author', async () => {
    // whoAmI answers nothing: a person's comment that copies the marker is never taken over; a bot's is ours.
    const api = fakeApi([
      { id: 1, body: `${marker}\nforged`, user: { login: 'mallory', type: 'User' } },
      { id: 2, body: `${marker}\nold`, user: { login: 'benchgate-app[bot]', type: 'Bot' } },
    ]);
    expect(await upsertComment(api, { mode: 'always', marker, body: 'new', report: report('pass') })).toBe('updated');
    expect(api.calls).toEqual([`update 2 ${marker}`]);
    // Only a person's copy: a new comment, never an update of theirs.
    const human = fakeApi([{ id: 1, body: `${marker}\nforged`, user: { login: 'mallory', type: 'User' } }]);
    expect(await upsertComment(human, { mode: 'always', marker, body: 'new', report: report('pass') })).toBe('created');
  });
});

describe('a comment limit too small for the report', () => {
  it('ends, with the pointer to the summary alone', () => {
    const body = fitComment('### head\n| row |\n'.repeat(100), undefined, { limit: 50 });
    expect(body.length).toBeLessThanOrEqual(50);
    expect(body.startsWith('… the report is longer than a comment allows')).toBe(true);
  });
});

describe('history and drift inputs', () => {
  const c = 'c'.repeat(40);
  const main = { repository: { default_branch: 'main' } };
  it('writes the history only on a push, schedule or dispatch of the default branch', () => {
    const writes = (eventName: string, event: object, ref?: string) =>
      parseActionInputs(inputs({ history: 'benchgate-history', base: c }), env({ eventName, event, ...(ref ? { ref } : {}) }))
        .historyWrites;
    expect(writes('push', { ...main, before: c, ref: 'refs/heads/main' })).toBe(true);
    expect(writes('push', { ...main, before: c, ref: 'refs/heads/feature' })).toBe(false);
    expect(writes('schedule', main, 'refs/heads/main')).toBe(true);
    expect(writes('workflow_dispatch', main, 'refs/heads/release')).toBe(false);
    // A pull request's run, even one whose head branch is called main, never writes.
    expect(
      writes('pull_request', { ...main, ref: 'refs/heads/main', pull_request: { number: 3, base: { sha: c } } }, 'refs/heads/main'),
    ).toBe(false);
    expect(writes('merge_group', { ...main, merge_group: { base_sha: c } }, 'refs/heads/main')).toBe(false);
    // Without a default branch in the event, nothing is known to be main.
    expect(writes('push', { before: c, ref: 'refs/heads/main' })).toBe(false);
  });

  it('checks the history branch, the limit and the drift budget, and runs drift only where the history may be written', () => {
    expect(() => parseActionInputs(inputs({ history: '-x' }), env())).toThrow("Input 'history' must name the branch");
    expect(() => parseActionInputs(inputs({ history: 'a'.repeat(40) }), env())).toThrow("Input 'history' must name the branch");
    expect(() => parseActionInputs(inputs({ 'history-limit': '5' }), env())).toThrow(
      "Input 'history-limit' must be a whole number from 10 to 100000",
    );
    expect(() => parseActionInputs(inputs({ mode: 'drift' }), env())).toThrow('mode: drift runs on push, schedule or workflow_dispatch');
    // A bad anchor is refused with the inputs, before anything runs.
    expect(() => parseActionInputs(inputs({ anchor: 'days:many' }), env())).toThrow(
      "Input 'anchor' 'days:many': days must be a whole number",
    );
    const drift = parseActionInputs(inputs({ mode: 'drift', 'drift-budget': '15%' }), env({ eventName: 'schedule', event: main }));
    expect(drift).toMatchObject({
      mode: 'drift',
      base: undefined,
      anchor: { kind: 'tag', pattern: 'v*' },
      driftBudget: 0.15,
      history: undefined,
    });
    expect(() => parseActionInputs(inputs({ mode: 'drift', 'drift-budget': 'lots' }), env({ eventName: 'schedule', event: main }))).toThrow(
      "Input 'drift-budget' must be a percentage",
    );
  });
});
