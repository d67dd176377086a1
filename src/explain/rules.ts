/**
 * What kind of problem the server-side figures point to, in plain words: the
 * reading Clinic Doctor gives of its event-loop delay, utilisation, GC and
 * memory charts, as rules on the probe's figures (medians over rounds). Each
 * line names the figure that moved and what that usually means; the CPU
 * profile then says where.
 */
import type { ServerSummary } from '../measure/http/types.js';
import { formatShare } from '../util/format.js';

/** A figure moved when it changed by at least this factor... */
const FACTOR = 1.5;
/** ...and was past its floor (below which such changes are noise) on one side. */
const FLOORS = { eventLoopDelayP99Ms: 5, gcShare: 0.02, rssMb: 64, heapMb: 32 };
/** Utilisation and time in GC are shares: they move by points. */
const POINTS = { eventLoopUtilization: 0.1, gcShare: 0.02 };

export const MEANINGS = {
  blocked:
    'something blocks the event loop: synchronous work on the request path (CPU-heavy code such as hashing or big JSON, sync I/O, a long loop)',
  allocation: 'allocation pressure: many short-lived objects, strings or promises per request',
  busier: 'the event loop is busier for the same load: more CPU work per request',
  waiting: 'the server works less but answers slower: requests wait on I/O, timers, a queue or a lock rather than on the CPU',
  memory: 'memory grows under load: something is kept across requests (an unbounded cache, listeners or closures added per request)',
} as const;

/**
 * The figures that moved notably between base and head, each with its meaning
 * when it moved the bad way, e.g. "event-loop delay p99 2.7 ms → 48.7 ms:
 * something blocks the event loop: …". Lines for figures that improved carry no
 * meaning; utilisation means something only next to a loss of throughput
 * (`throughputChange`, relative), since a closed-loop load keeps a CPU-bound server near 100%.
 */
export function diagnose(base: ServerSummary, head: ServerSummary, throughputChange: number | undefined): string[] {
  const lines: string[] = [];
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const pct = (x: number) => formatShare(x, 0);
  const mb = (x: number) => `${x.toFixed(0)} MB`;
  const say = (figure: string, worse: boolean, meaning: string) => lines.push(worse ? `${figure}: ${meaning}` : figure);
  const factor = (a: number, b: number, floor: number) => Math.max(a, b) >= floor && (b >= a * FACTOR || a >= b * FACTOR);

  // p99 first; else p50: with the probe's 10 ms monitor in a duet, both servers' p99 holds the other's time slices on
  // the shared core, and a handler that blocks for milliseconds moves the median more (the etag fixture: p50 2.1 → 7.8 ms).
  for (const stat of ['p99', 'p50'] as const) {
    const delay = [base.eventLoopDelayMs[stat], head.eventLoopDelayMs[stat]] as const;
    if (!factor(...delay, FLOORS.eventLoopDelayP99Ms)) continue;
    say(`event-loop delay ${stat} ${ms(delay[0])} → ${ms(delay[1])}`, delay[1] > delay[0], MEANINGS.blocked);
    break;
  }

  const gc = [base.gc.share, head.gc.share] as const;
  if (Math.abs(gc[1] - gc[0]) >= POINTS.gcShare && factor(...gc, FLOORS.gcShare)) {
    say(
      `time in GC ${pct(gc[0])} → ${pct(gc[1])} of the window (${base.gc.totalMs.toFixed(0)} → ${head.gc.totalMs.toFixed(0)} ms)`,
      gc[1] > gc[0],
      MEANINGS.allocation,
    );
  }

  const elu = [base.eventLoopUtilization, head.eventLoopUtilization] as const;
  if (Math.abs(elu[1] - elu[0]) >= POINTS.eventLoopUtilization) {
    const slower = throughputChange !== undefined && throughputChange < 0;
    say(`event-loop utilisation ${pct(elu[0])} → ${pct(elu[1])}`, slower, elu[1] > elu[0] ? MEANINGS.busier : MEANINGS.waiting);
  }

  const rss = [base.peakRssMb, head.peakRssMb] as const;
  const heap = [base.peakHeapUsedMb, head.peakHeapUsedMb] as const;
  if (factor(...heap, FLOORS.heapMb)) say(`peak heap used ${mb(heap[0])} → ${mb(heap[1])}`, heap[1] > heap[0], MEANINGS.memory);
  else if (factor(...rss, FLOORS.rssMb)) say(`peak RSS ${mb(rss[0])} → ${mb(rss[1])}`, rss[1] > rss[0], MEANINGS.memory);
  return lines;
}
