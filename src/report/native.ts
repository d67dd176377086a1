/**
 * compare --native-check in the report: each benchmark's figures from its bench file's own runs (the
 * harness's ops/s and its ± margin), their change, and whether that change agrees with benchgate's.
 *
 * The agreement rule: the native change is head/base − 1 (each side the mean of its runs). Its interval must
 * hold the noise between runs, not only within one: a harness's ± margin is the spread of one run's samples,
 * and whole runs of unchanged code a minute apart moved ~30% on a loaded 2-core machine with ±5% margins
 * each. So the interval's half-width (in log space) is the larger of the runs' own margins combined,
 * sqrt(rmeBase² + rmeHead²), and the runs' spread: t(df) · s · sqrt(1/kBase + 1/kHead), where s is the
 * standard deviation of log(ops/s) between runs of one task at one revision, pooled over every task and both
 * revisions of the check (the minute-to-minute speed of the machine moves them alike), df its degrees of
 * freedom. A task with OWN_NOISE_RUNS runs or more per revision also has its own spread, and the wider of the
 * two counts: one scenario can move far more between runs than the file's others (with what runs before it in
 * the author's process; fast-json-stringify's array scenarios moved 10-15% where most moved < 1-4%). With one
 * run per revision nothing measures that spread, and no agreement is claimed. It agrees with benchgate when
 * the interval overlaps benchgate's interval on the change; else it disagrees.
 */
import type { RevisionLabel } from '../checkout/revisions.js';
import { tQuantile95, type NativeRecord } from '../measure/native/figures.js';
import type { NativeFileResult } from '../measure/native/check.js';
import { matchRun } from '../measure/native/match.js';
import { formatPercent, isFiniteNumber } from '../util/format.js';

/** One revision's native figure of a benchmark, from the run(s) of its bench file at that revision. */
export interface NativeSide {
  /** Operations per second as the harness reported them: the mean over runs. */
  opsPerSec: number;
  /** ± relative margin of error in percent (about 95%); null when the harness gave none. */
  rme: number | null;
  /** The harness's figure in each run, ops/s. */
  runs: number[];
}

/** too-noisy: the intervals meet, but one of them (native, or benchgate's) is too wide for that to say anything (TOO_WIDE). */
export type NativeAgreement = 'agrees' | 'disagrees' | 'too-noisy' | 'unknown';

/**
 * A native interval whose half-width (ln) is above this, and above twice benchgate's, cannot tell a change of 10
 * points from none: it meets benchgate's whatever the truth, so its meeting is no agreement (cookie's native intervals
 * about 30 points wide read "6 compared, 0 disagree" beside changes of 10 to 40%).
 */
export const TOO_WIDE = 0.1;

export interface NativeChange {
  estimate: number;
  low: number | null;
  high: number | null;
}

/** A benchmark's native figures beside benchgate's. */
export interface NativeComparison {
  base: NativeSide | null;
  head: NativeSide | null;
  /** head against base (relative), its interval from both margins (see the agreement rule above); null bounds when a side has no margin. */
  change: NativeChange | null;
  agreement: NativeAgreement;
  /** Where they disagree, "disagrees: native +3.1%, benchgate -12.0%"; why unknown; what went wrong in a run. */
  note?: string;
}

/** One bench file's native runs: what ran, and what could not be matched. */
export interface NativeFileInfo {
  file: string;
  harness?: string;
  /** Each revision's copy of the harness, where known. */
  versions?: { base?: string; head?: string };
  runs: { revision: RevisionLabel; durationMs: number; tasks: number; problem?: string }[];
  /** Why it was not run natively (a file that exports its tasks, one whose harness benchgate cannot read). */
  skipped?: string;
  /** Task names the native runs reported that match no benchmark benchgate compared in this file. */
  unmatched: string[];
}

/** The native check of a run: every file it ran (or skipped), and each run's bound. */
export interface NativeCheckInfo {
  runTimeoutMs: number;
  files: NativeFileInfo[];
  /** The check itself failed (the comparison stands: the check is information). */
  error?: string;
}

interface Compared {
  id: string;
  file: string | null;
  verdict: string;
  change: { estimate: number; low: number; high: number } | null;
}

