import { normal, seeded } from '../fakes.js';
import { describe, expect, it } from 'vitest';
import {
  DuetPlanner,
  MAX_BLOCKS,
  MIN_BLOCKS,
  PILOT_BLOCKS,
  PILOT_ROUNDS,
  describeSchedule,
  type RoundSeries,
  type TimeLeft,
} from '../../src/measure/http/planner.js';

/**
 * A planner fed rounds of a simulated server: each pair has its own offset (pairSd), each block its own noise
 * (blockSd), the pilot's blocks before `transientUntil` are off by ±15% (a JIT settling), and a round costs
 * startMs plus its warm-up and blocks of 1 s.
 */
function simulate(o: {
  pairSd: number;
  blockSd: number;
  startMs: number;
  transientUntil?: number;
  rounds: number;
  seed?: number;
  timeLeft?: () => TimeLeft;
}) {
  const random = seeded(o.seed ?? 1);
  const log: string[] = [];
  const planner = new DuetPlanner({ id: 'http > x', warmupMs: 1000, blockMs: 1000 }, (line) => log.push(line), o.timeLeft);
  const plans = [];
  for (let r = 0; r < o.rounds; r++) {
    const plan = planner.next();
    plans.push(plan);
    const offset = o.pairSd * normal(random);
    const blocks = Array.from({ length: plan.blocks }, (_, i) => {
      const transient = r < PILOT_ROUNDS && i < (o.transientUntil ?? 0) && i >= 1 ? (i % 2 ? 0.15 : -0.15) : 0;
      return offset + o.blockSd * normal(random) + transient;
    });
    const series: RoundSeries = {
      requests: blocks,
      cpu: blocks.map((x) => x * 0.9),
      blocksMs: plan.blocks * 1005,
      roundMs: o.startMs + plan.warmupMs + plan.blocks * 1005 + 50,
    };
    planner.record(series, plan);
  }
  return { planner, plans, log };
}

