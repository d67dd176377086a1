import { median } from 'simple-statistics';
import type { Revision } from '../../checkout/revisions.js';
import type { HttpBenchmarkConfig } from '../../config/types.js';
import { busyBetween, sampleCore, type CpuSample } from '../conditions.js';
import type { LoadResult } from './load.js';
import { checkProbeFigures } from './probe-client.js';
import { tooManyFailures } from './traffic.js';
import { ServerProcess, stopAll } from './server.js';
import type { DuetFigures, HttpRoundFigures } from './types.js';
import { cpuBetween } from './cpu.js';
import {
  autoRates,
  capacityMs,
  checkRequests,
  cpuLogRatio,
  answeredIn,
  endsSilent,
  judgeTraffic,
  keepAnswered,
  loadOn,
  other,
  perRequest,
  pool,
  rateOf,
  serverOptions,
  settleAutoRate,
  type Block,
  type RoundPair,
  type RoundSettings,
  type Side,
} from './round.js';

/** What a duet round needs of a server: ServerProcess, or a fake in tests. */
export type DuetServer = Pick<
  ServerProcess,
  'port' | 'cpuPid' | 'cpu' | 'probe' | 'checkAlive' | 'checkAliveAfterFailures' | 'stop' | 'label' | 'output'
>;

/** How a duet round starts servers, checks their answers, loads them and reads the shared CPU: the real ones, or fakes in tests. */
export interface DuetDeps {
  start: (options: ReturnType<typeof serverOptions>) => Promise<DuetServer>;
  checkRequests: typeof checkRequests;
  load: (server: Pick<DuetServer, 'port'>, benchmark: HttpBenchmarkConfig, durationMs: number) => Promise<LoadResult>;
  sampleCore: (cpu: number) => CpuSample | undefined;
  /** benchgate's own CPU time so far and the wall clock, in µs: the load generator's busy share. */
  ownClock: () => { cpuUs: number; wallUs: number };
}

const REAL: DuetDeps = {
  start: (options) => ServerProcess.start(options),
  checkRequests,
  load: loadOn,
  sampleCore,
  ownClock: () => {
    const { user, system } = process.cpuUsage();
    return { cpuUs: user + system, wallUs: performance.now() * 1000 };
  },
};

/**
 * The shared CPU's busy share below which a saturating duet block did not make the two servers compete for it:
 * the load generator (or waiting in the servers) set the pace, and requests/s compares what it could send.
 */
export const SATURATED = 0.9;

/** One duet block: each server's load and CPU over the same window, and how busy the shared CPU and the load generator were. */
export interface DuetBlock {
  base: Block;
  head: Block;
  /** The shared CPU's busy share over the block, 0 to 1; undefined where the servers are not pinned to one CPU. */
  coreBusy: number | undefined;
  /** benchgate's own CPU (the load generator) over the block, as a share of one CPU. */
  loadGeneratorBusy: number;
  /** Which client was started first (the other in the same tick): drawn at random per block. */
  first: Side;
}

/**
 * `duet` (the default where the servers can be pinned): base's and head's servers, both pinned to one shared
 * CPU, loaded at the same time, each by its own closed-loop client with the same connections (the load
 * generator, in benchgate's process, on the other CPUs). The kernel's scheduler splits the shared CPU between the
 * two servers every few milliseconds, so both run at the same CPU speed at every moment: per block, the ratio of
 * their answers and the ratio of their CPU per request are free of the machine's speed changes from second to
 * second, which alternating blocks carry (measured: 10–14% per pair alternating, 1–2% in a duet; docs/http.md).
 *
 * Each round is a fresh pair of server processes (two identical processes can differ by a few percent for their
 * whole life, so one pair is one sample of that): which server starts first is drawn at random, their ports are
 * the OS's free ports, and which client starts first is drawn per block, so none of it is a bias, all of it is
 * in the interval. The round's figures are the medians of its blocks' ratios.
 */
