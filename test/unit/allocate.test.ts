import { describe, expect, it } from 'vitest';
import { allocateTaskTimes, estimateNoise, processesPerRound, type RoundRecord, type TaskRound } from '../../src/measure/micro/allocate.js';
import { blockVariance } from '../../src/measure/micro/alternate.js';
import { MAX_PROCESSES_PER_ROUND } from '../../src/config/types.js';

/**
 * The allocation on made-up rounds: each task's per-round figures are chosen so the spread across
 * processes is known (±offset around 0: 1.4826 × offset), its block variance is given, and its blocks
 * take `blockMs` each. A round lasts `overheadMs` plus its tasks' measuring time.
 */
interface FakeTask {
  /** The per-process offsets of its figure, one per round. */
  offsets: number[];
  blockVariance: number;
  blockMs?: number;
  measureMs?: number;
}

function rounds(tasks: Record<string, FakeTask>, overheadMs: number): RoundRecord[] {
  const count = Math.max(...Object.values(tasks).map((t) => t.offsets.length));
  return Array.from({ length: count }, (_, r) => {
    const figures = new Map<string, TaskRound>();
    for (const [id, t] of Object.entries(tasks)) {
      const measureMs = t.measureMs ?? 400;
      figures.set(id, { logRatio: t.offsets[r]!, blockVariance: t.blockVariance, measureMs, blocks: measureMs / (t.blockMs ?? 2) });
    }
    return { durationMs: overheadMs + [...figures.values()].reduce((s, t) => s + t.measureMs, 0), tasks: figures };
  });
}

const bounds = { minBlocks: 20, maxTaskMs: 400 };
/** A 1% offset per process (1.4826 × MAD of ±1%), and a block spread of 0.5%: per-process noise dominates. */
const betweenNoisy: FakeTask = { offsets: [-0.01, 0, 0.01], blockVariance: 0.005 ** 2 };
/** No offset between processes, a block spread of 5%: only more blocks help. */
const withinNoisy: FakeTask = { offsets: [0, 0, 0], blockVariance: 0.05 ** 2 };

