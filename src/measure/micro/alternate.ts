import { median, medianAbsoluteDeviation, sampleVariance } from 'simple-statistics';
import { Bench, type Fn, type FnOptions } from 'tinybench';
import type { RevisionLabel } from '../../checkout/revisions.js';
import { scriptRunner } from '../../checkout/install.js';
import { filesIn } from '../../checkout/reuse.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { messageOf } from '../../util/errors.js';
import type { MeasureSettings, SideFigures, TaskOutcome } from './protocol.js';
import { GRAPH_PARAMETER } from './harness/packages.js';
import { profileClockUs, type Span } from '../profiler.js';

/** One revision's version of a task, inside a benchmark process. */
export interface SideTask {
  revision: RevisionLabel;
  /** The revision's project directory, to show stack frames relative to it. */
  root: string;
  fn: Fn;
  opts: FnOptions;
  /** Its module graph within its bench file (0 the file's own, k its k-th worker's); tasks of one graph share code. */
  unit?: number;
  /** Its place among the tasks its unit declared (0, 1, ...): how an isolate of that unit names it (isolates.ts). */
  at?: number;
}

/** Reports that the process is alive and what it is running. */
export type Heartbeat = (revision?: RevisionLabel) => void;

export class SideFailure extends Error {
  /** A failure told by another thread: its message as it was written there. */
  static told(revision: RevisionLabel, message: string): SideFailure {
    const failure = new SideFailure(revision, undefined);
    failure.message = message;
    return failure;
  }

  constructor(
    readonly revision: RevisionLabel,
    cause: unknown,
    root?: string,
    context?: string,
  ) {
    super(context ? `${context}: ${describeThrown(cause, root)}` : describeThrown(cause, root));
  }
}

/** "TypeError: boom\n    at bench/parse.bench.js:7:11": the error and the first frame in the project's own files. */
export function describeThrown(thrown: unknown, root?: string): string {
  if (!(thrown instanceof Error)) return `threw ${messageOf(thrown)}`;
  const head = withinProject(withoutGraph(`${thrown.name}: ${thrown.message}`), root);
  if (!root || !thrown.stack) return head;
  const prefix = pathToFileURL(root).href + '/';
  const frame = thrown.stack
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line.startsWith('at ') && (line.includes(prefix) || line.includes(root + '/')) && !line.includes('/node_modules/'));
  return frame ? `${head}\n    ${withoutGraph(frame.replace(prefix, '').replace(root + '/', ''))}` : head;
}

/**
 * A message with the revision's checkout (a temporary worktree, gone once the run ends) left out of its paths:
 * `Cannot find module 'dist/index.mjs' imported from test/bench.mjs`; where what is missing is a build's output, the
 * setting that makes it.
 */
function withinProject(message: string, root: string | undefined): string {
  if (!root) return message;
  const text = message
    .split(`${pathToFileURL(root).href}/`)
    .join('')
    .split(`${root}/`)
    .join('');
  // The build's folder at the project's root, or inside a package linked to the project (dequal's bench/package.json
  // depends on "file:../", whose main is dist/index.js: 'bench/node_modules/dequal/dist/index.js').
  return /Cannot find (module|package) '(?:[^'\s]*\/node_modules\/(?:@[^/'\s]+\/)?[^/'\s]+\/)?(dist|build|lib|out|\.build)\//.test(text)
    ? `${text} (the build's output is missing at this revision: set build in benchgate.yml, ${buildExample(root)})`
    : text;
}

/**
 * The build setting to suggest: the project's own build script, run by its package manager (package.json's
 * packageManager, else its lockfile's; yarn and pnpm through corepack, as benchgate installs them: a script such as
 * reselect's `yarn clean && tsup` finds yarn). Never throws: it only words an error.
 */
