import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { git, GitError } from '../../src/checkout/git.js';
import { isRevisionName } from '../../src/config/revision.js';
import { commentKeyOf, parseActionInputs } from '../../src/config/action-inputs.js';
import { runLoad } from '../../src/measure/http/load.js';
import { runBenchmarkProcess } from '../../src/measure/micro/spawn.js';
import { commentMarker, upsertComment, type CommentApi } from '../../src/report/github.js';
import type { Report } from '../../src/report/model.js';
import { allowChildVariables, childEnvironment, isDeniedVariable } from '../../src/util/processes.js';
import { forgetSecrets, restoreJobFiles } from '../../src/util/secrets.js';
import { actionEnv, actionInputs } from '../action-env.js';

const temp = mkdtempSync(path.join(os.tmpdir(), 'benchgate-trust-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const env = actionEnv;
const inputs = actionInputs;

describe('the environment of every child', () => {
  it('passes an allow-list: what builds, servers and benches need, never a job file or anything named like a credential', () => {
    allowChildVariables({});
    const denied = [
      'INPUT_GITHUB-TOKEN',
      'INPUT_BUDGET',
      'ACTIONS_RUNTIME_TOKEN',
      'ACTIONS_ID_TOKEN_REQUEST_URL',
      'ACTIONS_CACHE_URL',
      'GITHUB_TOKEN',
      'GH_TOKEN',
      'NPM_TOKEN',
      'NODE_AUTH_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'DB_PASSWORD',
      'SSH_AUTH_SOCK',
      'STRIPE_API_KEY',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'GITHUB_ENV',
      'GITHUB_OUTPUT',
      'GITHUB_PATH',
      'GITHUB_STATE',
      'GITHUB_STEP_SUMMARY',
      'GITHUB_EVENT_PATH',
      'github_token',
      // What a deny-list of secret words missed: an allow-list needs no name to be guessed.
      'PGPASSWORD',
      'GH_PAT',
      'DEPLOY_KEY',
      'SSH_KEY',
      'DATABASE_URL',
      'NPM_CONFIG__AUTHTOKEN',
      'npm_config_//registry.npmjs.org/:_authToken',
      'YARN_NPM_AUTH_TOKEN',
      'SENTRY_DSN',
      'GIT_AUTHOR_NAME',
      'BASH_ENV',
      'LD_PRELOAD',
    ];
    const kept = [
      'PATH',
      'HOME',
      'LANG',
      'LC_ALL',
      'TZ',
      'TMPDIR',
      'NODE_OPTIONS',
      'NODE_ENV',
      'NODE_EXTRA_CA_CERTS',
      'npm_config_registry',
      'NPM_CONFIG_CACHE',
      'HTTPS_PROXY',
      'GITHUB_WORKSPACE',
      'GITHUB_SHA',
      'GITHUB_REPOSITORY',
      'RUNNER_TEMP',
      'RUNNER_OS',
      'CI',
      'PORT',
      'BENCHGATE_PROBE_SOCKET',
    ];
    expect(denied.filter((name) => !isDeniedVariable(name))).toEqual([]);
    expect(kept.filter(isDeniedVariable)).toEqual([]);
    const env = Object.fromEntries([...denied, ...kept].map((name) => [name, `value of ${name}`]));
    expect(Object.keys(childEnvironment(env)).sort()).toEqual([...kept].sort());
  });

  it("adds the names the user lists: any from the workflow's env input, none that looks like a credential from benchgate.yml", () => {
    try {
      allowChildVariables({ trusted: ['DATABASE_URL', 'LEAK_DIR'], fromConfig: ['BENCH_SIZE', 'DEPLOY_KEY'] });
      expect(isDeniedVariable('DATABASE_URL')).toBe(false);
      expect(isDeniedVariable('LEAK_DIR')).toBe(false);
      expect(isDeniedVariable('BENCH_SIZE')).toBe(false);
      // benchgate.yml is the pull request's: a credential's name listed there is not passed.
      expect(isDeniedVariable('DEPLOY_KEY')).toBe(true);
      // Nobody's list passes the job files, the inputs or the runner's credentials.
      allowChildVariables({ trusted: ['GITHUB_OUTPUT', 'INPUT_GITHUB-TOKEN', 'ACTIONS_RUNTIME_TOKEN', 'GITHUB_TOKEN'] });
      for (const name of ['GITHUB_OUTPUT', 'INPUT_GITHUB-TOKEN', 'ACTIONS_RUNTIME_TOKEN', 'GITHUB_TOKEN'])
        expect(isDeniedVariable(name)).toBe(true);
    } finally {
      allowChildVariables({});
    }
  });

  it('forgets what no child may see once the inputs are read, and hands back the job files for @actions/core', () => {
    const env: NodeJS.ProcessEnv = {
      'INPUT_GITHUB-TOKEN': 'ghs_x',
      ACTIONS_RUNTIME_TOKEN: 'r',
      GITHUB_OUTPUT: '/o',
      GITHUB_STEP_SUMMARY: '/s',
      DATABASE_URL: 'postgres://u:p@h/db',
      PATH: '/bin',
    };
    const { forgotten, wiped, jobFiles } = forgetSecrets(env);
    expect(forgotten.sort()).toEqual(['ACTIONS_RUNTIME_TOKEN', 'GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY', 'INPUT_GITHUB-TOKEN']);
    // A user-listed variable may still be passed on by name, so it stays in process.env (which no other process reads).
    expect(env).toEqual({ DATABASE_URL: 'postgres://u:p@h/db', PATH: '/bin' });
    expect(jobFiles).toEqual({ GITHUB_OUTPUT: '/o', GITHUB_STEP_SUMMARY: '/s' });
    restoreJobFiles(jobFiles, env);
    expect(env.GITHUB_OUTPUT).toBe('/o');
    // Not this process's environment: nothing of ours is wiped.
    expect(wiped).toBe(false);
  });
});

describe('revisions from users and events', () => {
  it('accepts branches, tags, shas and ancestry, and refuses what git would read as an option or cannot be a ref', () => {
    for (const good of ['main', 'origin/main', 'v1.2.0', 'feature/x-y_z', 'HEAD', 'HEAD~1', 'main^', 'main~2^1', 'a'.repeat(40), 'deadbee'])
      expect(isRevisionName(good), good).toBe(true);
    for (const bad of [
      '--upload-pack=touch /tmp/x',
      '-x',
      '',
      'a..b',
      'a b',
      'x:y',
      'a\nb',
      '@{-1}',
      'refs/heads/.hidden',
      'a.lock',
      'a/',
      '/a',
      'a//b',
      'a*',
      'a?',
      '[a]',
      'a\\b',
    ]) {
      expect(isRevisionName(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it("names the base or head input that is not a revision, and the event's base too", () => {
    expect(() => parseActionInputs(inputs({ base: '--upload-pack=touch /tmp/pwned' }), env())).toThrow(
      "Input 'base' must be a branch, tag or commit sha (e.g. main or a 40-character sha), but got '--upload-pack=touch /tmp/pwned'.",
    );
    expect(() => parseActionInputs(inputs({ head: 'x y' }), env())).toThrow("Input 'head' must be a branch, tag or commit sha");
    expect(() => parseActionInputs(inputs({}), env({ event: { pull_request: { number: 5, base: { sha: '-oops' } } } }))).toThrow(
      "Input 'base' must be a branch, tag or commit sha",
    );
  });

  it('stops a git command that does not finish, and names it', async () => {
    // cat-file --batch reads commands from its stdin, which stays open: it would wait forever.
    const error = await git(['cat-file', '--batch'], process.cwd(), { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as Error).message).toBe('git cat-file --batch failed: did not finish within 0.3s and was killed');
  });
});

describe('one comment per gate', () => {
  it('keys each gate by its directory, config and comment-key, in characters that cannot close the marker', () => {
    expect(commentKeyOf('', undefined, '')).toBe('benchgate.yml');
    expect(commentKeyOf('packages/api', undefined, '')).toBe('packages/api/benchgate.yml');
    expect(commentKeyOf('packages/web', 'perf/gate.yml', 'node-24')).toBe('packages/web/perf/gate.yml#node-24');
    const hostile = commentMarker(commentKeyOf('', undefined, 'x --> <img src=x onerror=alert(1)> <!--'));
    expect(hostile.startsWith('<!-- benchgate: ')).toBe(true);
    expect(hostile.slice(4, -3)).not.toMatch(/--|>|</);
    const settings = (dir: string, key = '') =>
      parseActionInputs(inputs({ 'working-directory': dir, 'comment-key': key }), env()).commentKey;
    expect(
      new Set([
        settings('packages/api'),
        settings('packages/web'),
        settings('packages/api', 'node-20'),
        settings('packages/api', 'node-24'),
      ]).size,
    ).toBe(4);
  });

  it('updates only a comment of its own that opens with its marker, not one that quotes it', async () => {
    const marker = commentMarker('packages/api/benchgate.yml');
    const comments = [
      { id: 1, body: `quoting ${marker}\nsomething`, user: { login: 'github-actions[bot]', type: 'Bot' } },
      { id: 2, body: `${commentMarker('packages/web/benchgate.yml')}\nweb`, user: { login: 'github-actions[bot]', type: 'Bot' } },
    ];
    const calls: string[] = [];
    const api: CommentApi = {
      whoAmI: async () => undefined,
      listComments: async () => comments,
      createComment: async () => void calls.push('create'),
      updateComment: async (id) => void calls.push(`update ${id}`),
    };
    const report = { verdict: 'pass', benchmarks: [] } as unknown as Report;
    expect(await upsertComment(api, { mode: 'always', marker, body: 'api', report })).toBe('created');
    comments.push({ id: 3, body: `${marker}\napi`, user: { login: 'github-actions[bot]', type: 'Bot' } });
    expect(await upsertComment(api, { mode: 'always', marker, body: 'api again', report })).toBe('updated');
    expect(calls).toEqual(['create', 'update 3']);
  });
});

describe('every wait has a deadline', () => {
  it('an HTTP load on a server that never answers ends at its deadline, with no answer counted', async () => {
    const server = http.createServer(() => undefined); // accepts, never answers
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const result = await runLoad({
        port,
        requests: [{ method: 'GET', path: '/', headers: {}, body: undefined, status: ['2xx'] }],
        connections: 2,
        durationMs: 300,
      });
      expect(result.traffic.ok).toBe(0);
      expect(result.requestsPerSec).toBe(0);
      expect(result.times).toEqual([]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  const script = (name: string, text: string) => {
    const file = path.join(temp, name);
    writeFileSync(file, text);
    chmodSync(file, 0o644);
    return file;
  };
  const job = { sides: [], settings: {}, batches: {}, skip: [] } as never;

  it('a benchmark process that never answers the handshake is killed and named', async () => {
    const silent = script('silent.cjs', 'setInterval(() => {}, 1000);\n');
    const outcome = await runBenchmarkProcess(job, { runnerPath: silent, stallTimeoutMs: 500, cwd: temp });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.message).toMatch(
      /^the benchmark process \(pid \d+\) did not start within 0\.5s \(no handshake\) and was killed/,
    );
  });

  it('a result sent just before the process exits is never lost', async () => {
    // The job is sent only after the handshake; the answer and the exit follow at once, many times over.
    const quick = script(
      'quick.cjs',
      "process.send({ type: 'ready' });\nprocess.once('message', () => process.send({ type: 'result', files: [], tasks: [] }, undefined, {}, () => process.exit(0)));\n",
    );
    const outcomes = [];
    for (let i = 0; i < 10; i++) outcomes.push(await runBenchmarkProcess(job, { runnerPath: quick, stallTimeoutMs: 30_000, cwd: temp }));
    expect(outcomes.filter((o) => !o.ok)).toEqual([]);
  });

  it('leaves no timer behind once a process has answered and exited, so benchgate exits when its work is done', async () => {
    const pidFile = path.join(temp, 'answers.pid');
    const answers = script(
      'answers.cjs',
      `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\nprocess.send({ type: 'ready' });\nprocess.once('message', () => process.send({ type: 'result', files: [], tasks: [] }, undefined, {}, () => process.exit(0)));\n`,
    );
    // Every timer the run sets, and whether it fired or was cleared: one still pending after the exit would hold benchgate open.
    const pending = new Set<unknown>();
    const realSet = globalThis.setTimeout;
    const realClear = globalThis.clearTimeout;
    const set = vi.spyOn(globalThis, 'setTimeout').mockImplementation((fn: () => void, ms?: number) => {
      const handle = realSet(() => {
        pending.delete(handle);
        fn();
      }, ms);
      pending.add(handle);
      return handle;
    });
    const clear = vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((handle?: NodeJS.Timeout) => {
      pending.delete(handle);
      realClear(handle);
    }) as typeof clearTimeout);
    try {
      const outcome = await runBenchmarkProcess(job, { runnerPath: answers, stallTimeoutMs: 30_000, cwd: temp });
      expect(outcome.ok).toBe(true);
      // The result settles the outcome and its exit follows: once the kernel has reaped it, its 'exit' has been handled.
      const pid = Number(readFileSync(pidFile, 'utf8'));
      while (existsSync(`/proc/${pid}`)) await new Promise<void>((resolve) => realSet(resolve, 20));
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(set).toHaveBeenCalled();
      expect(pending.size).toBe(0);
    } finally {
      set.mockRestore();
      clear.mockRestore();
    }
  });
});

describe("the action's log", () => {
  it('never lets a name from the pull request start a workflow command', async () => {
    const { logLine } = await import('../../src/action/run.js');
    const line = logLine('bench files: bench/x.bench.js > a\n::error title=pwned::injected\r\n::add-mask::x');
    expect(line.split(/\r|\n/)).toHaveLength(1);
    expect(line).toBe('bench files: bench/x.bench.js > a?::error title=pwned::injected??::add-mask::x');
    expect(logLine('::stop-commands::token')).toBe('?:stop-commands::token');
  });
});

describe('what code under test sends benchgate is checked before it is read', () => {
  it('takes only the messages of the runner protocol, with their types', async () => {
    const { checkRunnerMessage } = await import('../../src/measure/micro/messages.js');
    const task = { id: 'a > b', batch: 10, blocks: 20, base: { opsPerSec: 5, calls: 100 }, logRatio: -0.1, measureMs: 30 };
    for (const good of [
      { type: 'ready' },
      { type: 'progress', id: 'a > b', revision: 'head' },
      { type: 'profiled', calls: { base: 12, head: 9 } },
      { type: 'fatal', message: 'boom' },
      { type: 'result', files: [{ revision: 'base', file: 'a', tasks: ['b'] }], tasks: [task] },
    ])
      expect(checkRunnerMessage(good).ok, JSON.stringify(good)).toBe(true);
    for (const bad of [
      null,
      'done',
      42,
      [],
      {},
      { type: 'pwned' },
      { type: 'progress' },
      { type: 'progress', id: 7 },
      { type: 'progress', id: 'a', revision: 'main' },
      { type: 'result', files: 'all of them', tasks: [] },
      { type: 'result', files: [], tasks: [{ id: 1 }] },
      { type: 'result', files: [], tasks: [{ ...task, batch: -1 }] },
      { type: 'result', files: [], tasks: [{ ...task, logRatio: 'fast' }] },
      { type: 'result', files: [], tasks: [{ ...task, base: { opsPerSec: null, calls: 1 } }] },
      { type: 'result', files: [{ revision: 'base', file: 'a', tasks: [1] }], tasks: [] },
      { type: 'fatal', message: 'x'.repeat(20_000) },
      { type: 'profiled', calls: { base: -3 } },
      { type: 'profiled', calls: 12 },
      { type: 'profiled', calls: { main: 1 } },
    ]) {
      const checked = checkRunnerMessage(bad);
      expect(checked.ok, JSON.stringify(bad)?.slice(0, 80)).toBe(false);
      // What arrived is shown, cut short: it is the pull request's text.
      if (!checked.ok) expect(checked.preview.length).toBeLessThanOrEqual(200);
    }
  });

  it("takes the probe's figures only with the probe's shape and ranges", async () => {
    const { checkProbeFigures } = await import('../../src/measure/http/probe-client.js');
    const figures = {
      windowMs: 1000,
      eventLoopDelay: { p50: 1, p99: 2, max: 3 },
      eventLoopUtilization: 0.5,
      gc: { count: 2, totalMs: 3, byKind: { minor: { count: 2, totalMs: 3 } } },
      peakRssBytes: 1e8,
      peakHeapUsedBytes: 1e7,
    };
    expect(checkProbeFigures(figures)).toEqual(figures);
    for (const bad of [
      undefined,
      'fast',
      { ...figures, eventLoopUtilization: 7 },
      { ...figures, windowMs: -1 },
      { ...figures, eventLoopDelay: { p50: 1, p99: '2', max: 3 } },
      { ...figures, gc: { count: 2, totalMs: 3, byKind: { minor: { count: 'many', totalMs: 3 } } } },
      { ...figures, peakRssBytes: undefined },
    ])
      expect(checkProbeFigures(bad), JSON.stringify(bad)?.slice(0, 80)).toBeUndefined();
  });
});