describe('allocating measuring time by where the noise is', () => {
  it('waits for three rounds before it judges the spread across processes', () => {
    expect(allocateTaskTimes(rounds({ a: { ...betweenNoisy, offsets: [-0.01, 0.01] } }, 500), bounds)).toBeUndefined();
    expect(allocateTaskTimes(rounds({ a: betweenNoisy }, 500), bounds)).toBeDefined();
  });

  it('splits a round into between-process and within-process variance by the method of moments', () => {
    const [noise] = Object.values(estimateNoise(rounds({ a: { offsets: [-0.02, 0, 0.02], blockVariance: 0.01 ** 2 } }, 500)));
    const within = (Math.PI / 2) * 0.01 ** 2;
    expect(noise!.within).toBeCloseTo(within, 15);
    // 200 blocks of 2 ms: the blocks explain within / 200 of the round's variance (1.4826 × 2%)².
    expect(noise!.between).toBeCloseTo((1.4826 * 0.02) ** 2 - within / 200, 15);
    expect(noise!.blockMs).toBe(2);
  });

  it("gives one task Cochran's two-stage optimum, n = √(overhead × σ²_w / (ms per block × σ²_b))", () => {
    const allocation = allocateTaskTimes(rounds({ a: { offsets: [-0.01, 0, 0.01], blockVariance: 0.02 ** 2 } }, 1000), bounds)!;
    const { between, within, blockMs } = allocation.noise.a!;
    const n = Math.sqrt((1000 * within) / (blockMs * between));
    expect(n).toBeGreaterThan(20);
    expect(n * blockMs).toBeLessThan(400);
    expect(allocation.taskTimeMs.a).toBeCloseTo(n * blockMs, 6);
    expect(allocation.overheadMs).toBe(1000);
    expect(allocation.roundMs).toBeCloseTo(1000 + n * blockMs, 6);
  });

  it('measures a task briefly in many processes when its noise is per process, and long when it is within', () => {
    const allocation = allocateTaskTimes(rounds({ router: betweenNoisy, etag: withinNoisy }, 800), bounds)!;
    expect(allocation.taskTimeMs.router).toBeLessThan(100);
    expect(allocation.taskTimeMs.etag).toBeGreaterThan(allocation.taskTimeMs.router! * 2);
    // A round is shorter than the 800 ms of load and 2 × 400 ms of measuring it took before: more processes in the same time.
    expect(allocation.roundMs).toBeLessThan(1600);
  });

  it('shortens the task times until the rounds the first look needs, and a confirmation, fit in the time left', () => {
    const tasks = { a: withinNoisy, b: withinNoisy, c: betweenNoisy };
    const free = allocateTaskTimes(rounds(tasks, 800), bounds)!;
    // Within-process noise keeps task-time: 3 × 400 ms (c less) and 800 ms of overhead a round.
    expect(free.taskTimeMs.a).toBe(400);
    const fits = (a: typeof free, fit: { timeMs: number; rounds: number; confirmRounds: number }) => {
      const times = Object.values(a.taskTimeMs).sort((x, y) => x - y);
      return fit.rounds * a.roundMs + fit.confirmRounds * (a.overheadMs + 2 * times[1]!) <= fit.timeMs + 1e-6;
    };
    const roomy = { timeMs: 1e7, rounds: 12, confirmRounds: 15 };
    expect(allocateTaskTimes(rounds(tasks, 800), { ...bounds, fit: roomy })).toEqual(free);
    // 12 rounds and a confirmation of 15 in 30 s: the free split would take 12 × 1.8 s + 15 × 1.6 s.
    const tight = { timeMs: 30_000, rounds: 12, confirmRounds: 15 };
    expect(fits(free, tight)).toBe(false);
    const fitted = allocateTaskTimes(rounds(tasks, 800), { ...bounds, fit: tight })!;
    expect(fits(fitted, tight)).toBe(true);
    // The largest that fit: at a few ms more per task, it would not.
    const longer = { ...fitted, taskTimeMs: Object.fromEntries(Object.entries(fitted.taskTimeMs).map(([id, ms]) => [id, ms * 1.01])) };
    expect(fits({ ...longer, roundMs: fitted.overheadMs + Object.values(longer.taskTimeMs).reduce((x, y) => x + y, 0) }, tight)).toBe(
      false,
    );
    expect(fitted.taskTimeMs.a).toBeLessThan(400);
    // Never below the fewest blocks, even when nothing fits.
    const none = allocateTaskTimes(rounds(tasks, 800), { ...bounds, fit: { ...tight, timeMs: 1 } })!;
    for (const [id, ms] of Object.entries(none.taskTimeMs)) expect(ms / none.noise[id]!.blockMs).toBeCloseTo(20, 6);
  });

  it('gives a task with no per-process noise an even share of the round, D / m', () => {
    // Three tasks at their 40 ms floor and one within-only task t in a round of 100 ms overhead: t = (100 + 3 × 40 + t) / 4.
    const allocation = allocateTaskTimes(rounds({ a: betweenNoisy, b: betweenNoisy, c: betweenNoisy, d: withinNoisy }, 100), {
      minBlocks: 20,
      maxTaskMs: 1000,
    })!;
    expect(allocation.taskTimeMs.a).toBe(40);
    expect(allocation.taskTimeMs.d).toBeCloseTo(220 / 3, 6);
  });

  it('takes the per-process overhead from the latest rounds', () => {
    const records = rounds({ a: { ...betweenNoisy, offsets: [-0.01, 0, 0.01, 0] } }, 800);
    records[0] = { ...records[0]!, durationMs: records[0]!.durationMs + 10_000 };
    expect(allocateTaskTimes(records, bounds)!.overheadMs).toBe(800);
  });

  it('never leaves a task fewer blocks than the minimum, nor more time than task-time', () => {
    const allocation = allocateTaskTimes(
      rounds({ quiet: { offsets: [-0.05, 0, 0.05], blockVariance: 1e-8 }, noisy: { offsets: [0, 0, 0], blockVariance: 1 } }, 5000),
      bounds,
    )!;
    expect(allocation.taskTimeMs.quiet).toBe(20 * 2);
    expect(allocation.taskTimeMs.noisy).toBe(400);
  });

  it('shares the round only among the tasks still measured', () => {
    const both: FakeTask = { offsets: [-0.01, 0, 0.01], blockVariance: 0.02 ** 2 };
    const all = rounds({ a: both, b: both, c: both, d: withinNoisy }, 800);
    const open = allocateTaskTimes(all, bounds, new Set(['a']))!;
    expect(Object.keys(open.taskTimeMs)).toEqual(['a']);
    // One task alone carries the whole overhead: it gets more blocks than when four share it.
    expect(open.taskTimeMs.a).toBeGreaterThan(allocateTaskTimes(all, bounds)!.taskTimeMs.a!);
  });

  it('leaves out a task without within-process figures', () => {
    const records = rounds({ a: betweenNoisy, b: betweenNoisy }, 800);
    for (const record of records)
      (record.tasks as Map<string, TaskRound>).set('b', { ...record.tasks.get('b')!, blockVariance: Number.NaN });
    expect(Object.keys(allocateTaskTimes(records, bounds)!.taskTimeMs)).toEqual(['a']);
  });
});