/** Each compared benchmark of a file that ran natively gets its `native` entry; the files are described. */
export function nativeEntries(
  results: readonly NativeFileResult[],
  benchmarks: readonly Compared[],
): { byId: Map<string, NativeComparison>; files: NativeFileInfo[] } {
  const byId = new Map<string, NativeComparison>();
  const matched = results.map((result) => {
    const ids = new Set(benchmarks.filter((b) => b.file === result.file).map((b) => b.id));
    const seen = new Map<string, { base: NativeRecord[]; head: NativeRecord[] }>();
    const unmatched = new Set<string>();
    for (const run of result.runs) {
      const { matched: records, unmatched: names } = matchRun(result.file, run.records, ids);
      for (const name of names) unmatched.add(name);
      for (const [id, record] of records) {
        const sides = seen.get(id) ?? { base: [], head: [] };
        sides[run.revision].push(record);
        seen.set(id, sides);
      }
    }
    return { result, ids, seen, unmatched };
  });
  const noise = runNoise(matched.flatMap(({ seen }) => [...seen.values()].flatMap((sides) => [sides.base, sides.head])));
  const files = matched.map(({ result, ids, seen, unmatched }) => {
    if (!result.skipped)
      for (const benchmark of benchmarks.filter((b) => ids.has(b.id)))
        byId.set(benchmark.id, compareNative(seen.get(benchmark.id) ?? { base: [], head: [] }, benchmark, result, noise));
    return {
      file: result.file,
      ...(result.harness ? { harness: result.harness } : {}),
      ...(result.versions ? { versions: result.versions } : {}),
      runs: result.runs.map((run) => ({
        revision: run.revision,
        durationMs: Math.round(run.durationMs),
        tasks: run.records.length,
        ...(run.problem ? { problem: run.problem } : {}),
      })),
      ...(result.skipped ? { skipped: result.skipped } : {}),
      unmatched: [...unmatched],
    };
  });
  return { byId, files };
}

function compareNative(
  records: { base: NativeRecord[]; head: NativeRecord[] },
  benchmark: Compared,
  result: NativeFileResult,
  noise: RunNoise | null,
): NativeComparison {
  const base = combineRuns(records.base);
  const head = combineRuns(records.head);
  const missing = (['base', 'head'] as const).filter((revision) => !(revision === 'base' ? base : head));
  const why = missing.map((revision) => missingReason(revision, records[revision], result)).filter(Boolean);
  const change = base && head ? nativeChange(base, head, noise) : null;
  const majors = otherMajors(result.versions);
  const impossible = impossibleFigure({ base, head });
  const judged = !change
    ? { agreement: 'unknown' as const, note: why.join('; ') || 'no native figure' }
    : impossible
      ? { agreement: 'unknown' as const, note: impossible }
      : majors
        ? { agreement: 'unknown' as const, note: majors }
        : change.low === null && base?.rme !== null && head?.rme !== null && noise === null
          ? { agreement: 'unknown' as const, note: ONE_RUN }
          : agreementOf(change, benchmark.change);
  return { base, head, change, agreement: judged.agreement, ...(judged.note ? { note: judged.note } : {}) };
}

/**
 * The fastest a call can be: 1 ns (about three cycles of this 2-core machine's CPU; benchgate's own harness reads
 * 18 ns for a Map lookup, tinybench 39 ns for an empty function with its per-call timing). A harness that reports
 * more than 1e9 ops/s measured its own loop after the compiler removed the call (mitata without do_not_optimize
 * read a Map lookup at 6.1G ops/s, 0.16 ns): its figure is not the code's cost, and its change is not judged.
 */
export const IMPOSSIBLE_OPS_PER_SEC = 1e9;

/** How the note of a figure faster than a call can be begins. */
export const OPTIMIZED_AWAY = "the harness's loop was optimized away";

/** The note for a side whose native figure is faster than any call can be, or undefined. */
export function impossibleFigure(sides: { base: NativeSide | null; head: NativeSide | null }): string | undefined {
  const fast = (['base', 'head'] as const).filter((revision) => (sides[revision]?.opsPerSec ?? 0) > IMPOSSIBLE_OPS_PER_SEC);
  if (fast.length === 0) return undefined;
  const at = fast
    .map((revision) => {
      const ops = sides[revision]!.opsPerSec;
      return `${revision} ${(ops / 1e9).toFixed(1)}G ops/s, ${(1e9 / ops).toFixed(2)} ns a call`;
    })
    .join('; ');
  return `${OPTIMIZED_AWAY} (${at}: faster than a call can be, 1 ns): its figure is not the code's cost, not judged`;
}

