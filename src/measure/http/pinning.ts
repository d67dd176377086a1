import { setAffinity } from '../../util/affinity.js';
import os from 'node:os';

/**
 * CPU placement for HTTP load tests: benchgate (the load generator, autocannon and undici in this process) on
 * some cores, the servers on the others, so the two do not take turns on one core. Base's and head's servers
 * share their cores rather than get one each: a core of their own each would measure them on different cores,
 * whose speeds differ on a shared host by a bias the same in every pair (random order cannot undo it).
 * - `duet`: both servers on the last core, always one, loaded at the same time: the kernel splits that core
 *   between them every few milliseconds, so both run at the same speed at every moment (the point of a duet);
 *   on 4+ cores the load generator still gets only the others, never the servers' core.
 * - `live`, `fresh` (loaded in turn): the last core, the last two from 4 cores on, so a server's GC and libuv
 *   threads do not queue behind its main thread.
 * Needs taskset (util-linux) and 2+ cores.
 */
export interface Pinning {
  /** The command prefix that starts a server on its cores, e.g. "taskset -c 1 ". */
  serverPrefix: string;
  /** How the CPUs were split, for the run line: "servers on CPU 1, load generator on CPU 0". */
  split: string;
  /** `duet`: the one CPU both servers share. */
  sharedCpu?: number;
  /** Undo the pinning of this process. */
  release(): void;
}

export function pinLoadGenerator(log: (line: string) => void, duet = false): Pinning | undefined {
  const cores = os.availableParallelism();
  if (cores < 2) {
    log('CPU pinning skipped: it needs at least 2 cores');
    return undefined;
  }
  const all = `0-${cores - 1}`;
  const { server, load } = splitCpus(cores, duet);
  if (!setAffinity(load)) {
    log('CPU pinning skipped: taskset is not available (install util-linux) or not permitted');
    return undefined;
  }
  const cpus = (list: string) => `CPU${list.includes('-') ? 's' : ''} ${list}`;
  return {
    serverPrefix: `taskset -c ${server} `,
    split: `servers on ${cpus(server)} (base and head ${duet ? 'at once, sharing it' : 'in turn'}), load generator on ${cpus(load)}`,
    ...(duet ? { sharedCpu: cores - 1 } : {}),
    // Not permitted any more: the process ends soon anyway.
    release: () => void setAffinity(all),
  };
}

/** The servers' cores and the load generator's, as taskset lists, for a machine of `cores` cores (2 or more); one shared core in a duet. */
export function splitCpus(cores: number, duet = false): { server: string; load: string } {
  const range = (from: number, to: number) => (from === to ? String(from) : `${from}-${to}`);
  const serverCores = cores >= 4 && !duet ? 2 : 1;
  return { server: range(cores - serverCores, cores - 1), load: range(0, cores - serverCores - 1) };
}
