/**
 * Counts mode's measuring: every revision under every seed in a benchmark process of its own, under callgrind, all
 * its tasks counted in one process (task.ts). Counts do not move with neighbours, so the processes run side by side,
 * as many as the machine has cores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Revision, RevisionLabel } from '../../checkout/revisions.js';
import type { CountedFigure } from '../../config/types.js';
import { runBenchmarkProcess, type ProcessOutcome } from '../micro/spawn.js';
import { ID_SEPARATOR, type CountJob, type TaskCount } from '../micro/protocol.js';
import { callgrindArgs, COUNTED_ENV, instrumentOn, lateOrFromStart, NotInstrumented, perfMapOf, unrandomizedCommand } from './callgrind.js';

export interface CountPlan {
  base: Revision;
  head: Revision;
  baseFiles: string[];
  headFiles: string[];
  runnerPath: string;
  valgrind: string;
  seeds: readonly number[];
  /** Tasks not counted (timed only, micro.measures). */
  skip?: readonly string[];
  /** What is counted: instructions (default) or estimated cycles. */
  figure?: CountedFigure | undefined;
  /** Processes at once (default: the machine's cores). */
  parallel?: number | undefined;
  /** A process that shows no progress for this long is killed (a task under the simulator runs 20-100× slower). */
  stallTimeoutMs: number;
  log: (line: string) => void;
  now?: () => number;
  /** Where the dumps go (a folder of it, removed at the end): the gate's temp folder, which its signal trap removes too. */
  tempDir?: string | undefined;
  /** No process starts after this (the run's time limit): a revision left uncounted under a seed is an error, never a pass. */
  deadline?: number | undefined;
}

/** One revision's counts of one task: a figure per seed, in the plan's seed order. */
export interface SideCounts {
  instructions: number[];
  /** Seeds whose warm-up found no steady state. */
  unsteady: number[];
}

export interface CountedBenchmark {
  id: string;
  file: string;
  base: SideCounts | undefined;
  head: SideCounts | undefined;
  /** A revision's process or task failed under some seed: no figure, never a pass. */
  error?: string;
  /** The revision that failed, where the other counted it (the report's errorAt). */
  errorAt?: RevisionLabel;
}

export interface CountMeasurement {
  benchmarks: CountedBenchmark[];
  /** The seeds both revisions were counted under (the plan's, less those the time limit left unstarted). */
  seeds: readonly number[];
  /** Seeds not started at some revision before the deadline: left out of every figure. */
  skipped: number[];
  processes: number;
  /** Processes that failed as a whole (their revision's tasks are errors; with no task known at all, the run fails). */
  failures: string[];
  durationMs: number;
}

export interface Outcome {
  counts: TaskCount[];
  /** The process failed as a whole: every task of it reads this. */
  error?: string;
  /** Each bench file that did not load, with its own error: its rows say it, not the other files'. */
  fileErrors?: Record<string, string>;
  /** Not started: the deadline had passed. */
  skipped?: boolean;
}

export interface Job {
  revision: Revision;
  files: string[];
  seed: number;
}

