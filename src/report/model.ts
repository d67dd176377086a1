import type { Comparison } from '../stats/analyze.js';
import type { PolicyInfo } from '../config/policy.js';
import type { Verdict } from '../stats/compare.js';
import { duetLine, rateLine, type HttpDetails } from './http.js';
import type { Explanation } from '../explain/run.js';
import type { NativeCheckInfo, NativeComparison } from './native.js';
import type { SoloCheckInfo, SoloComparison } from './solo.js';
import type { ProcessLevels } from '../stats/solo.js';
import { formatInterval, formatOps, formatShortPercent, isFiniteNumber, verdictWord } from '../util/format.js';
import { beyondBudget, certainPass, decide } from '../stats/compare.js';
import { openBecause, reportChange, type ReportChange } from './change.js';

/** Version of the JSON report's schema (README, "JSON report"); bumped on any breaking change. */
export const REPORT_VERSION = 1;

export type RunVerdict = 'pass' | 'fail' | 'error';

export interface RevisionInfo {
  ref: string;
  /** @pattern ^[0-9a-f]{40}$ */
  sha: string;
  /** Head only: uncommitted changes of the working tree were measured. */
  dirty?: boolean;
}

export interface ReportBenchmark {
  id: string;
  kind: Comparison['kind'];
  file: string | null;
  verdict: Verdict;
  /**
   * The gate's question, for machines: did it lose more than its budget? yes (a regression), no (a certain pass:
   * improvement, unchanged, within-budget), open (inconclusive, unmeasured); null where nothing was compared.
   */
  beyondBudget?: 'yes' | 'no' | 'open' | null;
  /** Allowed loss of throughput, as a fraction (0.05 = 5%). */
  budget: number;
  /** Base's operations per second: the median over its rounds. */
  base: { opsPerSec: number; samples: number } | null;
  /**
   * Head's operations per second as the table shows it: base's median moved by the change (so the columns agree with
   * the change, which is paired round by round); `measured` is head's own median over its rounds, which differs
   * where the rounds ran at different speeds (a note then says so). Without a change, head's own median.
   */
  head: { opsPerSec: number; samples: number; measured?: number } | null;
  /**
   * Relative change of ops/s, head against base: -0.12 means 12% fewer. `achieved`: the confidence the interval really
   * has, set where too few rounds kept it below `confidence` (the level it was asked for, the table's heading); `unsure`:
   * a bound set by a group of rounds too small to reach its level. No verdict rests on either (the note says which).
   */
  change: ReportChange | null;
  /** Per-round relative changes (head against base), the samples the interval comes from. */
  rounds: number[];
  /**
   * The one-sided p-value of "it lost no more than its budget" at its last look (nominal p over the look's
   * share of the spending): merged shard reports feed these to Holm's step-down (stats/decision.ts, stepDown).
   */
  regressionP?: number;
  /**
   * The change's estimate is an early look's (3 rounds, a t interval: stats/early.ts): a coarse estimate. Its
   * interval is the early look's (a safe verdict), or, where fresh rounds did not show its regression again, the span
   * of both groups' intervals. The table marks it "(coarse)".
   */
  coarse?: boolean;
  /**
   * The smallest change this run resolves beyond the budget with 95% power (relative), from its own spread and never
   * less than its interval shows; null when unknown.
   */
  resolvable: number | null;
  /**
   * The rounds of the verdict's throughput figure fell in groups (a change of one size in some processes, another in
   * others): each group's median change and rounds. The interval holds every group, and the verdict with it.
   */
  groups?: { change: number; rounds: number }[];
  /** Set when the budget is below what the run resolves: a regression between the two would pass unnoticed. */
  warning?: string;
  /** Rounds of the fresh group that had to reproduce a regression, and why a verdict is not plain from its interval. */
  confirmation?: number[];
  /**
   * A `regression` not shown again in fresh rounds, as planned: the time limit cut its first group or its
   * confirmation (the note says which). It fails the run as any regression; bisect and drift do not act on it alone.
   */
  unconfirmed?: boolean;
  note?: string;
  /** HTTP benchmarks: latency, traffic and server-side figures. base/head opsPerSec are successful requests/s (answered with an expected status). */
  http?: HttpDetails;
  /** Regressions (or every benchmark, on demand): where the time went, from a CPU profile of each revision. */
  profile?: Explanation;
  /** compare --native-check: the harness's own figures from the bench file's own runs, and whether they agree with benchgate's. */
  native?: NativeComparison;
  /**
   * Micro: the speeds a revision's rounds sat on, when they are levels and not spread (stats/solo.ts): the
   * call's speed depends on the process it runs in.
   */
  levels?: { base?: ProcessLevels; head?: ProcessLevels };
  /** compare --solo-check: the change with each revision alone in fresh processes, beside this (shared-process) one. */
  solo?: SoloComparison;
  /**
   * Counts mode (micro.measure: counts): instructions per call at each revision, the geometric mean over its seeds
   * (each seed a process under callgrind; head's is base's moved by the change), with each seed's figure. base/head are
   * then null: nothing was timed. The change is in calls per instruction (fewer instructions a call reads as faster),
   * its rounds one per seed.
   */
  counts?: CountFigures;
  /**
   * micro.measure: both: the figure micro.gate did not name, measured beside the row's (counts beside time, or time
   * beside counts), and whether the two agree (null: either has no interval). Its base and head are instructions per
   * call (counts) or operations per second (time); it decides nothing.
   */
  beside?: Beside;
  error?: string;
  /** The revision the error was met at, where it was one (base | head); absent where both failed, or it is not known. */
  errorAt?: 'base' | 'head';
}