export async function duetRound(
  benchmark: HttpBenchmarkConfig,
  revisions: Record<Side, Revision>,
  round: number,
  settings: RoundSettings,
  deps: DuetDeps = REAL,
): Promise<RoundPair> {
  const random = settings.random ?? Math.random;
  const servers: Partial<Record<Side, DuetServer>> = {};
  try {
    const first: Side = random() < 0.5 ? 'base' : 'head';
    const sides: Side[] = [first, other(first)];
    for (const side of sides) servers[side] = await deps.start(serverOptions(benchmark, revisions[side], settings));
    const both = servers as Record<Side, DuetServer>;
    if (round === 0) for (const side of sides) await deps.checkRequests(benchmark, both[side], side, revisions, settings);
    const load = (durationMs: number) => duetBlock(both, benchmark, durationMs, random, settings, deps);
    // A warm-up's load, read for its ratios only: no instruction counting (two perf processes a block, thrown away).
    const warmLoad = (durationMs: number) => duetBlock(both, benchmark, durationMs, random, { ...settings, instructions: undefined }, deps);
    // The probe records from the warm-up on, and starts afresh before the measured blocks: turning its monitors on
    // (a 1 ms event-loop timer, a memory sampler) moves a framework's JIT, which must settle in the warm-up, not in a
    // measured block (hapi: a round in five read +5% instead of +25% when the probe started after the warm-up).
    for (const side of sides) await both[side].probe('start');
    await warmLoad(benchmark.warmupMs);
    if (benchmark.rate === 'auto' && !autoRates.has(benchmark)) {
      // Each server's capacity while sharing the CPU with the other, saturated; then a warm-up at the rate it sets.
      const capacity = await load(capacityMs(benchmark));
      settleAutoRate(benchmark, { base: capacity.base.load, head: capacity.head.load }, settings);
      await warmLoad(benchmark.warmupMs);
    }
    // A learned warm-up (plan.warmupMs) is the configured one plus what the pilot found; both load at once, in blocks
    // like the measured ones, so that the round's series shows where this pair settled (the report keeps it).
    const plan = settings.duetPlan;
    const blockMs = Math.min(settings.blockMs ?? 1000, plan ? Infinity : benchmark.durationMs);
    const warming: DuetBlock[] = [];
    for (let left = plan && blockMs > 0 ? plan.warmupMs - benchmark.warmupMs : 0; left > 0; left -= blockMs)
      warming.push(await warmLoad(Math.min(blockMs, left)));
    for (const side of sides) both[side].checkAlive('during the warm-up');
    for (const side of sides) await both[side].probe('start');
    const count = plan ? plan.blocks : Math.max(2, Math.round(benchmark.durationMs / blockMs));
    const blocks: DuetBlock[] = [];
    const blocksStart = performance.now();
    // A server silent in the last block gets more blocks (as many as the round had, at most): one it answers in shows a pause, not a hang.
    for (let i = 0; i < count || (i < 2 * count && endsSilent(blocks.map(answeredIn))); i++) {
      blocks.push(await load(blockMs));
      for (const side of sides) both[side].checkAlive('under load');
    }
    const blocksMs = performance.now() - blocksStart;
    const kept = keepAnswered(blocks, benchmark.id, round, blockMs, settings.log);
    // A pilot round's figure is its settled part (the planner reads the whole series for the warm-up).
    const from = plan ? Math.min(plan.figureFrom, Math.max(0, kept.length - 2)) : 0;
    const measured = kept.slice(from);
    const figures = {} as Record<Side, HttpRoundFigures>;
    const duet = duetFigures(measured, rateOf(benchmark) !== undefined);
    for (const side of ['base', 'head'] as const) {
      const probe = checkProbeFigures((await both[side].probe<{ figures?: unknown }>('stop'))?.figures);
      figures[side] = {
        ...pool(
          measured.map((b) => b[side]),
          probe,
        ),
        duet,
      };
    }
    await Promise.all(sides.map((side) => both[side].checkAliveAfterFailures('under load', tooManyFailures(figures[side].traffic))));
    const silent = (side: Side) => measured.filter((b) => b[side].load.traffic.ok === 0).map(() => blockMs);
    const ratios = blockRatios(measured);
    const series = blockRatios(kept);
    const pair = judgeTraffic(
      benchmark,
      figures.base,
      figures.head,
      median(ratios.requests),
      { base: silent('base'), head: silent('head') },
      {
        base: { label: both.base.label, output: () => both.base.output() },
        head: { label: both.head.label, output: () => both.head.output() },
      },
    );
    // The warm-up's blocks that both servers answered in (a block either side was silent in has no ratio).
    const warm = blockRatios(warming.filter((b) => Object.values(answeredIn(b)).every(Boolean)));
    const withSeries = { ...pair, series: { requests: series.requests, cpu: series.cpu, blocksMs, warmup: warm, figureFrom: from } };
    return ratios.cpu ? { ...withSeries, cpuLogRatio: median(ratios.cpu) } : withSeries;
  } finally {
    await stopAll(Object.values(servers));
  }
}

