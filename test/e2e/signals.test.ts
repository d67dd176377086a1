import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  fixtureRepo,
  inlineRepo,
  isRunner,
  leftoverProcesses,
  removeFixtureRepos,
  runCli,
  type CliRun,
  type ProcessWatch,
} from './helpers.js';

/**
 * A cancelled job (SIGINT, SIGTERM) at each stage of a run: install, micro rounds, HTTP rounds,
 * profiling, and calibrate. Each run gets a temp folder of its own (TMPDIR), so "nothing left
 * behind" is checked by path; its processes are followed by pid (helpers' process watch), never by
 * a machine-wide process list.
 */

const temps: string[] = [];
afterAll(() => {
  removeFixtureRepos();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  expect(await leftoverProcesses()).toEqual([]);
});

type Signal = 'SIGINT' | 'SIGTERM' | 'SIGHUP' | 'SIGKILL';
const EXIT: Record<Signal, number | null> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129, SIGKILL: null };

/** Once `ready` holds for the command lines of the run's live processes, call `then` (polling the run's own processes). */
function whenAlive(watch: ProcessWatch, ready: (alive: string[]) => boolean, then: () => void): void {
  const check = () => {
    if (watch.stopped) return;
    watch.sample();
    if (
      ready(
        watch
          .seen()
          .filter((p) => p.alive)
          .map((p) => p.cmd),
      )
    )
      then();
    else setTimeout(check, 20);
  };
  check();
}

/** Run benchgate and send `signal` once the stage has begun (`stage` in its output) and its live processes satisfy `ready`. */
async function interrupt(
  repo: string,
  args: string[],
  signal: Signal,
  stage: RegExp,
  ready: (alive: string[]) => boolean,
  env: NodeJS.ProcessEnv = {},
): Promise<CliRun & { tmp: string }> {
  const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'benchgate-signal-')));
  temps.push(tmp);
  let sent = false;
  let readyAtSignal = false;
  const run = await runCli(args, repo, {
    env: { TMPDIR: tmp, ...env },
    onStderr: (text, pid, watch) => {
      if (sent || !stage.test(text)) return;
      sent = true;
      whenAlive(watch, ready, () => {
        readyAtSignal = true;
        process.kill(pid, signal);
      });
    },
  });
  expect(sent, `the stage never came:\n${run.stderr}`).toBe(true);
  // The processes the test is about were really running when the signal went out.
  expect(readyAtSignal, run.stderr).toBe(true);
  return { ...run, tmp };
}

const some = (test: (cmd: string) => boolean) => (alive: string[]) => alive.some(test);

async function expectNothingLeft(repo: string, run: CliRun & { tmp: string }, signal: Signal): Promise<void> {
  expect(run.code, run.stderr).toBe(EXIT[signal]);
  expect(run.stderr).toContain(`${signal} received: stopping benchmark processes and removing worktrees`);
  // Every process it had started is gone (by pid and start time, and by the folders it worked in).
  expect(await leftoverProcesses()).toEqual([]);
  // Its temp folder is empty: no worktree, no probe socket folder, no temp file. (Node's own compile cache, which npm turns on
  // when it runs on Node 22+, here while it installs base, is a cache meant to outlive the run, not a folder of benchgate's.)
  expect(readdirSync(run.tmp).filter((name) => name !== 'node-compile-cache')).toEqual([]);
  // git forgot the worktrees too.
  const worktrees = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.startsWith('worktree '));
  expect(worktrees).toEqual([`worktree ${repo}`]);
}

/** One load test of 2 s loads: long enough for a signal to land while the servers are up. */
const HTTP_CONFIG = `rounds: 6\nmax-rounds: 6\nhttp:\n  - name: todo lists\n    start: node server.js\n    ready: /health\n    requests:\n      - path: /todo-lists\n    duration: 2s\n    warmup: 200ms\n`;

const BENCH =
  "import { createHash } from 'node:crypto';\nexport default {\n  'sha1': () => createHash('sha1').update('benchgate').digest('hex'),\n};\n";