export interface Beside {
  measure: 'time' | 'counts';
  /** Counts beside time: what was counted, where it is estimated cycles (base and head are then cycles per call). */
  figure?: 'cycles';
  verdict: Verdict;
  change: { estimate: number; low: number; high: number; confidence: number } | null;
  base: number | null;
  head: number | null;
  agrees: boolean | null;
  error?: string;
}

export interface CountFigures {
  /** What was counted: estimated cycles (micro.count: cycles; each `instructions` below is then cycles), or instructions. */
  figure?: 'cycles';
  base: { instructions: number; seeds: number[] } | null;
  head: { instructions: number; seeds: number[] } | null;
  /** The seeds each revision ran under (V8's --hash-seed and --random-seed). */
  seeds: number[];
  /** Seeds whose warm-up found no steady state within its bound (measured as it was then). */
  unsteady?: { base?: number[]; head?: number[] };
}

export interface Environment {
  node: string;
  os: string;
  arch: string;
  cpus: { model: string; count: number };
  /** 1, 5 and 15-minute load averages before and after measuring. */
  loadAverage?: { before: number[]; after: number[] };
}

export interface RunInfo {
  /** Micro-benchmark rounds (processes or process pairs). */
  rounds: number;
  plannedRounds: number;
  /** Adaptive rounds: the most rounds allowed, the looks paid for in the confidence, and the rounds of the confirmation group. */
  maxRounds?: number;
  looks?: number;
  confirmRounds?: number;
  /** Micro-benchmark processes run (pairs in process isolation), confirmation included: more than the rounds when a round took several. */
  processes?: number;
  /** HTTP rounds per load test (the most any ran), when there are HTTP benchmarks, and the most any ran to confirm a regression. */
  httpRounds?: number;
  httpConfirmRounds?: number;
  httpMode?: string;
  /** How the CPUs were split for the load tests: "servers on CPU 1 (base and head in turn), load generator on CPU 0". Absent when unpinned. */
  httpCpus?: string;
  /** The time limit stopped rounds before the plan was done. */
  limited: boolean;
  /** Counts mode: the seeds, the callgrind processes and the time they took. */
  counts?: { seeds: number[]; processes: number; durationMs: number; valgrind: string };
  isolation: string;
  /**
   * Confidence for the whole run (one-sided: 1 - confidence bounds the chance of any false regression),
   * and the two-sided level of an interval at the last look when no figure is a regression (Holm's
   * first step; each bound one-sided at the look's share of the spending).
   */
  confidence: number;
  intervalConfidence: number;
  /** The budgeted figures that share the run's error (Holm's family). */
  figures?: number;
  timeLimitMs: number;
  measureMs: number;
  totalMs: number;
  /** A merged report: how many shards measured the suite (rounds and times are then the most any shard took). */
  shards?: number;
  /** Profiling after the verdicts: where the .cpuprofile files are (when any was written), how many benchmarks, how long it took. */
  profile?: { dir?: string; benchmarks: number; durationMs: number };
  /** The machine's CPU busy share (0 to 1) in each round, micro then HTTP, and the rounds that ran much busier than the rest. */
  conditions?: { busy: number[]; spikedRounds: number[]; note?: string };
}

