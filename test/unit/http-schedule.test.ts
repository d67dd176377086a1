import { fakeLoadTest, fakeRevision } from '../fakes.js';
import { describe, expect, it } from 'vitest';
import type { HttpBenchmarkConfig } from '../../src/config/types.js';
import { estimatedRoundMs, measureHttp, type HttpPlan } from '../../src/measure/http/schedule.js';
import type { RoundPair } from '../../src/measure/http/round.js';
import { ServerError } from '../../src/measure/http/server.js';
import type { HttpRoundFigures } from '../../src/measure/http/types.js';
import type { BenchmarkSamples } from '../../src/measure/types.js';
import { httpDetails } from '../../src/report/http.js';
import { toReportBenchmark } from '../../src/report/model.js';
import { httpSections } from '../../src/report/http-sections.js';
import { analyze, budgetedFigures, type Comparison } from '../../src/stats/analyze.js';
import { decisionRule } from '../../src/stats/decision.js';
import { changeShown, numbersIn } from '../report-text.js';

/**
 * The HTTP scheduler with a fake round (no servers, no load) and a fake clock: each round
 * takes `roundMs` of the clock, so the round counts below follow from the plan alone.
 */
const revision = fakeRevision;

// Estimated at 2 × (250 + 500) + 1500 = 3000 ms a round until a round has been timed.
const loadTest = (name: string): HttpBenchmarkConfig => fakeLoadTest(name);

const figures = (requestsPerSec: number, p99: number): HttpRoundFigures => ({
  requestsPerSec,
  latency: { p50: p99 / 4, p90: p99 / 2, p99, mean: p99 / 3 },
  traffic: { responses: 100, ok: 100, non2xx: 0, byClass: {}, errors: 0, timeouts: 0, resets: 0 },
  probe: undefined,
});

interface Fake {
  /** Every round measured: the load test and the round number it was given. */
  calls: [string, number][];
  now: () => number;
  measureRound: NonNullable<HttpPlan['measureRound']>;
}

/** Head serves 80% of base's requests at twice its p99, each round; `fail` may throw instead. */
function fakeRounds(options: { roundMs?: number; fail?: (id: string, round: number) => Error | undefined } = {}): Fake {
  let clock = 0;
  const calls: [string, number][] = [];
  return {
    calls,
    now: () => clock,
    async measureRound(benchmark, _revisions, round) {
      calls.push([benchmark.id, round]);
      clock += options.roundMs ?? 1000;
      const failure = options.fail?.(benchmark.id, round);
      if (failure) throw failure;
      const pair: RoundPair = { base: figures(1000, 4), head: figures(800, 8), logRatio: Math.log(0.8) };
      return pair;
    },
  };
}

function planFor(fake: Fake, over: Partial<HttpPlan> = {}): HttpPlan {
  return {
    base: revision('base'),
    head: revision('head'),
    benchmarks: [loadTest('todos')],
    mode: 'fresh',
    rounds: 6,
    deadline: 1e9,
    probePath: '/nonexistent/probe.cjs',
    socketDir: '/nonexistent',
    log: () => {},
    now: fake.now,
    measureRound: fake.measureRound,
    ...over,
  };
}

