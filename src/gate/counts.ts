import { budgetFor } from '../config/budgets.js';
import { findCallgrind } from '../measure/counts/callgrind.js';
import { measureCounts, type CountedBenchmark, type SideCounts } from '../measure/counts/schedule.js';
import { countServers, type CountedServer } from '../measure/counts/server.js';
import type { Config, CountedFigure, HttpBenchmarkConfig } from '../config/types.js';
import { beyondBudget } from '../stats/compare.js';
import { compareCounts, seedLooks, settledEarly, type SeedLook } from '../stats/counts.js';
import { resolvableFromInterval } from '../stats/power.js';
import { countUnit, formatCount } from '../report/format.js';
import { resolutionSentence, type ReportBenchmark } from '../report/model.js';
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
      `${seedPlan(seeds)}, a process each (${seeds.length * 2} processes at most)`,
  );
  const looks = seedLooks(seeds);
  const totals = { processes: 0, durationMs: 0, failures: [] as string[], skipped: [] as number[], seeds: [] as number[] };
  // Each look's processes: every task at both revisions under the look's seeds (a later look's too, so every seed's
  // processes load the same files: what a task inherits from the files before it stays one distribution).
  const measure = async (lookSeeds: number[]): Promise<SeedsCounted> => {
    const measured = await measureCounts({
      base: run.tree.base,
      head: run.tree.head,
      baseFiles: share.files.base,
      headFiles: share.files.head,
      skip: share.skip ?? [],
      runnerPath: options.runnerPath,
      valgrind: valgrind.path,
      seeds: lookSeeds,
      figure: config.micro.count,
      stallTimeoutMs: Math.max(config.micro.taskTimeoutMs, COUNT_STALL_MS),
      log: options.log,
      now: run.now,
      deadline: startedAt + config.timeLimitMs,
      tempDir: run.socketDir,
    });
    totals.processes += measured.processes;
    totals.durationMs += measured.durationMs;
    totals.failures.push(...measured.failures);
    totals.skipped.push(...measured.skipped);
    totals.seeds.push(...measured.seeds);
    const counted = [...measured.seeds];
    return { rows: measured.benchmarks.map((b) => ({ ...b, seeds: counted })), counted };
  };
  const first = await measure(looks[0]!.seeds);
  const info = () => ({ seeds: [...totals.seeds], processes: totals.processes, durationMs: totals.durationMs, valgrind: valgrind.version });
  // What the processes took, and the seeds the time limit left unstarted (said, never silently fewer).
  const counted = () => {
    options.log(`counts: ${totals.processes} processes in ${formatDuration(totals.durationMs)}`);
    if (totals.skipped.length)
      options.log(
        `warning: counts: seed(s) ${totals.skipped.join(', ')} not started within the time limit (${formatDuration(config.timeLimitMs)}): ` +
          `${totals.seeds.length ? `judged on seed(s) ${totals.seeds.join(', ')}, a wider interval` : 'nothing is judged'}; ` +
          'raise time-limit or lower micro.seeds',
      );
  };
  if (!first.rows.length) {
    counted();
    // Nothing counted: every process failed, the time limit started none, or no task was declared: never a pass.
    const why =
      totals.failures.join('\n') ||
      (totals.seeds.length
        ? 'the bench files declare no task'
        : `the time limit (${formatDuration(config.timeLimitMs)}) started no seed at both revisions`);
    return {
      benchmarks: [failed('counts', undefined, `no task was counted: ${why}`)],
      info: info(),
      figures: otherFigures,
      level: config.confidence,
    };
  }
  const compared = first.rows.filter((b) => !b.error && b.base && b.head).length;
  // A shard: the whole suite's figures, as its timed looks count them (plan.familyFigures).
  const figures = run.plan.familyFigures ?? compared + otherFigures;
  const benchmarks = await lookAgain(
    looks,
    first,
    (row, planned, weight) =>
      cutShort(
        judged(
          row,
          budgetFor(row.id, config),
          familyLevel(config.confidence, figures, weight),
          row.seeds,
          config.micro.count,
          'call',
          weight,
        ),
        planned.filter((seed) => !row.seeds.includes(seed)),
      ),
    measure,
    options.log,
  );
  counted();
  return { benchmarks, info: info(), figures, level: familyLevel(config.confidence, figures, looks.at(-1)!.weight) };
}

/** A counted row with the seeds it was counted under at both revisions. */
export type SeededRow = CountedBenchmark & { seeds: number[] };

/** One look's counts: its rows, and the seeds it counted (none: the time limit started none). */
export interface SeedsCounted {
  rows: SeededRow[];
  counted: number[];
}

/**
 * Adaptive seeds (stats/counts.ts, seedLooks): every row judged at the first look; the rows it does not settle are
 * counted again under the last look's seeds (`count` is given their ids) and judged on all their seeds at that look's
 * share. A look that counted no seed (the time limit) adds nothing: its seeds are the row's unmeasured ones.
 */
