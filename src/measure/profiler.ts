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

/** A stretch of a profiled run that belongs to one revision, in the profile's clock (µs of the monotonic clock). */
export interface Span<L extends string = string> {
  label: L;
  startUs: number;
  endUs: number;
}

/** Now, in the profile's clock: V8 stamps its samples with the monotonic clock that process.hrtime reads, in µs. */
export const profileClockUs = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * One profile of a run that alternated revisions, split into one profile per revision: each sample goes to the
 * revision whose span holds its time, and keeps its own duration; a sample outside every span (switching from
 * one revision to the other) goes to neither. Each part is a valid .cpuprofile, its kept samples laid end to end
 * (so DevTools shows each revision's time, and nothing of the other's). Written here: no package splits profiles.
 */
export function splitProfile<L extends string>(profile: CpuProfile, spans: readonly Span<L>[]): Map<L, CpuProfile> {
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const parts = new Map<L, { samples: number[]; durations: number[] }>(spans.map((s) => [s.label, { samples: [], durations: [] }]));
  const sorted = [...spans].sort((a, b) => a.startUs - b.startUs);
  const mean = samples.length ? (profile.endTime - profile.startTime) / samples.length : 0;
  let time = profile.startTime;
  let at = 0;
  samples.forEach((id, i) => {
    time += deltas[i] ?? 0;
    while (at < sorted.length && sorted[at]!.endUs <= time) at++;
    const span = sorted[at];
    if (!span || time < span.startUs) return;
    const part = parts.get(span.label)!;
    part.samples.push(id);
    // timeDeltas[i] is the time before sample i, so sample i lasted until the next one.
    part.durations.push(Math.max(0, deltas[i + 1] ?? mean));
  });
  const split = new Map<L, CpuProfile>();
  const hitsOf = new Map<L, Map<number, number>>();
  for (const [label, part] of parts) {
    const hits = new Map<number, number>();
    for (const id of part.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
    hitsOf.set(label, hits);
  }
  for (const [label, part] of parts) {
    const hits = hitsOf.get(label)!;
    const nodes = profile.nodes.map((node) => {
      const { positionTicks, ...rest } = node;
      const mine = hits.get(node.id) ?? 0;
      const all = [...hitsOf.values()].reduce((sum, of) => sum + (of.get(node.id) ?? 0), 0);
      // Line ticks count the node's samples of the whole run: a revision's own function keeps them all; a frame
      // both revisions ran (Node's, V8's) gets its share of them.
      const ticks =
        mine === 0 || !positionTicks
          ? undefined
          : positionTicks.map((tick) => ({ ...tick, ticks: Math.round((tick.ticks * mine) / all) })).filter((tick) => tick.ticks > 0);
      return { ...rest, hitCount: mine, ...(ticks?.length ? { positionTicks: ticks } : {}) };
    });
    const total = part.durations.reduce((sum, us) => sum + us, 0);
    split.set(label, {
      nodes,
      startTime: profile.startTime,
      endTime: profile.startTime + total,
      samples: part.samples,
      // Sample j starts where sample j-1 ended.
      timeDeltas: part.durations.map((_, j) => (j === 0 ? 0 : part.durations[j - 1]!)),
    });
  }
  return split;
}
