import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inlineRepo, leftoverProcesses, removeFixtureRepos, runCli, runMark, watchProcesses } from './helpers.js';

/** The leftover-process check the end-to-end tests rely on: it must find what a run left, and only that. */
const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'benchgate-watch-')));
const strangers: ChildProcess[] = [];
afterAll(() => {
  removeFixtureRepos();
  for (const child of strangers) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Running, as /proc says: a killed process is gone or a zombie waiting to be reaped. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(') ') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};

/** Whether `pid` stops running within a moment (a safety net for a loaded machine, not a measure). */
async function ends(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && alive(pid); i++) await new Promise((resolve) => setTimeout(resolve, 100));
  return !alive(pid);
}

describe('the leftover-process check', () => {
  it('finds a process a run left behind by its ancestry, wherever it works, and kills it', async () => {
    // The "run" starts a sleep in / (outside every folder of the run) and ends without it, once the watch saw it.
    const run = spawn('sh', ['-c', 'cd / && sleep 29.3 & exec sleep 29.2'], { cwd: dir, stdio: 'ignore' });
    const watch = watchProcesses(run.pid!, [dir]);
    while (!watch.seen().some((p) => p.cmd === 'sleep 29.3')) await new Promise((resolve) => setTimeout(resolve, 20));
    run.kill('SIGKILL');
    await once(run, 'exit');
    watch.stop();
    const sleeper = watch.seen().find((p) => p.cmd === 'sleep 29.3')!;
    expect(sleeper).toMatchObject({ cwd: '/', alive: true });
    expect(await leftoverProcesses(200)).toEqual([`${sleeper.pid} sleep 29.3 (in /)`]);
    expect(await ends(sleeper.pid)).toBe(true);
  });

  it("finds a process working in the run's folder that it did not see start", async () => {
    const stray = spawn('sleep', ['29.4'], { cwd: dir, stdio: 'ignore' });
    strangers.push(stray);
    const run = spawn('true', [], { cwd: dir, stdio: 'ignore' });
    const watch = watchProcesses(run.pid!, [dir]);
    await once(run, 'exit');
    watch.stop();
    expect(await leftoverProcesses(200)).toEqual([`${stray.pid} sleep 29.4 (in ${dir})`]);
  });

  it("never names another run's or another project's processes, whatever their command line", async () => {
    // Looks like a benchmark process of benchgate, but belongs to nobody this run started.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 29_500)', '/work/elsewhere/dist/runner.js'], {
      cwd: os.tmpdir(),
      stdio: 'ignore',
    });
    strangers.push(other);
    const run = spawn('true', [], { cwd: dir, stdio: 'ignore' });
    const watch = watchProcesses(run.pid!, [dir]);
    await once(run, 'exit');
    watch.stop();
    expect(await leftoverProcesses(200)).toEqual([]);
    expect(alive(other.pid!)).toBe(true);
  });
});

describe('processes that leave the run', () => {
  it('finds a process that detached faster than any sample, by the mark in its environment', async () => {
    // Detached at once (its own session, in /), before the watch's first sample: neither its ancestry nor its folder tells.
    const mark = runMark();
    const run = spawn(
      process.execPath,
      ['-e', "require('child_process').spawn('sleep', ['29.6'], { detached: true, stdio: 'ignore', cwd: '/' }).unref()"],
      {
        cwd: dir,
        stdio: 'ignore',
        env: { ...process.env, ...mark.env },
      },
    );
    await once(run, 'exit');
    const watch = watchProcesses(run.pid!, [dir], mark.value);
    watch.stop();
    const found = await leftoverProcesses(200);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^\d+ sleep 29\.6 \(in \/\)$/);
  });

  it("benchgate kills what the pull request's code detached from its process group, when the run ends", async () => {
    // A bench file that starts a daemon of its own (setsid, in /) each time it loads: the process group kill misses it.
    const bench = `import { spawn } from 'node:child_process';
spawn('sleep', ['29.7'], { detached: true, stdio: 'ignore', cwd: '/' }).unref();
export default { 'sum': () => 1 + 1 };
`;
    const repo = inlineRepo({
      'benchgate.yml': 'rounds: 5\nmax-rounds: 5\nmicro:\n  task-time: 30ms\n  processes: 1\n',
      'bench/a.bench.js': bench,
    });
    const run = await runCli(['compare', '--base', 'main', '--profile', 'never'], repo);
    expect(run.code, run.stdout + run.stderr).toBeLessThan(2);
    expect(await leftoverProcesses()).toEqual([]);
  });
});
