import os from 'node:os';
import { median } from 'simple-statistics';
import { busyBetween, sampleCpu, type RoundConditions } from '../conditions.js';
import type { Revision } from '../../checkout/revisions.js';
import { LATENCY_STATS, type HttpBenchmarkConfig, type HttpMode, type LatencyStat } from '../../config/types.js';
import { describeExpected, expectsStatus } from '../../config/status.js';
import { messageOf } from '../../util/errors.js';
import { formatPath } from '../../util/format.js';
import type { BenchmarkSamples, MeasureProgress } from '../types.js';
import { latencyOf, preflight, runLoad, type LoadResult } from './load.js';
import { checkProbeFigures } from './probe-client.js';
import { ServerError, ServerProcess } from './server.js';
import { addTraffic, bodySizeMismatch, describeTraffic, failedRequests, requestLabels } from './traffic.js';
import type { CpuFigures, HttpRoundFigures, ProbeFigures, RateFigures, TrafficFigures } from './types.js';
import { runRateLoad } from './rate.js';
import type { InstructionCounter } from './instructions.js';
import { cpuBetween, cpuReadable, type CpuReading } from './cpu.js';
import { setTimeout as sleep } from 'node:timers/promises';

export interface HttpPlan {
  base: Revision;
  head: Revision;
  benchmarks: readonly HttpBenchmarkConfig[];
  mode: HttpMode;
  rounds: number;
  /** Date.now() by which measuring must be over: rounds that would not fit are not started. */
  deadline: number;
  probePath: string;
  socketDir: string;
  /** Length of one load block in `live` mode, ms. */
  blockMs?: number;
  /** Which server a pair of blocks loads first, from a number in [0, 1) (default Math.random); tests pass their own. */
  random?: () => number;
  /** Pause after each switch of server in `live` mode, before the next block (default 50 ms): the other server's after-work settles. */
  settleMs?: number;
  /** Counts each server's user-mode instructions around each block, where the machine has the counters (instructions.ts). */
  instructions?: InstructionCounter;
  /** Prefix for server commands that pins them to a core ("taskset -c 1 "), when pinning. */
  serverPrefix?: string;
  /**
   * Adaptive rounds, per load test: after `rounds`, every `lookEvery` rounds, stop once `decided`
   * (up to `maxRounds`, within the deadline); then a regression (`toConfirm`) must reproduce in
   * `confirmRounds` more rounds, on servers started anew, before it can fail the build.
   */
  adaptive?: {
    maxRounds: number;
    lookEvery: number;
    decided: (samples: BenchmarkSamples) => boolean;
    toConfirm: (samples: BenchmarkSamples) => boolean;
    confirmRounds: number;
  };
  log: (line: string) => void;
  onProgress?: (progress: MeasureProgress) => void;
  now?: () => number;
  /** Measures one round of one load test (default: by `mode`, on real servers); tests pass a fake. */
  measureRound?: (benchmark: HttpBenchmarkConfig, revisions: Record<Side, Revision>, round: number, plan: HttpPlan) => Promise<RoundPair>;
}

export interface HttpMeasurement {
  benchmarks: BenchmarkSamples[];
  /** How the CPUs were split between the servers and the load generator, when they were pinned. */
  cpus?: string;
  /** The machine's state in each completed round, all load tests in order. */
  conditions: RoundConditions[];
  rounds: number;
  plannedRounds: number;
  /** The most rounds any load test ran to confirm a regression (0 when none had to). */
  confirmRounds: number;
  limited: boolean;
  durationMs: number;
}

type Side = 'base' | 'head';
/**
 * One round of one load test: each revision's figures and ln(head / base) of requests/s; and of requests
 * per CPU-second of the main thread when both servers' CPU was read.
 */
export type RoundPair = Record<Side, HttpRoundFigures> & { logRatio: number; cpuLogRatio?: number };

/**
 * The budgeted figures of load tests, planned before any is measured: requests/s, requests per CPU-second
 * where this machine shows the servers' CPU (`withCpu`), and each latency budget.
 */
export function plannedFigures(benchmarks: readonly HttpBenchmarkConfig[], withCpu = cpuReadable()): number {
  return benchmarks.reduce((sum, b) => sum + 1 + (withCpu ? 1 : 0) + Object.keys(b.latencyBudget).length, 0);
}

