import type { Comparison } from '../stats/analyze.js';
import type { Verdict } from '../stats/compare.js';
import type { HttpDetails } from './http.js';

/** Version of the JSON report's schema (README, "JSON report"); bumped on any breaking change. */
export const REPORT_VERSION = 1;

export type RunVerdict = 'pass' | 'fail' | 'error';

export interface RevisionInfo {
  ref: string;
  sha: string;
  /** Head only: uncommitted changes of the working tree were measured. */
  dirty?: boolean;
}

export interface ReportBenchmark {
  id: string;
  kind: Comparison['kind'];
  file: string | null;
  verdict: Verdict;
  /** Allowed loss of throughput, as a fraction (0.05 = 5%). */
  budget: number;
  base: { opsPerSec: number; samples: number } | null;
  head: { opsPerSec: number; samples: number } | null;
  /** Relative change of ops/s, head against base: -0.12 means 12% fewer. */
  change: { estimate: number; low: number; high: number; confidence: number } | null;
  /** Per-round relative changes (head against base), the samples the interval comes from. */
  rounds: number[];
  /** HTTP benchmarks: latency, traffic and server-side figures. base/head opsPerSec are 2xx requests/s. */
  http?: HttpDetails;
  error?: string;
}

export interface Environment {
  node: string;
  os: string;
  arch: string;
  cpus: { model: string; count: number };
}

export interface RunInfo {
  /** Micro-benchmark rounds (processes or process pairs). */
  rounds: number;
  plannedRounds: number;
  /** HTTP rounds per load test, when there are HTTP benchmarks. */
  httpRounds?: number;
  httpMode?: string;
  /** The time limit stopped rounds before the plan was done. */
  limited: boolean;
  isolation: string;
  /** Confidence for the whole run, and the level each interval was computed at. */
  confidence: number;
  intervalConfidence: number;
  timeLimitMs: number;
  measureMs: number;
  totalMs: number;
}

export interface Report {
  version: typeof REPORT_VERSION;
  tool: { name: 'benchgate'; version: string };
  verdict: RunVerdict;
  /** One line for people: what the verdict rests on. */
  summary: string;
  base: RevisionInfo | null;
  head: RevisionInfo | null;
  benchmarks: ReportBenchmark[];
  run: RunInfo | null;
  environment: Environment;
  /** Set when the run itself failed (bad config, failed install, crashed process). */
  error?: string;
  /** Set by the GitHub Action on pull request events: where the comment goes. */
  pullRequest?: { owner: string; repo: string; number: number };
}

/** Worst first: what needs attention leads every table. */
const ORDER: Verdict[] = ['error', 'regression', 'inconclusive', 'improvement', 'new', 'removed', 'unchanged'];

export function sortBenchmarks(benchmarks: readonly ReportBenchmark[]): ReportBenchmark[] {
  return [...benchmarks].sort((a, b) => ORDER.indexOf(a.verdict) - ORDER.indexOf(b.verdict) || a.id.localeCompare(b.id));
}

export function runVerdict(benchmarks: readonly ReportBenchmark[]): RunVerdict {
  if (benchmarks.some((b) => b.verdict === 'error')) return 'error';
  if (benchmarks.some((b) => b.verdict === 'regression')) return 'fail';
  return 'pass';
}

export function toReportBenchmark(comparison: Comparison, http?: HttpDetails): ReportBenchmark {
  const { change } = comparison;
  return {
    id: comparison.id,
    kind: comparison.kind,
    file: comparison.file ?? null,
    verdict: comparison.verdict,
    budget: comparison.budget,
    base: comparison.base ?? null,
    head: comparison.head ?? null,
    change: change ? { estimate: change.estimate, low: change.low, high: change.high, confidence: change.confidence } : null,
    rounds: comparison.logRatios.map((x) => Math.expm1(x)),
    ...(http ? { http } : {}),
    ...(comparison.error ? { error: comparison.error } : {}),
  };
}

/** Counts of each verdict, in table order, e.g. "1 regression, 2 unchanged". */
export function verdictCounts(benchmarks: readonly ReportBenchmark[]): string {
  const parts: string[] = [];
  for (const verdict of ORDER) {
    const count = benchmarks.filter((b) => b.verdict === verdict).length;
    if (count === 0) continue;
    const word = verdict === 'error' ? (count === 1 ? 'error' : 'errors') : count === 1 || verdict === 'unchanged' || verdict === 'inconclusive' || verdict === 'new' || verdict === 'removed' ? verdict : `${verdict}s`;
    parts.push(`${count} ${word}`);
  }
  return parts.join(', ') || 'no benchmarks';
}

/** The one-line summary of a finished run. */
export function summarize(benchmarks: readonly ReportBenchmark[]): string {
  const verdict = runVerdict(benchmarks);
  const counts = verdictCounts(benchmarks);
  if (verdict === 'pass') return `pass: every budget holds (${counts})`;
  if (verdict === 'fail') return `fail: ${counts}`;
  return `error: ${counts}`;
}
