import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureRepo, inlineRepo, removeFixtureRepos, runCli } from './helpers.js';

/**
 * A cancelled job (SIGINT, SIGTERM) at each stage of a run: install, micro rounds, HTTP rounds,
 * profiling. Each run gets a temp folder of its own (TMPDIR), so "nothing left behind" is checked
 * by path, and the processes it started are followed by pid (its descendants, read from /proc while
 * it runs), never by a machine-wide process list.
 */

const temps: string[] = [];
afterAll(() => {
  removeFixtureRepos();
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** pid → parent pid, for every process. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      map.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  return map;
}

/** Every process descended from `root`, with its command line. */
function descendants(root: number): Map<number, string> {
  const tree = parents();
  const found = new Map<number, string>();
  let frontier = [root];
  while (frontier.length) {
    const next: number[] = [];
    for (const [pid, ppid] of tree) {
      if (frontier.includes(ppid) && !found.has(pid)) {
        found.set(pid, commandLine(pid));
        next.push(pid);
      }
    }
    frontier = next;
  }
  return found;
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/** Running (a zombie waiting for init to reap it is not running). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2)[0]!);
  } catch {
    return false;
  }
}

interface Interrupted {
  code: number | null;
  stderr: string;
  /** What benchgate had started when the signal went out. */
  seen: Map<number, string>;
  tmp: string;
}

/**
 * Run `benchgate compare` and send `signal` once `ready(stderr, children)` says the stage is under way.
 * The children are read again on every line benchgate prints, so short-lived ones are seen too.
 */
async function interrupt(repo: string, args: string[], signal: 'SIGINT' | 'SIGTERM', ready: (stderr: string, children: string[]) => boolean): Promise<Interrupted> {
  const tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'benchgate-signal-')));
  temps.push(tmp);
  const seen = new Map<number, string>();
  let sent = false;
  let timer: NodeJS.Timeout | undefined;
  const run = await runCli(['compare', '--base', 'main', ...args], repo, {
    env: { TMPDIR: tmp },
    timeoutMs: 120_000,
    onStderr: (stderr, pid) => {
      if (sent) return;
      // Output may stop while the stage runs (a long install): look at the children every 100 ms as well.
      const look = () => {
        if (sent) return;
        for (const [child, command] of descendants(pid)) seen.set(child, command);
        if (ready(stderr, [...seen.values()])) {
          sent = true;
          clearInterval(timer);
          process.kill(pid, signal);
        }
      };
      look();
      timer ??= setInterval(look, 100);
    },
  });
  clearInterval(timer);
  expect(sent, `the stage never came:\n${run.stderr}`).toBe(true);
  return { code: run.code, stderr: run.stderr, seen, tmp };
}

function expectNothingLeft(repo: string, result: Interrupted, signal: 'SIGINT' | 'SIGTERM'): void {
  expect(result.code, result.stderr).toBe(signal === 'SIGINT' ? 130 : 143);
  expect(result.stderr).toContain(`${signal} received: stopping benchmark processes and removing worktrees`);
  // Every process it had started is gone (by pid).
  const alive = [...result.seen].filter(([pid]) => running(pid)).map(([pid, command]) => `${pid} ${command}`);
  expect(alive).toEqual([]);
  // Its temp folder is empty: no worktree, no probe socket folder, no temp file.
  expect(readdirSync(result.tmp)).toEqual([]);
  // git forgot the worktrees too.
  const worktrees = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' }).split('\n').filter((line) => line.startsWith('worktree '));
  expect(worktrees).toEqual([`worktree ${repo}`]);
}

const BENCH = "import { createHash } from 'node:crypto';\nexport default {\n  'sha1': () => createHash('sha1').update('benchgate').digest('hex'),\n};\n";

describe('a cancelled run leaves nothing behind and exits 130/143', () => {
  it('SIGTERM during the install of base: the install script and its children are killed', async () => {
    const repo = inlineRepo({ 'bench/a.bench.js': BENCH, 'benchgate.yml': 'install: node -e "setTimeout(() => {}, 60000)" && echo done\n' });
    const result = await interrupt(repo, [], 'SIGTERM', (_stderr, children) => children.some((c) => c.includes('setTimeout(() => {}, 60000)')));
    expect([...result.seen.values()].some((c) => c.includes('setTimeout'))).toBe(true);
    expectNothingLeft(repo, result, 'SIGTERM');
  });

  it('SIGINT during micro rounds: the benchmark process is killed', async () => {
    const repo = inlineRepo({ 'bench/a.bench.js': BENCH, 'benchgate.yml': 'rounds: 40\nmicro:\n  task-time: 300ms\n' });
    const result = await interrupt(repo, [], 'SIGINT', (stderr, children) => /round 2 of/.test(stderr) && children.some((c) => c.includes('runner.js')));
    expect([...result.seen.values()].some((c) => c.includes('runner.js'))).toBe(true);
    expectNothingLeft(repo, result, 'SIGINT');
  });

  it('SIGTERM during HTTP rounds: both servers (with their probe sockets) are stopped', async () => {
    const config = `rounds: 6\nmax-rounds: 6\nhttp:\n  - name: todo lists\n    start: node server.js\n    ready: /health\n    requests:\n      - path: /todo-lists\n    duration: 2s\n    warmup: 200ms\n`;
    const repo = fixtureRepo('http-untouched', { config });
    const result = await interrupt(repo, [], 'SIGTERM', (_stderr, children) => children.filter((c) => c.includes('server.js')).length >= 2);
    expect([...result.seen.values()].filter((c) => c.includes('server.js')).length).toBeGreaterThanOrEqual(2);
    expectNothingLeft(repo, result, 'SIGTERM');
  });

  it('SIGINT while profiling a regression: the profiled process is killed', async () => {
    const repo = fixtureRepo('ids', { config: 'budget: 5%\nmicro:\n  task-time: 150ms\n' });
    const result = await interrupt(repo, ['--profile', 'regressions'], 'SIGINT', (stderr, children) => /profiling /.test(stderr) && children.some((c) => c.includes('runner.js')));
    expectNothingLeft(repo, result, 'SIGINT');
  });
});