/** What one round of a load test is expected to take: both revisions' warm-up and load, plus server start and stop. */
export function estimatedRoundMs(benchmark: HttpBenchmarkConfig): number {
  return 2 * (benchmark.warmupMs + benchmark.durationMs) + 1500;
}

/** A benchmark that cannot go on: the message is its `error` verdict. */
class BenchmarkFailure extends Error {}

/**
 * Run every HTTP benchmark's rounds, one benchmark after the other. Each round
 * yields one sample per metric: ln(head / base) of requests/s and of each latency figure.
 */
export async function measureHttp(plan: HttpPlan): Promise<HttpMeasurement> {
  const now = plan.now ?? Date.now;
  const started = now();
  const results: BenchmarkSamples[] = [];
  let rounds = 0;
  let confirmRounds = 0;
  let limited = false;
  const conditions: RoundConditions[] = [];
  const perRound = plan.benchmarks.map(estimatedRoundMs);
  const adaptive = plan.adaptive;
  const measureRound = plan.measureRound ?? (plan.mode === 'live' ? liveRound : freshRound);
  for (const benchmark of plan.benchmarks)
    if (benchmark.rate !== undefined && Object.keys(benchmark.latencyBudget).length === 0)
      plan.log(
        `${benchmark.id}: a fixed rate without a latency budget: a server that gets slower by waiting (a timer, a slower upstream) keeps the rate and its CPU per request, and only its latency shows it: set latency-budget (p50 or p99) to gate on it`,
      );
  for (const [index, benchmark] of plan.benchmarks.entries()) {
    const samples = emptySamples(benchmark);
    results.push(samples);
    const revisions = { base: plan.base, head: plan.head };
    let spent = 0;
    let done = 0;
    // Leave room for the rounds of the benchmarks still to come: each gets at least 2.
    const reserved = plan.benchmarks.slice(index + 1).reduce((sum, _b, i) => sum + 2 * perRound[index + 1 + i]!, 0);
    const estimate = () => (done > 0 ? spent / done : perRound[index]!);
    /** One round into the main samples or the confirmation group; false when it did not fit or failed. */
    const runRound = async (round: number, target: number, into: 'main' | 'confirmation', keepBack: number): Promise<boolean> => {
      if (now() + estimate() + reserved + keepBack > plan.deadline) return false;
      plan.onProgress?.({ round: round + 1, rounds: target, elapsedMs: now() - started, remainingMs: estimate() * (target - round) });
      const roundStart = now();
      const cpuBefore = sampleCpu();
      const load1 = os.loadavg()[0] ?? 0;
      try {
        const pair = await measureRound(benchmark, revisions, done, plan);
        if (into === 'main') record(samples, pair);
        else recordConfirmation(samples, pair);
        conditions.push({ busy: busyBetween(cpuBefore, sampleCpu()), load1 });
      } catch (error) {
        samples.error = error instanceof BenchmarkFailure || error instanceof ServerError ? error.message : `${messageOf(error)}`;
        plan.log(`${benchmark.id}: ${samples.error.split('\n')[0]}`);
        return false;
      }
      spent += now() - roundStart;
      done++;
      return true;
    };

    const maxRounds = adaptive ? Math.max(plan.rounds, adaptive.maxRounds) : plan.rounds;
    // As many fresh rounds as the first group ran (at least the first look's): as strong a test, on new servers.
    const confirmTarget = () =>
      adaptive && adaptive.confirmRounds > 0 ? Math.max(adaptive.confirmRounds, plan.rounds, samples.logRatios.length) : 0;
    for (let round = 0; round < maxRounds; round++) {
      const extra = round >= plan.rounds;
      // Extra rounds keep back the time a confirmation would need.
      if (!(await runRound(round, extra ? maxRounds : plan.rounds, 'main', extra ? confirmTarget() * estimate() : 0))) {
        if (!samples.error && !extra) {
          limited = true;
          plan.log(`${benchmark.id}: the time limit stops it after ${round} of ${plan.rounds} rounds`);
        }
        break;
      }
      rounds = Math.max(rounds, round + 1);
      const look = adaptive && round + 1 >= plan.rounds && (round + 1 - plan.rounds) % adaptive.lookEvery === 0;
      if (!look) continue;
      if (adaptive.decided(samples)) break;
      if (round + 1 === plan.rounds && maxRounds > plan.rounds)
        plan.log(`${benchmark.id}: no verdict after ${plan.rounds} rounds: adding rounds (up to ${maxRounds})`);
    }
    const target = confirmTarget();
    if (!samples.error && target > 0 && adaptive!.toConfirm(samples)) {
      plan.log(`${benchmark.id}: confirming the regression with ${target} more rounds on new servers`);
      let confirmed = 0;
      while (confirmed < target && (await runRound(confirmed, target, 'confirmation', 0))) confirmed++;
      confirmRounds = Math.max(confirmRounds, confirmed);
    }
  }
  return { benchmarks: results, rounds, plannedRounds: plan.rounds, confirmRounds, limited, durationMs: now() - started, conditions };
}

