import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuBetween, parseSchedstat, readCpu } from '../../src/measure/http/cpu.js';
import { cpuLogRatio, measureHttp, pairOrders, perRequest } from '../../src/measure/http/schedule.js';
import type { HttpBenchmarkConfig } from '../../src/config/types.js';
import type { Revision } from '../../src/checkout/revisions.js';
import type { HttpRoundFigures } from '../../src/measure/http/types.js';
import type { LoadResult } from '../../src/measure/http/load.js';
import { httpDetails } from '../../src/report/http.js';
import { httpSections } from '../../src/report/http-sections.js';
import type { Comparison } from '../../src/stats/analyze.js';

/** The server's CPU per request: the schedstat reader on a fake /proc, the per-block arithmetic, the pairing, the report. */

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder laid out like /proc with one process and its threads' schedstat lines (undefined: the file is missing). */
function fakeProc(pid: number, threads: Record<number, string | undefined>): string {
  const proc = mkdtempSync(path.join(os.tmpdir(), 'benchgate-proc-'));
  temps.push(proc);
  for (const [tid, line] of Object.entries(threads)) {
    const dir = path.join(proc, String(pid), 'task', tid);
    mkdirSync(dir, { recursive: true });
    if (line !== undefined) writeFileSync(path.join(dir, 'schedstat'), line);
  }
  return proc;
}