describe('the duet planner: warm-up and blocks per pair from what the run measures', () => {
  it('starts with a pilot of long pairs, whose figure is their settled half', () => {
    const { plans } = simulate({ pairSd: 0.01, blockSd: 0.01, startMs: 300, rounds: 3 });
    expect(plans.slice(0, PILOT_ROUNDS)).toEqual(
      Array.from({ length: PILOT_ROUNDS }, () => ({ warmupMs: 1000, blocks: PILOT_BLOCKS, figureFrom: PILOT_BLOCKS / 2 })),
    );
    expect(plans[PILOT_ROUNDS]!.figureFrom).toBe(0);
  });

  it("learns the warm-up from the pilot's transients (a JIT settling 4 blocks in) and says so", () => {
    const { plans, log, planner } = simulate({ pairSd: 0.01, blockSd: 0.01, startMs: 300, transientUntil: 4, rounds: 3 });
    // Blocks 1 to 3 are off by 15%: the warm-up ends after block 3, so 4 more seconds of load before measuring.
    expect(plans[PILOT_ROUNDS]!.warmupMs).toBe(1000 + 4 * 1000);
    expect(planner.schedule?.learnedWarmupMs).toBe(4000);
    expect(log.find((l) => l.includes('warm-up'))).toMatch(/settled after 4 block\(s\)/);
  });

  it('keeps the configured warm-up when the pilot was settled from its first block', () => {
    const { plans, log } = simulate({ pairSd: 0.01, blockSd: 0.01, startMs: 300, rounds: 3 });
    expect(plans[PILOT_ROUNDS]!.warmupMs).toBe(1000);
    expect(log.find((l) => l.includes('warm-up'))).toMatch(/settled from their first block/);
  });

  it('spends the time on pairs when pairs differ (a process offset), on blocks when blocks are the noise', () => {
    const pairsDiffer = simulate({ pairSd: 0.04, blockSd: 0.005, startMs: 300, rounds: 30 });
    expect(pairsDiffer.planner.schedule?.blocks).toBe(MIN_BLOCKS);
    const blocksNoisy = simulate({ pairSd: 0.002, blockSd: 0.04, startMs: 2000, rounds: 30 });
    expect(blocksNoisy.planner.schedule?.blocks).toBe(MAX_BLOCKS);
    // The log names the choice and the components it came from.
    expect(blocksNoisy.log.at(-1)).toMatch(/^http > x: schedule: 6 blocks of 1\.0s per pair .*Kalibera & Jones/);
  });

  it('bounds the blocks per pair so that the rounds still needed fit in the time left, and says so', () => {
    // Blocks are the noise and a pair costs seconds: the optimum is the most blocks (6).
    const free = simulate({ pairSd: 0.002, blockSd: 0.04, startMs: 2000, rounds: 3 });
    const { pairCostMs, blockCostMs } = free.planner.schedule!;
    expect(free.planner.schedule).toMatchObject({ blocks: MAX_BLOCKS });
    expect(free.planner.schedule!.timeBound).toBeUndefined();
    // The same rounds with 28 still needed (13 to the first look, 15 to confirm) and time for rounds of a pair and 4.5
    // blocks each: 4 blocks a pair.
    const ms = 28 * (pairCostMs + 4.5 * blockCostMs);
    const tight = simulate({ pairSd: 0.002, blockSd: 0.04, startMs: 2000, rounds: 3, timeLeft: () => ({ rounds: 28, ms }) });
    expect(tight.planner.schedule).toMatchObject({ blocks: 4, timeBound: 28, pairCostMs });
    expect(tight.planner.schedule!.optimum).toBeGreaterThan(MAX_BLOCKS);
    expect(tight.log.at(-1)).toMatch(
      /bounded to 4 so that the 28 rounds still needed \(to the first look and a confirmation\) fit in the time limit$/,
    );
    // However little time is left, a pair is measured in at least MIN_BLOCKS blocks (its own spread is then seen).
    const none = simulate({ pairSd: 0.002, blockSd: 0.04, startMs: 2000, rounds: 3, timeLeft: () => ({ rounds: 28, ms: 10_000 }) });
    expect(none.planner.schedule!.blocks).toBe(MIN_BLOCKS);
  });

  it('gives a server that starts in 2 s more blocks per pair than one that starts in 50 ms, the variances being equal', () => {
    const fast = simulate({ pairSd: 0.01, blockSd: 0.02, startMs: 50, rounds: 40, seed: 3 });
    const slow = simulate({ pairSd: 0.01, blockSd: 0.02, startMs: 2000, rounds: 40, seed: 3 });
    expect(slow.planner.schedule!.pairCostMs).toBeGreaterThan(fast.planner.schedule!.pairCostMs + 1500);
    expect(slow.planner.schedule!.optimum).toBeGreaterThan(fast.planner.schedule!.optimum);
    expect(slow.planner.schedule!.blocks).toBeGreaterThan(fast.planner.schedule!.blocks);
  });

  it('plans for requests per CPU-second where it was read, and for requests/s where it was not', () => {
    const { planner } = simulate({ pairSd: 0.01, blockSd: 0.01, startMs: 300, rounds: 4 });
    expect(planner.schedule?.figure).toBe('cpu');
    const bare = new DuetPlanner({ id: 'http > y', warmupMs: 500, blockMs: 1000 }, () => {});
    for (let r = 0; r < 3; r++) {
      const plan = bare.next();
      bare.record(
        {
          requests: Array.from({ length: plan.blocks }, (_, i) => (i % 2 ? 0.01 : -0.01)),
          cpu: undefined,
          blocksMs: 1000 * plan.blocks,
          roundMs: 2000 + 1000 * plan.blocks,
        },
        plan,
      );
    }
    expect(bare.schedule?.figure).toBe('requests');
  });

  it('describes a schedule read back from an uploaded report without trusting its values', () => {
    const text = describeSchedule({
      warmupMs: '<img src=x>' as unknown as number,
      learnedWarmupMs: 4000,
      blocks: 3,
      blockMs: 1000,
      figure: 'cpu',
      pairCostMs: 5400,
      blockCostMs: 1006,
      pairSd: 0.012,
      blockSd: 0.01,
      optimum: 1.9,
      pairs: 15,
    });
    expect(text).not.toContain('<img');
    expect(text).toMatch(/^3 blocks of 1\.0s per pair of servers after a – warm-up \(4\.0s of it learned/);
    expect(text).toContain(`bounded to ${MIN_BLOCKS}–${MAX_BLOCKS}`);
  });
});