/**
 * A shard's place in a split suite (compare --shard i/n): what benchgate merge checks before it joins
 * shards into one report. The commits and benchgate's version are the report's own base.sha,
 * head.sha and tool.version.
 */
export interface ShardInfo {
  /** 1 to count. */
  index: number;
  count: number;
  /** The bench files and HTTP load tests (by id) this shard measured. */
  assigned: string[];
  /** Every bench file and HTTP load test of the whole suite, sorted: what the shards' assigned must add up to. */
  suite: string[];
  /** Budgeted figures of the whole suite: the family every shard judged at the level of. */
  familySize: number;
  /**
   * sha256 of the effective configuration (configHash).
   * @pattern ^[0-9a-f]{64}$
   */
  configHash: string;
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
  /** Set by the GitHub Action on pull request events, for people reading the file; mode: comment takes the pull request from its event, never from here. */
  pullRequest?: { owner: string; repo: string; number: number };
  /** Set by the GitHub Action: the gate's comment key (commentKeyOf), so mode: comment updates the same comment. */
  commentKey?: string;
  /** A shard's report (compare --shard): which part of the suite it measured. A merged report has none. */
  shard?: ShardInfo;
  /** Whose config decided (base's in the action), and each policy setting the change makes different from base's. */
  policy?: PolicyInfo;
  /** compare --native-check: each bench file's own runs (information: never a verdict). */
  nativeCheck?: NativeCheckInfo;
  /** compare --solo-check: how many fresh processes per revision, and how long it took. */
  soloCheck?: SoloCheckInfo;
}

/** Worst first: what needs attention leads every table. */
const ORDER: Verdict[] = [
  'error',
  'unmeasured',
  'regression',
  'inconclusive',
  'within-budget',
  'improvement',
  'new',
  'removed',
  'unchanged',
];

export function sortBenchmarks(benchmarks: readonly ReportBenchmark[]): ReportBenchmark[] {
  return [...benchmarks].sort((a, b) => ORDER.indexOf(a.verdict) - ORDER.indexOf(b.verdict) || a.id.localeCompare(b.id));
}

/** A regression the time limit kept from its confirmation: it fails the run, but bisect and drift do not act on it alone. */
export function unconfirmedRegression(b: { verdict: Verdict; unconfirmed?: boolean | undefined }): boolean {
  return b.verdict === 'regression' && b.unconfirmed === true;
}

/** A regression its fresh group showed again (or that needed none): what bisect and drift act on. */
export function confirmedRegression(b: { verdict: Verdict; unconfirmed?: boolean | undefined }): boolean {
  return b.verdict === 'regression' && !unconfirmedRegression(b);
}

/**
 * Whether a run failed to compare (a build, a crash, a benchmark in error), as opposed to a run whose verdict is
 * `error` only because the time limit left benchmarks unmeasured: that one may be run again with more time.
 */
export function compareFailed(report: Pick<Report, 'error' | 'benchmarks'>): boolean {
  return Boolean(report.error) || report.benchmarks.some((b) => b.verdict === 'error');
}

/**
 * A load test whose verdict is read from requests per CPU-second while its row shows requests/s (the figure a reader
 * expects first), where that interval alone would read another word: the row says which interval decided.
 */
function gatedElsewhere(comparison: Comparison): string | undefined {
  const { cpu, change } = comparison;
  if (comparison.gatedOn !== 'cpu' || !cpu || !change) return undefined;
  // Only where the CPU figure's word is the row's (a guard's regression or a latency budget may decide it instead).
  if (comparison.verdict !== cpu.verdict || decide(change, comparison.budget) === cpu.verdict) return undefined;
  return (
    `its verdict is read from requests per CPU-second, ${formatInterval(cpu.change)} (${verdictWord(cpu.verdict)}), the figure ` +
    `this load test is gated on (its details say why), not from requests/s, the row's ${formatInterval(change)}`
  );
}

/** error (exit 2) when anything could not be judged, an error or a benchmark left unmeasured; fail (exit 1) on a regression. */
export function runVerdict(benchmarks: readonly ReportBenchmark[]): RunVerdict {
  if (benchmarks.some((b) => b.verdict === 'error' || b.verdict === 'unmeasured')) return 'error';
  if (benchmarks.some((b) => b.verdict === 'regression')) return 'fail';
  return 'pass';
}