describe('reading a server’s CPU from /proc/<pid>/task/<tid>/schedstat', () => {
  it('parses the line: ns on a CPU, ns waiting for one, timeslices', () => {
    expect(parseSchedstat('1234567 89 12\n')).toEqual({ runNs: 1234567, waitNs: 89 });
    for (const bad of ['', '12 34', 'a b c', '-1 2 3', '1 2 3 4']) expect(parseSchedstat(bad), JSON.stringify(bad)).toBeUndefined();
  });

  it('reads the main thread alone and sums every thread for the process; a thread gone between listing and reading counts 0', () => {
    const proc = fakeProc(700, { 700: '5000 200 7\n', 701: '1000 50 3\n', 702: '250 0 1\n', 703: undefined });
    expect(readCpu(700, proc)).toEqual({ mainNs: 5000, processNs: 6250, mainWaitNs: 200 });
  });

  it('reads nothing where the main thread cannot be read, or for a pid that is not one', () => {
    expect(readCpu(700, fakeProc(700, { 701: '1000 50 3\n' }))).toBeUndefined();
    expect(readCpu(700, fakeProc(700, { 700: 'garbage' }))).toBeUndefined();
    const proc = fakeProc(700, { 700: '5000 200 7\n' });
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(readCpu(pid, proc)).toBeUndefined();
    expect(readCpu(999, proc)).toBeUndefined();
  });

  it('takes the difference of two readings', () => {
    expect(cpuBetween({ mainNs: 100, processNs: 150, mainWaitNs: 10 }, { mainNs: 400, processNs: 700, mainWaitNs: 15 })).toEqual({
      mainNs: 300,
      processNs: 550,
      mainWaitNs: 5,
    });
  });

  it.runIf(process.platform === 'linux')('reads a real process: the CPU time it spent, not the time it waited', async () => {
    // The child spins until its own clock says 300 ms of CPU, then sleeps: its main thread used at least that much.
    const child = spawn(
      process.execPath,
      ['-e', 'const s = process.cpuUsage(); while (process.cpuUsage(s).user < 300000); console.log("spun"); setTimeout(() => {}, 60000);'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    try {
      await once(child.stdout, 'data');
      const reading = readCpu(child.pid!)!;
      expect(reading.mainNs).toBeGreaterThanOrEqual(300e6 * 0.95);
      expect(reading.processNs).toBeGreaterThanOrEqual(reading.mainNs);
      // Sleeping uses none: a second reading, after the child is idle, adds far less than the spin.
      const again = readCpu(child.pid!)!;
      expect(again.mainNs - reading.mainNs).toBeLessThan(50e6);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

const block = (ok: number, cpu?: { mainNs: number; processNs: number; mainWaitNs: number }) => ({
  load: { traffic: { ok } } as LoadResult,
  cpu,
});

describe('CPU per request over load blocks', () => {
  it('divides the CPU of all blocks by the requests they answered as expected', () => {
    const figures = perRequest([
      block(1000, { mainNs: 40e6, processNs: 50e6, mainWaitNs: 1e6 }),
      block(3000, { mainNs: 120e6, processNs: 150e6, mainWaitNs: 3e6 }),
    ]);
    expect(figures).toEqual({ mainNs: 40_000, processNs: 50_000, mainWaitNs: 1000 });
  });

  it('is unknown when a block’s CPU is, or nothing was answered: never a figure from part of the load', () => {
    expect(perRequest([block(1000, { mainNs: 4e7, processNs: 5e7, mainWaitNs: 0 }), block(1000)])).toBeUndefined();
    expect(perRequest([block(0, { mainNs: 4e7, processNs: 5e7, mainWaitNs: 0 })])).toBeUndefined();
  });

  it('compares requests per CPU-second of the main thread: more CPU per request at head is a loss', () => {
    const base = { mainNs: 100, processNs: 120, mainWaitNs: 5 };
    const head = { mainNs: 110, processNs: 130, mainWaitNs: 5 };
    expect(cpuLogRatio(base, head)).toBeCloseTo(Math.log(100 / 110), 12);
    expect(Math.expm1(cpuLogRatio(base, head)!)).toBeCloseTo(-1 / 11, 12);
    expect(cpuLogRatio(base, undefined)).toBeUndefined();
    expect(cpuLogRatio(base, { ...head, mainNs: 0 })).toBeUndefined();
  });
});

describe('paired blocks in random order', () => {
  it('draws which server goes first in each pair, from the random source given', () => {
    const draws = [0.1, 0.9, 0.49, 0.5, 0.7];
    let i = 0;
    expect(pairOrders(5, () => draws[i++]!)).toEqual(['base', 'head', 'base', 'head', 'head']);
  });

  it('over many pairs, each server goes first about half the time, in no fixed pattern', () => {
    // A small seeded generator (mulberry32), so the test is the same on every run.
    let seed = 42;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const orders = pairOrders(400, random);
    const baseFirst = orders.filter((o) => o === 'base').length;
    expect(baseFirst).toBeGreaterThan(160);
    expect(baseFirst).toBeLessThan(240);
    // Not the ABAB alternation, nor its mirror: some pairs repeat the order of the pair before.
    expect(orders.some((o, k) => k > 0 && o === orders[k - 1])).toBe(true);
  });
});

const revision = (label: 'base' | 'head'): Revision => ({
  label,
  ref: label,
  sha: 'a'.repeat(40),
  root: `/repo/${label}`,
  worktree: undefined,
  dirty: false,
});

const loadTest: HttpBenchmarkConfig = {
  name: 'todos',
  id: 'http > todos',
  start: 'node server.js',
  ready: '/health',
  readyTimeoutMs: 15_000,
  requests: [{ method: 'GET', path: '/todos', headers: {}, body: undefined, status: ['2xx'] }],
  connections: 8,
  durationMs: 500,
  warmupMs: 250,
  budget: undefined,
  latencyBudget: {},
  where: 'benchgate.yml: http[0] (todos)',
};

const round = (requestsPerSec: number, mainNs?: number): HttpRoundFigures => ({
  requestsPerSec,
  ...(mainNs === undefined ? {} : { cpuPerRequest: { mainNs, processNs: mainNs * 1.2, mainWaitNs: 1000 } }),
  latency: { p50: 1, p90: 2, p99: 4, mean: 1.5 },
  traffic: { responses: 100, ok: 100, non2xx: 0, byClass: {}, errors: 0, timeouts: 0, resets: 0 },
  probe: undefined,
});

function measure(rounds: number, cpuAt: (round: number) => boolean) {
  return measureHttp({
    base: revision('base'),
    head: revision('head'),
    benchmarks: [loadTest],
    mode: 'live',
    rounds,
    deadline: Number.POSITIVE_INFINITY,
    probePath: '/dev/null',
    socketDir: '/tmp',
    log: () => undefined,
    async measureRound(_benchmark, _revisions, n) {
      // Head takes 10% more CPU per request (+ a little per round), and serves 5% fewer requests/s.
      const withCpu = cpuAt(n);
      const base = round(1000, withCpu ? 50_000 : undefined);
      const head = round(950, withCpu ? 55_000 + n : undefined);
      return { base, head, logRatio: Math.log(950 / 1000), ...(withCpu ? { cpuLogRatio: Math.log(50_000 / (55_000 + n)) } : {}) };
    },
  });
}

describe('the CPU figure through measuring and the report', () => {
  it('keeps one CPU ratio per round, and reports the change of requests per CPU-second with its interval', async () => {
    const { benchmarks } = await measure(8, () => true);
    const [samples] = benchmarks;
    expect(samples!.http!.cpuLogRatios).toHaveLength(8);
    const comparison = { change: { estimate: -0.05, low: -0.06, high: -0.04, confidence: 0.95 } } as unknown as Comparison;
    const details = httpDetails(samples!, comparison)!;
    expect(details.cpu!.base).toEqual({ mainUs: 50, processUs: 60, waitUs: 1 });
    expect(details.cpu!.head.mainUs).toBeCloseTo(55.0035, 6);
    const change = details.cpu!.change!;
    // Head's 10% more CPU per request: about 9.1% fewer requests per CPU-second, inside its interval.
    expect(change.estimate).toBeCloseTo(50 / 55.0035 - 1, 4);
    expect(change.low).toBeLessThanOrEqual(change.estimate);
    expect(change.high).toBeGreaterThanOrEqual(change.estimate);
    expect(change.high).toBeLessThan(-0.09);
    expect(change.confidence).toBeCloseTo(0.95, 2);
    const sections = httpSections('http > todos', details);
    const row = sections.server!.rows.find((r) => r[0] === 'CPU per request: main thread / all threads (µs)')!;
    expect(row.slice(1).map((cell) => cell.split(' / ').map(Number))).toEqual([
      [50, 60],
      [55, 66],
    ]);
    const numbers = [...sections.cpu!.matchAll(/[-+]?\d+(?:\.\d+)?%/g)].map((m) => Number(m[0].replace('%', '')) / 100);
    expect(numbers[0]).toBeCloseTo(change.estimate, 3);
    expect(numbers[1]).toBeCloseTo(change.low, 3);
    expect(numbers[2]).toBeCloseTo(change.high, 3);
    expect(sections.cpu).toContain('reported, not gated');
  });

  it('drops the CPU figure of a load test where one round could not read it, and says why', async () => {
    const { benchmarks } = await measure(6, (n) => n !== 3);
    const [samples] = benchmarks;
    expect(samples!.http!.cpuLogRatios).toBeUndefined();
    const details = httpDetails(samples!, {} as Comparison)!;
    expect(details.cpu).toBeNull();
    const sections = httpSections('http > todos', details);
    expect(sections.cpu).toMatch(/CPU per request was not read: it needs Linux's \/proc\/<pid>\/task\/<tid>\/schedstat/);
    expect(sections.server).toBeUndefined();
  });
});