export async function lookAgain(
  looks: readonly SeedLook[],
  first: SeedsCounted,
  judge: (row: SeededRow, planned: readonly number[], weight: number) => ReportBenchmark,
  count: (seeds: number[], open: readonly string[]) => Promise<SeedsCounted>,
  log: (line: string) => void,
): Promise<ReportBenchmark[]> {
  const [look, next] = looks;
  const judgedFirst = first.rows.map((row) => judge(row, look!.seeds, look!.weight));
  if (!next) return judgedFirst;
  const open = first.rows.filter((_, i) => !settledEarly(judgedFirst[i]!)).map((row) => row.id);
  const after = `after seed(s) ${look!.seeds.join(', ')}`;
  if (!open.length) {
    log(
      `counts: every row settled ${after} (decided, an interval no wider than half its budget): seed(s) ${next.seeds.join(', ')} not needed`,
    );
    return judgedFirst;
  }
  const named = open.length > 3 ? `${open.slice(0, 3).join(', ')} and ${open.length - 3} more` : open.join(', ');
  log(`counts: ${open.length} row(s) open or wider than half their budget ${after} (${named}): seed(s) ${next.seeds.join(', ')} for them`);
  const again = await count(next.seeds, open);
  const planned = [...look!.seeds, ...next.seeds];
  return first.rows.map((row, i) => {
    if (!open.includes(row.id)) return judgedFirst[i]!;
    return judge(
      joinSeeds(
        row,
        again.rows.find((r) => r.id === row.id),
        again.counted,
      ),
      planned,
      next.weight,
    );
  });
}

/** A row's counts under the first look's seeds and the next's; `counted`: the seeds the next look counted at all. */
export function joinSeeds(first: SeededRow, next: SeededRow | undefined, counted: readonly number[]): SeededRow {
  if (!next) {
    if (!counted.length) return first;
    return {
      ...first,
      base: undefined,
      head: undefined,
      error: `counted under seed(s) ${first.seeds.join(', ')} only, not ${counted.join(', ')}`,
    };
  }
  if (next.error)
    return { ...first, base: undefined, head: undefined, error: next.error, ...(next.errorAt ? { errorAt: next.errorAt } : {}) };
  if (!next.seeds.length) return first;
  const side = (a: SideCounts | undefined, b: SideCounts | undefined): SideCounts | undefined =>
    a && b ? { instructions: [...a.instructions, ...b.instructions], unsteady: [...a.unsteady, ...b.unsteady] } : undefined;
  const base = side(first.base, next.base);
  const head = side(first.head, next.head);
  if (!base || !head)
    return { ...first, base: undefined, head: undefined, error: `not counted at both revisions under seed(s) ${next.seeds.join(', ')}` };
  return { ...first, base, head, seeds: [...first.seeds, ...next.seeds] };
}

/** How many seeds a revision gets: all of them, or the first look's and the rest where a row is still open. */
function seedPlan(seeds: readonly number[]): string {
  const [first, next] = seedLooks(seeds);
  if (!next) return `${seeds.length} seed(s) per revision`;
  return `seeds ${first!.seeds.join(', ')} per revision, then ${next.seeds.join(', ')} for the rows they leave open or wider than half their budget`;
}

const unit = (figure: CountedFigure) => (figure === 'cycles' ? "cycles (estimated from callgrind's cache model)" : 'instructions');

/** What both counted stages start from: callgrind (installed where the caller can), and the seeds 1..micro.seeds. */
function counting(run: RunContext) {
  const valgrind = callgrind(run.options.installCallgrind, run.options.log);
  return { valgrind, seeds: Array.from({ length: run.config.micro.seeds }, (_, i) => i + 1) };
}

/**
 * The two-sided level of each interval when `figures` budgeted figures share the run's error (Bonferroni), at a look
 * that spends `weight` of a figure's share (seedLooks).
 */
