import { median } from 'simple-statistics';
import { describeExpected } from '../config/status.js';
import { formatFixed, formatShare } from '../util/format.js';
import { LATENCY_STATS, type LatencyStat } from '../config/types.js';
import { addTraffic } from '../measure/http/traffic.js';
import type {
  CpuFigures,
  DuetFigures,
  HttpRoundFigures,
  ProbeFigures,
  RateFigures,
  ServerSummary,
  TrafficFigures,
} from '../measure/http/types.js';
import { checkRate } from '../measure/http/rate.js';
import { describeSchedule, type ScheduleChoice } from '../measure/http/planner.js';
import type { BenchmarkSamples, RoundBlocks } from '../measure/types.js';
import type { Comparison } from '../stats/analyze.js';
import { estimateChange, type Verdict } from '../stats/compare.js';
import { diagnose } from '../explain/rules.js';
import { reportChange, type ReportChange } from './change.js';

/** One revision's server, summarised over rounds (medians). */
export interface HttpDetails {
  /** Each request as "GET /path", in config order. */
  requests: string[];
  /** What each request expects to answer, in the same order: "2xx", "404", "200 or 304". Absent in reports that predate it (2xx each). */
  expected?: string[];
  connections: number;
  durationMs: number;
  warmupMs: number;
  latency: Partial<
    Record<
      LatencyStat,
      {
        base: number;
        head: number;
        /** With `achieved` / `unsure` where the interval falls short of its level (report/change.ts). */
        change: ReportChange;
        budget: number | null;
        verdict: Verdict | null;
        /** Budgeted figures: the p-value Holm's step-down ranks (ReportBenchmark.regressionP). */
        regressionP?: number;
      }
    >
  >;
  /** Summed over rounds. */
  traffic: { base: TrafficFigures; head: TrafficFigures };
  /** Null when the server is not run with `node …` (no probe): `note` says so. */
  server: { base: ServerSummary | null; head: ServerSummary | null; note?: string };
  /**
   * The servers' CPU per request answered as expected (medians of the rounds, µs) and the change of
   * requests per CPU-second of the main thread, head against base, with its interval: the second gated
   * throughput figure, at the benchmark's budget (`verdict`; reports made before it was gated have none,
   * and a 95% interval). Null where the CPU could not be read: `note` says why.
   */
  cpu?: {
    base: CpuSummary;
    head: CpuSummary;
    change: { estimate: number; low: number; high: number; confidence: number } | null;
    /** Per round, the relative change of requests per CPU-second of the main thread (as ReportBenchmark.rounds for requests/s). */
    rounds: number[];
    /** Its verdict against the benchmark's budget (the benchmark's verdict combines it with requests/s and latency). */
    verdict?: Verdict;
    /** The p-value Holm's step-down ranks (ReportBenchmark.regressionP). */
    regressionP?: number;
  } | null;
  cpuNote?: string;
  /**
   * Fixed-rate load tests: the rate asked of both servers, what each reached (median of the rounds' answers
   * with an expected status per second), and each round in which a side fell behind (the server could not
   * answer at the rate, or the load generator could not send at it).
   */
  rate?: {
    asked: number;
    auto: boolean;
    base: { reached: number; lateShare: number };
    head: { reached: number; lateShare: number };
    behind: { side: 'base' | 'head'; who: 'server' | 'load generator'; rounds: number }[];
    rounds: number;
  };
  /**
   * `duet` rounds: how busy the CPU both servers shared was over the measured blocks (median of the rounds, 0 to
   * 1), benchgate's load generator (a share of one CPU), and in how many rounds a saturating load left the shared
   * CPU idle a tenth of the time or more (the servers did not compete for it: the load generator, or waiting in
   * the servers, set the pace).
   */
  duet?: { coreBusy: number | null; loadGeneratorBusy: number; unsaturated: number; rounds: number };
  /** Which throughput figure the verdict was read from, where both were measured (the other guards it: Comparison.gatedOn). */
  gatedOn?: 'requests' | 'cpu';
  /**
   * Why the verdict's figure is CPU where requests/s was measured too: a fixed rate or an unsaturated duet set
   * requests/s (it did not compare cost), or requests/s spread more. A code, not text: a report may come from an upload.
   */
  gatedBecause?: 'rate' | 'unsaturated' | 'spread';
  /** A duet whose `duration` was not set: the warm-up and blocks per pair the run chose, from what it measured, and why. */
  schedule?: ScheduleChoice;
  /** …and each round's blocks (the first group's), for a reader who wants to see where each pair settled. */
  blocks?: RoundBlocks[];
  /**
   * Server-side figures that moved notably, in words, with what they point to: "event-loop delay p99 2.1 ms → 45.0 ms:
   * something blocks the event loop: …".
   */
  moved: string[];
}

