/**
 * The server-side probe (bundled as dist/probe.cjs and preloaded into the
 * user's server with NODE_OPTIONS=--require). It records, only while a window is
 * open, what Clinic Doctor reads: event-loop delay, event-loop utilisation, GC
 * pauses by kind, peak RSS and heap. benchgate drives it over a unix socket
 * (BENCHGATE_PROBE_SOCKET) with one-line commands: hello, start, pause, resume, stop,
 * `profile-start <interval µs>` / `profile-stop <file>` around a window under the V8 CPU profiler, and
 * `mark [young]`, the marker of a server counted under callgrind.
 * Everything it opens is unref'd: it never keeps a server alive or changes its exit.
 */
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';
import { startProfiler, type RunningProfiler } from '../profiler.js';
import {
  constants,
  monitorEventLoopDelay,
  performance,
  PerformanceObserver,
  type EventLoopUtilization,
  type IntervalHistogram,
  type PerformanceEntry,
} from 'node:perf_hooks';
import type { ProbeFigures } from './types.js';

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

/**
 * The event-loop delay monitor's timer, ms: Node's default. At 1 ms its thousand wakeups a second are CPU a server
 * spends on the probe, not on requests, on a core it shares: measured on hapi (docs/evaluation.md), a 1 ms monitor
 * read a change of +19.0% where none reads +23.5%, and added 2 points of spread between pairs of servers. The cost:
 * a loop blocked for less than the interval is seen less often (one sample each 10 ms).
 */
const EVENT_LOOP_RESOLUTION_MS = 10;

/** How often the probe looks whether benchgate is still there. */
const PARENT_CHECK_MS = 500;

/**
 * benchgate stops its servers when it ends, or on a signal it can trap. SIGKILL it cannot: then the
 * probe, which lives in the server, ends the server once benchgate's process is gone.
 */
function exitWithParent(pid: number, everyMs = PARENT_CHECK_MS): NodeJS.Timeout | undefined {
  if (!Number.isSafeInteger(pid) || pid <= 1) return undefined;
  return setInterval(() => {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') process.exit(1);
    }
  }, everyMs).unref();
}

/**
 * How often the probe looks for benchgate once a server is counted: the check runs by the wall clock, which the
 * simulator slows down, so each of its runs is instructions a block holds or not by chance; rarer, they move it less.
 */
const PARENT_CHECK_COUNTED_MS = 10_000;

