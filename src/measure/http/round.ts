import type { Revision } from '../../checkout/revisions.js';
import type { HttpBenchmarkConfig } from '../../config/types.js';
import { describeExpected, expectsStatus } from '../../config/status.js';
import { formatPath } from '../../util/format.js';
import { latencyOf, preflight, runLoad, type LoadResult } from './load.js';
import { ServerProcess } from './server.js';
import { addTraffic, bodySizeMismatch, describeTraffic, failedRequests, requestLabels, tooManyFailures } from './traffic.js';
import type { CpuFigures, HttpRoundFigures, ProbeFigures, RateFigures } from './types.js';
import { runRateLoad } from './rate.js';
import type { InstructionCounter } from './instructions.js';
import { cpuBetween, type CpuReading } from './cpu.js';
import type { DuetPlan, RoundSeries } from './planner.js';

/**
 * What every kind of round (fresh, live, duet) shares: the servers' options, a measured load block, the
 * figures pooled from blocks, the checks of what the servers answered. The scheduler (schedule.ts) decides
 * rounds and looks; a round (alternate.ts, duet.ts) measures one.
 */

/** What a round needs of the run. */
export interface RoundSettings {
  probePath: string;
  socketDir: string;
  /** Length of one load block in `live` and `duet` mode, ms. */
  blockMs?: number;
  /**
   * Random choices of a round (which server a pair of blocks loads first, which server starts first), from [0, 1)
   * (default Math.random); tests pass their own.
   */
  random?: () => number;
  /** Pause after each switch of server in `live` mode, before the next block (default 50 ms): the other server's after-work settles. */
  settleMs?: number;
  /** Counts each server's user-mode instructions around each block, where the machine has the counters (instructions.ts). */
  instructions?: InstructionCounter;
  /** Prefix for server commands that pins them to a core ("taskset -c 1 "), when pinning. */
  serverPrefix?: string;
  /** `duet`: the one CPU both servers are pinned to, whose busy share each block checks (undefined: not pinned, not checked). */
  sharedCpu?: number;
  /** `duet` with the schedule chosen per run (planner.ts): this round's warm-up and blocks; undefined: the load test's duration in blocks. */
  duetPlan?: DuetPlan;
  log: (line: string) => void;
}

export type Side = 'base' | 'head';
/**
 * One round of one load test: each revision's figures and ln(head / base) of requests/s; and of requests
 * per CPU-second of the main thread when both servers' CPU was read.
 */
export type RoundPair = Record<Side, HttpRoundFigures> & {
  logRatio: number;
  cpuLogRatio?: number;
  /** A duet round's blocks, each ln(head / base), and how long they took: what the planner reads (planner.ts). */
  series?: Omit<RoundSeries, 'roundMs'>;
};

/** A benchmark that cannot go on: the message is its `error` verdict. */
export class BenchmarkFailure extends Error {}

