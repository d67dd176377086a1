import { fakeLoadTest, fakeRevision } from '../fakes.js';
import { describe, expect, it } from 'vitest';
import type { HttpBenchmarkConfig } from '../../src/config/types.js';
import type { CpuSample } from '../../src/measure/conditions.js';
import type { CpuReading } from '../../src/measure/http/cpu.js';
import { blockRatios, duetFigures, duetRound, SATURATED, type DuetDeps, type DuetServer } from '../../src/measure/http/duet.js';
import type { LoadResult } from '../../src/measure/http/load.js';
import { splitCpus } from '../../src/measure/http/pinning.js';
import { endsSilent, leaveOutPaused } from '../../src/measure/http/round.js';
import { measureHttp } from '../../src/measure/http/schedule.js';
import { duetLine, httpDetails } from '../../src/report/http.js';
import { toReportBenchmark } from '../../src/report/model.js';
import { analyze } from '../../src/stats/analyze.js';
import { decisionRule } from '../../src/stats/decision.js';

/**
 * The duet on fakes: servers that are objects, loads that answer what each test says, a shared CPU whose busy
 * share each test sets. What is asserted is behaviour (who starts when, what is paired, what is judged), never
 * a timing.
 */
const revisions = { base: fakeRevision('base'), head: fakeRevision('head') };

const loadTest = (over: Partial<HttpBenchmarkConfig> = {}): HttpBenchmarkConfig =>
  fakeLoadTest('todos', { durationMs: 4000, warmupMs: 500, ...over });

/** How a fake side behaves: answers per second and CPU ns per answer, for the block numbered n (warm-ups included). */
interface SideModel {
  requestsPerSec: (block: number) => number;
  cpuNsPerRequest: (block: number) => number;
}

interface Events {
  log: string[];
}

/** A fake server per revision, counted by its root: a fresh one for every start. */
function fakeDeps(
  models: Record<'base' | 'head', SideModel>,
  events: Events,
  coreBusy: (block: number) => number = () => 1,
  generatorBusy = 0.3,
): DuetDeps {
  const blocks = new Map<number, number>();
  let servers = 0;
  let coreBlocks = 0;
  let coreTotal = 0;
  let coreBusyTotal = 0;
  let wallUs = 0;
  return {
    ownClock: () => {
      wallUs += 1_000_000;
      return { cpuUs: wallUs * generatorBusy, wallUs };
    },
    async start(options) {
      const side = options.cwd.endsWith('head') ? 'head' : 'base';
      const id = ++servers;
      events.log.push(`start ${side} #${id}`);
      let mainNs = 0;
      const server: DuetServer & { side: 'base' | 'head'; id: number; advance: (ns: number) => void } = {
        side,
        id,
        port: 4000 + id,
        cpuPid: 100 + id,
        label: `${side} (fake)`,
        cpu: (): CpuReading => ({ mainNs, processNs: mainNs, mainWaitNs: 0 }),
        probe: async () => undefined,
        checkAlive: () => {},
        checkAliveAfterFailures: async () => {},
        stop: async () => {
          events.log.push(`stop ${side} #${id}`);
        },
        output: () => '',
        advance: (ns: number) => (mainNs += ns),
      } as never;
      return server;
    },
    async checkRequests() {},
    async load(server, _benchmark, durationMs) {
      const fake = server as unknown as { side: 'base' | 'head'; id: number; advance: (ns: number) => void };
      const n = blocks.get(fake.id) ?? 0;
      blocks.set(fake.id, n + 1);
      events.log.push(`load ${fake.side} #${fake.id} begins`);
      // Yield, so the other client of the block gets started before this one answers.
      await new Promise((resolve) => setImmediate(resolve));
      const model = models[fake.side];
      const ok = Math.round((model.requestsPerSec(n) * durationMs) / 1000);
      fake.advance(ok * model.cpuNsPerRequest(n));
      events.log.push(`load ${fake.side} #${fake.id} ends`);
      return loadResult(ok, durationMs);
    },
    sampleCore(): CpuSample {
      // Each call after the first closes a block of 1000 ticks at the busy share the test sets.
      const sample = { busy: coreBusyTotal, total: coreTotal };
      coreBusyTotal += 1000 * coreBusy(coreBlocks);
      coreTotal += 1000;
      coreBlocks += 0.5;
      return sample;
    },
  };
}

