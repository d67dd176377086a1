import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/**
 * Every child benchgate starts runs in its own process group, is tracked here
 * until it exits, and can be killed with its whole group, so that a timeout, an
 * error or a SIGINT never leaves a benchmark or an install running.
 */
const live = new Set<ChildProcess>();

/** Keeps the last `limit` characters of a stream's output. */
export class OutputTail {
  #text = '';
  constructor(private readonly limit = 64 * 1024) {}
  push(chunk: Buffer | string): void {
    this.#text += chunk.toString();
    if (this.#text.length > this.limit * 2) this.#text = this.#text.slice(-this.limit);
  }
  /** The last `count` non-empty lines. */
  lines(count = 20): string {
    return this.#text.trimEnd().split('\n').slice(-count).join('\n');
  }
}

/** Start a process in a new process group, tracked until it exits. */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  live.add(child);
  child.once('exit', () => live.delete(child));
  child.once('error', () => live.delete(child));
  return child;
}

/** Kill a child's whole process group (falling back to the child alone). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL'): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

/** Kill every tracked process group: for errors and for SIGINT/SIGTERM. */
export function killAll(signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const child of live) killGroup(child, signal);
}

/** Pids still alive among the ones benchgate started (for tests and diagnostics). */
export function livePids(): number[] {
  return [...live].map((child) => child.pid).filter((pid): pid is number => pid !== undefined);
}

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  tail: OutputTail;
  timedOut: boolean;
}

export interface CommandOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/**
 * Run a shell command from the user's own config (install, build) and collect
 * its output tail. Never rejects: the caller decides what a failure means.
 */
export function runShell(command: string, options: CommandOptions): Promise<CommandResult> {
  return new Promise((resolve) => {
    const tail = new OutputTail();
    const child = spawnTracked(command, [], { cwd: options.cwd, env: options.env ?? process.env, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (chunk: Buffer) => tail.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child);
    }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      tail.push(String(error.message));
      resolve({ code: null, signal: null, tail, timedOut });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      // A command may leave background children in its group: they go with it.
      killGroup(child);
      resolve({ code, signal, tail, timedOut });
    });
  });
}
