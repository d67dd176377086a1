import { spawn, spawnSync } from 'node:child_process';
import { childEnvironment } from '../../util/processes.js';

/**
 * User-mode instructions a server executes, from the hardware counters, through Linux's `perf`
 * (perf_event_open; Node has no binding of its own, and a native addon for one syscall is not worth
 * a build step). Instructions do not move with the virtual CPU's speed as time on a CPU does, but
 * few machines expose the counters to a guest: GitHub's x64 hosted runners and this project's VM do
 * not (perf answers `<not supported>`), some ARM runners do. So it is probed once at start, and
 * counted around each load block only where the probe counted something; reported, not gated.
 */
export interface InstructionCounter {
  /**
   * Start counting the process's user-mode instructions; `stop` (once, however often called) ends it and
   * resolves to the count (undefined when perf gave none).
   */
  start(pid: number): { stop(): Promise<number | undefined> };
}

/** perf stat's CSV line for one event ("123456,,instructions:u,1000,100.00,,"): the count, or undefined ("<not supported>", "<not counted>"). */
export function parsePerfCount(text: string): number | undefined {
  for (const line of text.split('\n')) {
    const [count, , event] = line.split(',');
    if (event?.startsWith('instructions') && count && /^\d+$/.test(count.trim())) return Number(count.trim());
  }
  return undefined;
}

/**
 * Whether `perf` counts user-mode instructions here: a counter when it does, else why not (said in the log).
 * `perf` is the command to run (tests pass a fake).
 */
export function probeInstructions(perf = 'perf'): InstructionCounter | string {
  // perf stat writes its counts to stderr.
  const probe = spawnSync(perf, ['stat', '-x,', '-e', 'instructions:u', '--', process.execPath, '-e', '0'], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 10_000,
    env: childEnvironment(),
  });
  if ((probe.error as { code?: string } | undefined)?.code === 'ENOENT') return 'perf is not installed';
  if (parsePerfCount(probe.stderr ?? '') !== undefined) return counter(perf);
  return /<not supported>|<not counted>/.test(probe.stderr ?? '')
    ? 'no hardware instruction counter on this machine (perf: <not supported>)'
    : 'perf could not count (perf_event_open refused)';
}

function counter(perf: string): InstructionCounter {
  return {
    start(pid) {
      const child = spawn(perf, ['stat', '-x,', '-e', 'instructions:u', '-p', String(pid)], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: childEnvironment(),
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<void>((resolve) => {
        child.on('close', () => resolve());
        child.on('error', () => resolve());
      });
      let stopped: Promise<number | undefined> | undefined;
      return {
        // Once: a second call (a load that failed, in measuredBlock's finally) gets the first one's count.
        stop: () =>
          (stopped ??= (async () => {
            child.kill('SIGINT');
            // perf prints its count as it exits on SIGINT; one that does not exit in 2 s is killed and counts nothing.
            const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
            await exited;
            clearTimeout(timer);
            return parsePerfCount(stderr);
          })()),
      };
    },
  };
}
