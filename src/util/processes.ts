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

/**
 * What no child of benchgate may see. Every child runs code we do not trust: the pull request's
 * install scripts, bench files and server, and git (whose hooks and config are the repository's).
 * A deny-list, not an allow-list: installs need the user's PATH, HOME, proxies, npm_config_* and
 * NODE_OPTIONS, which an allow-list would have to guess. Denied:
 * - INPUT_*: the action's inputs, github-token among them;
 * - ACTIONS_*: the runner's own credentials (ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN/URL,
 *   the cache and results URLs that go with them);
 * - GITHUB_ENV, GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STATE, GITHUB_STEP_SUMMARY: files that set later
 *   steps' environment, outputs and summary; a child writing there would steer the rest of the job;
 * - any name with a secret's word as one of its parts: TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL(S),
 *   PRIVATE_KEY, API_KEY / APIKEY, AUTH (GITHUB_TOKEN, GH_TOKEN, NPM_TOKEN, NODE_AUTH_TOKEN, AWS_SECRET_ACCESS_KEY...).
 */
const DENIED_PREFIXES = ['INPUT_', 'ACTIONS_'];
const DENIED_NAMES = new Set(['GITHUB_ENV', 'GITHUB_OUTPUT', 'GITHUB_PATH', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY']);
const SECRET_WORD = /(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|PRIVATE_?KEY|API_?KEY|AUTH)(?:_|$)/i;

/** Whether a variable of this name is kept from every child (see DENIED_PREFIXES). */
export function isDeniedVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return DENIED_PREFIXES.some((prefix) => upper.startsWith(prefix)) || DENIED_NAMES.has(upper) || SECRET_WORD.test(upper);
}

/** The environment a child gets: `env` without anything `isDeniedVariable` names. */
export function childEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isDeniedVariable(name)));
}

/** Start a process in a new process group, tracked until it exits. Its environment never holds a secret (childEnvironment). */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, { ...options, env: childEnvironment(options.env ?? process.env), detached: true });
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
    const child = spawnTracked(command, [], { cwd: options.cwd, env: options.env, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
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
