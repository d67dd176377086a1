import { median } from 'simple-statistics';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Revision } from '../../checkout/revisions.js';
import type { HttpBenchmarkConfig } from '../../config/types.js';
import type { LoadResult } from './load.js';
import { checkProbeFigures } from './probe-client.js';
import { tooManyFailures } from './traffic.js';
import { ServerProcess, stopAll } from './server.js';
import type { HttpRoundFigures } from './types.js';
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
  measuredBlock,
  order,
  other,
  perRequest,
  pool,
  serverOptions,
  settleAutoRate,
  type Block,
  type RoundPair,
  type RoundSettings,
  type Side,
} from './round.js';

/** The alternating modes: one server loaded at a time (`fresh`: a new server per revision per round; `live`: both up, blocks in turn). */

/** Design (a): a fresh server per revision, one after the other, in AB BA order across rounds. */
export async function freshRound(
  benchmark: HttpBenchmarkConfig,
  revisions: Record<Side, Revision>,
  round: number,
  plan: RoundSettings,
): Promise<RoundPair> {
  const figures: Partial<Record<Side, HttpRoundFigures>> = {};
  if (benchmark.rate === 'auto' && !autoRates.has(benchmark)) await measureCapacity(benchmark, revisions, plan);
  for (const side of order(round)) {
    const server = await ServerProcess.start(serverOptions(benchmark, revisions[side], plan));
    try {
      if (round === 0) await checkRequests(benchmark, server, side, revisions, plan);
      await loadOn(server, benchmark, benchmark.warmupMs);
      server.checkAlive('during the warm-up');
      await server.probe('start');
      const block = await measuredBlock(server, () => loadOn(server, benchmark, benchmark.durationMs), plan.instructions);
      const probe = checkProbeFigures((await server.probe<{ figures?: unknown }>('stop'))?.figures);
      await server.checkAliveAfterFailures('under load', tooManyFailures(block.load.traffic));
      figures[side] = pool([block], probe);
    } finally {
      await server.stop();
    }
  }
  const pair = judgeTraffic(
    benchmark,
    figures.base!,
    figures.head!,
    Math.log(figures.head!.requestsPerSec / figures.base!.requestsPerSec),
    {
      base: figures.base!.traffic.ok === 0 ? [benchmark.durationMs] : [],
      head: figures.head!.traffic.ok === 0 ? [benchmark.durationMs] : [],
    },
  );
  const cpu = cpuLogRatio(figures.base!.cpuPerRequest, figures.head!.cpuPerRequest);
  return cpu === undefined ? pair : { ...pair, cpuLogRatio: cpu };
}

/** `rate: auto` in `fresh` mode: each revision's server once, warmed up, then saturated: its requests/s is its capacity. */
async function measureCapacity(benchmark: HttpBenchmarkConfig, revisions: Record<Side, Revision>, plan: RoundSettings): Promise<void> {
  const capacity = {} as Record<Side, LoadResult>;
  for (const side of order(0)) {
    const server = await ServerProcess.start(serverOptions(benchmark, revisions[side], plan));
    try {
      await checkRequests(benchmark, server, side, revisions, plan);
      await loadOn(server, benchmark, benchmark.warmupMs);
      capacity[side] = await loadOn(server, benchmark, capacityMs(benchmark));
      server.checkAlive('under load');
    } finally {
      await server.stop();
    }
  }
  settleAutoRate(benchmark, capacity, plan);
}

/**
 * Design (b): both revisions' servers live at once (started in alternating
 * order on fresh ports each round), the load alternating between them in short
 * blocks, in pairs whose first server is drawn at random (a fixed ABAB order can
 * keep time with periodic work, GC or a timer, in one server), with a pause to
 * settle after each switch; the round's figures are the medians of the pairs' ratios.
 */
