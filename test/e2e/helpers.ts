import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, expect } from 'vitest';
// @ts-expect-error -- a plain .mjs script shared with npm run demo
import { makeFixtureRepo as make } from '../../scripts/fixture-repo.mjs';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

const repos: string[] = [];

/** A fixture's git history in a temp dir (removed after the test file), with an optional benchgate.yml. */
export function fixtureRepo(name: string, options: { commitHead?: boolean; config?: string } = {}): string {
  const dir = make(name, options) as string;
  repos.push(dir);
  return dir;
}

export function removeFixtureRepos(): void {
  for (const dir of repos.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * After each test of the file, no process its runs started is left (found by pid and path, never by name), nor a
 * worktree or temp dir of the repository `current()` names; the file's fixture repositories go after the file.
 */
export function checkEachTest(current: () => string): void {
  afterAll(removeFixtureRepos);
  afterEach(async () => {
    expect(await leftoverProcesses()).toEqual([]);
    const repo = current();
    if (repo) expect(leftovers(repo)).toEqual({ worktrees: [], tempDirs: [] });
  });
}

/**
 * A test file's fixture repositories and one install cache for its compares (--install-cache), both removed
 * after the file; after each test, no process it started is left, nor a worktree or temp dir of its repo.
 */
export function fixturesWithCache(prefix: string): {
  cache: string;
  fixture: (name: string, options?: Parameters<typeof fixtureRepo>[1]) => string;
} {
  let repo = '';
  const cache = mkdtempSync(path.join(os.tmpdir(), prefix));
  afterAll(() => rmSync(cache, { recursive: true, force: true }));
  checkEachTest(() => repo);
  return { cache, fixture: (name, options = {}) => (repo = fixtureRepo(name, options)) };
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pid: number;
  /** The processes the run started, as the test saw them. */
  processes: ProcessWatch;
}

/** Run the built CLI as a user would; `onStderr` can act mid-run (e.g. send SIGINT), with the run's process watch at hand. */
export function runCli(
  args: string[],
  cwd: string,
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; onStderr?: (text: string, pid: number, watch: ProcessWatch) => void } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const mark = runMark();
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', ...options.env, ...mark.env } });
    const watch = watchProcesses(child.pid!, [cwd], mark.value);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      watch.sample();
      options.onStderr?.(stderr, child.pid!, watch);
    });
    // A safety net for a hung run, never a measure of speed: a loaded machine must not fail a test.
    const timeoutMs = options.timeoutMs ?? 600_000;
    const timer = setTimeout(() => {
      // Everything the run started goes with it, by pid.
      watch.sample();
      for (const p of watch.seen()) if (p.alive) killPid(p.pid);
      reject(new Error(`benchgate ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      watch.stop();
      resolve({ code, signal, stdout, stderr, pid: child.pid!, processes: watch });
    });
  });
}

export function readJson<T = any>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** Worktrees git still knows of besides the main one, and benchgate temp dirs left in the temp folder. */
export function leftovers(repo: string): { worktrees: string[]; tempDirs: string[] } {
  const list = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: repo, encoding: 'utf8' });
  const worktrees = list
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length))
    .filter((dir) => dir !== repo);
  const tempDirs = readdirSync(os.tmpdir())
    .filter((name) => /^benchgate-([A-Za-z0-9]{6}|[0-9a-f]{12})$/.test(name))
    .map((name) => path.join(os.tmpdir(), name))
    .filter((dir) => existsSync(dir) && worktreesOf(dir, repo));
  return { worktrees, tempDirs };
}

function worktreesOf(dir: string, repo: string): boolean {
  // A temp dir is ours if one of its checkouts points back at this repository's .git.
  for (const side of ['base', 'head']) {
    const gitFile = path.join(dir, side, '.git');
    if (existsSync(gitFile) && readFileSync(gitFile, 'utf8').includes(repo)) return true;
  }
  return false;
}

/**
 * A repository from inline files: `base` committed on main, then `head` written
 * over it and committed on feature (left uncommitted with commitHead: false).
 */
export function inlineRepo(
  base: Record<string, string>,
  head: Record<string, string> = {},
  options: { commitHead?: boolean } = {},
): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'benchgate-inline-')));
  repos.push(dir);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
      stdio: 'pipe',
    });
  const write = (files: Record<string, string>) => {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
  };
  git('init', '-q', '-b', 'main');
  write({ 'package.json': '{ "name": "inline", "private": true, "type": "module" }\n', ...base });
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  git('checkout', '-q', '-b', 'feature');
  write(head);
  if (options.commitHead !== false) {
    git('add', '-A');
    git('commit', '-q', '--allow-empty', '-m', 'head');
  }
  return dir;
}

/** A process as /proc shows it; `start` (clock ticks after boot) tells a pid's reuse from the same process. */
interface ProcInfo {
  pid: number;
  ppid: number;
  start: string;
  state: string;
}

function procInfo(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After "pid (comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return { pid, state: fields[0]!, ppid: Number(fields[1]), start: fields[19]! };
  } catch {
    return undefined; // gone meanwhile
  }
}

function allProcesses(): ProcInfo[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => procInfo(Number(entry)))
    .filter((info): info is ProcInfo => info !== undefined);
}

function commandAndCwd(pid: number): { cmd: string; cwd: string } {
  let cmd = '';
  let cwd = '';
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    // gone meanwhile, or not ours to read
  }
  return { cmd, cwd };
}

const TEMP_WORKTREES = new RegExp(
  `^(${os.tmpdir().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/benchgate-(?:[A-Za-z0-9]{6}|[0-9a-f]{12}))(/|$)`,
);

/**
 * The processes one run started, found by pid, path and mark only, never by a name another test or
 * project could share: every descendant of the run's root process seen while it ran (sampled
 * every 50 ms and on each line of output), and after the run every process working in the
 * run's own directories (its repository, and the temporary worktrees its descendants ran in) or
 * carrying the run's mark in its environment (runMark: one that detached faster than a sample).
 */
export interface ProcessWatch {
  /** Look at /proc now: record the root's descendants and the temp worktrees they work in. */
  sample(): void;
  stop(): void;
  /** True once the run is over (its output closed). */
  readonly stopped: boolean;
  /** Every process seen so far: "pid command (in cwd)". */
  seen(): { pid: number; cmd: string; cwd: string; alive: boolean }[];
  /** Processes of the run still alive: seen ones (same pid and start time) and any working in the run's directories. */
  leftovers(): { pid: number; text: string }[];
}

const watches: ProcessWatch[] = [];

/**
 * A mark for one run's environment, which every process it starts inherits (benchgate passes BENCHGATE_*
 * to its children): a process that detached from the run's tree before a sample saw it is still found by it.
 */
export function runMark(): { env: NodeJS.ProcessEnv; value: string } {
  const value = `${process.pid}-${Math.random().toString(36).slice(2)}`;
  return { env: { BENCHGATE_TEST_RUN: value }, value };
}

function carriesMark(pid: number, mark: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`BENCHGATE_TEST_RUN=${mark}`);
  } catch {
    return false; // gone meanwhile, or not ours to read
  }
}

export function watchProcesses(root: number, dirs: string[], mark?: string): ProcessWatch {
  const seen = new Map<number, { start: string; cmd: string; cwd: string }>();
  const places = new Set(dirs);
  const sample = () => {
    const processes = allProcesses();
    const children = new Map<number, number[]>();
    for (const p of processes) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
    const starts = new Map(processes.map((p) => [p.pid, p.start]));
    const queue = [root];
    while (queue.length) {
      const pid = queue.shift()!;
      const start = starts.get(pid);
      // Read again on every sample: a process seen between its fork and its exec shows its parent's command line.
      if (start !== undefined) {
        const { cmd, cwd } = commandAndCwd(pid);
        if (cmd || seen.get(pid)?.start !== start) seen.set(pid, { start, cmd, cwd });
        const temp = TEMP_WORKTREES.exec(cwd)?.[1];
        if (temp) places.add(temp);
      }
      queue.push(...(children.get(pid) ?? []));
    }
  };
  const isAlive = (pid: number, start: string) => {
    const info = procInfo(pid);
    return info !== undefined && info.start === start && info.state !== 'Z';
  };
  sample();
  const timer = setInterval(sample, 50);
  let stopped = false;
  const watch: ProcessWatch = {
    sample,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
    get stopped() {
      return stopped;
    },
    seen: () => [...seen].map(([pid, p]) => ({ pid, cmd: p.cmd, cwd: p.cwd, alive: isAlive(pid, p.start) })),
    leftovers() {
      const found = new Map<number, string>();
      for (const [pid, p] of seen) if (isAlive(pid, p.start)) found.set(pid, `${pid} ${p.cmd} (in ${p.cwd})`);
      for (const p of allProcesses()) {
        if (p.pid === process.pid || p.state === 'Z' || found.has(p.pid)) continue;
        const { cmd, cwd } = commandAndCwd(p.pid);
        const inPlace = [...places].some((dir) => cwd === dir || cwd.startsWith(`${dir}/`));
        if (inPlace || (mark !== undefined && carriesMark(p.pid, mark))) found.set(p.pid, `${p.pid} ${cmd} (in ${cwd})`);
      }
      return [...found].map(([pid, text]) => ({ pid, text }));
    },
  };
  watches.push(watch);
  return watch;
}

/**
 * Processes that the runs watched since the last call started and that still live. A process
 * killed as the run ended may take a moment to be torn down on a loaded machine: the check waits
 * for that (a safety net, not a measure of speed), then names what is still running.
 */
export async function leftoverProcesses(graceMs = 5000): Promise<string[]> {
  const current = watches.splice(0);
  for (const watch of current) watch.stop();
  const deadline = Date.now() + graceMs;
  for (;;) {
    const found = current.flatMap((watch) => watch.leftovers());
    if (found.length === 0) return [];
    if (Date.now() > deadline) {
      // Named for the failure, then killed by pid, so they cannot disturb the next test.
      for (const { pid } of found) killPid(pid);
      return found.map((p) => p.text);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
}

/** A benchmark process of this build (only the run's own processes are ever looked at). */
export const isRunner = (cmd: string) => cmd.endsWith(path.join(path.dirname(CLI), 'runner.js'));
