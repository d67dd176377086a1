import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * What a server's threads have used of the CPU so far, read from the outside: Linux keeps, per thread,
 * `/proc/<pid>/task/<tid>/schedstat` = "<ns on a CPU> <ns waiting in the run queue> <timeslices>".
 * Nanoseconds, per thread, and reading it costs the server nothing (no probe command, no timer in it),
 * which is why benchgate reads it rather than asking the probe for process.cpuUsage() (microseconds,
 * the whole process only) or process.threadCpuUsage() (Node 23.9 and later only). Written by hand:
 * no package reads schedstat.
 */
export interface CpuReading {
  /** The main thread (tid = pid, where a Node server's JavaScript runs): ns on a CPU. */
  mainNs: number;
  /** Every thread of the process (GC helpers, the libuv pool, the compiler threads): ns on a CPU. */
  processNs: number;
  /** The main thread's ns waiting for a CPU while runnable: the machine's contention, not the server's work. */
  mainWaitNs: number;
}

/** A difference of two readings (what the threads used in between). */
export function cpuBetween(start: CpuReading, end: CpuReading): CpuReading {
  return {
    mainNs: end.mainNs - start.mainNs,
    processNs: end.processNs - start.processNs,
    mainWaitNs: end.mainWaitNs - start.mainWaitNs,
  };
}

/** Parse one schedstat line; undefined for anything else. */
export function parseSchedstat(text: string): { runNs: number; waitNs: number } | undefined {
  const match = /^(\d+) (\d+) \d+\s*$/.exec(text);
  if (!match) return undefined;
  return { runNs: Number(match[1]), waitNs: Number(match[2]) };
}

/**
 * The process's CPU so far; undefined where it cannot be read (not Linux, a kernel without schedstats,
 * the process gone). `proc` is /proc, or a folder laid out like it in tests.
 */
export function readCpu(pid: number, proc = '/proc'): CpuReading | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const tasks = path.join(proc, String(pid), 'task');
  const read = (tid: string) => {
    try {
      return parseSchedstat(readFileSync(path.join(tasks, tid, 'schedstat'), 'utf8'));
    } catch {
      return undefined; // a thread that ended between the listing and the read
    }
  };
  const main = read(String(pid));
  if (!main) return undefined;
  let tids: string[];
  try {
    tids = readdirSync(tasks);
  } catch {
    return undefined;
  }
  let processNs = 0;
  for (const tid of tids) processNs += tid === String(pid) ? main.runNs : (read(tid)?.runNs ?? 0);
  return { mainNs: main.runNs, processNs, mainWaitNs: main.waitNs };
}

/** Whether this machine shows threads' CPU (Linux with schedstats): a load test's requests per CPU-second can be a figure of the run. */
export function cpuReadable(proc = '/proc'): boolean {
  return readCpu(process.pid, proc) !== undefined;
}