function buildExample(root: string): string {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  } catch {
    // no package.json, or not JSON: the plain example
  }
  const scripts = typeof manifest === 'object' && manifest !== null ? (manifest as { scripts?: unknown }).scripts : undefined;
  if (typeof scripts !== 'object' || scripts === null || typeof (scripts as { build?: unknown }).build !== 'string')
    return 'e.g. build: npm run build';
  const manager = scriptRunner(filesIn(root));
  const run = manager === 'bun' ? 'bun run build' : manager ? `corepack ${manager} run build` : 'npm run build';
  return `e.g. build: ${run} (its build script)`;
}

/** A location without the module graph's number that a bench file's modules carry in their URLs (harness/graphs.ts, inNewGraph). */
export function withoutGraph(location: string): string {
  return location.replace(new RegExp(`[?&]${GRAPH_PARAMETER}=\\d+`, 'g'), '');
}

interface Prepared extends SideTask {
  isAsync: boolean;
  /** Wall time of one call, from a growing loop; only sizes batches and blocks. */
  callMs: number;
  loop?: Loop;
  batchFn?: Fn;
}

/** One block of one side: samples run, their total time (ms) and the mean time of one (ms). */
export interface BlockFigures {
  period: number;
  runs: number;
  totalTime: number;
}

/**
 * One revision's version of a task where it runs: in this thread (LocalSide) or in an isolate of its own, a
 * worker thread (isolates.ts). measureTask alternates its blocks the same way wherever a side runs.
 */
export interface Side {
  readonly revision: RevisionLabel;
  /** Whether it has per-call hooks (beforeEach/afterEach): such a task is timed one call per sample. */
  readonly hooked: boolean;
  /** Its beforeAll hook, then the probe (warm-up): the wall time of one call, in ms. Throws a SideFailure. */
  warm(): Promise<number>;
  /** Fix the calls per timed sample. */
  setBatch(batch: number): Promise<void>;
  /** One block: `iterations` timed samples. Throws a SideFailure. */
  block(iterations: number): Promise<BlockFigures>;
  /** Its afterAll hook; never throws. */
  finish(): Promise<void>;
}

/** A side in this thread: the task's function, called here. */
export class LocalSide implements Side {
  private readonly prepared: Prepared;

  constructor(task: SideTask) {
    this.prepared = { ...task, isAsync: false, callMs: 0 };
  }

  get revision(): RevisionLabel {
    return this.prepared.revision;
  }

  get hooked(): boolean {
    return Boolean(this.prepared.opts.beforeEach || this.prepared.opts.afterEach);
  }

  async warm(): Promise<number> {
    await runHook(this.prepared, 'beforeAll');
    await probe(this.prepared);
    return this.prepared.callMs;
  }

  setBatch(batch: number): Promise<void> {
    this.prepared.batchFn = batchTask(this.prepared, batch);
    return Promise.resolve();
  }

  block(iterations: number): Promise<BlockFigures> {
    return runBlock(this.prepared, iterations);
  }

  async finish(): Promise<void> {
    await runHook(this.prepared, 'afterAll').catch(() => undefined);
  }

  /**
   * Its beforeAll hook and one call, then its loop, reading no clock (counts mode, measure/counts/task.ts: a rerun
   * makes the same calls). Throws a SideFailure.
   */
  async countingLoop(): Promise<Loop> {
    await runHook(this.prepared, 'beforeAll');
    try {
      return await firstCall(this.prepared);
    } catch (error) {
      throw error instanceof SideFailure ? error : new SideFailure(this.prepared.revision, error, this.prepared.root);
    }
  }

  /** `calls` calls of its warmed loop, untimed (a profiled run). */
  async run(calls: number): Promise<void> {
    await this.prepared.loop!(calls);
  }
}

/**
 * Measure one task: with two sides, alternate short timed blocks of base and
 * head (order swapped every block) and take the median of the per-block log
 * ratios; with one side, time it alone. tinybench times every sample; a sample
 * is a batch of calls sized so tinybench's own per-call cost is negligible.
 */