export async function liveRound(
  benchmark: HttpBenchmarkConfig,
  revisions: Record<Side, Revision>,
  round: number,
  plan: RoundSettings,
): Promise<RoundPair> {
  const servers: Partial<Record<Side, ServerProcess>> = {};
  try {
    for (const side of order(round)) {
      servers[side] = await ServerProcess.start(serverOptions(benchmark, revisions[side], plan));
      if (round === 0) await checkRequests(benchmark, servers[side], side, revisions, plan);
    }
    const load = (side: Side, durationMs: number) => loadOn(servers[side]!, benchmark, durationMs);
    for (const side of order(round)) await load(side, benchmark.warmupMs);
    if (benchmark.rate === 'auto' && !autoRates.has(benchmark)) {
      // Each warm server's capacity, saturated; then a warm-up at the rate it sets.
      const capacity = {} as Record<Side, LoadResult>;
      for (const side of order(round)) capacity[side] = await load(side, capacityMs(benchmark));
      settleAutoRate(benchmark, capacity, plan);
      for (const side of order(round)) await load(side, benchmark.warmupMs);
    }
    for (const side of order(round)) {
      await servers[side]!.probe('start');
      await servers[side]!.probe('pause');
    }
    const blockMs = Math.min(plan.blockMs ?? 1000, benchmark.durationMs);
    const blocks = Math.max(2, Math.round(benchmark.durationMs / blockMs));
    const random = plan.random ?? Math.random;
    const pairs: Record<Side, Block>[] = [];
    const measurePair = async (first: Side) => {
      const pair: Partial<Record<Side, Block>> = {};
      for (const side of [first, other(first)]) {
        await sleep(plan.settleMs ?? 50);
        const server = servers[side]!;
        await server.probe('resume');
        pair[side] = await measuredBlock(server, () => load(side, blockMs), plan.instructions);
        await server.probe('pause');
        server.checkAlive('under load');
      }
      pairs.push(pair as Record<Side, Block>);
    };
    for (const first of pairOrders(blocks, random)) await measurePair(first);
    // A server silent in the last pair gets more pairs (as many as the round had, at most): one it answers in shows a pause, not a hang.
    for (let extra = 0; extra < blocks && endsSilent(pairs.map(answeredIn)); extra++) await measurePair(pairOrders(1, random)[0]!);
    const measured = keepAnswered(pairs, benchmark.id, round, blockMs, plan.log);
    const ratios = measured.map((pair) => Math.log(pair.head.load.requestsPerSec / pair.base.load.requestsPerSec));
    const cpuRatios = measured.map((pair) => cpuLogRatio(perRequest([pair.base]), perRequest([pair.head])));
    const figures = {} as Record<Side, HttpRoundFigures>;
    for (const side of ['base', 'head'] as const) {
      const probe = checkProbeFigures((await servers[side]!.probe<{ figures?: unknown }>('stop'))?.figures);
      figures[side] = pool(
        measured.map((pair) => pair[side]),
        probe,
      );
    }
    await Promise.all(
      (['base', 'head'] as const).map((side) =>
        servers[side]!.checkAliveAfterFailures('under load', tooManyFailures(figures[side].traffic)),
      ),
    );
    const silent = (side: Side) => measured.filter((pair) => pair[side].load.traffic.ok === 0).map(() => blockMs);
    const pair = judgeTraffic(
      benchmark,
      figures.base,
      figures.head,
      median(ratios),
      { base: silent('base'), head: silent('head') },
      servers as Record<Side, ServerProcess>,
    );
    const measuredCpu = cpuRatios.filter((x): x is number => x !== undefined);
    return measuredCpu.length === cpuRatios.length ? { ...pair, cpuLogRatio: median(measuredCpu) } : pair;
  } finally {
    await stopAll(Object.values(servers));
  }
}

/** For each pair of blocks, the server it loads first: base or head, at random. */
export function pairOrders(pairs: number, random: () => number): Side[] {
  return Array.from({ length: pairs }, () => (random() < 0.5 ? 'base' : 'head'));
}
