import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  pid: number;
}

/** Run the built CLI as a user would; `onStderr` can act mid-run (e.g. send SIGINT). */
export function runCli(args: string[], cwd: string, options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; onStderr?: (text: string, pid: number) => void } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
      options.onStderr?.(stderr, child.pid!);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`benchgate ${args.join(' ')} did not finish in ${options.timeoutMs ?? 120_000} ms\n${stderr}`));
    }, options.timeoutMs ?? 120_000);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, pid: child.pid! });
    });
  });
}

export function readJson<T = any>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** Processes still running whose command line mentions `needle` (a fixture path or dist/runner.js). */
export function processesMentioning(needle: string): string[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes(needle) && !line.includes('ps -eo'));
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
    .filter((name) => /^benchgate-[A-Za-z0-9]{6}$/.test(name))
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
export function inlineRepo(base: Record<string, string>, head: Record<string, string> = {}, options: { commitHead?: boolean } = {}): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'benchgate-inline-')));
  repos.push(dir);
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: dir, stdio: 'pipe' });
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

/**
 * Processes (other than this one) whose working directory lies in `dir` or in a benchgate worktree:
 * servers and benchmark processes of a run. Read from /proc, so it finds servers whatever their command line.
 */
export function processesWorkingIn(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state === 'Z') continue;
      if (cwd.startsWith(dir) || /^\/tmp\/benchgate-[A-Za-z0-9]{6}\//.test(`${cwd}/`)) found.push(`${entry} ${readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ')} (in ${cwd})`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}
