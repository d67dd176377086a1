import { splitCpus } from '../../src/measure/http/pinning.js';
import { parsePerfCount, probeInstructions } from '../../src/measure/http/instructions.js';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cpuBetween, parseSchedstat, readCpu } from '../../src/measure/http/cpu.js';
import { cpuLogRatio, measuredBlock, perRequest } from '../../src/measure/http/round.js';
import { pairOrders } from '../../src/measure/http/alternate.js';
import type { ServerProcess } from '../../src/measure/http/server.js';
import type { LoadResult } from '../../src/measure/http/load.js';

/** The server's CPU per request: the schedstat reader on a fake /proc, the per-block arithmetic, the pairing (through measuring and the report: http-schedule.test.ts). */

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

  it('divides the instructions counted in every block by the requests, and leaves them out when a block has none', () => {
    const counted = (ok: number, instructions: number | undefined) => ({
      ...block(ok, { mainNs: 1e6, processNs: 1e6, mainWaitNs: 0 }),
      instructions,
    });
    expect(perRequest([counted(1000, 5e7), counted(3000, 15e7)])!.instructions).toBe(50_000);
    expect(perRequest([counted(1000, 5e7), counted(3000, undefined)])).not.toHaveProperty('instructions');
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

describe('how the CPUs are split for load tests', () => {
  it('gives the servers the last core (the last two from 4 cores on), shared by base and head, and the load generator the rest', () => {
    expect(splitCpus(2)).toEqual({ server: '1', load: '0' });
    expect(splitCpus(3)).toEqual({ server: '2', load: '0-1' });
    expect(splitCpus(4)).toEqual({ server: '2-3', load: '0-1' });
    expect(splitCpus(16)).toEqual({ server: '14-15', load: '0-13' });
  });
});

describe('hardware instruction counts through perf', () => {
  it("reads perf stat's CSV count, and nothing from a counter the machine does not have", () => {
    expect(parsePerfCount('123456,,instructions:u,1000000,100.00,,\n')).toBe(123456);
    expect(parsePerfCount('warning: something\n  98765 ,,instructions:u,1,100.00,,')).toBe(98765);
    expect(parsePerfCount('<not supported>,,instructions:u,0,100.00,,\n')).toBeUndefined();
    expect(parsePerfCount('<not counted>,,instructions:u,0,0.00,,\n')).toBeUndefined();
    expect(parsePerfCount('42,,cycles:u,1,100.00,,')).toBeUndefined();
  });

  /**
   * A fake perf: the probe's run prints `probe` (a CSV line); an attached one prints 4242 instructions when
   * interrupted, and touches <perf>.ready once it can be (so the test never interrupts it before, whatever the load).
   */
  function fakePerf(probe: string): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-perf-'));
    temps.push(dir);
    const file = path.join(dir, 'perf');
    writeFileSync(
      file,
      `#!/bin/sh\nif [ "$5" = "--" ]; then echo '${probe}' >&2; exit 0; fi\ntrap 'echo "4242,,instructions:u,1,100.00,," >&2; exit 0' INT\necho $$ > "$0.pid"\ntouch "$0.ready"\nwhile :; do sleep 0.02; done\n`,
      { mode: 0o755 },
    );
    return file;
  }

  it('says why it counts nothing: no perf, or no counter (what GitHub x64 runners and this VM answer)', () => {
    expect(probeInstructions('/nonexistent/perf')).toBe('perf is not installed');
    expect(probeInstructions(fakePerf('<not supported>,,instructions:u,0,100.00,,'))).toMatch(/^no hardware instruction counter/);
  });

  it('counts a process from attach to stop where the probe counted, and ends its perf once however often stopped', async () => {
    const perf = fakePerf('1000,,instructions:u,1,100.00,,');
    const counter = probeInstructions(perf);
    expect(typeof counter).not.toBe('string');
    const counting = (counter as Exclude<typeof counter, string>).start(process.pid);
    while (!existsSync(`${perf}.ready`)) await new Promise((resolve) => setTimeout(resolve, 10));
    const [first, again] = await Promise.all([counting.stop(), counting.stop()]);
    expect(first).toBe(4242);
    expect(again).toBe(4242);
  });

  it('ends the perf of a block whose load failed: no perf left attached to a server', async () => {
    const perf = fakePerf('1000,,instructions:u,1,100.00,,');
    const counter = probeInstructions(perf) as Exclude<ReturnType<typeof probeInstructions>, string>;
    const server = { cpuPid: process.pid, cpu: () => undefined } as unknown as ServerProcess;
    const failing = async () => {
      while (!existsSync(`${perf}.ready`)) await new Promise((resolve) => setTimeout(resolve, 10));
      throw new Error('the load failed');
    };
    await expect(measuredBlock(server, failing, counter)).rejects.toThrow('the load failed');
    const pid = Number(readFileSync(`${perf}.pid`, 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
