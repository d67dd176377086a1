import { budgetFor } from '../config/budgets.js';
import { findCallgrind } from '../measure/counts/callgrind.js';
import { measureCounts, type CountedBenchmark, type SideCounts } from '../measure/counts/schedule.js';
import { countServers, type CountedServer } from '../measure/counts/server.js';
import type { Config, CountedFigure, HttpBenchmarkConfig } from '../config/types.js';
import { beyondBudget } from '../stats/compare.js';
import { compareCounts } from '../stats/counts.js';
import { countUnit, formatCount } from '../report/format.js';
import { type ReportBenchmark } from '../report/model.js';
import { formatDuration, formatShortPercent } from '../util/format.js';
import type { RunContext } from './plan.js';

/** A benchmark process under callgrind shows progress once a task: a task's count may take minutes there. */
export const COUNT_STALL_MS = 10 * 60_000;

export interface CountsStage {
  benchmarks: ReportBenchmark[];
  info: { seeds: number[]; processes: number; durationMs: number; valgrind: string };
  /** The budgeted figures that shared the run's error, and the two-sided level each interval was read at. */
  figures: number;
  level: number;
}

/**
 * micro.measure: counts, in place of the timed micro rounds: each revision's tasks counted in instructions per call
 * under `seeds` seeds (measure/counts/), and each benchmark judged on the seeds' spread (stats/counts.ts) at its
 * budget. `otherFigures` are the run's other budgeted figures (its load tests'): each interval is read at the
 * Bonferroni share of the run's error over all of them, as one look spends it (with the micro-benchmarks timed only,
 * micro.measures). `startedAt`: when its time limit began (counts after timed rounds have a time limit of their own).
 * `share.skip`: the tasks of its files that are timed only.
 */
export async function countsStage(
  run: RunContext,
  share: { files: { base: string[]; head: string[] }; skip?: readonly string[] },
  otherFigures: number,
  startedAt = run.started,
): Promise<CountsStage> {
  const { config, options } = run;
  const { valgrind, seeds } = counting(run);
  options.log(
    `counts: ${unit(config.micro.count)} per call under ${valgrind.version}'s callgrind, ` +
      `${seeds.length} seed(s) per revision, a process each (${seeds.length * 2} processes)`,
  );
  const measured = await measureCounts({
    base: run.tree.base,
    head: run.tree.head,
    baseFiles: share.files.base,
    headFiles: share.files.head,
    skip: share.skip ?? [],
    runnerPath: options.runnerPath,
    valgrind: valgrind.path,
    seeds,
    figure: config.micro.count,
    stallTimeoutMs: Math.max(config.micro.taskTimeoutMs, COUNT_STALL_MS),
    log: options.log,
    now: run.now,
    deadline: startedAt + config.timeLimitMs,
    tempDir: run.socketDir,
  });
  options.log(`counts: ${measured.processes} processes in ${formatDuration(measured.durationMs)}`);
  if (measured.skipped.length)
    options.log(
      `warning: counts: seed(s) ${measured.skipped.join(', ')} not started within the time limit (${formatDuration(config.timeLimitMs)}): ` +
        `${measured.seeds.length ? `judged on seed(s) ${measured.seeds.join(', ')}, a wider interval` : 'nothing is judged'}; ` +
        'raise time-limit or lower micro.seeds',
    );
  const info = { seeds: [...measured.seeds], processes: measured.processes, durationMs: measured.durationMs, valgrind: valgrind.version };
  if (!measured.benchmarks.length) {
    // Nothing counted: every process failed, the time limit started none, or no task was declared: never a pass.
    const why =
      measured.failures.join('\n') ||
      (measured.seeds.length
        ? 'the bench files declare no task'
        : `the time limit (${formatDuration(config.timeLimitMs)}) started no seed at both revisions`);
    return {
      benchmarks: [failed('counts', undefined, `no task was counted: ${why}`)],
      info,
      figures: otherFigures,
      level: config.confidence,
    };
  }
  const compared = measured.benchmarks.filter((b) => !b.error && b.base && b.head).length;
  // A shard: the whole suite's figures, as its timed looks count them (plan.familyFigures).
  const figures = run.plan.familyFigures ?? compared + otherFigures;
  const level = familyLevel(config.confidence, figures);
  return {
    benchmarks: measured.benchmarks.map((b) =>
      cutShort(judged(b, budgetFor(b.id, config), level, [...measured.seeds], config.micro.count), measured.skipped),
    ),
    info,
    figures,
    level,
  };
}

const unit = (figure: CountedFigure) => (figure === 'cycles' ? "cycles (estimated from callgrind's cache model)" : 'instructions');