function install(socketPath: string): void {
  const parentPid = Number(process.env.BENCHGATE_PARENT_PID);
  let parentCheck = exitWithParent(parentPid);
  let counted = false;
  // Children of the server (workers, npm scripts) must not load the probe or answer on its socket.
  delete process.env.BENCHGATE_PROBE_SOCKET;
  delete process.env.BENCHGATE_PARENT_PID;
  if (process.env.NODE_OPTIONS)
    process.env.NODE_OPTIONS = process.env.NODE_OPTIONS.replace(/--require[= ]("[^"]*probe\.cjs"|\S*probe\.cjs)/, '').trim();

  // A fresh monitor per active segment, merged into one histogram: re-enabling a paused monitor would
  // record the whole pause as one event-loop delay.
  let segments: IntervalHistogram[] = [];
  let segment: IntervalHistogram | undefined;
  let active = false;
  let windowMs = 0;
  let openedAt = 0;
  let elu: EventLoopUtilization | undefined;
  let busy = { idle: 0, active: 0 };
  let gc: ProbeFigures['gc'] = { count: 0, totalMs: 0, byKind: {} };
  let peakRss = 0;
  let peakHeap = 0;
  let sampler: NodeJS.Timeout | undefined;

  const sampleMemory = () => {
    const memory = process.memoryUsage();
    peakRss = Math.max(peakRss, memory.rss);
    peakHeap = Math.max(peakHeap, memory.heapUsed);
  };
  const recordGc = (entries: PerformanceEntry[]) => {
    if (!active) return;
    for (const entry of entries) {
      const kind = GC_KINDS[(entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'other';
      gc.count++;
      gc.totalMs += entry.duration;
      const slot = (gc.byKind[kind] ??= { count: 0, totalMs: 0 });
      slot.count++;
      slot.totalMs += entry.duration;
    }
  };
  const observer = new PerformanceObserver((list) => recordGc(list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });

  const resume = () => {
    if (active) return;
    active = true;
    openedAt = performance.now();
    elu = performance.eventLoopUtilization();
    segment = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
    segment.enable();
    sampleMemory();
    sampler = setInterval(sampleMemory, 25);
    sampler.unref();
  };
  const pause = () => {
    if (!active) return;
    recordGc(observer.takeRecords());
    active = false;
    windowMs += performance.now() - openedAt;
    const used = performance.eventLoopUtilization(elu);
    busy = { idle: busy.idle + used.idle, active: busy.active + used.active };
    segment?.disable();
    if (segment && segment.count > 0) segments.push(segment);
    segment = undefined;
    clearInterval(sampler);
    sampleMemory();
  };
  let profiler: RunningProfiler | undefined;
  const handle = async (line: string): Promise<unknown> => {
    const [command, ...rest] = line.split(' ');
    const argument = rest.join(' ');
    switch (command) {
      case 'profile-start':
        await profiler?.stop();
        profiler = await startProfiler(Number(argument) || 100);
        return { ok: true };
      case 'profile-stop': {
        if (!profiler) return { ok: false, error: 'the profiler is not running' };
        const profile = await profiler.stop();
        profiler = undefined;
        writeFileSync(argument, JSON.stringify(profile));
        return { ok: true, samples: profile.samples?.length ?? 0 };
      }
      case 'mark':
        // Counts of a server (measure: counts): a young collection where asked (a block's start), then the marker
        // callgrind dumps its counters at (measure/counts/server.ts). Nothing else here calls os.getPriority().
        if (!counted) {
          counted = true;
          clearInterval(parentCheck);
          parentCheck = exitWithParent(parentPid, PARENT_CHECK_COUNTED_MS);
        }
        if (argument === 'young') youngCollection();
        os.getPriority();
        return { ok: true };
      case 'hello':
        return { ok: true, pid: process.pid, node: process.version };
      case 'start':
        pause();
        segments = [];
        windowMs = 0;
        busy = { idle: 0, active: 0 };
        gc = { count: 0, totalMs: 0, byKind: {} };
        peakRss = 0;
        peakHeap = 0;
        resume();
        return { ok: true };
      case 'pause':
        pause();
        return { ok: true };
      case 'resume':
        resume();
        return { ok: true };
      case 'stop': {
        pause();
        // The monitor reads the whole interval between its timer's runs: the delay is what lies beyond the resolution.
        const ms = (ns: number) => (Number.isFinite(ns) ? Math.max(0, ns / 1e6 - EVENT_LOOP_RESOLUTION_MS) : 0);
        const figures: ProbeFigures = {
          windowMs,
          eventLoopDelay: {
            p50: ms(mergedPercentile(segments, 50)),
            p99: ms(mergedPercentile(segments, 99)),
            max: ms(Math.max(0, ...segments.map((h) => h.max))),
          },
          eventLoopUtilization: busy.active + busy.idle > 0 ? busy.active / (busy.active + busy.idle) : 0,
          gc,
          peakRssBytes: peakRss,
          peakHeapUsedBytes: peakHeap,
        };
        return { ok: true, figures };
      }
      default:
        return { ok: false, error: `unknown command ${command}` };
    }
  };

  const server = net.createServer((socket) => {
    socket.unref();
    socket.setEncoding('utf8');
    let buffer = '';
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
        const command = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        handle(command).then(
          (reply) => socket.write(`${JSON.stringify(reply)}\n`),
          (error: unknown) => socket.write(`${JSON.stringify({ ok: false, error: String(error) })}\n`),
        );
      }
    });
    socket.on('error', () => undefined);
  });
  // Another process of the server's tree may hold the socket already: the probe then stays silent.
  server.on('error', () => undefined);
  server.listen(socketPath);
  server.unref();
}

let collector: ((options: { type: 'minor'; execution: 'sync' }) => void) | undefined;

/** A young collection, with `gc` made on first use only (counts mode), never exposed to the server's code. */
function youngCollection(): void {
  if (!collector) {
    v8.setFlagsFromString('--expose-gc');
    collector = vm.runInNewContext('gc') as typeof collector;
  }
  collector!({ type: 'minor', execution: 'sync' });
}

/**
 * A percentile over several histograms (Node cannot add event-loop-delay
 * histograms together): the count-weighted mix of their cumulative
 * distributions, read from each one's percentile map. Written here because
 * perf_hooks offers no merge; exported for its test.
 */
export function mergedPercentile(histograms: { count: number; percentiles: Map<number, number> }[], percentile: number): number {
  const total = histograms.reduce((sum, h) => sum + h.count, 0);
  if (total === 0) return 0;
  const cdf = (h: { percentiles: Map<number, number> }, value: number) => {
    let reached = 0;
    for (const [p, v] of h.percentiles) if (v <= value && p > reached) reached = p;
    return reached;
  };
  const candidates = [...new Set(histograms.flatMap((h) => [...h.percentiles.values()]))].sort((a, b) => a - b);
  for (const value of candidates) {
    const mixed = histograms.reduce((sum, h) => sum + h.count * cdf(h, value), 0) / total;
    if (mixed >= percentile) return value;
  }
  return candidates[candidates.length - 1] ?? 0;
}

const socketPath = process.env.BENCHGATE_PROBE_SOCKET;
if (socketPath) install(socketPath);