describe('a duet whose duration is not set: the schedule the run chooses', () => {
  it('gives each round the plan of the planner (a pilot, then the learned warm-up and blocks) and reports the schedule', async () => {
    let clock = 0;
    const plans: unknown[] = [];
    const log: string[] = [];
    const result = await measureHttp({
      base: revision('base'),
      head: revision('head'),
      benchmarks: [fakeLoadTest('todos', { schedule: 'auto' })],
      mode: 'duet',
      rounds: 6,
      deadline: 1e9,
      probePath: '/nonexistent/probe.cjs',
      socketDir: '/nonexistent',
      log: (line) => log.push(line),
      now: () => clock,
      // A regression at the first look, confirmed in 6 fresh rounds: those are not the first group's blocks.
      adaptive: { maxRounds: 6, lookEvery: 5, decided: () => true, toConfirm: () => true, confirmRounds: 6 },
      async measureRound(_benchmark, _revisions, _round, settings) {
        const plan = settings.duetPlan!;
        plans.push(plan);
        clock += 400 + plan.warmupMs + plan.blocks * 1000;
        // A 15% transient in the second block of every pilot pair; settled blocks alternate ±0.5%.
        const series = Array.from({ length: plan.blocks }, (_, i) => (plan.figureFrom > 0 && i === 1 ? -0.15 : i % 2 ? 0.005 : -0.005));
        return {
          base: figures(1000, 4),
          head: figures(1000, 4),
          logRatio: 0,
          cpuLogRatio: 0,
          // After the pilot, the learned warm-up's two blocks (still 4% off) come apart from the measured ones.
          series: {
            requests: series,
            cpu: series,
            blocksMs: plan.blocks * 1000,
            // The second pilot round lost a paused block: its figure starts a block earlier than planned.
            ...(plan.figureFrom > 0
              ? plans.length === 2
                ? { figureFrom: 4 }
                : {}
              : { warmup: { requests: [0.04, -0.04], cpu: [0.04, -0.04] } }),
          },
        };
      },
    });
    expect(plans.slice(0, 2)).toEqual([
      { warmupMs: 250, blocks: 10, figureFrom: 5 },
      { warmupMs: 250, blocks: 10, figureFrom: 5 },
    ]);
    // The pilot's transient ends after its second block: later pairs warm up 2 s more.
    expect(plans.slice(2).every((p) => (p as { warmupMs: number }).warmupMs === 250 + 2000)).toBe(true);
    expect(result.benchmarks[0]!.http!.schedule).toMatchObject({ warmupMs: 2250, learnedWarmupMs: 2000, figure: 'cpu' });
    expect(log.some((line) => line.startsWith('http > todos: schedule: '))).toBe(true);
    // Each round's blocks are kept for the report: the pilot's ten (its figure from the sixth), then each later
    // round's warm-up blocks before its measured ones.
    const blocks = result.benchmarks[0]!.http!.blocks!;
    expect(plans).toHaveLength(12);
    expect(blocks).toHaveLength(6);
    expect(blocks[0]).toMatchObject({ measuredFrom: 0, figureFrom: 5 });
    expect(blocks[1]).toMatchObject({ measuredFrom: 0, figureFrom: 4 });
    expect(blocks[0]!.requests).toHaveLength(10);
    expect(blocks[0]!.requests[1]).toBe(-0.15);
    const later = plans[2] as { blocks: number };
    expect(blocks[2]).toEqual({
      requests: [0.04, -0.04, ...Array.from({ length: later.blocks }, (_, i) => (i % 2 ? 0.005 : -0.005))],
      cpu: [0.04, -0.04, ...Array.from({ length: later.blocks }, (_, i) => (i % 2 ? 0.005 : -0.005))],
      measuredFrom: 2,
      figureFrom: 2,
    });
  });

  it('leaves a fixed duration, and the other modes, as they were: no plan', async () => {
    for (const [mode, schedule] of [
      ['duet', 'fixed'],
      ['live', 'auto'],
    ] as const) {
      const fake = fakeRounds();
      const seen: unknown[] = [];
      await measureHttp(
        planFor(fake, {
          mode,
          benchmarks: [fakeLoadTest('todos', { schedule })],
          measureRound: (b, r, n, settings) => {
            seen.push(settings.duetPlan);
            return fake.measureRound(b, r, n, settings);
          },
        }),
      );
      expect(seen.every((plan) => plan === undefined)).toBe(true);
    }
  });
});