/** What both counted stages start from: callgrind (installed where the caller can), and the seeds 1..micro.seeds. */
function counting(run: RunContext) {
  const valgrind = callgrind(run.options.installCallgrind, run.options.log);
  return { valgrind, seeds: Array.from({ length: run.config.micro.seeds }, (_, i) => i + 1) };
}

/** The two-sided level of each interval when `figures` budgeted figures share the run's error at one look (Bonferroni). */
const familyLevel = (confidence: number, figures: number) => 1 - (2 * (1 - confidence)) / Math.max(1, figures);

/** valgrind, installed first where the caller can (the action) and it is missing; else the error that says how. */
function callgrind(install: ((log: (line: string) => void) => boolean) | undefined, log: (line: string) => void) {
  try {
    return findCallgrind();
  } catch (error) {
    if (!install || !install(log)) throw error;
    return findCallgrind();
  }
}

/**
 * The load tests whose `measure` is counts: each revision's server under each seed (measure/counts/server.ts), each
 * load test judged in instructions per request at its budget, as a micro-benchmark's task is in instructions per call.
 * `otherFigures`: the run's other budgeted figures; the level is the Bonferroni share of the run's error over all.
 */
export async function httpCountsStage(
  run: RunContext,
  tests: readonly HttpBenchmarkConfig[],
  otherFigures: number,
  startedAt = run.started,
): Promise<CountsStage> {
  const { config, options } = run;
  const { valgrind, seeds } = counting(run);
  options.log(
    `counts: ${unit(config.micro.count)} per request under ${valgrind.version}'s callgrind for ${tests.map((t) => t.id).join(', ')}: ` +
      `${seeds.length} seed(s) per revision, a server each, its requests sent one at a time`,
  );
  const started = run.now();
  const counted = await countServers({
    base: run.tree.base,
    head: run.tree.head,
    benchmarks: tests,
    seeds,
    figure: config.micro.count,
    valgrind: valgrind.path,
    probePath: options.probePath,
    socketDir: run.socketDir,
    deadline: startedAt + config.timeLimitMs,
    now: run.now,
    log: options.log,
  });
  const durationMs = run.now() - started;
  const processes = counted.reduce((sum, c) => sum + c.processes, 0);
  options.log(`counts: ${processes} servers in ${formatDuration(durationMs)}`);
  const figures = run.plan.familyFigures ?? counted.filter((c) => !c.error).length + otherFigures;
  const level = familyLevel(config.confidence, figures);
  const benchmarks = serverRows(counted, seeds, config, level, options.log);
  const allSeeds = [...new Set(counted.flatMap((c) => c.seeds))].sort((a, b) => a - b);
  return { benchmarks, info: { seeds: allSeeds, processes, durationMs, valgrind: valgrind.version }, figures, level };
}

/** The counted load tests' rows: each judged at its budget, a seed the time limit left unstarted said on it and in the log. */
export function serverRows(
  counted: readonly CountedServer[],
  seeds: readonly number[],
  config: Pick<Config, 'budget' | 'budgets' | 'timeLimitMs' | 'micro'>,
  level: number,
  log: (line: string) => void,
): ReportBenchmark[] {
  return counted.map((c) => {
    const row: CountedBenchmark = { id: c.benchmark.id, file: '', base: c.base, head: c.head, ...(c.error ? { error: c.error } : {}) };
    const judgedRow = judged(row, c.benchmark.budget ?? budgetFor(c.benchmark.id, config), level, c.seeds, config.micro.count, 'request');
    // Seeds the time limit left unstarted: said in the log and on the row, never silently fewer.
    const skipped = c.error ? [] : seeds.filter((seed) => !c.seeds.includes(seed));
    const short = skipped.length
      ? `seed(s) ${skipped.join(', ')} not started within the time limit (${formatDuration(config.timeLimitMs)}): ` +
        `judged on seed(s) ${c.seeds.join(', ') || 'none'}, a wider interval; raise time-limit or lower micro.seeds`
      : undefined;
    if (short) log(`warning: counts: ${c.benchmark.id}: ${short}`);
    const note = [judgedRow.note, short].filter(Boolean).join('; ');
    return cutShort({ ...judgedRow, kind: 'http' as const, file: null, ...(note ? { note } : {}) }, skipped);
  });
}

/**
 * A row the time limit left undecided: seeds it did not start, and the seeds it had leave the interval open. What was
 * not measured is not a pass: `unmeasured`, which fails the run, as time mode's rounds cut short are (stats/analyze.ts).
 */
