/**
 * Valgrind's callgrind, the CPU simulator counts mode runs each benchmark process under: where to find it, and the
 * command that starts node in it with its counters dumped at the marker (task.ts) and V8 made reproducible.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CountedFigure } from '../../config/types.js';
import { UserError } from '../../util/errors.js';

/** The line that installs it, on Debian and Ubuntu (GitHub's runners too). */
export const INSTALL_LINE = 'sudo apt-get install -y valgrind';

/** valgrind's path and version, or a UserError that says how to install it. */
export function findCallgrind(valgrind = 'valgrind'): { path: string; version: string } {
  try {
    const version = execFileSync(valgrind, ['--version'], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return { path: valgrind, version };
  } catch {
    throw new UserError(
      `measure: counts runs each benchmark process under Valgrind's callgrind, and '${valgrind}' is not found here: ` +
        `install it (${INSTALL_LINE}), or measure time (measure: time, --measure time).`,
    );
  }
}

/**
 * The environment a counted process runs in, over its own: libuv's thread pool of one thread. Node reads the files of
 * an ES module graph on the pool, and with four threads the reads finish in an order the machine picks; the order
 * places V8's maps and strings, and V8's lookup caches are keyed by those addresses, so the same code under the same
 * seed read 62.70M, 63.27M or 63.38M instructions for 4,000 calls of one task (10 processes, 3 levels, 1.1% apart).
 * With one thread the reads finish in the order asked: 10 processes within 0.003%. The count sums every thread's
 * instructions, so one thread does the same work. Module hooks off the main thread (module.register) move the layout
 * the same way: a counted process runs them in its thread where Node can (module.registerHooks, Node 22.15 and later;
 * capture-setup.ts), and on Node 20 they stay off it (docs/counts.md).
 */
export const COUNTED_ENV = { UV_THREADPOOL_SIZE: '1' } as const;

/**
 * What starts valgrind with the kernel's address-space randomization off for it (util-linux's `setarch <machine> -R`,
 * personality ADDR_NO_RANDOMIZE; it execs valgrind, so the pid is valgrind's): where the kernel puts valgrind moves
 * where node's memory lies, and code whose cost depends on addresses (hash tables keyed by them, caches that collide
 * or not) reads another count. A plain node process under callgrind, one task of the suite, the same seed and flags:
 * 5,160 or 5,138 instructions a call from run to run (two levels, 0.4%); under setarch -R, 4 runs of 4 identical to the
 * instruction. Where setarch is missing or refused (a container whose seccomp profile forbids that personality), the
 * log says so once, and valgrind starts as it is: counts then repeat less closely from run to run (docs/counts.md).
 */
export function unrandomized(log?: (line: string) => void): string[] {
  if (setarch === undefined) {
    const machine = os.machine();
    const tried = spawnSync('setarch', [machine, '-R', 'true'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000, encoding: 'utf8' });
    setarch =
      tried.status === 0
        ? { prefix: ['setarch', machine, '-R'] }
        : { prefix: [], refused: (tried.stderr?.trim() || tried.error?.message || `exit ${tried.status}`).slice(0, 300) };
  }
  if (setarch.refused !== undefined && !setarchTold && log) {
    setarchTold = true;
    log(
      `callgrind: the kernel's address randomization stays on (setarch ${os.machine()} -R: ${setarch.refused}): counts may differ ` +
        'by a fraction of a percent from run to run; the pairs of a run share their seeds, so verdicts still compare like with like',
    );
  }
  return setarch.prefix;
}

/** valgrind with `args`, started through unrandomized's prefix where it works: the file to spawn and its arguments. */
export function unrandomizedCommand(valgrind: string, args: string[], log?: (line: string) => void): { file: string; args: string[] } {
  const [file, ...before] = [...unrandomized(log), valgrind];
  return { file, args: [...before, ...args] };
}

let setarch: { prefix: string[]; refused?: string } | undefined;
let setarchTold = false;

/**
 * valgrind's arguments before the runner's path: callgrind, dumping at each `os.getPriority()` (its libuv call is
 * the marker) to `<dumpPrefix>.<n>`, node with V8's predictable mode (no concurrent compiler or collector threads:
 * the same work in the same order every run) under the seed's hash and random seeds. Full tiering: the optimizing
 * compilers stay on, as users run.
 * - `names`: V8 writes its perf map (`/tmp/perf-<pid>.map`), which names the code it compiled in a profile. Every
 *   micro-benchmark process runs with it, counted or profiled alike: the map's code log changes what V8 allocates,
 *   and a profile repeats its seed's process to the instruction only when both ran with it (without it in the counted
 *   ones, 2 of fast-uri's 8 tasks were profiled with a marking the count did not hold, 50-60% more instructions).
 * - `functions`: every dump names its functions in full (`--compress-strings=no`), so each is read on its own.
 * - `late`: callgrind starts with its instrumentation off (`--instr-atstart=no`), so node's start and the bench files'
 *   loading run about 3x faster (node alone: 10.4 s → 3.4 s here); benchgate turns it on through `instrumentOn` once
 *   the files are loaded, before the first marker. Nothing is read before that marker, and the runner waits for it
 *   the same way whether started late or not (runCounted), so both read the same counts.
 */
export function callgrindArgs(
  dumpPrefix: string,
  seed: number,
  node = process.execPath,
  figure: CountedFigure = 'instructions',
  { names = false, functions = false, late = false }: { names?: boolean; functions?: boolean; late?: boolean } = {},
): string[] {
  return [
    '--tool=callgrind',
    '--quiet',
    // Cycles are estimated from the cache model's misses (task.ts readDump); it costs about 1.4x the time.
    ...(figure === 'cycles' ? ['--cache-sim=yes'] : []),
    `--callgrind-out-file=${dumpPrefix}`,
    '--dump-before=uv_os_getpriority',
    '--dump-instr=no',
    '--dump-line=no',
    ...(late ? ['--instr-atstart=no'] : []),
    // vgdb finds the process by the FIFOs valgrind makes at this prefix: beside the dumps (whatever TMPDIR the process
    // has), removed with them even where the process was killed.
    `--vgdb-prefix=${vgdbPrefix(dumpPrefix)}`,
    ...(functions ? ['--compress-strings=no'] : []),
    node,
    '--predictable',
    '--predictable-gc-schedule',
    `--hash-seed=${seed}`,
    `--random-seed=${seed}`,
    // The code log the perf map turns on goes beside the dumps, not into the project's folder.
    ...(names ? ['--perf-basic-prof', '--no-logfile-per-isolate', `--logfile=${dumpPrefix}.v8.log`] : []),
  ];
}

/**
 * Turn callgrind's instrumentation on in a process started `late` (callgrindArgs), through valgrind's own `vgdb`
 * (installed beside it; valgrind allows it to attach, even where the process waits in a system call): undefined once
 * it is on, or why not. vgdb answers within a second; where it cannot attach (no ptrace here) it retries until its
 * time is up, so a failure is remembered for this valgrind: every later process starts instrumented (lateOrFromStart).
 */
export function instrumentOn(valgrind: string, pid: number, dumpPrefix: string): Promise<string | undefined> {
  const vgdb = valgrind.includes('/') ? path.resolve(path.dirname(valgrind), 'vgdb') : 'vgdb';
  const env = { ...withoutNames(process.env), ...namesOf(pid) };
  const started = Date.now();
  return new Promise((resolve) =>
    execFile(
      vgdb,
      [`--vgdb-prefix=${vgdbPrefix(dumpPrefix)}`, `--pid=${pid}`, 'instrumentation', 'on'],
      { timeout: VGDB_TIMEOUT_MS, encoding: 'utf8', env },
      (error, _stdout, stderr) => {
        // vgdb may exit 0 when its time is up mid-reply: a run that long is a failure too.
        const problem =
          error || Date.now() - started >= VGDB_TIMEOUT_MS
            ? `${vgdb} could not turn callgrind's instrumentation on in pid ${pid}: ` +
              `${(stderr || error?.message || `no answer within ${VGDB_TIMEOUT_MS / 1000}s`).trim().slice(0, 500)}`
            : undefined;
        // Remembered at once: a process another worker starts meanwhile starts instrumented (lateOrFromStart).
        if (problem) refused.add(valgrind);
        resolve(problem);
      },
    ),
  );
}

const VGDB_TIMEOUT_MS = 15_000;
/** The valgrinds whose vgdb could not turn instrumentation on in this run. */
const refused = new Set<string>();
/** Whether processes under this valgrind start late: not once its vgdb failed in this run. */
const startsLate = (valgrind: string) => !refused.has(valgrind);
/** The valgrinds whose refusal the log has told. */
const told = new Set<string>();

/** Callgrind's instrumentation could not be turned on in a process started late: why (instrumentOn's answer). */
export class NotInstrumented extends Error {}

/**
 * One counted process (a benchmark process or a server): `attempt(true)` starts it with callgrind's instrumentation off
 * (callgrindArgs' `late`) and turns it on through instrumentOn; where that failed (it throws NotInstrumented), it is
 * started again instrumented from its start, `attempt(false)` (the same counts, slower), and so is every later process
 * under this valgrind in this run (startsLate), said once in the log.
 */
export async function lateOrFromStart<T>(
  valgrind: string,
  attempt: (late: boolean) => Promise<T>,
  log: ((line: string) => void) | undefined,
  what: string,
): Promise<T> {
  if (!startsLate(valgrind)) return attempt(false);
  try {
    return await attempt(true);
  } catch (error) {
    if (!(error instanceof NotInstrumented)) throw error;
    refused.add(valgrind);
    // Said once: processes started late side by side may all have been refused.
    if (!told.has(valgrind)) log?.(`callgrind: ${error.message}; every ${what} from now on runs instrumented from its start (slower)`);
    told.add(valgrind);
    return attempt(false);
  }
}

const vgdbPrefix = (dumpPrefix: string) => `${dumpPrefix}.vgdb`;

/**
 * valgrind names its FIFOs after the user and host in the process's environment (LOGNAME or USER, HOST or HOSTNAME;
 * a server runs with HOST=127.0.0.1), and vgdb looks for the names in its own: it is given the process's.
 */
const NAMES = ['LOGNAME', 'USER', 'HOST', 'HOSTNAME'];
const withoutNames = (env: NodeJS.ProcessEnv) => Object.fromEntries(Object.entries(env).filter(([name]) => !NAMES.includes(name)));
function namesOf(pid: number): Record<string, string> {
  try {
    const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    return Object.fromEntries(
      entries.flatMap((entry) => {
        const at = entry.indexOf('=');
        return at > 0 && NAMES.includes(entry.slice(0, at)) ? [[entry.slice(0, at), entry.slice(at + 1)]] : [];
      }),
    );
  } catch {
    return {};
  }
}

/** Where V8 writes a process's perf map (its fixed place; `names` above): the process reads it, then removes it. */
export const perfMapOf = (pid: number) => `/tmp/perf-${pid}.map`;

/**
 * The action's installer, on a runner without valgrind: `sudo -n apt-get install -y valgrind` (GitHub's Ubuntu runners
 * have password-less sudo), bounded in time; false where it could not (the caller then says how to install it).
 */
export function installValgrind(log: (line: string) => void): boolean {
  log(`counts: valgrind is not installed here: ${INSTALL_LINE}`);
  const run = (args: string[]) =>
    spawnSync('sudo', ['-n', ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 5 * 60_000,
      encoding: 'utf8',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  const installed = run(['apt-get', 'install', '-y', '--no-install-recommends', 'valgrind']);
  if (installed.status === 0) return true;
  // A runner image whose package lists are stale: update them once and try again.
  const updated = run(['apt-get', 'update']);
  return updated.status === 0 && run(['apt-get', 'install', '-y', '--no-install-recommends', 'valgrind']).status === 0;
}
