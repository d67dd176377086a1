import { median } from 'simple-statistics';
import { describeExpected } from '../config/status.js';
import { LATENCY_STATS, type LatencyStat } from '../config/types.js';
import { addTraffic } from '../measure/http/traffic.js';
import type { CpuFigures, HttpRoundFigures, ProbeFigures, ServerSummary, TrafficFigures } from '../measure/http/types.js';
import type { BenchmarkSamples } from '../measure/types.js';
import type { Comparison } from '../stats/analyze.js';
import { estimateChange, type Verdict } from '../stats/compare.js';
import { diagnose } from '../explain/rules.js';

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
        change: { estimate: number; low: number; high: number; confidence: number };
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
   * requests per CPU-second of the main thread, head against base, with its 95% interval: reported, not
   * gated (the gated figure is requests/s). Null where the CPU could not be read: `note` says why.
   */
  cpu?: {
    base: CpuSummary;
    head: CpuSummary;
    change: { estimate: number; low: number; high: number; confidence: number } | null;
    /** Per round, the relative change of requests per CPU-second of the main thread (as ReportBenchmark.rounds for requests/s). */
    rounds: number[];
  } | null;
  cpuNote?: string;
  /** Server-side figures that moved notably, in words, with what they point to: "event-loop delay p99 2.1 ms → 45.0 ms: something blocks the event loop: …". */
  moved: string[];
}

export function httpDetails(samples: BenchmarkSamples, comparison: Comparison): HttpDetails | undefined {
  const http = samples.http;
  if (!http || http.base.length === 0 || http.head.length === 0) return undefined;
  const latency: HttpDetails['latency'] = {};
  for (const stat of LATENCY_STATS) {
    const compared = comparison.latency?.[stat];
    if (!compared) continue;
    const { estimate, low, high, confidence } = compared.change;
    latency[stat] = {
      base: median(http.base.map((r) => r.latency[stat])),
      head: median(http.head.map((r) => r.latency[stat])),
      change: { estimate, low, high, confidence },
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
            note: 'server-side figures need a server started with `node …` (the probe is preloaded through NODE_OPTIONS); this one is not, so the probe was skipped',
          },
    moved: base && head ? diagnose(base, head, comparison.change?.estimate) : [],
    ...cpuDetails(http),
  };
}

/** One server's CPU per request answered as expected, in µs: the main thread, all threads, the main thread's wait for a CPU. */
export interface CpuSummary {
  mainUs: number;
  processUs: number;
  waitUs: number;
}

function cpuDetails(http: NonNullable<BenchmarkSamples['http']>): Pick<HttpDetails, 'cpu' | 'cpuNote'> {
  const ratios = http.cpuLogRatios ?? [];
  const summary = (rounds: HttpRoundFigures[]): CpuSummary | undefined => {
    const cpu = rounds.map((r) => r.cpuPerRequest);
    if (cpu.length === 0 || cpu.some((c) => c === undefined)) return undefined;
    const med = (f: (c: CpuFigures) => number) => median(cpu.map((c) => f(c!))) / 1000;
    return { mainUs: med((c) => c.mainNs), processUs: med((c) => c.processNs), waitUs: med((c) => c.mainWaitNs) };
  };
  const base = summary(http.base);
  const head = summary(http.head);
  if (!base || !head || ratios.length !== http.base.length || !ratios.every(Number.isFinite))
    return {
      cpu: null,
      cpuNote:
        "the servers' CPU per request was not read: it needs Linux's /proc/<pid>/task/<tid>/schedstat and a server process of the load test's own (started with `node …`, or a simple command)",
    };
  const { estimate, low, high, achievedConfidence } = estimateChange(ratios, 0.95);
  // Few rounds cannot reach 95% (the signed-rank interval needs 6): the confidence printed is the one reached.
  const change = ratios.length >= 2 ? { estimate, low, high, confidence: Math.min(0.95, achievedConfidence) } : null;
  return { cpu: { base, head, change, rounds: ratios.map((x) => Math.expm1(x)) } };
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