describe('processes per round', () => {
  // Per-process noise: a round of one process spreads σ = √(σ²_b + σ²_w / n) in log units.
  const allocation = allocateTaskTimes(rounds({ a: betweenNoisy, b: betweenNoisy }, 500), bounds)!;
  const { between, within, blockMs } = allocation.noise.a!;
  const spread1 = Math.sqrt(between + within / (allocation.taskTimeMs.a! / blockMs));
  const roomy = { maxProcesses: MAX_PROCESSES_PER_ROUND, remainingMs: 1e9, roundsToGo: 10, confirmMs: 0, confirmRounds: 0 };

  it('runs one process when one resolves every budget', () => {
    expect(processesPerRound(allocation, { ...roomy, enough: (_, spread) => spread <= spread1 * 1.0001 })).toBe(1);
  });

  it('runs the fewest processes whose mean resolves every budget: the spread falls as 1/√k', () => {
    // Half the spread needs 4 processes; a third of it, 9, more than a round may take.
    expect(processesPerRound(allocation, { ...roomy, enough: (_, spread) => spread <= (spread1 / 2) * 1.0001 })).toBe(4);
    expect(processesPerRound(allocation, { ...roomy, enough: (_, spread) => spread <= spread1 / 3 })).toBe(MAX_PROCESSES_PER_ROUND);
    // The noisiest task sets it.
    const noisier = (id: string, spread: number) => spread <= (id === 'a' ? spread1 : spread1 / 2) * 1.0001;
    expect(processesPerRound(allocation, { ...roomy, enough: noisier })).toBe(4);
  });

  it('keeps the processes it runs where the budgets need one fewer, not where they need two fewer or time forces it', () => {
    // Half the spread needs 4 processes; a little less than half, 3 (4 × 0.5² = 1/(0.577)²: √3 ≈ 1.73 → spread1/1.73).
    const three = (_: string, spread: number) => spread <= (spread1 / Math.sqrt(3)) * 1.0001;
    expect(processesPerRound(allocation, { ...roomy, enough: three })).toBe(3);
    expect(processesPerRound(allocation, { ...roomy, enough: three, current: 4 })).toBe(4);
    expect(processesPerRound(allocation, { ...roomy, enough: three, current: 5 })).toBe(3);
    expect(processesPerRound(allocation, { ...roomy, enough: three, current: 2 })).toBe(3);
    // Time still bounds it.
    const round = allocation.roundMs;
    const timed = { ...roomy, roundsToGo: 10, confirmMs: 0, confirmRounds: 0, enough: three, current: 4 };
    expect(processesPerRound(allocation, { ...timed, remainingMs: 10 * round * 3 + 1 })).toBe(3);
  });

  it('runs no more processes than micro.processes allows', () => {
    const half = (_: string, spread: number) => spread <= (spread1 / 2) * 1.0001;
    expect(processesPerRound(allocation, { ...roomy, maxProcesses: 3, enough: half })).toBe(3);
    expect(processesPerRound(allocation, { ...roomy, maxProcesses: 1, enough: () => false })).toBe(1);
  });

  it('runs no more processes than let every round still to run, and a confirmation, fit in the time left', () => {
    const never = () => false;
    const round = allocation.roundMs;
    // 10 rounds to go and a confirmation of 10 rounds at half a round each: 15 rounds' time per process per round.
    const timed = { maxProcesses: MAX_PROCESSES_PER_ROUND, roundsToGo: 10, confirmMs: round / 2, confirmRounds: 10, enough: never };
    expect(processesPerRound(allocation, { ...timed, remainingMs: 15 * round * 3 + 1 })).toBe(3);
    expect(processesPerRound(allocation, { ...timed, remainingMs: 15 * round * 3 - 1 })).toBe(2);
    // Even when not one process per round fits, one it is (the time limit stops the rounds).
    expect(processesPerRound(allocation, { ...timed, remainingMs: 0 })).toBe(1);
  });
});

describe("a process's within-process variance", () => {
  it('is the robust variance of the block log ratios, so one preempted block does not inflate it', () => {
    const blocks = [-0.01, -0.005, 0, 0.005, 0.01, 0.9];
    expect(blockVariance(blocks)).toBeCloseTo((1.4826 * 0.0075) ** 2, 12);
  });

  it('falls back to the sample variance when most blocks agree exactly', () => {
    expect(blockVariance([0, 0, 0, 0.03])).toBeCloseTo(0.03 ** 2 / 4, 12);
  });
});