/**
 * Base and head on different major versions of the harness report different figures under one name (tinybench
 * 2.x's hz is one over a call's mean time, 6.x's throughput.mean the mean of its samples' rates: an unchanged task
 * read +100% between them), so their change is shown and not judged.
 */
function otherMajors(versions: NativeFileResult['versions']): string | undefined {
  const majors = differentMajors(versions);
  return majors
    ? `${MAJOR_VERSIONS} ${majors.base} and ${majors.head} of the harness, whose figures are not the same measure: not judged`
    : undefined;
}

/** Base's and head's major versions of the harness when both are known and differ (the report's notes and judgement share it). */
export function differentMajors(versions: { base?: string; head?: string } | undefined): { base: string; head: string } | undefined {
  const major = (version: string | undefined) => /^(\d+)\./.exec(version ?? '')?.[1];
  const [base, head] = [major(versions?.base), major(versions?.head)];
  return base && head && base !== head ? { base, head } : undefined;
}

function missingReason(revision: RevisionLabel, records: NativeRecord[], result: NativeFileResult): string {
  const errored = records.find((r) => r.error !== undefined);
  if (errored) return `at ${revision} the harness reported: ${errored.error}`;
  const runs = result.runs.filter((run) => run.revision === revision);
  if (runs.length === 0) return `not run at ${revision} (the file is not there)`;
  const problem = runs.find((run) => run.problem)?.problem;
  return problem ? `the run at ${revision} ${problem.split('\n')[0]}` : `the run at ${revision} reported no figure for it`;
}

/**
 * One revision's runs as one figure: the mean of their ops/s, and the margin the runs say of themselves (their
 * margins averaged as independent errors: sqrt(Σ rme²) / k). How far whole runs move apart is runNoise's.
 */
export function combineRuns(records: readonly Pick<NativeRecord, 'opsPerSec' | 'rme'>[]): NativeSide | null {
  const measured = records.filter((r): r is typeof r & { opsPerSec: number } => isFiniteNumber(r.opsPerSec) && r.opsPerSec > 0);
  const runs = measured.map((r) => r.opsPerSec);
  if (runs.length === 0) return null;
  const k = runs.length;
  const mean = runs.reduce((sum, x) => sum + x, 0) / k;
  const margins = measured.map((r) => r.rme);
  if (margins.some((m) => !isFiniteNumber(m))) return { opsPerSec: mean, rme: null, runs };
  return { opsPerSec: mean, rme: Math.sqrt(margins.reduce<number>((sum, m) => sum + m! ** 2, 0)) / k, runs };
}

/** The spread of log(ops/s) between whole runs of one task at one revision, pooled: its SD and degrees of freedom. */
export interface RunNoise {
  sd: number;
  df: number;
}

/** How the note of a change between two major versions of the harness begins. */
export const MAJOR_VERSIONS = 'base and head run major versions';

/** What no agreement is claimed for when each revision ran once. */
export const ONE_RUN =
  "one run per revision: how far whole runs move apart is not measured (a harness's ± is within one run), so no agreement is claimed";

/**
 * The pooled SD of log(ops/s) between runs, over every (task, revision) group with two runs or more: the sum of
 * their squared deviations from each group's mean over the sum of (k − 1); null when no group has two runs.
 */
export function runNoise(groups: readonly (readonly Pick<NativeRecord, 'opsPerSec'>[])[]): RunNoise | null {
  let squares = 0;
  let df = 0;
  for (const group of groups) {
    const logs = group
      .map((r) => r.opsPerSec)
      .filter((x): x is number => isFiniteNumber(x) && x > 0)
      .map((x) => Math.log(x));
    if (logs.length < 2) continue;
    const mean = logs.reduce((sum, x) => sum + x, 0) / logs.length;
    squares += logs.reduce((sum, x) => sum + (x - mean) ** 2, 0);
    df += logs.length - 1;
  }
  return df > 0 ? { sd: Math.sqrt(squares / df), df } : null;
}

