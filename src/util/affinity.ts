import { execFileSync } from 'node:child_process';
import { childEnvironment } from './processes.js';

/**
 * CPU affinity through taskset (util-linux), for every thread of a process (-a): the HTTP load generator's
 * and servers' cores (measure/http/pinning.ts), the benchmark process while it measures isolates
 * (measure/micro/isolates.ts). Node has no API for it.
 */

/** Put every thread of `pid` on `cpus`, a taskset list ("1", "0-3", "0,2"); false where taskset is missing or not permitted. */
export function setAffinity(cpus: string, pid = process.pid): boolean {
  return taskset(['-a', '-p', '-c', cpus, String(pid)]) !== undefined;
}

/** The CPUs `pid` may run on, as a taskset list ("0-3"); undefined where taskset is missing or not permitted. */
export function affinityOf(pid = process.pid): string | undefined {
  return (
    taskset(['-c', '-p', String(pid)])
      ?.split(':')
      .pop()
      ?.trim() || undefined
  );
}

function taskset(args: string[]): string | undefined {
  try {
    return execFileSync('taskset', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env: childEnvironment() });
  } catch {
    return undefined;
  }
}