describe('a cancelled run leaves nothing behind and exits 130/143', () => {
  it('SIGTERM during the install of base: the install and its children are killed', async () => {
    const repo = inlineRepo({ 'bench/a.bench.js': BENCH, 'benchgate.yml': "install: 'echo installing; sleep 31.7'\n" });
    const run = await interrupt(
      repo,
      ['compare', '--base', 'main'],
      'SIGTERM',
      /install base:/,
      some((cmd) => cmd === 'sleep 31.7'),
    );
    await expectNothingLeft(repo, run, 'SIGTERM');
  });

  it('SIGINT during micro rounds: the benchmark process is killed', async () => {
    const repo = inlineRepo({ 'bench/a.bench.js': BENCH, 'benchgate.yml': 'rounds: 40\nmicro:\n  task-time: 300ms\n' });
    const run = await interrupt(repo, ['compare', '--base', 'main'], 'SIGINT', /round 2 of/, some(isRunner));
    await expectNothingLeft(repo, run, 'SIGINT');
  });

  it('SIGTERM during HTTP rounds: both servers (with their probe sockets) are stopped', async () => {
    const repo = fixtureRepo('http-untouched', { config: HTTP_CONFIG });
    const run = await interrupt(
      repo,
      ['compare', '--base', 'main'],
      'SIGTERM',
      /http load tests:/,
      (alive) => alive.filter((cmd) => cmd === 'node server.js').length >= 2,
    );
    await expectNothingLeft(repo, run, 'SIGTERM');
  });

  it('SIGINT while profiling a regression: the profiled process is killed', async () => {
    const repo = fixtureRepo('ids', {
      config: 'budget: 5%\nrounds: 5\nmax-rounds: 5\nconfirm: false\nmicro:\n  task-time: 50ms\n  processes: 1\n',
    });
    const run = await interrupt(repo, ['compare', '--base', 'main', '--profile', 'regressions'], 'SIGINT', /profiling /, some(isRunner));
    await expectNothingLeft(repo, run, 'SIGINT');
  });

  it('SIGINT during calibrate: its benchmark processes are killed and both worktrees removed', async () => {
    const repo = inlineRepo({ 'bench/a.bench.js': BENCH });
    const run = await interrupt(repo, ['calibrate', '--base', 'main', '--time-limit', '60s'], 'SIGINT', /round 2 of/, some(isRunner));
    await expectNothingLeft(repo, run, 'SIGINT');
  });
});

describe('benchgate killed, hung up on or crashed', () => {
  it('SIGHUP (a closed terminal) is a cancellation like SIGTERM: the benchmark process is killed, the worktrees removed', async () => {
    const repo = inlineRepo({ 'bench/a.bench.js': BENCH, 'benchgate.yml': 'rounds: 40\nmicro:\n  task-time: 300ms\n' });
    const run = await interrupt(repo, ['compare', '--base', 'main'], 'SIGHUP', /round 2 of/, some(isRunner));
    await expectNothingLeft(repo, run, 'SIGHUP');
  });

  it('SIGKILL, which no cleanup can trap: the benchmark processes and the servers end themselves', async () => {
    const micro = inlineRepo({ 'bench/a.bench.js': BENCH, 'benchgate.yml': 'rounds: 40\nmicro:\n  task-time: 300ms\n' });
    const inMicro = await interrupt(micro, ['compare', '--base', 'main'], 'SIGKILL', /round 2 of/, some(isRunner));
    const http = fixtureRepo('http-untouched', { config: HTTP_CONFIG });
    const inHttp = await interrupt(
      http,
      ['compare', '--base', 'main'],
      'SIGKILL',
      /round 1 of/,
      (alive) => alive.filter((cmd) => cmd === 'node server.js').length >= 1,
    );
    for (const run of [inMicro, inHttp]) {
      expect(run.signal).toBe('SIGKILL');
      // What it started was alive when it was killed, and ends within seconds (the runner on its IPC channel's
      // disconnect, a server through its probe's look at benchgate's pid), found by pid and start time.
      const started = run.processes.seen().filter((p) => p.pid !== run.pid);
      expect(started.length).toBeGreaterThan(0);
      expect(await leftoverProcesses(15_000)).toEqual([]);
    }
    // (SIGKILL leaves the worktrees: nothing can run then. The next run's git worktree prune and the temp folder's owner take them.)
    for (const repo of [micro, http]) execFileSync('git', ['worktree', 'prune'], { cwd: repo });
  });

  it('a crash of benchgate itself mid-run still writes the report, with the error, and leaves no worktree or process', async () => {
    // A crash injected into benchgate's own process (never its children) when round 2 starts: an uncaught exception.
    const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'benchgate-signal-')));
    temps.push(tmp);
    const crash = path.join(tmp, 'crash.cjs');
    writeFileSync(
      crash,
      `if (process.argv[1] && process.argv[1].endsWith('cli.js')) {
  const write = process.stderr.write.bind(process.stderr);
  let armed = true;
  process.stderr.write = (chunk, ...rest) => {
    if (armed && String(chunk).includes('round 2 of')) { armed = false; setImmediate(() => { throw new Error('injected crash'); }); }
    return write(chunk, ...rest);
  };
}
`,
    );
    const repo = inlineRepo({ 'bench/a.bench.js': BENCH, 'benchgate.yml': 'rounds: 40\nmicro:\n  task-time: 300ms\n' });
    const run = await runCli(['compare', '--base', 'main', '--json', 'out/report.json'], repo, {
      env: { TMPDIR: tmp, NODE_OPTIONS: `--require ${crash}` },
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('benchgate: crashed (injected crash): benchmark processes stopped and worktrees removed');
    const report = JSON.parse(readFileSync(path.join(repo, 'out/report.json'), 'utf8'));
    expect(report.verdict).toBe('error');
    expect(report.error).toMatch(/^benchgate crashed: .*injected crash/);
    expect(run.stdout).toContain('injected crash');
    expect(await leftoverProcesses()).toEqual([]);
    const worktrees = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.startsWith('worktree '));
    expect(worktrees).toEqual([`worktree ${repo}`]);
    expect(readdirSync(tmp).filter((name) => name !== 'node-compile-cache' && name !== 'crash.cjs')).toEqual([]);
  });
});
