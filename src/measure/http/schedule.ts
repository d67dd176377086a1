import os from 'node:os';
import { busyBetween, sampleCpu, type RoundConditions } from '../conditions.js';
import type { Revision } from '../../checkout/revisions.js';
import { LATENCY_STATS, type HttpBenchmarkConfig, type HttpMode, type LatencyStat } from '../../config/types.js';
import { messageOf } from '../../util/errors.js';
import type { BenchmarkSamples, MeasureProgress, RoundBlocks } from '../types.js';
import { ServerError } from './server.js';
import { cpuReadable } from './cpu.js';
import { freshRound, liveRound } from './alternate.js';
import { duetRound } from './duet.js';
import { BenchmarkFailure, type RoundPair, type RoundSettings, type Side } from './round.js';
import { DuetPlanner, type DuetPlan } from './planner.js';
import { firstGroup, wholeGroup } from '../confirmation.js';

/** How many of a load test's last rounds estimate what its next round takes. */
const RECENT_ROUNDS = 5;

/** How one round of a load test is measured, by the run's http-mode. */
const ROUNDS: Record<HttpMode, NonNullable<HttpPlan['measureRound']>> = { fresh: freshRound, live: liveRound, duet: duetRound };

export interface HttpPlan extends RoundSettings {
  base: Revision;
  head: Revision;
  benchmarks: readonly HttpBenchmarkConfig[];
  mode: HttpMode;
  rounds: number;
  /** Date.now() by which measuring must be over: rounds that would not fit are not started. */
  deadline: number;
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
    /**
     * The fresh rounds a regression is confirmed with first (the gate's, from stats/power.ts roundsToConfirm), given
     * the whole group's size (confirmation.ts firstGroup): where they do not show it, the fresh group goes on to the
     * whole. Absent: the whole group at once.
     */
    confirmSize?: (samples: BenchmarkSamples, full: number) => number;
    /** The rounds of the early look (the rule's earlyRounds), before the planned ones; none when absent. */
    earlyLook?: number;
  };
  onProgress?: (progress: MeasureProgress) => void;
  now?: () => number;
  /** Measures one round of one load test (default: by `mode`, on real servers); tests pass a fake. */
  measureRound?: (
    benchmark: HttpBenchmarkConfig,
    revisions: Record<Side, Revision>,
    round: number,
    settings: RoundSettings,
  ) => Promise<RoundPair>;
}

