import { execFileSync } from 'node:child_process';
import { childEnvironment } from '../../util/processes.js';
import os from 'node:os';

/**
 * CPU placement for HTTP load tests: the server on the last core, benchgate
 * (the load generator, autocannon in this process) on the others, so the two
 * do not take turns on one core. Needs taskset (util-linux) and 2+ cores.
 */
export interface Pinning {
  /** The command prefix that starts a server on its core, e.g. "taskset -c 1 ". */
  serverPrefix: string;
  /** Undo the pinning of this process. */
  release(): void;
}

export function pinLoadGenerator(log: (line: string) => void): Pinning | undefined {
  const cores = os.availableParallelism();
  if (cores < 2) {
    log('CPU pinning skipped: it needs at least 2 cores');
    return undefined;
  }
  const all = `0-${cores - 1}`;
  const server = String(cores - 1);
  const load = cores === 2 ? '0' : `0-${cores - 2}`;
  try {
    execFileSync('taskset', ['-a', '-p', '-c', load, String(process.pid)], { stdio: 'ignore', env: childEnvironment() });
  } catch {
    log('CPU pinning skipped: taskset is not available (install util-linux) or not permitted');
    return undefined;
  }
  return {
    serverPrefix: `taskset -c ${server} `,
    release: () => {
      try {
        execFileSync('taskset', ['-a', '-p', '-c', all, String(process.pid)], { stdio: 'ignore', env: childEnvironment() });
      } catch {
        // the process ends soon anyway
      }
    },
  };
}