function emptySamples(benchmark: HttpBenchmarkConfig): BenchmarkSamples {
  return {
    id: benchmark.id,
    kind: 'http',
    file: undefined,
    logRatios: [],
    base: { opsPerSec: [] },
    head: { opsPerSec: [] },
    latency: noLatency(),
    cpu: [],
    http: { base: [], head: [], config: benchmark },
  };
}

/** A confirmation round: its throughput and latency ratios go to the fresh group, not the main samples. */
function recordConfirmation(samples: BenchmarkSamples, pair: RoundPair): void {
  (samples.confirmation ??= []).push(pair.logRatio);
  pushLatencyRatios((samples.confirmationLatency ??= noLatency()), pair);
  samples.confirmationCpu = pushCpu(
    samples.confirmationCpu ?? (samples.confirmation.length === 1 ? [] : undefined),
    pair,
    samples.confirmation.length,
  );
}

/** A round's CPU ratio onto a figure kept per round, or not at all: a figure with holes would pair the wrong rounds. */
function pushCpu(ratios: number[] | undefined, pair: RoundPair, rounds: number): number[] | undefined {
  if (pair.cpuLogRatio === undefined || ratios?.length !== rounds - 1) return undefined;
  ratios.push(pair.cpuLogRatio);
  return ratios;
}

function record(samples: BenchmarkSamples, pair: RoundPair): void {
  samples.logRatios.push(pair.logRatio);
  samples.base!.opsPerSec.push(pair.base.requestsPerSec);
  samples.head!.opsPerSec.push(pair.head.requestsPerSec);
  pushLatencyRatios(samples.latency!, pair);
  samples.http!.base.push(pair.base);
  samples.http!.head.push(pair.head);
  const cpu = pushCpu(samples.cpu, pair, samples.logRatios.length);
  if (cpu) samples.cpu = cpu;
  else delete samples.cpu;
}

function noLatency(): Record<LatencyStat, number[]> {
  return { p50: [], p90: [], p99: [], mean: [] };
}

/** ln(head / base) of each latency figure of a round (higher is slower). */
function pushLatencyRatios(into: Record<LatencyStat, number[]>, pair: RoundPair): void {
  for (const stat of LATENCY_STATS) into[stat].push(Math.log(pair.head.latency[stat] / pair.base.latency[stat]));
}

export function serverOptions(
  benchmark: HttpBenchmarkConfig,
  revision: Revision,
  plan: Pick<HttpPlan, 'serverPrefix' | 'probePath' | 'socketDir'>,
) {
  return {
    command: `${plan.serverPrefix ?? ''}${benchmark.start}`,
    cwd: revision.root,
    readyPath: benchmark.ready,
    readyTimeoutMs: benchmark.readyTimeoutMs,
    probePath: plan.probePath,
    socketDir: plan.socketDir,
    label: `${revision.label} (${revision.ref} @ ${revision.sha.slice(0, 7)})`,
  };
}

