/**
 * The messages between benchgate and a benchmark process (dist/runner.js),
 * sent over the IPC channel so bench files may print to stdout freely.
 */
import type { RevisionLabel } from '../../checkout/revisions.js';

/** Between a bench file's path and a task's name in a benchmark id: `bench/ids.bench.js > uuid v4`. */
export const ID_SEPARATOR = ' > ';

/** The benchmark ids of the tasks a bench file declared: `file > task` (the task's name keeps its suites). */
export const taskIds = (load: Pick<FileLoad, 'file' | 'tasks'>): string[] => load.tasks.map((task) => `${load.file}${ID_SEPARATOR}${task}`);

export interface SideJob {
  revision: RevisionLabel;
  /** The revision's project directory. */
  root: string;
  /** Bench files relative to root, with forward slashes. */
  files: string[];
}

export interface MeasureSettings {
  /** Measuring time per task, both revisions together, in ms. */
  taskTimeMs: number;
  /** Time of one side's part of a block, in ms. */
  blockMs: number;
  /** Blocks run and discarded before measuring, per task. */
  warmupBlocks: number;
  /** The shortest timed sample (one batch of calls), in ms, so tinybench's per-call overhead stays small. */
  minSampleMs: number;
  /** The fewest blocks per task, however slow the task. */
  minBlocks: number;
}

export interface MicroJob {
  /** Sides in import order; one side in `process` isolation. */
  sides: SideJob[];
  settings: MeasureSettings;
  /** Calls per timed sample, by benchmark id, fixed by the first round. */
  batches: Record<string, number>;
  /** Measuring time per task in this process, by benchmark id, where it differs from settings.taskTimeMs (allocate.ts). */
  taskTimes?: Record<string, number>;
  /**
   * Which bench files' tasks run in isolates of their own (isolates.ts), a worker thread per revision and per
   * unit: `workers` those of files that start worker threads (the schedule's default), `files` every file
   * (isolation: thread); absent, none (unless a file changes the builtins as it loads: then every file).
   */
  isolates?: 'workers' | 'files';
  /** Benchmark ids not to run (they hung or crashed a process before). */
  skip: string[];
  /** Benchmark ids to run at head alone: base's copy threw (a bench file new at head, run at base: MicroPlan.borrowed). */
  headAlone?: string[];
  /**
   * Benchmark ids not to measure (decided). Each still runs its warm-up, unmeasured, when a task measured
   * after it shares its module graph (its bench file, or its worker): what ran before a measured task is
   * then the same in every round of the same order (reverse), whichever tasks have been decided.
   */
  decided?: string[];
  /**
   * Run the tasks in the reverse of their declared order (every file's, the last file first). A task's speed can
   * depend on what ran before it in its process (uuid's `v4({})` is inlined or not by how many `v4()` calls the task
   * before it made: docs/evaluation.md), and one fixed order would then give every round the same history and a
   * confident figure for one of them. The schedule alternates the order every other round, so such a task's rounds
   * fall in two groups that the verdict is bounded over (stats/mixture.ts), as the revision loaded first alternates.
   */
  reverse?: boolean;
}

/** Run one task of one revision under the CPU profiler and write the profile to `outFile`. */
export interface ProfileJob {
  kind: 'profile';
  /**
   * The revisions to profile, each with the one bench file that declares the task. Two: both loaded in this
   * process and alternated as a measured round alternates them, one profiler over both, split by revision.
   */
  sides: SideJob[];
  task: string;
  durationMs: number;
  /** The profiler's sampling interval, in microseconds. */
  intervalUs: number;
  /** Where each revision's profile goes. */
  outFiles: Partial<Record<RevisionLabel, string>>;
}

/** Load every bench file of each side and say what it declares, measuring nothing (`benchgate list`, and the check before measuring). */
export interface LoadJob {
  kind: 'load';
  sides: SideJob[];
}

/**
 * Counts mode (measure/counts/): one revision's tasks, each counted in instructions per call under callgrind, which
 * dumps its counters to `<dumpPrefix>.<n>` at each marker call (measure/counts/task.ts).
 */