describe('HTTP rounds', () => {
  it('runs the planned rounds and keeps every figure of each round', async () => {
    const fake = fakeRounds();
    const result = await measureHttp(planFor(fake));
    expect(fake.calls).toEqual([0, 1, 2, 3, 4, 5].map((round) => ['http > todos', round]));
    expect(result).toMatchObject({ rounds: 6, plannedRounds: 6, confirmRounds: 0, limited: false, durationMs: 6000 });
    const [todos] = result.benchmarks;
    expect(todos!.logRatios).toEqual(Array(6).fill(Math.log(0.8)));
    expect(todos!.base!.opsPerSec).toEqual(Array(6).fill(1000));
    expect(todos!.head!.opsPerSec).toEqual(Array(6).fill(800));
    // Latency ratios are ln(head / base): twice the p99 is ln 2 (higher is slower).
    for (const stat of ['p50', 'p90', 'p99', 'mean'] as const) expect(todos!.latency![stat]).toEqual(Array(6).fill(Math.log(2)));
    expect(todos!.http!.base).toHaveLength(6);
    expect(result.conditions).toHaveLength(6);
  });

  it('looks after the planned rounds, then every lookEvery rounds, and stops once decided', async () => {
    const looks: number[] = [];
    const decided = (samples: BenchmarkSamples) => looks.push(samples.logRatios.length) === 2;
    const result = await measureHttp(
      planFor(fakeRounds(), { adaptive: { maxRounds: 16, lookEvery: 5, decided, toConfirm: () => false, confirmRounds: 0 } }),
    );
    expect(looks).toEqual([6, 11]);
    expect(result.rounds).toBe(11);
  });

  it('looks early too: a load test decided at the early look stops after its 3 rounds, and says so', async () => {
    const looks: number[] = [];
    const lines: string[] = [];
    const decided = (samples: BenchmarkSamples) => looks.push(samples.logRatios.length) === 1;
    const result = await measureHttp(
      planFor(fakeRounds(), {
        log: (line) => lines.push(line),
        adaptive: { maxRounds: 16, lookEvery: 5, decided, toConfirm: () => false, confirmRounds: 0, earlyLook: 3 },
      }),
    );
    expect(looks).toEqual([3]);
    expect(result.rounds).toBe(3);
    expect(result.limited).toBe(false);
    expect(lines).toContain('http > todos: decided at the early look, after 3 rounds');
  });

  it('confirms a regression on as many fresh rounds as found it, kept apart, without starting the count again', async () => {
    const fake = fakeRounds();
    const decided = (samples: BenchmarkSamples) => samples.logRatios.length === 11;
    const result = await measureHttp(
      planFor(fake, { adaptive: { maxRounds: 16, lookEvery: 5, decided, toConfirm: () => true, confirmRounds: 6 } }),
    );
    const [todos] = result.benchmarks;
    // Found after 11 rounds: 11 fresh ones, not the 6 of the first look.
    expect(result.rounds).toBe(11);
    expect(result.confirmRounds).toBe(11);
    expect(todos!.logRatios).toHaveLength(11);
    expect(todos!.confirmation).toEqual(Array(11).fill(Math.log(0.8)));
    expect(todos!.confirmationLatency!.p99).toEqual(Array(11).fill(Math.log(2)));
    expect(todos!.latency!.p99).toHaveLength(11);
    // Round numbers go on (0 to 21): AB BA order continues and round 0's request check is not repeated.
    expect(fake.calls.map(([, round]) => round)).toEqual(Array.from({ length: 22 }, (_, i) => i));
  });

  it("confirms a regression the early look decided on as many fresh rounds: 3, not the first look's", async () => {
    const fake = fakeRounds();
    const lines: string[] = [];
    const decided = (samples: BenchmarkSamples) => samples.logRatios.length === 3;
    const result = await measureHttp(
      planFor(fake, {
        log: (line) => lines.push(line),
        adaptive: { maxRounds: 16, lookEvery: 5, decided, toConfirm: () => true, confirmRounds: 6, earlyLook: 3 },
      }),
    );
    const [todos] = result.benchmarks;
    expect(result.rounds).toBe(3);
    expect(result.confirmRounds).toBe(3);
    expect(todos!.confirmation).toEqual(Array(3).fill(Math.log(0.8)));
    expect(fake.calls.map(([, round]) => round)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(lines).toContain('http > todos: confirming the regression with 3 more rounds on new servers');
  });

  it("goes on to the first look's size where the 3 fresh rounds of an early step do not show it again", async () => {
    const fake = fakeRounds();
    const lines: string[] = [];
    const decided = (samples: BenchmarkSamples) => samples.logRatios.length === 3;
    // A regression at the end of the first group; after its 3 fresh rounds, not one any more.
    const toConfirm = (samples: BenchmarkSamples) => (samples.confirmation?.length ?? 0) < 3;
    const result = await measureHttp(
      planFor(fake, {
        log: (line) => lines.push(line),
        adaptive: { maxRounds: 16, lookEvery: 5, decided, toConfirm, confirmRounds: 6, earlyLook: 3 },
      }),
    );
    expect(result.rounds).toBe(3);
    expect(result.confirmRounds).toBe(6);
    expect(result.benchmarks[0]!.confirmation).toHaveLength(6);
    expect(lines).toContain('http > todos: the regression was not shown again in 3 fresh rounds: the fresh group goes on to 6');
  });

  it('confirms a regression a planned look found on the fewer fresh rounds its loss needs, when it says how many', async () => {
    const fake = fakeRounds();
    const lines: string[] = [];
    const decided = (samples: BenchmarkSamples) => samples.logRatios.length === 11;
    const sizes: number[] = [];
    const confirmSize = (samples: BenchmarkSamples, full: number) => (sizes.push(full), samples.logRatios.length === 11 ? 7 : full);
    const result = await measureHttp(
      planFor(fake, {
        log: (line) => lines.push(line),
        adaptive: { maxRounds: 16, lookEvery: 5, decided, toConfirm: () => true, confirmRounds: 6, confirmSize },
      }),
    );
    // Sized against the first group's 11 rounds; confirmed in 7 of them (the fake's loss shows in every round).
    expect(sizes).toContain(11);
    expect(result.confirmRounds).toBe(7);
    expect(result.benchmarks[0]!.confirmation).toHaveLength(7);
    // Shown again in them: the group is whole at 7 for the final judgement (a figure they did not show is not "cut").
    expect(result.benchmarks[0]!.confirmationPlanned).toBe(7);
    expect(fake.calls.map(([, round]) => round)).toEqual(Array.from({ length: 18 }, (_, i) => i));
    expect(lines).toContain(
      'http > todos: confirming the regression with 7 more rounds on new servers (as many as the loss its first 11 rounds measured needs to show again)',
    );
  });

  it("goes on to the first group's size where the sized fresh rounds do not show the loss again", async () => {
    const fake = fakeRounds();
    const lines: string[] = [];
    const decided = (samples: BenchmarkSamples) => samples.logRatios.length === 11;
    // A regression at the end of the first group; after 7 fresh rounds, not one any more.
    const toConfirm = (samples: BenchmarkSamples) => (samples.confirmation?.length ?? 0) < 7;
    const result = await measureHttp(
      planFor(fake, {
        log: (line) => lines.push(line),
        adaptive: { maxRounds: 16, lookEvery: 5, decided, toConfirm, confirmRounds: 6, confirmSize: () => 7 },
      }),
    );
    expect(result.confirmRounds).toBe(11);
    expect(result.benchmarks[0]!.confirmation).toHaveLength(11);
    // The size it goes on to, for the final judgement: a group the time limit stops short of it is cut.
    expect(result.benchmarks[0]!.confirmationPlanned).toBe(11);
    expect(lines).toContain('http > todos: the regression was not shown again in 7 fresh rounds: the fresh group goes on to 11');
  });

  it('never sizes a fresh group beyond the first group, nor sizes one the early look decided', async () => {
    const big = fakeRounds();
    const decided = (samples: BenchmarkSamples) => samples.logRatios.length === 6;
    const result = await measureHttp(
      planFor(big, { adaptive: { maxRounds: 16, lookEvery: 5, decided, toConfirm: () => true, confirmRounds: 6, confirmSize: () => 40 } }),
    );
    expect(result.confirmRounds).toBe(6);
    const early = fakeRounds();
    let asked = 0;
    const quick = await measureHttp(
      planFor(early, {
        adaptive: {
          maxRounds: 16,
          lookEvery: 5,
          decided: (samples) => samples.logRatios.length === 3,
          toConfirm: () => true,
          confirmRounds: 6,
          earlyLook: 3,
          confirmSize: () => (asked++, 5),
        },
      }),
    );
    expect(quick.confirmRounds).toBe(3);
    expect(asked).toBe(0);
  });

  it('does not confirm what needs no confirming', async () => {
    const fake = fakeRounds();
    const result = await measureHttp(
      planFor(fake, { adaptive: { maxRounds: 6, lookEvery: 5, decided: () => true, toConfirm: () => false, confirmRounds: 6 } }),
    );
    expect(result.confirmRounds).toBe(0);
    expect(result.benchmarks[0]!.confirmation).toBeUndefined();
    expect(fake.calls).toHaveLength(6);
  });
});

describe('the deadline', () => {
  it('leaves room for the load tests still to come', async () => {
    // Deadline at 20 s, rounds of 1 s, 20 planned each. The first load test keeps back two rounds
    // of the second at its estimate (2 × 3 s): its round k starts if k + 1 + 6 <= 20, so 14 rounds.
    // The second then runs from 14 s: its first round at the 3 s estimate, then while k + 1 <= 20: 6 rounds.
    expect(estimatedRoundMs(loadTest('x'))).toBe(3000);
    const fake = fakeRounds();
    const lines: string[] = [];
    const result = await measureHttp(
      planFor(fake, { benchmarks: [loadTest('first'), loadTest('second')], rounds: 20, deadline: 20_000, log: (line) => lines.push(line) }),
    );
    const [first, second] = result.benchmarks;
    expect(first!.logRatios).toHaveLength(14);
    expect(second!.logRatios).toHaveLength(6);
    expect(result).toMatchObject({ rounds: 14, limited: true });
    expect(lines).toEqual([
      'http > first: the time limit stops it after 14 of 20 rounds',
      'http > second: the time limit stops it after 6 of 20 rounds',
    ]);
  });

  it('keeps back the time a confirmation needs before adding rounds', async () => {
    // Deadline at 26 s, rounds of 1 s. Extra round k (from 6) keeps back max(6, k) rounds for a
    // confirmation: it starts if k + 1 + k <= 26, so rounds 0 to 12 run; the 13 confirmation
    // rounds then end at 26 s. (Without the reserve: 26 rounds and no confirmation.)
    const result = await measureHttp(
      planFor(fakeRounds(), {
        deadline: 26_000,
        adaptive: { maxRounds: 40, lookEvery: 5, decided: () => false, toConfirm: () => true, confirmRounds: 6 },
      }),
    );
    expect(result.rounds).toBe(13);
    expect(result.limited).toBe(false); // the planned 6 all ran
    expect(result.confirmRounds).toBe(13);
  });
});

describe('failures', () => {
  it('ends a load test whose server fails with that error as its verdict, and still runs the next one', async () => {
    const crash = new ServerError(
      "head (working tree @ 1234567)'s server crashed under load (exit code 3).\nLast lines of its output:\n  FATAL",
    );
    const fake = fakeRounds({ fail: (id, round) => (id === 'http > first' && round === 2 ? crash : undefined) });
    const lines: string[] = [];
    const result = await measureHttp(
      planFor(fake, { benchmarks: [loadTest('first'), loadTest('second')], log: (line) => lines.push(line) }),
    );
    const [first, second] = result.benchmarks;
    expect(first!.error).toBe(crash.message);
    expect(first!.logRatios).toHaveLength(2);
    expect(second!.error).toBeUndefined();
    expect(second!.logRatios).toHaveLength(6);
    // A failure is not the time limit.
    expect(result.limited).toBe(false);
    expect(lines).toEqual(["http > first: head (working tree @ 1234567)'s server crashed under load (exit code 3)."]);
  });
});

/** A round where head takes 10% more CPU per request (+ a little per round) and serves 5% fewer requests/s; `withCpu` false: its CPU was not read. */
function cpuRound(n: number, withCpu: boolean): RoundPair {
  const round = (requestsPerSec: number, mainNs: number): HttpRoundFigures => ({
    ...figures(requestsPerSec, 4),
    ...(withCpu ? { cpuPerRequest: { mainNs, processNs: mainNs * 1.2, mainWaitNs: 1000 } } : {}),
  });
  const pair = { base: round(1000, 50_000), head: round(950, 55_000 + n), logRatio: Math.log(950 / 1000) };
  return withCpu ? { ...pair, cpuLogRatio: Math.log(50_000 / (55_000 + n)) } : pair;
}

const measureCpu = (rounds: number, cpuAt: (round: number) => boolean) =>
  measureHttp(planFor(fakeRounds(), { mode: 'live', rounds, measureRound: async (_b, _r, n) => cpuRound(n, cpuAt(n)) }));

describe('the servers’ CPU per request through measuring and the report', () => {
  it('keeps one CPU ratio per round, and reports the change of requests per CPU-second with its interval', async () => {
    const [samples] = (await measureCpu(8, () => true)).benchmarks;
    expect(samples!.cpu).toHaveLength(8);
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
    expect(row.slice(1).map(numbersIn)).toEqual([
      [50, 60],
      [55, 66],
    ]);
    expect(changeShown(sections.cpu!.slice(0, sections.cpu!.indexOf(' (')), change), sections.cpu).toBe(true);
    expect(sections.cpu).toContain('reported, not gated');
    expect(sections.cpu).toContain('(95% interval;');
    // A gated figure's interval at a family's level (99.8%) reads as such, never rounded up to 100%.
    const gated = httpSections('http > todos', { ...details, cpu: { ...details.cpu!, change: { ...change, confidence: 0.998 } } });
    expect(gated.cpu).toContain('(99.8% interval;');
  });

  it('shows the instructions per request beside the CPU where every round counted them, and no row otherwise', async () => {
    const [samples] = (await measureCpu(6, () => true)).benchmarks;
    const rows = (s: typeof samples) => httpSections('http > todos', httpDetails(s!, {} as Comparison)!).server!.rows;
    const label = 'user-mode instructions per request';
    expect(rows(samples).find((r) => r[0] === label)).toBeUndefined();
    const withCounts = structuredClone(samples!);
    withCounts.http!.base.forEach((r, i) => (r.cpuPerRequest!.instructions = 50_000 + i));
    withCounts.http!.head.forEach((r, i) => (r.cpuPerRequest!.instructions = 61_000 + i));
    const row = rows(withCounts).find((r) => r[0] === label)!;
    // Medians of the rounds: 50,002.5 and 61,002.5, shown whole.
    expect(row.slice(1).map(numbersIn)).toEqual([[50_003], [61_003]]);
    withCounts.http!.head[2]!.cpuPerRequest!.instructions = undefined;
    expect(rows(withCounts).find((r) => r[0] === label)).toBeUndefined();
  });

  it('drops the CPU figure of a load test where one round could not read it, and says why', async () => {
    const [samples] = (await measureCpu(6, (n) => n !== 3)).benchmarks;
    expect(samples!.cpu).toBeUndefined();
    const details = httpDetails(samples!, {} as Comparison)!;
    expect(details.cpu).toBeNull();
    const sections = httpSections('http > todos', details);
    expect(sections.cpu).toMatch(/CPU per request was not read: it needs Linux's \/proc\/<pid>\/task\/<tid>\/schedstat/);
    expect(sections.server).toBeUndefined();
  });
});

describe('a latency row whose verdict is open beside an interval beyond its budget', () => {
  // Head answers at twice base's p99 every round (fakeRounds). Three rounds at 95% under a family of 20 figures: the
  // signed-rank interval cannot reach its level (at most 1 - 2/8 two-sided), so p99 stays inconclusive beside an
  // interval wholly above its 25% budget; the row must say why (a Node 24 CI run printed "+X% [+83%, …] 25%
  // inconclusive" with nothing beside it).
  const rule = decisionRule({ confidence: 0.95, rounds: 3, maxRounds: 10, lookEvery: 5 });
  const judged = async (rounds: number, figures: number) => {
    const [samples] = (await measureHttp(planFor(fakeRounds(), { rounds }))).benchmarks;
    const comparison = analyze([samples!], { rule, budgetFor: () => 0.05, latencyBudgetFor: () => ({ p99: 0.25 }), figures })[0]!;
    return { comparison, sections: httpSections('http > todos', httpDetails(samples!, comparison)!) };
  };

  it('shows the level the interval has and why no verdict rests on it', async () => {
    const { comparison, sections } = await judged(3, 20);
    const p99 = comparison.latency!.p99!;
    expect(p99.change.low).toBeGreaterThan(0.25);
    expect(p99.change.achievedConfidence).toBeLessThan(p99.change.confidence);
    expect(p99.verdict).toBe('inconclusive');
    const row = sections.latency.rows.find((r) => r[0] === 'p99')!;
    expect(row[3]).toMatch(/ at \d+(\.\d)?%$/);
    expect(row[4]).toBe('25% inconclusive');
    expect(sections.latencyNote).toMatch(/^p99: its interval is at \d+(\.\d)?% confidence, the most its rounds give, short of the /);
  });

  it('says nothing where the interval reaches its level and decides', async () => {
    const { comparison, sections } = await judged(10, 1);
    expect(comparison.latency!.p99!.verdict).toBe('regression');
    expect(sections.latency.rows.find((r) => r[0] === 'p99')![3]).not.toMatch(/ at /);
    expect(sections.latencyNote).toBeUndefined();
  });
});

/**
 * Both throughput figures of a load test are gated at its budget: requests/s and requests per CPU-second of
 * the server's main thread. Rounds of known changes, with a fixed ±1.5% zigzag of noise each.
 */
describe('a load test gated on requests/s and on requests per CPU-second', () => {
  const rule = decisionRule({ confidence: 0.95, rounds: 10, maxRounds: 10, lookEvery: 5 });
  const zigzag = (change: number, n = 12, noise = 0.015) =>
    Array.from({ length: n }, (_, i) => Math.log1p(change) + (i % 2 ? noise : -noise) * (1 + (i % 3) / 3));
  const loadTestSamples = (requests: number, cpu: number | undefined, noise = { requests: 0.015, cpu: 0.015 }): BenchmarkSamples => ({
    id: 'http > todos',
    kind: 'http',
    file: undefined,
    logRatios: zigzag(requests, 12, noise.requests),
    ...(cpu === undefined ? {} : { cpu: zigzag(cpu, 12, noise.cpu) }),
    base: { opsPerSec: Array(12).fill(1000) },
    head: { opsPerSec: Array(12).fill(1000 * (1 + requests)) },
  });
  const judge = (samples: BenchmarkSamples) => analyze([samples], { rule, budgetFor: () => 0.05 })[0]!;

  it('fails a server whose requests cost 10% more CPU while requests/s held (the load generator was the bottleneck)', () => {
    const result = judge(loadTestSamples(0, -0.1));
    expect(result.change!.low).toBeGreaterThan(-0.05);
    expect(result.cpu!.verdict).toBe('regression');
    expect(result.cpu!.change.high).toBeLessThan(-0.05);
    expect(result.verdict).toBe('regression');
    expect(result.note).toMatch(/^requests per CPU-second of the server's main thread lost more than the budget \(-/);
  });

  it('fails a server that waits (a timer per request): requests/s lost 10% while its CPU per request held', () => {
    const result = judge(loadTestSamples(-0.1, 0));
    expect(result.cpu!.verdict).toBe('unchanged');
    expect(result.verdict).toBe('regression');
    expect(result.note).toBeUndefined();
    // Gated on CPU (requests/s spreads more), failed by its requests/s guard: the row never says its verdict is CPU's.
    const guarded = judge(loadTestSamples(-0.2, 0, { requests: 0.04, cpu: 0.01 }));
    expect(guarded.gatedOn).toBe('cpu');
    expect(guarded.cpu!.verdict).toBe('unchanged');
    expect(guarded.verdict).toBe('regression');
    expect(toReportBenchmark(guarded).warning ?? '').not.toContain('its verdict is read from');
  });

  it('reads the verdict from the figure that spreads less: a noisy guard adds no doubt, only its regressions', () => {
    // requests/s spreads ±4% (the clients' split of the shared core), requests per CPU-second ±1%: unchanged by CPU,
    // where requests/s alone could not tell ±5% apart.
    const noisyRequests = judge(loadTestSamples(0, 0, { requests: 0.04, cpu: 0.01 }));
    expect(noisyRequests.gatedOn).toBe('cpu');
    expect(noisyRequests.change!.low).toBeLessThan(-0.05);
    expect(noisyRequests.cpu!.verdict).toBe('unchanged');
    expect(noisyRequests.verdict).toBe('unchanged');
    // The row prints requests/s, whose interval reaches below -5%: it says which interval gave "unchanged".
    const row = toReportBenchmark(noisyRequests);
    const said = /its verdict is read from requests per CPU-second, ([-+]?[\d.]+)% \[([-+]?[\d.]+)%, ([-+]?[\d.]+)%\] \(unchanged\)/.exec(
      row.warning ?? '',
    );
    expect(said).not.toBeNull();
    expect(Number(said![2]) / 100).toBeCloseTo(noisyRequests.cpu!.change.low, 2);
    expect(Number(said![3]) / 100).toBeCloseTo(noisyRequests.cpu!.change.high, 2);
    expect(Number(said![3]) / 100).toBeLessThanOrEqual(0.05);
    // Under the old rule (both figures' verdicts combined) the guard's doubt was the verdict.
    const noisyCpu = judge(loadTestSamples(0, 0, { requests: 0.01, cpu: 0.04 }));
    expect(noisyCpu.gatedOn).toBe('requests');
    expect(noisyCpu.cpu!.verdict).toBe('inconclusive');
    expect(noisyCpu.verdict).toBe('unchanged');
    // Read from the interval the row shows: nothing to say.
    expect(toReportBenchmark(noisyCpu).warning ?? '').not.toContain('its verdict is read from');
    // What resolves is the gated figure's (the quieter one), never less than either printed interval shows: the row
    // prints requests/s, whose noisy interval is wider here.
    const half = (c: { low: number; high: number }) => (Math.log1p(c.high) - Math.log1p(c.low)) / 2;
    expect(noisyRequests.resolvable).toBeGreaterThanOrEqual(noisyCpu.resolvable! - 1e-9);
    expect(Math.log1p(noisyRequests.resolvable!)).toBeGreaterThanOrEqual(half(noisyRequests.change!));
    expect(Math.log1p(noisyCpu.resolvable!)).toBeGreaterThanOrEqual(half(noisyCpu.change!));
  });

  it("gates on requests per CPU-second wherever requests/s does not compare the servers' cost, however it spreads", () => {
    const fixedRate = { ...loadTestSamples(0, 0, { requests: 0.001, cpu: 0.01 }), requestsNotCost: 'a fixed rate sets requests/s' };
    expect(judge(fixedRate).gatedOn).toBe('cpu');
    const unsaturated = { ...loadTestSamples(0, 0, { requests: 0.001, cpu: 0.01 }), requestsNotCost: 'idle' };
    expect(judge(unsaturated).gatedOn).toBe('cpu');
    expect(judge(loadTestSamples(0, 0, { requests: 0.001, cpu: 0.01 })).gatedOn).toBe('requests');
  });

  it('passes a load test only when both figures hold, and counts the CPU figure in the family', () => {
    const both = loadTestSamples(0.01, -0.01);
    expect(judge(both).verdict).toBe('unchanged');
    expect(budgetedFigures([both])).toBe(2);
    expect(budgetedFigures([loadTestSamples(0.01, undefined)])).toBe(1);
    // A CPU figure with a hole (a round it could not read) is no figure: requests/s alone judges.
    const holed = { ...loadTestSamples(0, -0.1), cpu: zigzag(-0.1, 11) };
    expect(budgetedFigures([holed])).toBe(1);
    expect(judge(holed).cpu).toBeUndefined();
    expect(judge(holed).verdict).toBe('unchanged');
  });

  it('shows the CPU figure in the report as gated, with its verdict', async () => {
    const [samples] = (await measureCpu(8, () => true)).benchmarks;
    const comparison = analyze([samples!], { rule, budgetFor: () => 0.05 })[0]!;
    const details = httpDetails(samples!, comparison)!;
    expect(details.cpu!.verdict).toBe(comparison.cpu!.verdict);
    const { estimate, low, high, confidence } = comparison.cpu!.change;
    expect(details.cpu!.change).toEqual({ estimate, low, high, confidence });
    // These rounds' requests/s spread less than their CPU: the verdict is read from requests/s, the CPU figure guards it.
    expect(comparison.gatedOn).toBe('requests');
    expect(details.gatedBecause).toBeUndefined();
    expect(httpDetails(samples!, { ...comparison, gatedOn: 'cpu' })!.gatedBecause).toBe('spread');
    expect(httpDetails({ ...samples!, requestsNotCost: 'idle' }, { ...comparison, gatedOn: 'cpu' })!.gatedBecause).toBe('unsaturated');
    const gated = httpSections('http > todos', { ...details, gatedOn: 'cpu', gatedBecause: 'spread' });
    expect(gated.cpu).toContain(`the verdict's figure (it spread less than requests/s over the rounds)`);
    // The reason named is the one found, never an "or" of both.
    const unsaturated = httpSections('http > todos', { ...details, gatedOn: 'cpu', gatedBecause: 'unsaturated' });
    expect(unsaturated.cpu).toContain("the verdict's figure (a saturating load left the shared CPU idle in a round");
    expect(unsaturated.cpu).not.toContain('spread less');
    // A code from an uploaded report that is not ours reads as the default, never as an object's property.
    const hostile = httpSections('http > todos', { ...details, gatedOn: 'cpu', gatedBecause: 'constructor' as never });
    expect(hostile.cpu).toContain(`the verdict's figure (it spread less than requests/s over the rounds)`);
    expect(gated.cpu).toContain(`the verdict's figure`);
    expect(gated.cpu).toContain(`: ${comparison.cpu!.verdict})`);
    expect(gated.cpu).not.toContain('not gated');
    const guard = httpSections('http > todos', details);
    expect(guard.cpu).toContain(
      `a guard: requests/s spread less and gives the verdict; a confirmed regression here still fails: ${comparison.cpu!.verdict}`,
    );
  });
});