export interface HttpMeasurement {
  benchmarks: BenchmarkSamples[];
  /** The mode the rounds ran in (duet falls back to live where the servers cannot be pinned to one core). */
  mode?: HttpMode;
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
  const measureRound = plan.measureRound ?? ROUNDS[plan.mode];
  for (const benchmark of plan.benchmarks)
    if (benchmark.rate !== undefined && Object.keys(benchmark.latencyBudget).length === 0)
      plan.log(
        `${benchmark.id}: a fixed rate without a latency budget: a server that gets slower by waiting (a timer, a slower upstream) ` +
          `keeps the rate and its CPU per request, and only its latency shows it: set latency-budget (p50 or p99) to gate on it`,
      );
  for (const [index, benchmark] of plan.benchmarks.entries()) {
    const samples = emptySamples(benchmark);
    results.push(samples);
    const revisions = { base: plan.base, head: plan.head };
    // What the last rounds took: a duet's pilot rounds are longer than the rounds its schedule runs after them.
    const recent: number[] = [];
    let done = 0;
    // Leave room for the rounds of the benchmarks still to come: each gets at least 2.
    const reserved = plan.benchmarks.slice(index + 1).reduce((sum, _b, i) => sum + 2 * perRound[index + 1 + i]!, 0);
    // As many fresh rounds as the first group ran (at least the first look's, unless the early look ended it): as
    // strong a test, on new servers.
    const fullGroup = () => wholeGroup(adaptive?.confirmRounds ?? 0, plan.rounds, samples.logRatios.length);
    const confirmTarget = () => (samples.endedEarly && fullGroup() > 0 ? samples.logRatios.length : fullGroup());
    // A duet with no duration set learns its warm-up and blocks per pair from its own rounds (planner.ts), the blocks
    // bounded so that the rounds still needed (to the first look, and the confirmation it would run) fit in the time left.
    const timeLeft = () => ({
      rounds: Math.max(0, plan.rounds - samples.logRatios.length) + Math.max(0, confirmTarget() - (samples.confirmation?.length ?? 0)),
      ms: plan.deadline - now() - reserved,
    });
    const planner =
      plan.mode === 'duet' && benchmark.schedule === 'auto'
        ? new DuetPlanner({ id: benchmark.id, warmupMs: benchmark.warmupMs, blockMs: plan.blockMs ?? 1000 }, plan.log, timeLeft)
        : undefined;
    const estimate = () => (recent.length > 0 ? recent.reduce((a, b) => a + b, 0) / recent.length : perRound[index]!);
    /** One round into the main samples or the confirmation group; false when it did not fit or failed. */
    const runRound = async (round: number, target: number, into: 'main' | 'confirmation', keepBack: number): Promise<boolean> => {
      if (now() + estimate() + reserved + keepBack > plan.deadline) return false;
      plan.onProgress?.({
        round: round + 1,
        rounds: target,
        elapsedMs: now() - started,
        remainingMs: Math.min(estimate() * (target - round), plan.deadline - now()),
      });
      const roundStart = now();
      const cpuBefore = sampleCpu();
      const load1 = os.loadavg()[0] ?? 0;
      try {
        const duetPlan = planner?.next();
        const pair = await measureRound(benchmark, revisions, done, duetPlan ? { ...plan, duetPlan } : plan);
        if (into === 'main') record(samples, pair, duetPlan);
        else recordConfirmation(samples, pair);
        if (planner && duetPlan && pair.series) {
          planner.record({ ...pair.series, roundMs: now() - roundStart }, duetPlan);
          if (planner.schedule) samples.http!.schedule = planner.schedule;
        }
        conditions.push({ busy: busyBetween(cpuBefore, sampleCpu()), load1 });
      } catch (error) {
        samples.error = error instanceof BenchmarkFailure || error instanceof ServerError ? error.message : `${messageOf(error)}`;
        plan.log(`${benchmark.id}: ${samples.error.split('\n')[0]}`);
        return false;
      }
      recent.push(now() - roundStart);
      if (recent.length > RECENT_ROUNDS) recent.shift();
      done++;
      return true;
    };

    const maxRounds = adaptive ? Math.max(plan.rounds, adaptive.maxRounds) : plan.rounds;
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
      // The planned looks, and the early look (a step far beyond or within its budget is decided from its first rounds).
      const look =
        adaptive &&
        ((round + 1 >= plan.rounds && (round + 1 - plan.rounds) % adaptive.lookEvery === 0) || round + 1 === adaptive.earlyLook);
      if (!look) continue;
      if (adaptive.decided(samples)) {
        if (round + 1 < plan.rounds) {
          samples.endedEarly = true;
          plan.log(`${benchmark.id}: decided at the early look, after ${round + 1} rounds`);
        }
        break;
      }
      if (round + 1 === plan.rounds && maxRounds > plan.rounds)
        plan.log(`${benchmark.id}: no verdict after ${plan.rounds} rounds: adding rounds (up to ${maxRounds})`);
    }
    // The fresh group starts as large as the early look's (a step it decided), or as the first group's loss needs
    // to show again (confirmSize); where that does not show it, it goes on to the first group's size. The time
    // kept back for it above is the larger (confirmTarget), so the group can always go on.
    const sized = () =>
      samples.endedEarly ? confirmTarget() : firstGroup(adaptive?.confirmSize?.(samples, confirmTarget()), confirmTarget());
    const target = confirmTarget() > 0 ? sized() : 0;
    if (!samples.error && target > 0 && adaptive!.toConfirm(samples)) {
      const why =
        target < confirmTarget() ? ` (as many as the loss its first ${samples.logRatios.length} rounds measured needs to show again)` : '';
      plan.log(`${benchmark.id}: confirming the regression with ${target} more rounds on new servers${why}`);
      // An empty fresh group, until its rounds come: a confirmation that no round fits in is no confirmation (analyze);
      // one the time limit stops short of the size it would go on to is none either.
      samples.confirmation ??= [];
      samples.confirmationPlanned = fullGroup();
      let confirmed = 0;
      while (confirmed < target && (await runRound(confirmed, target, 'confirmation', 0))) confirmed++;
      // Shown again in all its first fresh rounds: the group is whole (its other figures did not reproduce, not cut).
      const shown = confirmed === target && !samples.error && adaptive!.toConfirm(samples);
      if (shown) samples.confirmationPlanned = confirmed;
      // Not shown again in the first fresh rounds: the fresh group goes on to the first group's size (the first look's).
      if (confirmed === target && fullGroup() > target && !samples.error && !shown) {
        plan.log(
          `${benchmark.id}: the regression was not shown again in ${target} fresh rounds: the fresh group goes on to ${fullGroup()}`,
        );
        while (confirmed < fullGroup() && (await runRound(confirmed, fullGroup(), 'confirmation', 0))) confirmed++;
      }
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

function record(samples: BenchmarkSamples, pair: RoundPair, plan: DuetPlan | undefined): void {
  samples.logRatios.push(pair.logRatio);
  if (plan && pair.series) (samples.http!.blocks ??= []).push(roundBlocks(pair.series, plan));
  if (pair.base.rate) samples.requestsNotCost ??= 'a fixed rate sets requests/s';
  else if (pair.base.duet?.saturated === false)
    samples.requestsNotCost ??=
      "a saturating load left the shared CPU idle in a round: requests/s compares what the load allowed, not the servers' cost";
  samples.base!.opsPerSec.push(pair.base.requestsPerSec);
  samples.head!.opsPerSec.push(pair.head.requestsPerSec);
  pushLatencyRatios(samples.latency!, pair);
  samples.http!.base.push(pair.base);
  samples.http!.head.push(pair.head);
  const cpu = pushCpu(samples.cpu, pair, samples.logRatios.length);
  if (cpu) samples.cpu = cpu;
  else delete samples.cpu;
}

/**
 * A planned round's series as the report keeps it: the learned warm-up's blocks, then the measured ones, each to 5
 * significant digits (a report's size grows with the rounds; a ratio's sixth digit is far inside its noise).
 */
function roundBlocks(series: NonNullable<RoundPair['series']>, plan: DuetPlan): RoundBlocks {
  const warm = series.warmup ?? { requests: [], cpu: [] };
  const kept = (xs: readonly number[]) => xs.map((x) => Number(x.toPrecision(5)));
  const cpu = series.cpu && warm.cpu ? kept([...warm.cpu, ...series.cpu]) : null;
  const measuredFrom = warm.requests.length;
  const figureFrom = measuredFrom + (series.figureFrom ?? plan.figureFrom);
  return { requests: kept([...warm.requests, ...series.requests]), cpu, measuredFrom, figureFrom };
}

function noLatency(): Record<LatencyStat, number[]> {
  return { p50: [], p90: [], p99: [], mean: [] };
}

/** ln(head / base) of each latency figure of a round (higher is slower). */
function pushLatencyRatios(into: Record<LatencyStat, number[]>, pair: RoundPair): void {
  for (const stat of LATENCY_STATS) into[stat].push(Math.log(pair.head.latency[stat] / pair.base.latency[stat]));
}