export function toReportBenchmark(comparison: Comparison, http?: HttpDetails): ReportBenchmark {
  const { change } = comparison;
  // A side that fell behind a fixed rate is said where every reader sees it, not only in the load test's details.
  const behind = http?.rate?.behind.length ? rateLine(http.rate) : undefined;
  // So is a duet whose shared CPU a saturating load left idle: its requests/s is not the servers' cost.
  const unsaturated = http?.duet?.unsaturated ? duetLine(http.duet) : undefined;
  // One sentence each, joined by '; ' (a sentence's own closing period dropped so the join never reads '.;').
  const columns = agreeingColumns(comparison);
  const warning =
    [openWhy(comparison), resolutionWarning(comparison), behind, unsaturated, columns.note, gatedElsewhere(comparison)]
      .filter((part): part is string => Boolean(part))
      .map((part) => part.replace(/\.$/, ''))
      .join('; ') || undefined;
  // The row's change is requests/s for a load test too: its groups are that figure's (requests per CPU-second's are in the note).
  const groups = comparison.groups;
  return {
    id: comparison.id,
    kind: comparison.kind,
    file: comparison.file ?? null,
    verdict: comparison.verdict,
    beyondBudget: beyondBudget(comparison.verdict),
    budget: comparison.budget,
    base: comparison.base ?? null,
    head: columns.head,
    change: change ? reportChange(change) : null,
    rounds: comparison.logRatios.map((x) => Math.expm1(x)),
    ...(comparison.regressionP !== undefined ? { regressionP: comparison.regressionP } : {}),
    resolvable: Number.isFinite(comparison.resolvable) ? comparison.resolvable! : null,
    ...(comparison.confirmation ? { confirmation: comparison.confirmation.map((x) => Math.expm1(x)) } : {}),
    ...(unconfirmedRegression(comparison) ? { unconfirmed: true } : {}),
    ...(groups ? { groups } : {}),
    ...(comparison.coarse ? { coarse: true } : {}),
    ...(comparison.note ? { note: comparison.note } : {}),
    ...(warning ? { warning } : {}),
    ...(http ? { http } : {}),
    ...(comparison.error ? { error: comparison.error } : {}),
    ...(comparison.errorAt ? { errorAt: comparison.errorAt } : {}),
  };
}

/**
 * Why an open verdict stands beside an interval that does not straddle -budget, which the legend says an open row's
 * does (report/change.ts's reasons), or another figure of a load test is open. Without it the row reads as a
 * contradiction (uuid's "inconclusive" beside a 93-point interval; a cut load test "unmeasured" beside [-97%, -93%]).
 */
function openWhy(comparison: Comparison): string | undefined {
  const { verdict, change, budget, logRatios } = comparison;
  if ((verdict !== 'inconclusive' && verdict !== 'unmeasured') || !change) return undefined;
  if (change.low < -budget && change.high >= -budget) return undefined;
  const why = openBecause(reportChange(change), verdict, budget, { rounds: logRatios.length });
  if (why) return why;
  if (comparison.openFigures) return 'another of its budgeted figures is open (below), so the row is too';
  return undefined;
}

/**
 * Head's column as base's median moved by the change, so a reader checking the columns against the change finds
 * them agree: each side's own median over rounds is not the paired change (fast-uri's `resolve` read 262k → 218k
 * beside a paired −0.2%: its rounds ran at different speeds, and each side's median picked another round). Where
 * head's own median lies outside the interval's reach of base's, a note gives it and says why the two differ.
 */
function agreeingColumns(comparison: Comparison): { head: ReportBenchmark['head']; note?: string } {
  const { base, head, change } = comparison;
  if (!base || !head || !change || !(change.estimate > -1) || !(base.opsPerSec > 0)) return { head: head ?? null };
  const shown = base.opsPerSec * (1 + change.estimate);
  const own = head.opsPerSec / base.opsPerSec - 1;
  const apart = own < change.low || own > change.high;
  const pct = (x: number) => formatShortPercent(x, Math.abs(x) < 0.1 ? 1 : 0);
  return {
    head: { opsPerSec: shown, samples: head.samples, measured: head.opsPerSec },
    ...(apart
      ? {
          note:
            `head's own median over its rounds, ${formatOps(head.opsPerSec)} (${own >= 0 ? '+' : ''}${pct(own)} on base's), lies outside the interval: ` +
            "the rounds ran at different speeds, and the change is paired within each round (the table's head is base's median moved by it)",
        }
      : {}),
  };
}