export function serverOptions(
  benchmark: HttpBenchmarkConfig,
  revision: Revision,
  plan: Pick<RoundSettings, 'serverPrefix' | 'probePath' | 'socketDir'>,
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

/** How long a saturating load measures a warm server's capacity for `rate: auto`: its warm-up's length, at least a second. */
export const capacityMs = (benchmark: HttpBenchmarkConfig) => Math.max(benchmark.warmupMs, 1000);

export const other = (side: Side): Side => (side === 'base' ? 'head' : 'base');

/** One load block, with what the server's threads used of the CPU over it (read just before and just after), and its instructions where counted. */
export interface Block {
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
export function loadOn(server: Pick<ServerProcess, 'port'>, benchmark: HttpBenchmarkConfig, durationMs: number): Promise<LoadResult> {
  const options = { port: server.port, requests: benchmark.requests, connections: benchmark.connections, durationMs };
  const rate = rateOf(benchmark);
  return rate === undefined ? runLoad(options) : runRateLoad({ ...options, rate });
}

/** `rate: auto`'s rate per load test, once its servers' capacity was measured. */
export const autoRates = new WeakMap<HttpBenchmarkConfig, number>();

/** The share of the slower server's capacity that `rate: auto` asks of both. */
export const AUTO_RATE_SHARE = 0.5;

export function rateOf(benchmark: HttpBenchmarkConfig): number | undefined {
  return benchmark.rate === 'auto' ? autoRates.get(benchmark) : benchmark.rate;
}

/**
 * `rate: auto`: half the slower server's requests/s in a saturating load after its warm-up (each side's, in
 * `capacity`), once per load test, before its first measured block; said in the log.
 */
export function settleAutoRate(benchmark: HttpBenchmarkConfig, capacity: Record<Side, LoadResult>, plan: Pick<RoundSettings, 'log'>): void {
  const slower = Math.min(capacity.base.requestsPerSec, capacity.head.requestsPerSec);
  if (!(slower >= 2))
    throw new BenchmarkFailure(
      `${benchmark.where}: rate: auto needs a capacity to take a share of, but the slower ` +
        `server answered ${slower.toFixed(1)} requests/s when saturated: set rate: to a number.`,
    );
  const rate = Math.max(1, Math.round(slower * AUTO_RATE_SHARE));
  autoRates.set(benchmark, rate);
  plan.log(
    `${benchmark.id}: rate auto: ${rate} requests/s, ${AUTO_RATE_SHARE * 100}% of the slower server's capacity (base ` +
      `${Math.round(capacity.base.requestsPerSec)}/s, head ${Math.round(capacity.head.requestsPerSec)}/s saturated)`,
  );
}

/** One side's blocks as one round's figures. */
export function pool(blocks: Block[], probe: ProbeFigures | undefined): HttpRoundFigures {
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

export function order(round: number): Side[] {
  return round % 2 === 0 ? ['base', 'head'] : ['head', 'base'];
}

const preflightStatus = new WeakMap<HttpBenchmarkConfig, Partial<Record<Side, number[]>>>();

/**
 * Before the first load, send each request once to each revision: a request
 * that answers what it does not expect at both is a config error (a wrong path,
 * or a status to declare), one that does at head only is a broken head. Either
 * way the message names the request and the status it expects.
 */
export async function checkRequests(
  benchmark: HttpBenchmarkConfig,
  server: Pick<ServerProcess, 'port'>,
  side: Side,
  revisions: Record<Side, Revision>,
  plan: Pick<RoundSettings, 'log'>,
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

/** Which side answered (with an expected status) in each block, or pair of blocks, of a round. */
export type Answered = Record<Side, boolean>;

/** True while the round's last block has a side that answered nothing: one more block tells a pause from a hang. */
export function endsSilent(blocks: readonly Answered[]): boolean {
  const last = blocks[blocks.length - 1];
  return last !== undefined && !(last.base && last.head);
}

/**
 * A block in which a server answered nothing is no figure of its code when that server answers again in a later
 * block of the same round: it was starved of its CPU or paused for the whole block (a loaded machine: seen once in
 * a 0.3 s duet block under a load of 7, with 220 answers in the round's other block). Such blocks (and their
 * pairs) are left out of the round; the server's own pauses still show in its latency and event-loop delay, which
 * the probe measures over the whole round. A side that answers in no later block keeps its silent blocks, which
 * judgeTraffic calls a hung server. Returns the indexes kept and, per side, the blocks left out.
 */
export function leaveOutPaused(blocks: readonly Answered[]): { kept: number[]; leftOut: Record<Side, number> } {
  const answersLater = (side: Side, i: number) => blocks.slice(i + 1).some((b) => b[side]);
  const leftOut: Record<Side, number> = { base: 0, head: 0 };
  const kept: number[] = [];
  blocks.forEach((block, i) => {
    const paused = (['base', 'head'] as const).filter((side) => !block[side] && answersLater(side, i));
    for (const side of paused) leftOut[side]++;
    if (paused.length === 0) kept.push(i);
  });
  return { kept, leftOut };
}

/** Which side of a block (or pair of blocks) answered with an expected status. */
export function answeredIn(pair: Record<Side, Pick<Block, 'load'>>): Answered {
  return { base: pair.base.load.traffic.ok > 0, head: pair.head.load.traffic.ok > 0 };
}

/** A round's blocks (or pairs) without those leaveOutPaused leaves out, which the log names. */
export function keepAnswered<T extends Record<Side, Pick<Block, 'load'>>>(
  pairs: readonly T[],
  benchmarkId: string,
  round: number,
  blockMs: number,
  log: (line: string) => void,
): T[] {
  const { kept, leftOut } = leaveOutPaused(pairs.map(answeredIn));
  const paused = pausedLine(benchmarkId, round, leftOut, pairs.length, blockMs);
  if (paused) log(paused);
  return kept.map((i) => pairs[i]!);
}

/** "round 5: head's server answered nothing in 1 of 3 0.3s blocks, then answered again: …" */
export function pausedLine(
  benchmarkId: string,
  round: number,
  leftOut: Record<Side, number>,
  blocks: number,
  blockMs: number,
): string | undefined {
  const sides = (['base', 'head'] as const).filter((side) => leftOut[side] > 0);
  if (sides.length === 0) return undefined;
  const what = sides
    .map((side) => `${side}'s server answered nothing in ${leftOut[side]} of ${blocks} ${(blockMs / 1000).toFixed(1)}s blocks`)
    .join(' and ');
  return (
    `${benchmarkId} round ${round + 1}: ${what}, then answered again: left out of the round (starved of ` +
    `the CPU or paused for a whole block; a pause of its own shows in its latency and event-loop delay)`
  );
}

/**
 * A head that fails requests is an error, never a fast server: its failed requests would look like speed.
 * A failed request is one answered with a status it does not expect, or not answered at all.
 * So is a load (or a block of one) that ran to its deadline with no successful answer at either side: a
 * hung server, whose figure of 0 requests/s is no measurement. `silent` lists, per side, the length
 * of each such load.
 */
export function judgeTraffic(
  benchmark: HttpBenchmarkConfig,
  base: HttpRoundFigures,
  head: HttpRoundFigures,
  logRatio: number,
  silent: Record<Side, number[]>,
  servers?: Record<Side, Pick<ServerProcess, 'label' | 'output'>>,
): RoundPair {
  const bad = failedRequests;
  const labels = requestLabels(benchmark.requests);
  if (tooManyFailures(head.traffic) && bad(head.traffic) > 2 * bad(base.traffic)) {
    throw new BenchmarkFailure(
      `head is broken under load: ${describeTraffic(head.traffic, labels)} (base: ${bad(base.traffic) ? describeTraffic(base.traffic, labels) : 'none'}).`,
    );
  }
  for (const side of ['head', 'base'] as const) {
    const loads = silent[side];
    if (!loads.length) continue;
    const figures = side === 'base' ? base : head;
    throw new BenchmarkFailure(
      `${servers?.[side]?.label ?? side}'s server answered no request with an expected status in ` +
        `${loads.length === 1 ? 'a' : loads.length} ${(loads[0]! / 1000).toFixed(1)}s load${loads.length === 1 ? '' : 's'} ` +
        `(${describeTraffic(figures.traffic, labels)}; requests still waiting at the ` +
        `deadline count as unanswered): a hung server, not a measurement.${servers?.[side]?.output() ?? ''}`,
    );
  }
  const mismatch = bodySizeMismatch(base.traffic, head.traffic);
  if (mismatch) throw new BenchmarkFailure(mismatch);
  if (!(logRatio > -Infinity && logRatio < Infinity))
    throw new BenchmarkFailure(`${benchmark.id}: no successful responses to compare (base ${base.traffic.ok}, head ${head.traffic.ok}).`);
  return { base, head, logRatio };
}