export async function measureTask(
  id: string,
  sides: Side[],
  settings: MeasureSettings,
  fixedBatch: number | undefined,
  beat: Heartbeat,
): Promise<TaskOutcome> {
  let batch = fixedBatch ?? 1;
  let blocks = 0;
  return withWarmSides(
    sides,
    beat,
    async (callMs) => {
      const fastest = Math.min(...callMs);
      // Hooks run once per sample, so a task with beforeEach/afterEach is timed one call per sample.
      if (fixedBatch === undefined)
        batch = sides.some((side) => side.hooked) ? 1 : Math.max(1, Math.ceil(settings.minSampleMs / Math.max(fastest, 1e-6)));
      for (const side of sides) await side.setBatch(batch);
      const meanCallMs = callMs.reduce((sum, ms) => sum + ms, 0) / callMs.length;
      const iterations = Math.min(10_000, Math.max(2, Math.round(settings.blockMs / (batch * Math.max(meanCallMs, 1e-6)))));

      const totals = sides.map(() => ({ runs: 0, periods: [] as number[] }));
      const runBlocks = async (k: number, timed: boolean) => {
        const length = jitter(iterations);
        const periods = new Map<RevisionLabel, number>();
        for (const at of order(sides.length, k)) {
          const figures = await sides[at]!.block(length);
          periods.set(sides[at]!.revision, figures.period);
          if (timed) {
            totals[at]!.runs += figures.runs;
            totals[at]!.periods.push(figures.period);
          }
        }
        return periods;
      };
      for (let k = 0; k < settings.warmupBlocks; k++) await runBlocks(k, false);
      const logRatios: number[] = [];
      const started = performance.now();
      const taskTime = sides.length === 2 ? settings.taskTimeMs : settings.taskTimeMs / 2;
      while (blocks < settings.minBlocks || performance.now() - started < taskTime) {
        const periods = await runBlocks(blocks, true);
        blocks++;
        if (sides.length === 2) logRatios.push(Math.log(periods.get('base')! / periods.get('head')!));
        beat();
      }
      const measureMs = performance.now() - started;
      const outcome: TaskOutcome = { id, batch, blocks, measureMs };
      sides.forEach((side, at) => (outcome[side.revision] = figures(totals[at]!, batch)));
      if (logRatios.length) outcome.logRatio = median(logRatios);
      if (logRatios.length >= 3) outcome.blockVariance = blockVariance(logRatios);
      return outcome;
    },
    (failure) => ({ id, batch, blocks, error: { revision: failure.revision, message: failure.message } }),
  );
}

/**
 * A task's life, the same whether it is measured or profiled: each side's
 * beforeAll hook and probe (warm-up and call time), the work, then every
 * afterAll hook whatever happened. A side that throws ends the work through
 * `onFailure`; anything else propagates.
 */
async function withWarmSides<T>(
  sides: Side[],
  beat: Heartbeat,
  work: (callMs: number[]) => Promise<T>,
  onFailure: (failure: SideFailure) => T,
): Promise<T> {
  try {
    const callMs: number[] = [];
    for (const side of sides) {
      beat(side.revision);
      callMs.push(await side.warm());
    }
    return await work(callMs);
  } catch (error) {
    if (error instanceof SideFailure) return onFailure(error);
    throw error;
  } finally {
    for (const side of sides) await side.finish();
  }
}

/** What a profiled run did: the calls each revision made inside the window, and when each revision ran (profile clock). */
export interface ProfiledRun {
  calls: Partial<Record<RevisionLabel, number>>;
  spans: Span<RevisionLabel>[];
}

/** Where a profiled run's window opens and closes (around the CPU profiler); close is told what ran inside. */
export interface Window {
  open(): Promise<void>;
  close(run: ProfiledRun): Promise<void>;
}