export function httpDetails(samples: BenchmarkSamples, comparison: Comparison): HttpDetails | undefined {
  const http = samples.http;
  if (!http || http.base.length === 0 || http.head.length === 0) return undefined;
  const latency: HttpDetails['latency'] = {};
  for (const stat of LATENCY_STATS) {
    const compared = comparison.latency?.[stat];
    if (!compared) continue;
    latency[stat] = {
      base: median(http.base.map((r) => r.latency[stat])),
      head: median(http.head.map((r) => r.latency[stat])),
      change: reportChange(compared.change),
      budget: compared.budget ?? null,
      verdict: compared.verdict ?? null,
      ...(compared.regressionP !== undefined ? { regressionP: compared.regressionP } : {}),
    };
  }
  const base = summarizeServer(http.base);
  const head = summarizeServer(http.head);
  return {
    requests: http.config.requests.map((r) => `${r.method} ${r.path}`),
    expected: http.config.requests.map((r) => describeExpected(r.status)),
    connections: http.config.connections,
    durationMs: http.config.durationMs,
    warmupMs: http.config.warmupMs,
    latency,
    traffic: { base: sumTraffic(http.base), head: sumTraffic(http.head) },
    server:
      base || head
        ? { base, head }
        : {
            base: null,
            head: null,
            note:
              'server-side figures need a server started with `node …` (the probe is ' +
              'preloaded through NODE_OPTIONS); this one is not, so the probe was skipped',
          },
    moved: base && head ? diagnose(base, head, comparison.change?.estimate) : [],
    ...cpuDetails(samples, comparison),
    ...rateDetails(http),
    ...duetDetails(http),
    ...(comparison.gatedOn ? { gatedOn: comparison.gatedOn } : {}),
    ...(comparison.gatedOn === 'cpu'
      ? { gatedBecause: samples.http?.base.some((r) => r.rate) ? 'rate' : samples.requestsNotCost ? 'unsaturated' : 'spread' }
      : {}),
    ...(http.schedule ? { schedule: http.schedule } : {}),
    ...(http.blocks ? { blocks: http.blocks } : {}),
  };
}

function duetDetails(http: NonNullable<BenchmarkSamples['http']>): Pick<HttpDetails, 'duet'> {
  const rounds = http.base.map((r) => r.duet);
  if (rounds.length === 0 || !rounds.every((r): r is DuetFigures => r !== undefined)) return {};
  const busy = rounds.map((r) => r.coreBusy).filter((x): x is number => x !== undefined);
  return {
    duet: {
      coreBusy: busy.length === rounds.length ? median(busy) : null,
      loadGeneratorBusy: median(rounds.map((r) => r.loadGeneratorBusy)),
      unsaturated: rounds.filter((r) => r.saturated === false).length,
      rounds: rounds.length,
    },
  };
}

/**
 * "duet: both servers on one shared CPU, busy 99% of the measured time (load generator 71% of a CPU)", and when a
 * saturating load did not keep that CPU busy, what it means. A report made elsewhere may hold anything: numbers
 * are formatted or '–'.
 */