/** The fewest runs per revision (2 df each) from which a task's own spread between runs counts beside the pooled one. */
export const OWN_NOISE_RUNS = 3;

/** A task's own spread between runs (its ops/s per run at each revision); null below OWN_NOISE_RUNS runs per revision. */
export function ownNoise(base: readonly number[], head: readonly number[]): RunNoise | null {
  if (base.length < OWN_NOISE_RUNS || head.length < OWN_NOISE_RUNS) return null;
  return runNoise([base, head].map((runs) => runs.map((opsPerSec) => ({ opsPerSec }))));
}

/**
 * head/base − 1 and its interval: half-width (log space) the larger of the runs' own margins, sqrt(rmeBase² +
 * rmeHead²), and the noise between runs, t(df) · s · sqrt(1/kBase + 1/kHead) from the pooled noise or the task's
 * own (from its runs, ownNoise), whichever is wider; no interval when that noise is not measured (one run per
 * revision) or a side has no margin.
 */
export function nativeChange(base: NativeSide, head: NativeSide, noise: RunNoise | null): NativeChange {
  const ratio = head.opsPerSec / base.opsPerSec;
  if (base.rme === null || head.rme === null || noise === null) return { estimate: ratio - 1, low: null, high: null };
  const within = Math.sqrt(base.rme ** 2 + head.rme ** 2) / 100;
  const runs = Math.sqrt(1 / base.runs.length + 1 / head.runs.length);
  const between = Math.max(...[noise, ownNoise(base.runs, head.runs)].map((n) => (n ? tQuantile95(n.df) * n.sd * runs : 0)));
  const half = Math.max(within, between);
  return { estimate: ratio - 1, low: ratio * Math.exp(-half) - 1, high: ratio * Math.exp(half) - 1 };
}

/**
 * The agreement rule: the native interval and benchgate's overlap (agrees), or not (disagrees, with both
 * estimates, and "opposite directions" when their signs differ); unknown when either has no interval.
 */
export function agreementOf(
  native: NativeChange,
  benchgate: { estimate: number; low: number; high: number } | null,
): { agreement: NativeAgreement; note?: string } {
  if (!benchgate || ![benchgate.estimate, benchgate.low, benchgate.high].every(isFiniteNumber))
    return { agreement: 'unknown', note: 'benchgate has no change to compare it with' };
  if (!isFiniteNumber(native.low) || !isFiniteNumber(native.high))
    return { agreement: 'unknown', note: 'the harness gave no margin of error' };
  if (native.low <= benchgate.high && benchgate.low <= native.high) {
    const half = (change: { low: number; high: number }) => (Math.log1p(change.high) - Math.log1p(change.low)) / 2;
    const nativeHalf = half({ low: native.low, high: native.high });
    if (nativeHalf > TOO_WIDE && nativeHalf > 2 * half(benchgate))
      return {
        agreement: 'too-noisy',
        note:
          `native too noisy to judge: its interval [${formatPercent(native.low)}, ${formatPercent(native.high)}] meets ` +
          `benchgate's, but is ${Math.round(100 * (native.high - native.low))} points wide (more --native-runs narrow it)`,
      };
    // The mirror: benchgate's own interval too wide for a meeting to say anything (an early look's 3 rounds,
    // fast-uri's [+7.4%, +205.8%] beside a native +62%).
    const ownHalf = half(benchgate);
    if (ownHalf > TOO_WIDE && ownHalf > 2 * nativeHalf)
      return {
        agreement: 'too-noisy',
        note:
          `benchgate too coarse to judge by: its interval [${formatPercent(benchgate.low)}, ${formatPercent(benchgate.high)}] ` +
          `meets the native one, but is ${Math.round(100 * (benchgate.high - benchgate.low))} points wide (more rounds narrow it)`,
      };
    return { agreement: 'agrees' };
  }
  const opposite = Math.sign(native.estimate) * Math.sign(benchgate.estimate) < 0 ? ' (opposite directions)' : '';
  return {
    agreement: 'disagrees',
    note: `disagrees: native ${formatPercent(native.estimate)}, benchgate ${formatPercent(benchgate.estimate)}${opposite}`,
  };
}