/**
 * Run a task for `durationMs` inside `window`, after the same hooks and warm-up as a measured round, in batches
 * of about 1 ms. With both revisions' versions, they alternate as in a measured round (blocks of `blockMs`,
 * jittered, AB BA), so a profile of the window sees both in the state the verdict measured them (one process,
 * the same heap and JIT). Returns each revision's calls inside the window and its spans. Used to profile a task,
 * never to measure it.
 */
export async function runTaskFor(
  tasks: SideTask[],
  durationMs: number,
  window: Window,
  beat: Heartbeat,
  blockMs = 10,
): Promise<ProfiledRun | { error: string }> {
  const sides = tasks.map((task) => new LocalSide(task));
  return withWarmSides<ProfiledRun | { error: string }>(
    sides,
    beat,
    async (callMs) => {
      const batches = callMs.map((ms) => Math.max(1, Math.round(1 / Math.max(ms, 1e-6))));
      const calls: ProfiledRun['calls'] = {};
      const spans: ProfiledRun['spans'] = [];
      await window.open();
      const started = performance.now();
      for (let k = 0; performance.now() - started < durationMs; k++) {
        for (const at of order(sides.length, k)) {
          const side = sides[at]!;
          const length = sides.length > 1 ? (jitter(100) / 100) * blockMs : durationMs;
          const startUs = profileClockUs();
          const blockStarted = performance.now();
          let made = 0;
          do {
            await side.run(batches[at]!);
            made += batches[at]!;
            beat();
          } while (performance.now() - blockStarted < length && performance.now() - started < durationMs);
          spans.push({ label: side.revision, startUs, endUs: profileClockUs() });
          calls[side.revision] = (calls[side.revision] ?? 0) + made;
        }
      }
      await window.close({ calls, spans });
      return { calls, spans };
    },
    (failure) => ({ error: failure.message }),
  );
}

/**
 * Blocks of random length (0.5x to 1.5x, the same for both sides of a block):
 * with a fixed length, periodic events such as garbage collections phase-lock
 * with the AB BA schedule and land on the same side every time, a bias of tens
 * of percent between identical code. Random lengths spread them by time share.
 */
function jitter(iterations: number): number {
  return Math.max(2, Math.round(iterations * (0.5 + Math.random())));
}

/** Block k runs the sides in declared order when k is even and reversed when odd (AB BA AB ...): their indexes. */
function order(count: number, k: number): number[] {
  const declared = [...Array(count).keys()];
  return k % 2 === 0 ? declared : declared.reverse();
}

/** One side's part of a block: a short tinybench run, `iterations` samples. */
async function runBlock(side: Prepared, iterations: number): Promise<BlockFigures> {
  const bench = new Bench({ time: 0, iterations, warmup: false, throws: false, timestampProvider: 'hrtimeNow' });
  bench.add(side.revision, side.batchFn!, { async: side.isAsync, beforeEach: side.opts.beforeEach, afterEach: side.opts.afterEach });
  if (side.isAsync) await bench.run();
  else bench.runSync();
  const task = bench.getTask(side.revision)!;
  const result = task.result;
  if (result.state === 'errored') throw new SideFailure(side.revision, result.error, side.root);
  if (result.state !== 'completed') throw new SideFailure(side.revision, `tinybench ended the block in state '${result.state}'`);
  return { period: result.period, runs: task.runs, totalTime: result.totalTime };
}

/** The within-process variance of one block's log ratio: (1.4826 MAD)², robust to a preempted block, or the sample variance when the MAD is 0. */
export function blockVariance(logRatios: number[]): number {
  const mad = 1.4826 * medianAbsoluteDeviation(logRatios);
  return mad > 0 ? mad * mad : sampleVariance(logRatios);
}

/**
 * A side's figures in one process: its calls, and its speed from the median block, as the task's change is the median
 * of the blocks' ratios (a mean over blocks, calls over total time, let a few odd blocks move a side's column far from
 * the paired change: ids' head read 165k beside a change that put it at 38.6k).
 */