/**
 * "budget 2% is below what this run resolves beyond it (≈5.3% with 10 rounds): a regression between 2% and
 * 7.3% would likely pass unnoticed". `resolvable` is the distance beyond the budget a loss needs to be
 * caught with 95% power; the warning comes when that distance is larger than the budget itself (a loss
 * of twice the budget would likely pass, the line benchgate calibrate draws too). Only for benchmarks
 * that passed: a verdict already found is a verdict.
 */
function resolutionWarning(comparison: Comparison): string | undefined {
  return resolutionSentence(comparison.resolvable, comparison.budget, comparison.verdict, comparison.logRatios.length);
}

/** The resolution warning from its figures (also said again by a stage that widens an interval: compare --solo-check). */
export function resolutionSentence(
  resolvable: number | null | undefined,
  budget: number,
  verdict: string,
  rounds: number,
  of: 'rounds' | 'seeds' = 'rounds',
): string | undefined {
  if (!isFiniteNumber(resolvable) || resolvable <= budget || verdict === 'regression' || verdict === 'error' || verdict === 'unmeasured')
    return undefined;
  const pct = (x: number) => formatShortPercent(x, x < 0.1 ? 1 : 0);
  return (
    `budget ${pct(budget)} is below what this run resolves beyond it (≈${pct(resolvable)} with ` +
    `${rounds} ${of}): a regression between ${pct(budget)} and ${pct(budget + resolvable)} ` +
    `would likely pass unnoticed. ` +
    (of === 'seeds' ? 'Raise the budget or the seeds (micro.seeds)' : 'Raise the budget or the rounds (benchgate calibrate suggests both)')
  );
}

/** A benchmark with its machine-readable answer agreeing with its verdict (set again after a stage that re-judged it). */
export function withAnswer(benchmark: ReportBenchmark): ReportBenchmark {
  return { ...benchmark, beyondBudget: beyondBudget(benchmark.verdict) };
}

/** Counts of each verdict, in table order, e.g. "1 regression, 2 unchanged". */
export function verdictCounts(benchmarks: readonly ReportBenchmark[]): string {
  const parts: string[] = [];
  for (const verdict of ORDER) {
    const count = benchmarks.filter((b) => b.verdict === verdict).length;
    if (count === 0) continue;
    const word =
      verdict === 'within-budget'
        ? 'within budget'
        : verdict === 'error'
          ? count === 1
            ? 'error'
            : 'errors'
          : count === 1 ||
              verdict === 'unchanged' ||
              verdict === 'inconclusive' ||
              verdict === 'unmeasured' ||
              verdict === 'new' ||
              verdict === 'removed'
            ? verdict
            : `${verdict}s`;
    parts.push(`${count} ${word}`);
  }
  return parts.join(', ') || 'no benchmarks';
}

/**
 * What a pass rests on, in the words every surface's headline uses: "every budget holds" only where every row is a
 * certain pass; open rows (inconclusive) pass without being shown to hold, so the words say no more than the intervals.
 */
export function passWords(benchmarks: readonly ReportBenchmark[]): string {
  // Only rows judged against a budget count: a new or removed benchmark was compared with nothing.
  const judged = benchmarks.filter((b) => b.verdict === 'inconclusive' || certainPass(b.verdict as Verdict));
  const open = judged.filter((b) => b.verdict === 'inconclusive').length;
  if (judged.length === 0) return 'no budget compared';
  return open ? `no budget shown broken, ${open} of ${judged.length} left open` : 'every budget holds';
}

/**
 * The words a report's headline adds to its pass (the PR comment's, the terminal's closing line): only where the run
 * passed and its rows agree (a report made elsewhere, `mode: comment`, says its own verdict).
 */
export function headlinePassWords(report: Report): string | undefined {
  return report.verdict === 'pass' && !report.error && runVerdict(report.benchmarks) === 'pass' ? passWords(report.benchmarks) : undefined;
}

/** The one-line summary of a finished run. */
export function summarize(benchmarks: readonly ReportBenchmark[]): string {
  const verdict = runVerdict(benchmarks);
  const counts = verdictCounts(benchmarks);
  if (verdict === 'pass') return `pass: ${passWords(benchmarks)} (${counts})`;
  if (verdict === 'fail') return `fail: ${counts}`;
  return `error: ${counts}`;
}
