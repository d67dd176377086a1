import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

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
 * What a child of benchgate may see: an allow-list. Every child runs code we do not trust (the pull
 * request's install scripts, bench files and server, and git, whose hooks and config are the
 * repository's), and on a runner benchgate's own environment holds more than secrets: the job files
 * (GITHUB_ENV, GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STATE, GITHUB_STEP_SUMMARY) steer every later step,
 * and a step's `env:` can hold any credential under any name (PGPASSWORD, DATABASE_URL, DEPLOY_KEY...).
 * A deny-list has to guess every such name; an allow-list only has to know what a build, a server and a
 * bench need:
 * - the basics: PATH, HOME, USER, LOGNAME, SHELL, TERM and colour switches, locale (LANG, LANGUAGE, LC_*),
 *   TZ, temp folders, CI, XDG folders, proxies, libuv's UV_THREADPOOL_SIZE;
 * - Node's and npm's own settings: NODE_* and npm_* / NPM_* (npm_config_*, npm_lifecycle_*; COREPACK_*, PNPM_*, YARN_*
 *   likewise), never one that names a credential (NODE_AUTH_TOKEN, npm_config__authToken, //host/:_auth...);
 * - the run's public context: GITHUB_* names that say what is being built (repository, sha, ref, run id,
 *   workspace, server and API URLs) and RUNNER_* (os, arch, temp, tool cache); never the job files,
 *   the token, or the event payload's path;
 * - benchgate's own BENCHGATE_* (the probe's socket), set by benchgate itself;
 * - the names the user lists (`env:` in benchgate.yml, the action's `env` input), see allowChildVariables.
 */
const BASICS = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'FORCE_COLOR',
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
  'CI',
  'XDG_CACHE_HOME',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_RUNTIME_DIR',
  // Set by a shell or by npm for the commands they run.
  'PWD',
  'OLDPWD',
  'SHLVL',
  '_',
  'INIT_CWD',
  // Set by benchgate for a server: where to listen.
  'PORT',
  'HOST',
  // libuv's thread pool: the user's own, or one thread in a counted process (measure/counts/callgrind.ts COUNTED_ENV).
  'UV_THREADPOOL_SIZE',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
]);
const CONTEXT = new Set([
  'GITHUB_ACTIONS',
  'GITHUB_ACTION',
  'GITHUB_ACTOR',
  'GITHUB_REPOSITORY',
  'GITHUB_REPOSITORY_OWNER',
  'GITHUB_SHA',
  'GITHUB_REF',
  'GITHUB_REF_NAME',
  'GITHUB_REF_TYPE',
  'GITHUB_HEAD_REF',
  'GITHUB_BASE_REF',
  'GITHUB_EVENT_NAME',
  'GITHUB_RUN_ID',
  'GITHUB_RUN_NUMBER',
  'GITHUB_RUN_ATTEMPT',
  'GITHUB_JOB',
  'GITHUB_WORKFLOW',
  'GITHUB_WORKSPACE',
  'GITHUB_SERVER_URL',
  'GITHUB_API_URL',
  'GITHUB_GRAPHQL_URL',
]);
const TOOL_PREFIXES = ['LC_', 'NODE_', 'NPM_', 'COREPACK_', 'PNPM_', 'YARN_', 'RUNNER_', 'BENCHGATE_'];
/** The job files: whoever writes them steers the rest of the job. Never passed, whoever lists them. */
export const JOB_FILES = new Set(['GITHUB_ENV', 'GITHUB_OUTPUT', 'GITHUB_PATH', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY']);
/** A name with a credential's word as one of its parts (or npm's //host/:_authToken form). */
const SECRET_WORD =
  /PASSWORD|PASSWD|SECRET|TOKEN|CREDENTIAL|PRIVATE_?KEY|API_?KEY|(?:^|[_:/])_*(?:KEY|PAT|PASS|AUTH|CERT|DSN|URL|URI)(?:_|$)/i;

/** Whether a variable's name says it holds a credential (NODE_AUTH_TOKEN, PGPASSWORD's kin, DATABASE_URL, DEPLOY_KEY, GH_PAT...). */
export function looksLikeCredential(name: string): boolean {
  return SECRET_WORD.test(name) || name.includes('//');
}

/** Names the user allowed on top (their own list), kept apart from what the pull request may ask for. */
let extraNames: { trusted: ReadonlySet<string>; fromConfig: ReadonlySet<string> } = { trusted: new Set(), fromConfig: new Set() };

/**
 * Let children see more variables, by exact name. `trusted` comes from the workflow (the action's `env`
 * input): any name but the job files and the action's own INPUT_* and ACTIONS_*. `fromConfig` comes from
 * benchgate.yml, which a pull request can edit: only names that do not look like a credential.
 */
export function allowChildVariables(names: { trusted?: readonly string[]; fromConfig?: readonly string[] }): void {
  extraNames = { trusted: new Set(names.trusted ?? []), fromConfig: new Set(names.fromConfig ?? []) };
}

/** The job files, the action's inputs (its token) and the runner's credentials: never passed, whoever lists them. */
export function neverPassed(name: string): boolean {
  const upper = name.toUpperCase();
  return JOB_FILES.has(upper) || upper.startsWith('INPUT_') || upper.startsWith('ACTIONS_') || upper === 'GITHUB_TOKEN';
}

/** Whether a child may see a variable of this name. */
export function isChildVariable(name: string): boolean {
  if (neverPassed(name)) return false;
  if (extraNames.trusted.has(name)) return true;
  const secretLooking = looksLikeCredential(name);
  if (extraNames.fromConfig.has(name)) return !secretLooking;
  if (BASICS.has(name) || CONTEXT.has(name)) return true;
  const upper = name.toUpperCase();
  return TOOL_PREFIXES.some((prefix) => upper.startsWith(prefix)) && !secretLooking;
}

/** Whether a child may NOT see it (the complement of isChildVariable, for checks that list what was kept out). */
export function isDeniedVariable(name: string): boolean {
  return !isChildVariable(name);
}

/** The environment a child gets: `env` with only the variables isChildVariable allows. */
export function childEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => isChildVariable(name)));
}