export async function measureCounts(plan: CountPlan): Promise<CountMeasurement> {
  const now = plan.now ?? Date.now;
  const started = now();
  // Each seed loads the bench files in an order of its own (the first seed as declared), the same at both revisions:
  // what a file's tasks inherit from the files before them (compiled code, feedback, the heap) differs between
  // revisions that share no process, and a fixed order would make that one revision's lasting bias. Shuffled, it is
  // spread between seeds, where the interval sees it. Tasks keep their order within a file.
  const jobs: Job[] = plan.seeds.flatMap((seed) => {
    const files = filesForSeed(plan.baseFiles, plan.headFiles, seed);
    return [
      { revision: plan.base, files: files.base, seed },
      { revision: plan.head, files: files.head, seed },
    ];
  });
  const temp = mkdtempSync(path.join(plan.tempDir ?? os.tmpdir(), 'benchgate-counts-'));
  const results = new Map<Job, Outcome>();
  try {
    const parallel = Math.max(1, Math.min(plan.parallel ?? os.availableParallelism(), jobs.length));
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const job = jobs[next]!;
        const dumpPrefix = path.join(temp, `callgrind.${next++}`);
        if (plan.deadline !== undefined && now() > plan.deadline) {
          results.set(job, { counts: [], skipped: true });
          continue;
        }
        plan.log(`counts: ${job.revision.label} under seed ${job.seed} (callgrind)`);
        const outcome = await runCounted(
          {
            kind: 'count',
            sides: [{ revision: job.revision.label, root: job.revision.root, files: job.files }],
            dumpPrefix,
            skip: [...(plan.skip ?? [])],
            ...(plan.figure ? { figure: plan.figure } : {}),
          },
          { ...plan, seed: job.seed, cwd: job.revision.root },
        );
        if (!outcome.ok) {
          results.set(job, { counts: [], error: outcome.message });
          continue;
        }
        const failed = outcome.files
          .filter((load) => load.error)
          .map((load): [string, string] => [load.file, `${load.file} did not load: ${load.error}`]);
        results.set(job, {
          counts: outcome.counts ?? [],
          ...(failed.length ? { fileErrors: Object.fromEntries(failed) } : {}),
        });
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    const failures = jobs.flatMap((job) => {
      const result = results.get(job);
      const error = result?.error ?? Object.values(result?.fileErrors ?? {}).join('; ');
      return error ? [`${job.revision.label} under seed ${job.seed}: ${error}`] : [];
    });
    const skipped = plan.seeds.filter((seed) => jobs.some((job) => job.seed === seed && results.get(job)?.skipped));
    const seeds = plan.seeds.filter((seed) => !skipped.includes(seed));
    const benchmarks = collect(
      jobs.filter((job) => seeds.includes(job.seed)),
      results,
    );
    const ran = jobs.filter((job) => !results.get(job)?.skipped).length;
    return { benchmarks, seeds, skipped, processes: ran, failures, durationMs: now() - started };
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** What runCounted needs beside its job. */
export interface CountedProcess {
  valgrind: string;
  seed: number;
  runnerPath: string;
  stallTimeoutMs: number;
  cwd: string;
  log: (line: string) => void;
  /** Every dump names its functions in full (a profile's process; callgrindArgs' `functions`). */
  functions?: boolean;
}

/**
 * One counted micro-benchmark process: started with callgrind's instrumentation off and turned on once its files are
 * loaded (callgrindArgs' `late`), or, where valgrind's vgdb cannot turn it on here, started again with it on from the
 * start (slower), and so is every process after it in this run (lateOrFromStart), said in the log. The runner waits for
 * its instrumentation either way (answered at once when it is on already), so both ways read the same counts. Every
 * process runs with V8's perf map (`names`), removed after it.
 */
export async function runCounted(job: CountJob, run: CountedProcess): Promise<ProcessOutcome> {
  const start = (late: boolean) =>
    runBenchmarkProcess(
      { ...job, late: true },
      {
        runnerPath: run.runnerPath,
        stallTimeoutMs: run.stallTimeoutMs,
        cwd: run.cwd,
        command: {
          ...unrandomizedCommand(
            run.valgrind,
            callgrindArgs(job.dumpPrefix, run.seed, undefined, job.figure, { names: true, functions: run.functions, late }),
            run.log,
          ),
          env: COUNTED_ENV,
        },
        leaves: (pid) => [perfMapOf(pid)],
        instrument: late ? (pid: number) => instrumentOn(run.valgrind, pid, job.dumpPrefix) : () => Promise.resolve(undefined),
      },
    );
  const attempt = async (late: boolean) => {
    const outcome = await start(late);
    if (!outcome.ok && outcome.instrumentation) throw new NotInstrumented(outcome.message.split('\n')[0]);
    return outcome;
  };
  return lateOrFromStart(run.valgrind, attempt, run.log, 'process');
}

/**
 * Each task's figures per revision and seed. A process that failed fails every task of its revision; a bench file that
 * failed at a revision whose tasks nobody counted gets a row of its own (an error, as in time mode), never no row.
 */
export function collect(jobs: Job[], results: Map<Job, Outcome>): CountedBenchmark[] {
  const ids = new Map<string, string>();
  for (const { counts } of jobs.map((job) => results.get(job)!))
    for (const count of counts) ids.set(count.id, count.id.slice(0, count.id.indexOf(ID_SEPARATOR)));
  const side = (label: RevisionLabel, id: string, file: string): { counts?: SideCounts; error?: string } => {
    const own = jobs.filter((job) => job.revision.label === label && job.files.includes(file));
    if (!own.length) return {};
    const counts: SideCounts = { instructions: [], unsteady: [] };
    const missing: number[] = [];
    for (const job of own) {
      const result = results.get(job);
      if (!result) return { error: `${label} under seed ${job.seed} did not run` };
      const count = result.counts.find((c) => c.id === id);
      // A process that failed, or this bench file not loading, leaves its tasks without a count.
      const error = errorFor(result, file);
      if (error && !count) return { error: `${label} under seed ${job.seed}: ${error}` };
      if (!count) {
        missing.push(job.seed);
        continue;
      }
      if (count.error || count.instructions === undefined)
        return { error: `${label} under seed ${job.seed}: ${count.error ?? 'no count'}` };
      counts.instructions.push(count.instructions);
      if (count.steady === false) counts.unsteady.push(job.seed);
    }
    if (missing.length === own.length) return {};
    // Declared under some seeds (file orders) and not others: its seeds cannot pair, and it is not new or removed.
    if (missing.length)
      return {
        error: `${label} declared it under seed(s) ${own
          .filter((j) => !missing.includes(j.seed))
          .map((j) => j.seed)
          .join(', ')} only, not ${missing.join(', ')}`,
      };
    return { counts };
  };
  const rows = [...ids]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, file]): CountedBenchmark => {
      const base = side('base', id, file);
      const head = side('head', id, file);
      const error = base.error ?? head.error;
      // One revision alone failed where the other has every seed's count (a task only head's copy of a file can run).
      const at = base.error && head.counts ? 'base' : head.error && base.counts ? 'head' : undefined;
      return { id, file, base: base.counts, head: head.counts, ...(error ? { error } : {}), ...(at ? { errorAt: at } : {}) };
    });
  const counted = new Set(ids.values());
  const failedFiles = new Map<string, string>();
  for (const job of jobs) {
    const result = results.get(job);
    for (const file of job.files) {
      const error = result && errorFor(result, file);
      if (error && !counted.has(file) && !failedFiles.has(file))
        failedFiles.set(file, `${job.revision.label} under seed ${job.seed}: ${error}`);
    }
  }
  const failed = [...failedFiles].map(([file, error]): CountedBenchmark => ({ id: file, file, base: undefined, head: undefined, error }));
  return [...rows, ...failed];
}

/**
 * What failed one bench file's tasks in a process: the file's own load error where some files did not load (the
 * others loaded, and their rows are theirs), the process's where it failed as a whole.
 */
function errorFor(result: Outcome, file: string): string | undefined {
  return result.error ?? result.fileErrors?.[file];
}

/** Each revision's bench files in the order a seed loads them (the same at both revisions; measureCounts says why). */
export function filesForSeed(baseFiles: readonly string[], headFiles: readonly string[], seed: number): { base: string[]; head: string[] } {
  const order = seedOrder([...new Set([...baseFiles, ...headFiles])].sort(), seed);
  return { base: order.filter((file) => baseFiles.includes(file)), head: order.filter((file) => headFiles.includes(file)) };
}

/** The files in seed 1's order as given, other seeds' a shuffle fixed by the seed (Fisher–Yates on a small LCG). */
export function seedOrder<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  if (seed === 1) return out;
  let state = (seed * 2654435761) >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