/**
 * Both servers loaded at once for `durationMs`, each by its own client, with each server's CPU (and instructions,
 * where counted) read just before and just after, and the shared CPU's and the load generator's busy shares.
 */
export async function duetBlock(
  servers: Record<Side, DuetServer>,
  benchmark: HttpBenchmarkConfig,
  durationMs: number,
  random: () => number,
  settings: Pick<RoundSettings, 'instructions' | 'sharedCpu'>,
  deps: Pick<DuetDeps, 'load' | 'sampleCore' | 'ownClock'> = REAL,
): Promise<DuetBlock> {
  const first: Side = random() < 0.5 ? 'base' : 'head';
  const sides: Side[] = [first, other(first)];
  const counter = settings.instructions;
  const counting = Object.fromEntries(
    sides.map((side) => [side, counter && servers[side].cpuPid !== undefined ? counter.start(servers[side].cpuPid) : undefined]),
  ) as Record<Side, ReturnType<NonNullable<typeof counter>['start']> | undefined>;
  try {
    const core = settings.sharedCpu === undefined ? undefined : deps.sampleCore(settings.sharedCpu);
    const own = deps.ownClock();
    const before = { base: servers.base.cpu(), head: servers.head.cpu() };
    // Both clients start in the same tick; which one opens its connections first is drawn at random.
    const loads = await Promise.all(sides.map((side) => deps.load(servers[side], benchmark, durationMs)));
    const after = { base: servers.base.cpu(), head: servers.head.cpu() };
    const ownAfter = deps.ownClock();
    const elapsedUs = ownAfter.wallUs - own.wallUs;
    const coreAfter = settings.sharedCpu === undefined ? undefined : deps.sampleCore(settings.sharedCpu);
    const block = async (side: Side): Promise<Block> => {
      const start = before[side];
      const end = after[side];
      return {
        load: loads[sides.indexOf(side)]!,
        cpu: start && end ? cpuBetween(start, end) : undefined,
        instructions: await counting[side]?.stop(),
      };
    };
    return {
      base: await block('base'),
      head: await block('head'),
      coreBusy: core && coreAfter ? coreBusyBetween(core, coreAfter) : undefined,
      loadGeneratorBusy: elapsedUs > 0 ? (ownAfter.cpuUs - own.cpuUs) / elapsedUs : 0,
      first,
    };
  } finally {
    // A load that failed still ends its perf (stop() runs once; here it only waits for the first call's end).
    for (const side of sides) await counting[side]?.stop();
  }
}

function coreBusyBetween(start: CpuSample, end: CpuSample): number | undefined {
  return end.total > start.total ? busyBetween(start, end) : undefined;
}

/**
 * Per block, ln(head / base) of the answers (both in the same window, so of requests/s) and of requests per
 * CPU-second of the main thread; the CPU ratios only when every block has both servers' CPU.
 */
export function blockRatios(blocks: readonly Pick<DuetBlock, 'base' | 'head'>[]): { requests: number[]; cpu: number[] | undefined } {
  const requests = blocks.map((b) => Math.log(b.head.load.requestsPerSec / b.base.load.requestsPerSec));
  const cpu = blocks.map((b) => cpuLogRatio(perRequest([b.base]), perRequest([b.head])));
  return { requests, cpu: cpu.every((x): x is number => x !== undefined) ? cpu : undefined };
}

/**
 * A round's duet check: the shared CPU's busy share (median of the blocks) and the load generator's; whether the
 * servers were saturated, which a saturating load needs for requests/s to compare their cost (a fixed rate asks
 * them not to be).
 */
export function duetFigures(blocks: readonly Pick<DuetBlock, 'coreBusy' | 'loadGeneratorBusy'>[], fixedRate: boolean): DuetFigures {
  const busy = blocks.map((b) => b.coreBusy).filter((x): x is number => x !== undefined);
  const coreBusy = busy.length === blocks.length && busy.length > 0 ? median(busy) : undefined;
  const loadGeneratorBusy = median(blocks.map((b) => b.loadGeneratorBusy));
  return {
    ...(coreBusy === undefined ? {} : { coreBusy }),
    loadGeneratorBusy,
    saturated: fixedRate || coreBusy === undefined ? undefined : coreBusy >= SATURATED,
  };
}