/** Design (a): a fresh server per revision, one after the other, in AB BA order across rounds. */
async function freshRound(
  benchmark: HttpBenchmarkConfig,
  revisions: Record<Side, Revision>,
  round: number,
  plan: HttpPlan,
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
      server.checkAlive('under load');
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
async function measureCapacity(benchmark: HttpBenchmarkConfig, revisions: Record<Side, Revision>, plan: HttpPlan): Promise<void> {
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

/** How long a saturating load measures a warm server's capacity for `rate: auto`: its warm-up's length, at least a second. */
const capacityMs = (benchmark: HttpBenchmarkConfig) => Math.max(benchmark.warmupMs, 1000);

/**
 * Design (b): both revisions' servers live at once (started in alternating
 * order on fresh ports each round), the load alternating between them in short
 * blocks, in pairs whose first server is drawn at random (a fixed ABAB order can
 * keep time with periodic work, GC or a timer, in one server), with a pause to
 * settle after each switch; the round's figures are the medians of the pairs' ratios.
 */
async function liveRound(
  benchmark: HttpBenchmarkConfig,
  revisions: Record<Side, Revision>,
  round: number,
  plan: HttpPlan,
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
    const results: Record<Side, Block[]> = { base: [], head: [] };
    const ratios: number[] = [];
    const cpuRatios: (number | undefined)[] = [];
    for (const first of pairOrders(blocks, plan.random ?? Math.random)) {
      const pair: Partial<Record<Side, Block>> = {};
      for (const side of [first, other(first)]) {
        await sleep(plan.settleMs ?? 50);
        const server = servers[side]!;
        await server.probe('resume');
        pair[side] = await measuredBlock(server, () => load(side, blockMs), plan.instructions);
        await server.probe('pause');
        server.checkAlive('under load');
        results[side].push(pair[side]);
      }
      ratios.push(Math.log(pair.head!.load.requestsPerSec / pair.base!.load.requestsPerSec));
      cpuRatios.push(cpuLogRatio(perRequest([pair.base!]), perRequest([pair.head!])));
    }
    const figures = {} as Record<Side, HttpRoundFigures>;
    for (const side of ['base', 'head'] as const) {
      const probe = checkProbeFigures((await servers[side]!.probe<{ figures?: unknown }>('stop'))?.figures);
      figures[side] = pool(results[side], probe);
    }
    const silent = (side: Side) => results[side].filter((block) => block.load.traffic.ok === 0).map(() => blockMs);
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
    for (const server of Object.values(servers)) await server.stop();
  }
}

/** For each pair of blocks, the server it loads first: base or head, at random. */
export function pairOrders(pairs: number, random: () => number): Side[] {
  return Array.from({ length: pairs }, () => (random() < 0.5 ? 'base' : 'head'));
}

const other = (side: Side): Side => (side === 'base' ? 'head' : 'base');

/** One load block, with what the server's threads used of the CPU over it (read just before and just after), and its instructions where counted. */
interface Block {
  load: LoadResult;
  cpu: CpuReading | undefined;
  instructions?: number | undefined;
}

export async function measuredBlock(server: ServerProcess, run: () => Promise<LoadResult>, counter?: InstructionCounter): Promise<Block> {
  const counting = counter && server.cpuPid !== undefined ? counter.start(server.cpuPid) : undefined;
  try {
    const before = server.cpu();
    const load = await run();
    const after = server.cpu();
    return { load, cpu: before && after ? cpuBetween(before, after) : undefined, instructions: await counting?.stop() };
  } finally {
    // A load that failed still ends its perf (stop() runs once; here it only waits for the first call's end).
    await counting?.stop();
  }
}

/** CPU per request answered as expected, over blocks; undefined when a block's CPU is unknown or nothing was answered. */
export function perRequest(blocks: readonly Block[]): CpuFigures | undefined {
  const ok = blocks.reduce((sum, b) => sum + b.load.traffic.ok, 0);
  if (ok === 0 || blocks.some((b) => b.cpu === undefined)) return undefined;
  const sum = (f: (cpu: CpuReading) => number) => blocks.reduce((total, b) => total + f(b.cpu!), 0) / ok;
  const counted = blocks.every((b) => b.instructions !== undefined);
  return {
    mainNs: sum((c) => c.mainNs),
    processNs: sum((c) => c.processNs),
    mainWaitNs: sum((c) => c.mainWaitNs),
    ...(counted ? { instructions: blocks.reduce((total, b) => total + b.instructions!, 0) / ok } : {}),
  };
}

/** ln(head / base) of requests per CPU-second of the main thread: ln(base's CPU per request / head's). */
export function cpuLogRatio(base: CpuFigures | undefined, head: CpuFigures | undefined): number | undefined {
  if (!base || !head || !(base.mainNs > 0) || !(head.mainNs > 0)) return undefined;
  return Math.log(base.mainNs / head.mainNs);
}

/**
 * The benchmark's load on one server, for a bounded time: saturating (autocannon), or at its fixed rate
 * once known (`rate: auto` is known after the first warm-up of both servers).
 */
function loadOn(server: ServerProcess, benchmark: HttpBenchmarkConfig, durationMs: number): Promise<LoadResult> {
  const options = { port: server.port, requests: benchmark.requests, connections: benchmark.connections, durationMs };
  const rate = rateOf(benchmark);
  return rate === undefined ? runLoad(options) : runRateLoad({ ...options, rate });
}

/** `rate: auto`'s rate per load test, once its servers' capacity was measured. */
const autoRates = new WeakMap<HttpBenchmarkConfig, number>();

/** The share of the slower server's capacity that `rate: auto` asks of both. */
export const AUTO_RATE_SHARE = 0.5;

function rateOf(benchmark: HttpBenchmarkConfig): number | undefined {
  return benchmark.rate === 'auto' ? autoRates.get(benchmark) : benchmark.rate;
}

/**
 * `rate: auto`: half the slower server's requests/s in a saturating load after its warm-up (each side's, in
 * `capacity`), once per load test, before its first measured block; said in the log.
 */
function settleAutoRate(benchmark: HttpBenchmarkConfig, capacity: Record<Side, LoadResult>, plan: HttpPlan): void {
  const slower = Math.min(capacity.base.requestsPerSec, capacity.head.requestsPerSec);
  if (!(slower >= 2))
    throw new BenchmarkFailure(
      `${benchmark.where}: rate: auto needs a capacity to take a share of, but the slower server answered ${slower.toFixed(1)} requests/s when saturated: set rate: to a number.`,
    );
  const rate = Math.max(1, Math.round(slower * AUTO_RATE_SHARE));
  autoRates.set(benchmark, rate);
  plan.log(
    `${benchmark.id}: rate auto: ${rate} requests/s, ${AUTO_RATE_SHARE * 100}% of the slower server's capacity (base ${Math.round(capacity.base.requestsPerSec)}/s, head ${Math.round(capacity.head.requestsPerSec)}/s saturated)`,
  );
}

/** One side's blocks as one round's figures. */
function pool(blocks: Block[], probe: ProbeFigures | undefined): HttpRoundFigures {
  const loads = blocks.map((b) => b.load);
  const elapsed = loads.reduce((sum, b) => sum + b.elapsedMs, 0);
  const traffic = loads.map((b) => b.traffic).reduce(addTraffic);
  const cpu = perRequest(blocks);
  const rate = poolRate(loads);
  return {
    requestsPerSec: (traffic.ok / elapsed) * 1000,
    ...(rate ? { rate } : {}),
    ...(cpu ? { cpuPerRequest: cpu } : {}),
    latency: latencyOf(loads.flatMap((b) => b.times)),
    traffic,
    probe,
  };
}

/** Fixed-rate blocks' checks as one: the rate asked, answers per second over all their windows, the share of requests sent late. */
export function poolRate(loads: readonly Pick<LoadResult, 'rate' | 'elapsedMs' | 'traffic'>[]): RateFigures | undefined {
  const rated = loads.filter((l) => l.rate);
  if (rated.length === 0 || rated.length !== loads.length) return undefined;
  const window = rated.reduce((sum, l) => sum + l.elapsedMs, 0);
  const ok = rated.reduce((sum, l) => sum + l.traffic.ok, 0);
  const asked = rated[0]!.rate!.asked;
  const sent = rated.reduce((sum, l) => sum + (l.rate!.asked * l.elapsedMs) / 1000, 0);
  const late = rated.reduce((sum, l) => sum + (l.rate!.lateShare * l.rate!.asked * l.elapsedMs) / 1000, 0);
  return { asked, reached: window > 0 ? (ok / window) * 1000 : 0, lateShare: sent > 0 ? late / sent : 0 };
}

function order(round: number): Side[] {
  return round % 2 === 0 ? ['base', 'head'] : ['head', 'base'];
}

const preflightStatus = new WeakMap<HttpBenchmarkConfig, Partial<Record<Side, number[]>>>();

/**
 * Before the first load, send each request once to each revision: a request
 * that answers what it does not expect at both is a config error (a wrong path,
 * or a status to declare), one that does at head only is a broken head. Either
 * way the message names the request and the status it expects.
 */
async function checkRequests(
  benchmark: HttpBenchmarkConfig,
  server: ServerProcess,
  side: Side,
  revisions: Record<Side, Revision>,
  plan: HttpPlan,
): Promise<void> {
  const statuses = preflightStatus.get(benchmark) ?? {};
  statuses[side] = await preflight(server.port, benchmark.requests);
  preflightStatus.set(benchmark, statuses);
  if (!statuses.base || !statuses.head) return;
  const file = benchmark.where.split(':')[0];
  benchmark.requests.forEach((request, i) => {
    const base = statuses.base![i]!;
    const head = statuses.head![i]!;
    const ok = (status: number) => expectsStatus(request.status, status);
    const expected = describeExpected(request.status);
    const what = `${request.method} ${formatPath(request.path)} (${benchmark.where}.requests[${i}])`;
    if (!ok(base) && !ok(head)) {
      const sameAnswer = base === head && base !== 0;
      throw new BenchmarkFailure(
        `config error: ${what} answered ${statusText(base)} at base and ${statusText(head)} at head, where ${expected} is expected: ` +
          (sameAnswer
            ? `check the request's path in ${file}, or set its status: ${base} if that is the answer to load-test.`
            : `check the request in ${file}.`),
      );
    }
    if (!ok(head))
      throw new BenchmarkFailure(
        `head is broken: ${what} answered ${statusText(head)} at head (${revisions.head.ref}) but ${base} at base (expected ${expected}).`,
      );
    if (!ok(base)) plan.log(`${benchmark.id}: ${what} answered ${statusText(base)} at base but ${head} at head (expected ${expected})`);
  });
}

function statusText(status: number): string {
  return status === 0 ? 'no response' : String(status);
}

/**
 * A head that fails requests is an error, never a fast server: its failed requests would look like speed.
 * A failed request is one answered with a status it does not expect, or not answered at all.
 * So is a load (or a block of one) that ran to its deadline with no successful answer at either side: a
 * hung server, whose figure of 0 requests/s is no measurement. `silent` lists, per side, the length
 * of each such load.
 */
function judgeTraffic(
  benchmark: HttpBenchmarkConfig,
  base: HttpRoundFigures,
  head: HttpRoundFigures,
  logRatio: number,
  silent: Record<Side, number[]>,
  servers?: Record<Side, ServerProcess>,
): RoundPair {
  const bad = failedRequests;
  const tolerated = (t: TrafficFigures) => Math.max(5, 0.001 * (t.responses + t.errors));
  const labels = requestLabels(benchmark.requests);
  if (bad(head.traffic) > tolerated(head.traffic) && bad(head.traffic) > 2 * bad(base.traffic)) {
    throw new BenchmarkFailure(
      `head is broken under load: ${describeTraffic(head.traffic, labels)} (base: ${bad(base.traffic) ? describeTraffic(base.traffic, labels) : 'none'}).`,
    );
  }
  for (const side of ['head', 'base'] as const) {
    const loads = silent[side];
    if (!loads.length) continue;
    const figures = side === 'base' ? base : head;
    throw new BenchmarkFailure(
      `${servers?.[side]?.label ?? side}'s server answered no request with an expected status in ${loads.length === 1 ? 'a' : loads.length} ${(loads[0]! / 1000).toFixed(1)}s load${loads.length === 1 ? '' : 's'} (${describeTraffic(figures.traffic, labels)}; requests still waiting at the deadline count as unanswered): a hung server, not a measurement.${servers?.[side]?.output() ?? ''}`,
    );
  }
  const mismatch = bodySizeMismatch(base.traffic, head.traffic);
  if (mismatch) throw new BenchmarkFailure(mismatch);
  if (!(logRatio > -Infinity && logRatio < Infinity))
    throw new BenchmarkFailure(`${benchmark.id}: no successful responses to compare (base ${base.traffic.ok}, head ${head.traffic.ok}).`);
  return { base, head, logRatio };
}