function loadResult(ok: number, elapsedMs: number): LoadResult {
  const times = Array.from({ length: Math.min(ok, 50) }, () => 1);
  return {
    requestsPerSec: (ok / elapsedMs) * 1000,
    times,
    latency: { p50: 1, p90: 1, p99: 1, mean: 1 },
    traffic: { responses: ok, ok, non2xx: 0, byClass: {}, unexpected: [{}], errors: 0, timeouts: 0, resets: 0, bodyBytes: ok * 10 },
    elapsedMs,
  };
}

const steady = (requestsPerSec: number, cpuNsPerRequest: number): SideModel => ({
  requestsPerSec: () => requestsPerSec,
  cpuNsPerRequest: () => cpuNsPerRequest,
});

/** A random source that plays back the given numbers, then repeats the last. */
function sequence(...values: number[]): () => number {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)]!;
}

const settings = (random: () => number, over: object = {}) => ({
  probePath: '/nonexistent/probe.cjs',
  socketDir: '/nonexistent',
  blockMs: 1000,
  random,
  sharedCpu: 1,
  log: () => {},
  ...over,
});

describe('duet rounds: both servers at once on one shared CPU', () => {
  it('starts a fresh pair of servers for the round, the first drawn at random, and stops both', async () => {
    const events: Events = { log: [] };
    const deps = fakeDeps({ base: steady(1000, 50_000), head: steady(1000, 50_000) }, events);
    // 0.7: head starts first; the blocks' draws follow.
    await duetRound(loadTest(), revisions, 1, settings(sequence(0.7, 0.1)), deps);
    await duetRound(loadTest(), revisions, 2, settings(sequence(0.2, 0.1)), deps);
    const starts = events.log.filter((e) => e.startsWith('start'));
    expect(starts).toEqual(['start head #1', 'start base #2', 'start base #3', 'start head #4']);
    // Every server of a round is stopped, and no server serves two rounds.
    expect(events.log.filter((e) => e.startsWith('stop')).sort()).toEqual(['stop base #2', 'stop base #3', 'stop head #1', 'stop head #4']);
    expect(events.log.filter((e) => / #[34] /.test(e)).every((e) => events.log.indexOf(e) > events.log.indexOf('stop head #1'))).toBe(true);
  });

  it('loads both servers in the same block, each client started before either answers, the first drawn per block', async () => {
    const events: Events = { log: [] };
    const deps = fakeDeps({ base: steady(1000, 50_000), head: steady(1000, 50_000) }, events);
    // Start order (0.3: base first), then per block (warm-up and 4 measured blocks): head, base, head, head, base first.
    await duetRound(loadTest(), revisions, 1, settings(sequence(0.3, 0.9, 0.1, 0.6, 0.8, 0.2)), deps);
    const loads = events.log.filter((e) => e.startsWith('load'));
    expect(loads).toHaveLength(5 * 4);
    const blocks = Array.from({ length: 5 }, (_, i) => loads.slice(4 * i, 4 * i + 4));
    for (const block of blocks) {
      // Both begin, then both end: the two loads overlap.
      expect(block.slice(0, 2).every((e) => e.endsWith('begins'))).toBe(true);
      expect(block.slice(2).every((e) => e.endsWith('ends'))).toBe(true);
    }
    expect(blocks.map((b) => b[0]!.split(' ')[1])).toEqual(['head', 'base', 'head', 'head', 'base']);
  });

  it('pairs each block: the ratio of the answers and of the CPU per request, the round their medians', async () => {
    const events: Events = { log: [] };
    // Head answers 10% fewer requests and spends 20% more CPU on each; block 3 (the 2nd measured) is an outlier for both.
    const deps = fakeDeps(
      {
        base: { requestsPerSec: (n) => (n === 2 ? 500 : 1000), cpuNsPerRequest: () => 50_000 },
        head: { requestsPerSec: (n) => (n === 2 ? 100 : 900), cpuNsPerRequest: (n) => (n === 2 ? 500_000 : 60_000) },
      },
      events,
    );
    const pair = await duetRound(loadTest(), revisions, 1, settings(sequence(0.5)), deps);
    expect(pair.logRatio).toBeCloseTo(Math.log(0.9), 10);
    expect(pair.cpuLogRatio).toBeCloseTo(Math.log(50 / 60), 10);
    // The pooled figures are each side's own, over the measured blocks only (the warm-up is not in them).
    expect(pair.base.traffic.ok).toBe(1000 + 500 + 1000 + 1000);
    expect(pair.head.cpuPerRequest!.mainNs).toBeCloseTo((2700 * 60_000 + 100 * 500_000) / 2800, 6);
    expect(pair.base.duet).toEqual({ coreBusy: 1, loadGeneratorBusy: 0.3, saturated: true });
  });

  it("follows the planner's plan: the learned warm-up loaded before the blocks, its blocks, its figure from their settled part", async () => {
    const events: Events = { log: [] };
    // Blocks 0 (warm-up 500 ms), 1-3 (the learned 2.5 s more), then six measured: head 20% slower until the first
    // three measured blocks are over (still warming up), 10% slower after.
    const deps = fakeDeps(
      { base: steady(1000, 50_000), head: { requestsPerSec: (n) => (n < 7 ? 800 : 900), cpuNsPerRequest: () => 50_000 } },
      events,
    );
    const durations: number[] = [];
    const load = deps.load;
    deps.load = (server, benchmark, durationMs) => {
      durations.push(durationMs);
      return load(server, benchmark, durationMs);
    };
    const pair = await duetRound(
      loadTest(),
      revisions,
      1,
      settings(sequence(0.5), { duetPlan: { warmupMs: 3000, blocks: 6, figureFrom: 3 } }),
      deps,
    );
    // Per client: the configured warm-up, the rest of the learned one in blocks of 1 s (the last one what is left), then
    // the six blocks of 1 s.
    expect(durations.filter((_, i) => i % 2 === 0)).toEqual([500, 1000, 1000, 500, 1000, 1000, 1000, 1000, 1000, 1000]);
    // The learned warm-up's blocks are in the series too (head 20% slower there), apart from the measured ones.
    expect(pair.series!.warmup!.requests.map((x) => Math.exp(x))).toEqual([0.8, 0.8, 0.8].map((x) => expect.closeTo(x, 10)));
    expect(pair.series!.warmup!.cpu).toHaveLength(3);
    // The figure is the median of the last three blocks (head 10% slower); the series is every measured block, for the planner.
    expect(pair.logRatio).toBeCloseTo(Math.log(0.9), 10);
    expect(pair.series!.requests.map((x) => Math.exp(x))).toEqual([0.8, 0.8, 0.8, 0.9, 0.9, 0.9].map((x) => expect.closeTo(x, 10)));
    expect(pair.series!.cpu).toHaveLength(6);
    expect(pair.base.traffic.ok).toBe(3000);
  });

  it('leaves out the CPU ratio when a block has no CPU reading, rather than pairing the wrong blocks', () => {
    const block = (ok: number, cpu: number | undefined) => ({
      load: loadResult(ok, 1000),
      cpu: cpu === undefined ? undefined : { mainNs: cpu * ok, processNs: cpu * ok, mainWaitNs: 0 },
    });
    const ratios = blockRatios([
      { base: block(1000, 50), head: block(800, 60) },
      { base: block(1000, 50), head: block(800, undefined) },
    ]);
    expect(ratios.requests.map((x) => Math.exp(x))).toEqual([0.8, 0.8].map((x) => expect.closeTo(x, 10)));
    expect(ratios.cpu).toBeUndefined();
  });
});

describe('the saturation check', () => {
  it('says a saturating load that left the shared CPU idle a tenth of the time did not saturate it', () => {
    const blocks = (busy: number[], generator = 0.5) => busy.map((coreBusy) => ({ coreBusy, loadGeneratorBusy: generator }));
    expect(duetFigures(blocks([0.99, 0.97, 0.98]), false)).toEqual({ coreBusy: 0.98, loadGeneratorBusy: 0.5, saturated: true });
    expect(duetFigures(blocks([0.6, 0.7, 0.95]), false)).toMatchObject({ coreBusy: 0.7, saturated: false });
    expect(duetFigures(blocks([SATURATED - 0.001]), false).saturated).toBe(false);
    // A fixed rate asks the servers not to be saturated: not judged.
    expect(duetFigures(blocks([0.3]), true).saturated).toBeUndefined();
    // Not read (not pinned): not judged, never called saturated.
    expect(duetFigures([{ coreBusy: undefined, loadGeneratorBusy: 0.4 }], false)).toEqual({ loadGeneratorBusy: 0.4, saturated: undefined });
  });

  it('puts an unsaturated duet in the row’s warning, naming the load generator when its CPU was full', async () => {
    const events: Events = { log: [] };
    const deps = fakeDeps({ base: steady(1000, 50_000), head: steady(1000, 50_000) }, events, () => 0.55);
    const measured = await measureHttp({
      base: revisions.base,
      head: revisions.head,
      benchmarks: [loadTest()],
      mode: 'duet',
      rounds: 6,
      deadline: Number.POSITIVE_INFINITY,
      ...settings(sequence(0.5)),
      measureRound: (b, r, n, s) => duetRound(b, r, n, s, deps),
    });
    const [samples] = measured.benchmarks;
    const rule = decisionRule({ confidence: 0.95, rounds: 6, maxRounds: 6, lookEvery: 5 });
    const [comparison] = analyze([samples!], { rule, budgetFor: () => 0.05 });
    const details = httpDetails(samples!, comparison!)!;
    expect(details.duet).toMatchObject({ coreBusy: 0.55, unsaturated: 6, rounds: 6 });
    const row = toReportBenchmark(comparison!, details);
    expect(row.warning).toContain('the shared CPU was not saturated in 6 of 6 rounds');
    expect(row.warning).toContain('the servers waited');
    // With the below-resolution warning too: one '; ' between them, never '.;' (a hapi run read '(…both).; duet:').
    const wide = toReportBenchmark({ ...comparison!, resolvable: 0.2, verdict: 'inconclusive' }, details).warning!;
    expect(wide).toMatch(/\(benchgate calibrate suggests both\); duet: both servers loaded at once/);
    expect(wide).not.toContain('.;');
    const full = duetLine({ ...details.duet!, loadGeneratorBusy: 0.97 })!;
    expect(full).toContain('the load generator was the bottleneck');
    // Saturated: a line for the details, no warning on the row.
    expect(duetLine({ coreBusy: 0.99, loadGeneratorBusy: 0.5, unsaturated: 0, rounds: 6 })).toBe(
      'duet: both servers loaded at once on one shared CPU, busy 99% of the measured time (the load generator used 50% of a CPU)',
    );
  });
});

describe('the guards a duet keeps', () => {
  const judge = async (head: SideModel, rounds = 10) => {
    const deps = fakeDeps({ base: steady(1000, 50_000), head }, { log: [] });
    let round = 0;
    const measured = await measureHttp({
      base: revisions.base,
      head: revisions.head,
      benchmarks: [loadTest()],
      mode: 'duet',
      rounds,
      deadline: Number.POSITIVE_INFINITY,
      ...settings(() => 0.5),
      // A little noise per round, as real rounds have: the round number shifts head's figures by at most ±1%.
      measureRound: (b, r, n, s) => {
        const wobble = 1 + (((round++ * 7) % 5) - 2) / 200;
        const noisy: SideModel = { requestsPerSec: (k) => head.requestsPerSec(k) * wobble, cpuNsPerRequest: head.cpuNsPerRequest };
        return duetRound(b, r, n, s, { ...deps, load: fakeDeps({ base: steady(1000, 50_000), head: noisy }, { log: [] }).load });
      },
    });
    const rule = decisionRule({ confidence: 0.95, rounds, maxRounds: rounds, lookEvery: 5 });
    return analyze(measured.benchmarks, { rule, budgetFor: () => 0.05 })[0]!;
  };

  it('catches a server that only waits: it loses requests/s (its share of the CPU goes to the other), its CPU per request unchanged', async () => {
    // Head waits on a timer per request: 30% fewer answers, the same CPU for each.
    const result = await judge(steady(700, 50_000));
    expect(result.verdict).toBe('regression');
    expect(result.change!.high).toBeLessThan(-0.05);
    expect(result.cpu!.verdict).toBe('unchanged');
  });

  it('catches a server whose requests cost more CPU, on requests per CPU-second', async () => {
    const result = await judge(steady(1000, 65_000));
    expect(result.cpu!.verdict).toBe('regression');
    expect(result.verdict).toBe('regression');
  });

  it('passes an unchanged server', async () => {
    const result = await judge(steady(1000, 50_000));
    expect(result.verdict).toBe('unchanged');
  });
});

describe('a server that answers nothing in a block', () => {
  // Blocks per fake server: 0 is the warm-up, 1 to 4 the round's measured blocks, 5 on the extra ones.
  const silentIn =
    (...silent: number[]): SideModel['requestsPerSec'] =>
    (n) =>
      silent.includes(n) || (silent.includes(Infinity) && n >= Math.max(...silent.filter(Number.isFinite))) ? 0 : 900;
  const round = async (head: SideModel['requestsPerSec']) => {
    const events: Events = { log: [] };
    const lines: string[] = [];
    const deps = fakeDeps({ base: steady(1000, 50_000), head: { requestsPerSec: head, cpuNsPerRequest: () => 60_000 } }, events);
    const pair = await duetRound(loadTest(), revisions, 4, settings(sequence(0.5), { log: (line: string) => lines.push(line) }), deps);
    return { pair, lines, loads: events.log.filter((e) => e.startsWith('load head') && e.endsWith('ends')).length };
  };

  it('leaves out a block it answered nothing in when it answers in a later one: a pause, not its code', async () => {
    const { pair, lines, loads } = await round(silentIn(2));
    expect(loads).toBe(1 + 4);
    // The ratios and the pooled figures come from the three blocks both answered in: 900 against 1000 in each.
    expect(pair.logRatio).toBeCloseTo(Math.log(0.9), 10);
    expect(pair.head.traffic.ok).toBe(3 * 900);
    expect(pair.base.traffic.ok).toBe(3 * 1000);
    expect(lines).toEqual([
      expect.stringMatching(/^http > todos round 5: head's server answered nothing in 1 of 4 1\.0s blocks, then answered again: left out/),
    ]);
  });

  it('loads more blocks when the last one was silent, and goes on once the server answers', async () => {
    const { pair, lines, loads } = await round(silentIn(4));
    expect(loads).toBe(1 + 5);
    expect(pair.logRatio).toBeCloseTo(Math.log(0.9), 10);
    expect(pair.head.traffic.ok).toBe(4 * 900);
    expect(lines).toEqual([expect.stringContaining("head's server answered nothing in 1 of 5 1.0s blocks")]);
  });

  it('calls a server that stops answering for good a hung server, after as many more blocks as the round had', async () => {
    // From block 3 on: silent in 2 measured blocks and in all 4 extra ones.
    await expect(round(silentIn(3, Infinity))).rejects.toThrow(
      /head \(fake\)'s server answered no request with an expected status in 6 1\.0s loads .*a hung server/,
    );
    await expect(round(() => 0)).rejects.toThrow(/answered no request .* in 8 1\.0s loads/);
  });

  it('keeps every block both servers answered in, and the silent ones no later block explains', () => {
    const t = true;
    const f = false;
    expect(
      leaveOutPaused([
        { base: t, head: f },
        { base: t, head: t },
      ]),
    ).toEqual({ kept: [1], leftOut: { base: 0, head: 1 } });
    expect(
      leaveOutPaused([
        { base: f, head: t },
        { base: t, head: f },
        { base: t, head: t },
      ]),
    ).toEqual({ kept: [2], leftOut: { base: 1, head: 1 } });
    // Silent to the end: kept, so that the round's check calls it hung.
    expect(
      leaveOutPaused([
        { base: t, head: t },
        { base: t, head: f },
      ]),
    ).toEqual({ kept: [0, 1], leftOut: { base: 0, head: 0 } });
    expect(
      leaveOutPaused([
        { base: t, head: f },
        { base: t, head: f },
      ]),
    ).toEqual({ kept: [0, 1], leftOut: { base: 0, head: 0 } });
    expect(
      endsSilent([
        { base: t, head: t },
        { base: f, head: t },
      ]),
    ).toBe(true);
    expect(
      endsSilent([
        { base: f, head: t },
        { base: t, head: t },
      ]),
    ).toBe(false);
  });
});

describe('how the CPUs are split for a duet', () => {
  it('gives both servers one shared core, the last, on any machine, and the load generator the rest', () => {
    expect(splitCpus(2, true)).toEqual({ server: '1', load: '0' });
    expect(splitCpus(4, true)).toEqual({ server: '3', load: '0-2' });
    expect(splitCpus(8, true)).toEqual({ server: '7', load: '0-6' });
    // Loaded in turn, they keep the last two from 4 cores on.
    expect(splitCpus(4)).toEqual({ server: '2-3', load: '0-1' });
  });
});

describe('stopping the servers of a round', () => {
  it('stops every server even when one could not be stopped, then throws that failure', async () => {
    const { stopAll } = await import('../../src/measure/http/server.js');
    const stopped: string[] = [];
    const server = (label: string, fails = false) => ({
      stop: async () => {
        stopped.push(label);
        if (fails) throw new Error(`${label}'s server (process group 1) survived SIGKILL`);
      },
    });
    await expect(stopAll([server('base', true), server('head')])).rejects.toThrow("base's server (process group 1) survived SIGKILL");
    expect(stopped).toEqual(['base', 'head']);
    await expect(stopAll([server('base'), server('head')])).resolves.toBeUndefined();
  });
});