export function duetLine(duet: HttpDetails['duet']): string | undefined {
  if (!duet || typeof duet !== 'object') return undefined;
  const pct = (x: unknown) => formatShare(x, 0);
  const line =
    `duet: both servers loaded at once on one shared CPU, busy ${duet.coreBusy === null ? '(not read)' : pct(duet.coreBusy)} ` +
    `of the measured time (the load generator used ${pct(duet.loadGeneratorBusy)} of a CPU)`;
  if (!(typeof duet.unsaturated === 'number' && duet.unsaturated > 0)) return line;
  const generator = typeof duet.loadGeneratorBusy === 'number' && duet.loadGeneratorBusy >= 0.9;
  return `${line}; the shared CPU was not saturated in ${formatFixed(duet.unsaturated, 0)} of ${formatFixed(duet.rounds, 0)} rounds: ${
    generator
      ? 'the load generator was the bottleneck (its CPU was full)'
      : 'the servers waited (for requests, timers or I/O) rather than competed for the CPU'
  }, so requests/s compares what the load allowed, not the servers' cost; CPU per request still compares both at one speed`;
}

function rateDetails(http: NonNullable<BenchmarkSamples['http']>): Pick<HttpDetails, 'rate'> {
  const rounds = { base: http.base.map((r) => r.rate), head: http.head.map((r) => r.rate) };
  if (![...rounds.base, ...rounds.head].every((r): r is RateFigures => r !== undefined) || rounds.base.length === 0) return {};
  const side = (rates: RateFigures[]) => ({
    reached: median(rates.map((r) => r.reached)),
    lateShare: median(rates.map((r) => r.lateShare)),
  });
  const behind: NonNullable<HttpDetails['rate']>['behind'] = [];
  for (const name of ['base', 'head'] as const)
    for (const who of ['load generator', 'server'] as const) {
      const count = (rounds[name] as RateFigures[]).filter((r) => checkRate(r) === who).length;
      if (count > 0) behind.push({ side: name, who, rounds: count });
    }
  return {
    rate: {
      asked: rounds.base[0]!.asked,
      auto: http.config.rate === 'auto',
      base: side(rounds.base as RateFigures[]),
      head: side(rounds.head as RateFigures[]),
      behind,
      rounds: rounds.base.length,
    },
  };
}

/** One server's CPU per request answered as expected, in µs: the main thread, all threads, the main thread's wait for a CPU. */
export interface CpuSummary {
  mainUs: number;
  processUs: number;
  waitUs: number;
  /** User-mode instructions per request, where hardware counters were read in every round. */
  instructions?: number;
}

function cpuDetails(samples: BenchmarkSamples, comparison: Comparison): Pick<HttpDetails, 'cpu' | 'cpuNote'> {
  const http = samples.http!;
  const ratios = samples.cpu ?? [];
  const summary = (rounds: HttpRoundFigures[]): CpuSummary | undefined => {
    const cpu = rounds.map((r) => r.cpuPerRequest);
    if (cpu.length === 0 || cpu.some((c) => c === undefined)) return undefined;
    const med = (f: (c: CpuFigures) => number) => median(cpu.map((c) => f(c!))) / 1000;
    const counted = cpu.every((c) => c!.instructions !== undefined);
    return {
      mainUs: med((c) => c.mainNs),
      processUs: med((c) => c.processNs),
      waitUs: med((c) => c.mainWaitNs),
      ...(counted ? { instructions: median(cpu.map((c) => c!.instructions!)) } : {}),
    };
  };
  const base = summary(http.base);
  const head = summary(http.head);
  if (!base || !head || ratios.length !== http.base.length || !ratios.every(Number.isFinite))
    return {
      cpu: null,
      cpuNote:
        "the servers' CPU per request was not read: it needs Linux's /proc/<pid>/task/<tid>/schedstat " +
        "and a server process of the load test's own (started with `node …`, or a simple command)",
    };
  const rounds = ratios.map((x) => Math.expm1(x));
  const judged = comparison.cpu;
  if (judged) {
    const { estimate, low, high, confidence } = judged.change;
    return {
      cpu: { base, head, change: { estimate, low, high, confidence }, rounds, verdict: judged.verdict, regressionP: judged.regressionP },
    };
  }
  // Not judged (the benchmark was not compared): its 95% interval, reported.
  const { estimate, low, high, achievedConfidence } = estimateChange(ratios, 0.95);
  // Few rounds cannot reach 95% (the signed-rank interval needs 6): the confidence printed is the one reached.
  const change = ratios.length >= 2 ? { estimate, low, high, confidence: Math.min(0.95, achievedConfidence) } : null;
  return { cpu: { base, head, change, rounds } };
}