/** Start a process in a new process group, tracked until it exits. Its environment never holds a secret (childEnvironment). */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const env = { ...childEnvironment(options.env ?? process.env), [RUN_MARK]: runMark };
  const child = spawn(command, args, { ...options, env, detached: true });
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
  killStrays(signal);
}

/**
 * Every child carries this run's mark in its environment, and so does whatever it starts. A process the
 * pull request's code detached from its group (setsid, a daemon started by an install script or a
 * server) escapes killGroup; at the end of a run (killStrays) it is found by that mark and killed.
 */
const RUN_MARK = 'BENCHGATE_RUN';
const runMark = `${process.pid}-${randomBytes(8).toString('hex')}`;

/**
 * Kill the processes, other than this one, whose environment carries this run's mark: those that left
 * their process group. Linux only (/proc/PID/environ, readable for the processes of the same user).
 * Only once the run's own children are done: they carry the mark too. Returns the pids it killed.
 * Written by hand: no package finds processes by their environment.
 */
export function killStrays(signal: NodeJS.Signals = 'SIGKILL'): number[] {
  if (process.platform !== 'linux') return [];
  const needle = Buffer.from(`\0${RUN_MARK}=${runMark}\0`);
  const killed: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const environ = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${pid}/environ`)]);
      if (!environ.includes(needle)) continue;
      process.kill(pid, signal);
      killed.push(pid);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return killed;
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

/** A child's output tail and its time bound: past timeoutMs it is killed with its process group. */
export interface ChildWatch {
  tail: OutputTail;
  /** Whether the bound killed it. */
  readonly timedOut: boolean;
  /** The child ended: the bound no longer applies. */
  stop(): void;
}

/** Collect a child's stdout and stderr into a tail, and kill its process group if it outlives timeoutMs. */
export function watchChild(child: ChildProcess, timeoutMs: number): ChildWatch {
  const tail = new OutputTail();
  child.stdout?.on('data', (chunk: Buffer) => tail.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, timeoutMs);
  return {
    tail,
    get timedOut() {
      return timedOut;
    },
    stop: () => clearTimeout(timer),
  };
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
    const child = spawnTracked(command, [], { cwd: options.cwd, env: options.env, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const watch = watchChild(child, options.timeoutMs);
    const { tail } = watch;
    child.once('error', (error) => {
      watch.stop();
      tail.push(String(error.message));
      resolve({ code: null, signal: null, tail, timedOut: watch.timedOut });
    });
    child.once('close', (code, signal) => {
      watch.stop();
      // A command may leave background children in its group: they go with it.
      killGroup(child);
      resolve({ code, signal, tail, timedOut: watch.timedOut });
    });
  });
}
