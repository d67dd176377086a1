/**
 * The V8 CPU profiler of the current process, through the inspector protocol
 * (the same profile `node --cpu-prof` writes, but for a window we choose:
 * `--cpu-prof` only writes at a clean exit and covers the whole process).
 * Used by the benchmark process and by the server-side probe.
 */
import { Session } from 'node:inspector';

/** A V8 CPU profile, as Chrome DevTools and speedscope open it (`.cpuprofile`). */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number; scriptId?: string };
    hitCount?: number;
    children?: number[];
    /** Samples by 1-based source line within the function. */
    positionTicks?: { line: number; ticks: number }[];
  }[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface RunningProfiler {
  stop(): Promise<CpuProfile>;
}

function post<T>(session: Session, method: string, params?: object): Promise<T> {
  return new Promise((resolve, reject) => {
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T)));
  });
}

/** Start sampling every `intervalUs` microseconds; stop() returns the profile and disconnects. */
export async function startProfiler(intervalUs: number): Promise<RunningProfiler> {
  const session = new Session();
  session.connect();
  await post(session, 'Profiler.enable');
  await post(session, 'Profiler.setSamplingInterval', { interval: intervalUs });
  await post(session, 'Profiler.start');
  return {
    async stop() {
      try {
        const { profile } = await post<{ profile: CpuProfile }>(session, 'Profiler.stop');
        return profile;
      } finally {
        session.disconnect();
      }
    },
  };
}