function figures(total: { runs: number; periods: number[] }, batch: number): SideFigures {
  const calls = total.runs * batch;
  const period = total.periods.length ? median(total.periods) : Number.NaN;
  return { calls, opsPerSec: period > 0 ? (batch / period) * 1000 : Number.POSITIVE_INFINITY };
}

/**
 * Warm a side up and learn how long a call takes: its own compiled loop runs
 * 1, 2, 4, ... calls until one run lasts 2 ms, then a few more runs at that size;
 * the fastest of those gives the per-call time. This sizes the batches and
 * blocks; it is not a measurement (that is tinybench's job, in the blocks).
 */
async function probe(side: Prepared): Promise<void> {
  try {
    const loop = await firstCall(side);
    let count = 1;
    for (; ; count *= 2) {
      const start = performance.now();
      await loop(count);
      if (performance.now() - start >= 2 || count >= 1 << 22) break;
    }
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 8; i++) {
      const start = performance.now();
      await loop(count);
      best = Math.min(best, (performance.now() - start) / count);
    }
    side.callMs = best;
  } catch (error) {
    throw error instanceof SideFailure ? error : new SideFailure(side.revision, error, side.root);
  }
}

/** The first call tells a sync task from an async one (its per-call hooks run around it as around every other); then its loop. */
async function firstCall(side: Prepared): Promise<Loop> {
  await runHook(side, 'beforeEach');
  const first = side.fn();
  side.isAsync = isThenable(first);
  if (side.isAsync) await first;
  await runHook(side, 'afterEach');
  const hooked = Boolean(side.opts.beforeEach || side.opts.afterEach);
  side.loop = hooked ? hookedLoop(side) : compileLoop(side.fn, side.isAsync);
  return side.loop;
}

/** A probe loop that runs the task's per-call hooks around each call, as tinybench would. */
function hookedLoop(side: Prepared): Loop {
  return async (n) => {
    for (let i = 0; i < n; i++) {
      await runHook(side, 'beforeEach');
      await side.fn();
      await runHook(side, 'afterEach');
    }
  };
}

async function runHook(side: Prepared, hook: 'beforeAll' | 'afterAll' | 'beforeEach' | 'afterEach'): Promise<void> {
  const fn = side.opts[hook];
  if (!fn) return;
  try {
    // tinybench calls hooks with the task as `this`; a probe has no task, and hooks written for tinybench rarely need one.
    await (fn as () => unknown).call(undefined);
  } catch (error) {
    throw new SideFailure(side.revision, error, side.root, `${hook} hook`);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

export type Loop = (n: number) => unknown;

/**
 * A loop of n calls as a freshly compiled function, so each side has its own
 * inline caches and optimised code: a loop shared by both revisions would see
 * both functions at one call site and optimise both worse than either alone.
 * The probe warms up this same loop that the timed batches then run.
 */
function compileLoop(fn: Fn, isAsync: boolean): Loop {
  const body = isAsync
    ? 'return async function benchgateLoop(n) { let last; for (let i = 0; i < n; i++) last = await fn(); sink.value = last; }'
    : 'return function benchgateLoop(n) { let last; for (let i = 0; i < n; i++) last = fn(); sink.value = last; }';
  // eslint-disable-next-line @typescript-eslint/no-implied-eval, @typescript-eslint/no-unsafe-call -- a loop compiled per task and side, on purpose (see above)
  return new Function('fn', 'sink', body)(fn, sink) as Loop;
}

/** One timed sample: `batch` calls of the side's loop (or the bare task when hooks must run per call). */
function batchTask(side: Prepared, batch: number): Fn {
  if (side.opts.beforeEach || side.opts.afterEach) return side.fn;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval, @typescript-eslint/no-unsafe-call -- a closure per side and batch size, compiled like the loop
  return new Function('loop', 'n', 'return function benchgateBatch() { return loop(n); }')(side.loop, batch) as Fn;
}

/** Where loop results go, so the optimiser cannot drop calls whose result is unused. */
const sink: { value: unknown } = { value: undefined };