function summarizeServer(rounds: HttpRoundFigures[]): ServerSummary | null {
  const probes = rounds.map((r) => r.probe).filter((p): p is ProbeFigures => p !== undefined);
  if (probes.length === 0) return null;
  const med = (f: (p: ProbeFigures) => number) => median(probes.map(f));
  const kinds = [...new Set(probes.flatMap((p) => Object.keys(p.gc.byKind)))];
  return {
    eventLoopDelayMs: {
      p50: med((p) => p.eventLoopDelay.p50),
      p99: med((p) => p.eventLoopDelay.p99),
      max: med((p) => p.eventLoopDelay.max),
    },
    eventLoopUtilization: med((p) => p.eventLoopUtilization),
    gc: {
      count: med((p) => p.gc.count),
      totalMs: med((p) => p.gc.totalMs),
      share: med((p) => (p.windowMs > 0 ? p.gc.totalMs / p.windowMs : 0)),
      byKindMs: Object.fromEntries(kinds.map((kind) => [kind, med((p) => p.gc.byKind[kind]?.totalMs ?? 0)])),
    },
    peakRssMb: med((p) => p.peakRssBytes) / 2 ** 20,
    peakHeapUsedMb: med((p) => p.peakHeapUsedBytes) / 2 ** 20,
  };
}

function sumTraffic(rounds: HttpRoundFigures[]): TrafficFigures {
  return rounds.map((r) => r.traffic).reduce(addTraffic);
}

/**
 * "fixed rate 5000 requests/s (auto: half the slower server's capacity): reached 4998/s at base, 4120/s at head;
 * head's server fell behind in 3 of 10 rounds". A report made elsewhere may hold anything: numbers are formatted or '–'.
 */
export function rateLine(rate: HttpDetails['rate']): string | undefined {
  if (!rate || typeof rate !== 'object') return undefined;
  const perSec = (x: unknown) => `${formatFixed(x, 0)}/s`;
  const head =
    `fixed rate ${formatFixed(rate.asked, 0)} requests/s${rate.auto === true ? " (auto: half the slower server's capacity)" : ''}: ` +
    `reached ${perSec(rate.base?.reached)} at base, ${perSec(rate.head?.reached)} at head`;
  const behind = (Array.isArray(rate.behind) ? rate.behind : []).filter((b) => b !== null && typeof b === 'object');
  const lines = behind.map(
    (b) =>
      `${b.side === 'head' ? 'head' : 'base'}'s ${b.who === 'load generator' ? 'load generator' : 'server'} ` +
      `fell behind in ${formatFixed(b.rounds, 0)} of ${formatFixed(rate.rounds, 0)} rounds`,
  );
  return lines.length
    ? `${head}; ${lines.join('; ')}${
        behind.some((b) => b.who === 'load generator')
          ? ': the load generator could not send at the rate (a busy machine, or a rate too high for one core), ' +
            "so those rounds' latency is not the server's alone"
          : ''
      }`
    : `${head}; both kept the rate`;
}

/** "schedule: 3 blocks of 1.0s per pair …" for a duet whose schedule the run chose; undefined otherwise. */
export function scheduleLine(schedule: HttpDetails['schedule']): string | undefined {
  if (!schedule || typeof schedule !== 'object') return undefined;
  return `schedule: ${describeSchedule(schedule)}`;
}