export interface CountJob {
  kind: 'count';
  /** One side: a process counts one revision, under one seed. */
  sides: SideJob[];
  dumpPrefix: string;
  /** What a dump's figure is: instructions (default) or estimated cycles (callgrind run with its cache model). */
  figure?: 'instructions' | 'cycles';
  /** Benchmark ids not to count. */
  skip: string[];
  /**
   * These benchmark ids profiled in instructions: their count's blocks read function by function
   * (measure/counts/functions.ts), node run with V8's perf map (callgrindArgs' `profile`).
   */
  profile?: string[];
  /**
   * Started with callgrind's instrumentation off (callgrindArgs' `late`): once its files are loaded the runner asks
   * for it ('instrument') and waits, reading one byte from its stdin, until benchgate has turned it on.
   */
  late?: boolean;
}

/** A function's own instructions a call of a counted task (CountJob.profile): its name and where it is. */
export interface CountedFunction {
  function: string;
  where: string;
  /** Its own count a call, without what it calls. */
  perCall: number;
  /** With what it calls. */
  inclusive?: number;
}

/** One task's count (CountJob), or why it has none. */
export interface TaskCount {
  id: string;
  instructions?: number;
  floor?: number;
  window?: number;
  calls?: number;
  warmupBlocks?: number;
  steady?: boolean;
  /** CountJob.profile: the functions that cost most a call, most first. */
  functions?: CountedFunction[];
  error?: string;
}

export interface FileLoad {
  revision: RevisionLabel;
  file: string;
  tasks: string[];
  /** How its tasks were declared: 'benchmark.js', 'tinybench', 'mitata', 'vitest', 'cronometro' or 'default export'. */
  harness?: string;
  /** The harness copies it resolved, with their versions: each revision its own. */
  harnesses?: { harness: string; version?: string; path: string }[];
  /** What benchgate set aside while loading it (an error after its tasks were collected). */
  notes?: string[];
  /** The bench file that runs this one as a worker thread: its tasks are measured as that file's. */
  workerOf?: string;
  error?: string;
}

export interface SideFigures {
  opsPerSec: number;
  /** Calls timed in this process. */
  calls: number;
}

export interface TaskOutcome {
  id: string;
  batch: number;
  blocks: number;
  base?: SideFigures;
  head?: SideFigures;
  /** Median over blocks of ln(head ops/s / base ops/s), when both sides ran in this process. */
  logRatio?: number;
  /** With logRatio: the variance of one block's log ratio in this process, robust ((1.4826 MAD)², the sample variance when the MAD is 0). */
  blockVariance?: number;
  /** Time the timed blocks took, in ms (the probe and warm-up blocks not included). */
  measureMs?: number;
  error?: { revision: RevisionLabel; message: string };
}

/** The bench files whose tasks ran in isolates of their own, and whether the process was pinned to one core for them. */
export interface IsolatedFiles {
  files: string[];
  pinned: boolean;
  /** Why every file: a file changed the builtins both revisions share (shared-state.ts). */
  reason?: string;
}

export type RunnerMessage =
  /** The handshake: the runner listens for its job. The job is sent only then. */
  | { type: 'ready' }
  | { type: 'progress'; id: string; revision?: RevisionLabel }
  | { type: 'result'; files: FileLoad[]; tasks: TaskOutcome[]; isolated?: IsolatedFiles }
  /** A profile job's answer: the calls made while the profiler ran (the profile is in its outFile). */
  | { type: 'profiled'; calls: Partial<Record<RevisionLabel, number>> }
  /** A late count job (CountJob.late): its files are loaded; it waits for callgrind's instrumentation. */
  | { type: 'instrument' }
  /** A count job's answer. */
  | { type: 'counted'; files: FileLoad[]; counts: TaskCount[] }
  | { type: 'fatal'; message: string };

/** The functions benchgate compiles around a task (measure/micro/alternate.ts): profiles show their own cost as the task's. */
export const LOOPS: readonly string[] = ['benchgateLoop', 'benchgateBatch'];
/** How a benchmark loop's own frame is shown: the task code V8 compiled into it. */
export const INLINED = '(task code inlined into the loop)';