const familyLevel = (confidence: number, figures: number, weight = 1) => 1 - (2 * (1 - confidence) * weight) / Math.max(1, figures);

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
      `${seedPlan(seeds)}, a server each, its requests sent one at a time`,
  );
  const started = run.now();
  const byId = new Map(tests.map((test) => [test.id, test]));
  let processes = 0;
  // Each look's servers: the load tests still open, each revision under the look's seeds.
  const count = async (lookSeeds: number[], open?: readonly string[]): Promise<SeedsCounted> => {
    const counted = await countServers({
      base: run.tree.base,
      head: run.tree.head,
      benchmarks: open ? tests.filter((test) => open.includes(test.id)) : tests,
      seeds: lookSeeds,
      figure: config.micro.count,
      valgrind: valgrind.path,
      probePath: options.probePath,
      socketDir: run.socketDir,
      deadline: startedAt + config.timeLimitMs,
      now: run.now,
      log: options.log,
    });
    processes += counted.reduce((sum, c) => sum + c.processes, 0);
    const rows = counted.map((c): SeededRow =>
      // A later look the time limit started nothing of adds no seed, and is no error: its seeds are the row's unmeasured.
      open && c.unstarted
        ? { id: c.benchmark.id, file: '', base: undefined, head: undefined, seeds: [] }
        : { id: c.benchmark.id, file: '', base: c.base, head: c.head, seeds: c.seeds, ...(c.error ? { error: c.error } : {}) },
    );
    return { rows, counted: [...new Set(counted.flatMap((c) => c.seeds))] };
  };
  const looks = seedLooks(seeds);
  const first = await count(looks[0]!.seeds);
  const figures = run.plan.familyFigures ?? first.rows.filter((c) => !c.error).length + otherFigures;
  const level = (weight: number) => familyLevel(config.confidence, figures, weight);
  const benchmarks = await lookAgain(
    looks,
    first,
    (row, planned, weight) => serverRow({ ...row, benchmark: byId.get(row.id)! }, planned, config, level(weight), options.log, weight),
    count,
    options.log,
  );
  const durationMs = run.now() - started;
  options.log(`counts: ${processes} servers in ${formatDuration(durationMs)}`);
  const allSeeds = [...new Set(benchmarks.flatMap((b) => b.counts?.seeds ?? []))].sort((x, y) => x - y);
  return {
    benchmarks,
    info: { seeds: allSeeds, processes, durationMs, valgrind: valgrind.version },
    figures,
    level: level(looks.at(-1)!.weight),
  };
}

/**
 * A counted load test's row: judged at its budget at `level` (a look spending `weight` of its error), a seed of
 * `planned` the time limit left unstarted said on it and in the log.
 */
export function serverRow(
  c: Pick<CountedServer, 'benchmark' | 'base' | 'head' | 'seeds' | 'error'>,
  planned: readonly number[],
  config: Pick<Config, 'budget' | 'budgets' | 'timeLimitMs' | 'micro'>,
  level: number,
  log: (line: string) => void,
  weight = 1,
): ReportBenchmark {
  const row: CountedBenchmark = { id: c.benchmark.id, file: '', base: c.base, head: c.head, ...(c.error ? { error: c.error } : {}) };
  const budget = c.benchmark.budget ?? budgetFor(c.benchmark.id, config);
  const judgedRow = judged(row, budget, level, c.seeds, config.micro.count, 'request', weight);
  // Seeds the time limit left unstarted: said in the log and on the row, never silently fewer.
  const skipped = c.error ? [] : planned.filter((seed) => !c.seeds.includes(seed));
  const short = skipped.length
    ? `seed(s) ${skipped.join(', ')} not started within the time limit (${formatDuration(config.timeLimitMs)}): ` +
      `judged on seed(s) ${c.seeds.join(', ') || 'none'}, a wider interval; raise time-limit or lower micro.seeds`
    : undefined;
  if (short) log(`warning: counts: ${c.benchmark.id}: ${short}`);
  const note = [judgedRow.note, short].filter(Boolean).join('; ');
  return cutShort({ ...judgedRow, kind: 'http' as const, file: null, ...(note ? { note } : {}) }, skipped);
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
  weight = 1,
): ReportBenchmark {
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
  if (b.error) {
    const row = { ...failed(b.id, b.file, b.error, budget), ...(b.errorAt ? { errorAt: b.errorAt } : {}) };
    // Base alone failed where head has every seed's count (a task of a bench file new at head): head's count stays.
    return b.errorAt === 'base' && b.head ? { ...row, counts: { ...counts, base: null } } : row;
  }
  const common = { id: b.id, kind: 'micro' as const, file: b.file, budget, base: null, head: null, counts, resolvable: null };
  if (!b.base || !b.head) return { ...common, verdict: b.base ? 'removed' : 'new', beyondBudget: null, change: null, rounds: [] };
  const result = compareCounts(b.base.instructions, b.head.instructions, budget, level, weight);
  // What the seeds resolve is what their interval shows (each side at half the error of its two-sided level): no
  // spread of rounds to size it from; an exact count (no seed moved it) resolves any change.
  const resolvable = resolvableFromInterval(result.change, (1 - result.change.confidence) / 2);
  const note =
    [
      Object.keys(unsteady).length
        ? `no steady state within the warm-up's bound under seed(s) ${[...(unsteady.base ?? []), ...(unsteady.head ?? [])].join(', ')}: counted as it was then`
        : undefined,
      result.verdict === 'inconclusive'
        ? seedsApart(b.base.instructions, b.head.instructions, seeds, `${countUnit(figure)} a ${per}`, result.change, budget)
        : undefined,
      resolutionSentence(resolvable, budget, result.verdict, b.base.instructions.length, 'seeds'),
    ]
      .filter(Boolean)
      .join('; ') || undefined;
  return {
    ...common,
    verdict: result.verdict,
    beyondBudget: beyondBudget(result.verdict),
    change: { estimate: result.change.estimate, low: result.change.low, high: result.change.high, confidence: result.change.confidence },
    rounds: result.logRatios.map((x) => Math.expm1(x)),
    resolvable: Number.isFinite(resolvable) ? resolvable : null,
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
