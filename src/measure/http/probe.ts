/**
 * The server-side probe (bundled as dist/probe.cjs and preloaded into the
 * user's server with NODE_OPTIONS=--require). It records, only while a window is
 * open, what Clinic Doctor reads: event-loop delay, event-loop utilisation, GC
 * pauses by kind, peak RSS and heap. benchgate drives it over a unix socket
 * (BENCHGATE_PROBE_SOCKET) with one-line commands: hello, start, pause, resume, stop.
 * Everything it opens is unref'd: it never keeps a server alive or changes its exit.
 */
import net from 'node:net';
import { constants, monitorEventLoopDelay, performance, PerformanceObserver, type EventLoopUtilization, type PerformanceEntry } from 'node:perf_hooks';
import type { ProbeFigures } from './types.js';

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

function install(socketPath: string): void {
  // Children of the server (workers, npm scripts) must not load the probe or answer on its socket.
  delete process.env.BENCHGATE_PROBE_SOCKET;
  if (process.env.NODE_OPTIONS) process.env.NODE_OPTIONS = process.env.NODE_OPTIONS.replace(/--require[= ]("[^"]*probe\.cjs"|\S*probe\.cjs)/, '').trim();

  const delay = monitorEventLoopDelay({ resolution: 1 });
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
    delay.enable();
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
    delay.disable();
    clearInterval(sampler);
    sampleMemory();
  };
  const handle = (command: string): unknown => {
    switch (command) {
      case 'hello':
        return { ok: true, pid: process.pid, node: process.version };
      case 'start':
        pause();
        delay.reset();
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
        const ms = (ns: number) => (Number.isFinite(ns) ? ns / 1e6 : 0);
        const figures: ProbeFigures = {
          windowMs,
          eventLoopDelay: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
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
        socket.write(`${JSON.stringify(handle(command))}\n`);
      }
    });
    socket.on('error', () => undefined);
  });
  // Another process of the server's tree may hold the socket already: the probe then stays silent.
  server.on('error', () => undefined);
  server.listen(socketPath);
  server.unref();
}

const socketPath = process.env.BENCHGATE_PROBE_SOCKET;
if (socketPath) install(socketPath);