function cutShort(row: ReportBenchmark, skipped: readonly number[]): ReportBenchmark {
  if (!skipped.length || row.verdict !== 'inconclusive') return row;
  const why = `unmeasured: the seeds counted leave it open, and seed(s) ${skipped.join(', ')} did not fit in the time limit`;
  return { ...row, verdict: 'unmeasured', beyondBudget: beyondBudget('unmeasured'), note: [row.note, why].filter(Boolean).join('; ') };
}

function judged(
  b: CountedBenchmark,
  budget: number,
  level: number,
  seeds: number[],
  figure: CountedFigure,
  per: 'call' | 'request' = 'call',
): ReportBenchmark {
  if (b.error) return failed(b.id, b.file, b.error, budget);
  // Each side's cell is the geometric mean of its seeds' counts, as the change is the mean of the seeds' log ratios:
  // head's cell is base's moved by the change (seeds of 10k and 20k at base, 10k and 10k at head, read +41.4%: an
  // arithmetic mean printed 15.0k → 10.0k beside it, the geometric 14.1k → 10.0k).
  const side = (of: SideCounts | undefined) =>
    of
      ? {
          instructions: Math.exp(of.instructions.reduce((sum, x) => sum + Math.log(x), 0) / of.instructions.length),
          seeds: of.instructions,
        }
      : null;
  const unsteady = {
    ...(b.base?.unsteady.length ? { base: b.base.unsteady } : {}),
    ...(b.head?.unsteady.length ? { head: b.head.unsteady } : {}),
  };
  const counts = {
    ...(figure === 'cycles' ? { figure } : {}),
    base: side(b.base),
    head: side(b.head),
    seeds,
    ...(Object.keys(unsteady).length ? { unsteady } : {}),
  };
  const common = { id: b.id, kind: 'micro' as const, file: b.file, budget, base: null, head: null, counts, resolvable: null };
  if (!b.base || !b.head) return { ...common, verdict: b.base ? 'removed' : 'new', beyondBudget: null, change: null, rounds: [] };
  const result = compareCounts(b.base.instructions, b.head.instructions, budget, level);
  const note =
    [
      Object.keys(unsteady).length
        ? `no steady state within the warm-up's bound under seed(s) ${[...(unsteady.base ?? []), ...(unsteady.head ?? [])].join(', ')}: counted as it was then`
        : undefined,
      result.verdict === 'inconclusive'
        ? seedsApart(b.base.instructions, b.head.instructions, seeds, `${countUnit(figure)} a ${per}`, result.change, budget)
        : undefined,
    ]
      .filter(Boolean)
      .join('; ') || undefined;
  return {
    ...common,
    verdict: result.verdict,
    beyondBudget: beyondBudget(result.verdict),
    change: { estimate: result.change.estimate, low: result.change.low, high: result.change.high, confidence: result.change.confidence },
    rounds: result.logRatios.map((x) => Math.expm1(x)),
    regressionP: result.regressionP,
    ...(note ? { note } : {}),
  };
}

/**
 * Why a counted row is undecided when its seeds counted it differently: each seed's count at each revision, as the
 * table's cells print them, and how far apart they lie. A deterministic measure that differs between processes of the
 * same code is the code on more than one level (the JIT's choices per process, docs/counts.md) or work that follows
 * the seed or the clock (hyperid's public benchmark, an A/A: `max int` read 423 under five processes and 287 under
 * one; `shortid` 12.7k to 24.3k). Said only where that spread is what leaves the interval open (wider than the
 * budget): seeds that agree beside a change at the budget are undecided for another reason, which the interval shows.
 */
function seedsApart(
  base: readonly number[],
  head: readonly number[],
  seeds: readonly number[],
  unit: string,
  change: { low: number; high: number },
  budget: number,
): string | undefined {
  if (base.length < 2 || head.length < 2 || !(change.high - change.low > budget)) return undefined;
  const apart = Math.max(...[base, head].map((counts) => Math.max(...counts) / Math.min(...counts) - 1));
  const cells = (counts: readonly number[]) => counts.map(formatCount).join(', ');
  const under = base.length === seeds.length && head.length === seeds.length ? ` under seeds ${seeds.join(', ')}` : '';
  return (
    `its seeds counted it differently, up to ${formatShortPercent(apart, apart < 0.1 ? 1 : 0)} apart at a revision ` +
    `(${unit}: base ${cells(base)}; head ${cells(head)}${under}): the code runs on more than one level from process to ` +
    'process, or its work follows the seed or the clock; more seeds (micro.seeds) narrow the interval around both'
  );
}

function failed(id: string, file: string | undefined, message: string, budget = 0): ReportBenchmark {
  return {
    id,
    kind: 'micro',
    file: file ?? null,
    verdict: 'error',
    beyondBudget: null,
    budget,
    base: null,
    head: null,
    change: null,
    rounds: [],
    resolvable: null,
    error: message,
  };
}
