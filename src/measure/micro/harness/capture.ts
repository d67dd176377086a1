/**
 * Harness capture: a bench file written for benchmark.js, tinybench, mitata,
 * vitest or cronometro runs unmodified in the benchmark process, and every task it declares is
 * collected (name, function, hooks) instead of being timed and printed by the
 * harness. benchgate then measures the tasks with its own engine.
 *
 * How each harness is reached, from how each is built:
 * - benchmark.js (CommonJS, one mutable exports object) and tinybench (classes):
 *   the revision's own copy is loaded as usual and patched in place: `run()`
 *   collects the suite's tasks and returns at once. Patching in place serves
 *   `require` and `import` alike and keeps everything else of the harness real.
 * - mitata, vitest and cronometro: their functions are ES module exports, which
 *   cannot be patched, and vitest's module only works inside its own runner. A bench file's
 *   `import` of them is answered by a generated module (hooks.ts) exporting the
 *   functions of mitata.ts, vitest.ts and cronometro.ts; `require` by wrapping Module._load
 *   (graphs.ts; require-in-the-middle's technique). Both still resolve the
 *   revision's installed copy first.
 * - A file that measures in worker threads (find-my-way's one worker per
 *   scenario) gets a stand-in Worker: the worker's file is loaded here, with its
 *   workerData, parentPort and isMainThread, once per worker, and its tasks are
 *   collected like any other. A file that forks node processes is refused (workers.ts).
 *
 * Nothing here is written for one version of a harness: it uses their public
 * API (Suite#run, Bench#add/run, bench/group/run, bench/describe/hooks).
 *
 * Each harness is a module of its own (benchmarkjs.ts, tinybench.ts, mitata.ts,
 * vitest.ts; the two patched in place share patched.ts) behind one interface
 * (types.ts, Harness); this file holds the declaration of one bench file, which
 * the harnesses call back into (CaptureContext).
 */
import { fileURLToPath } from 'node:url';
import { BenchmarkjsHarness } from './benchmarkjs.js';
import { CronometroHarness } from './cronometro.js';
import { ModuleGraphs } from './graphs.js';
import { trimmedName, uniqueNames, withoutPadding } from './names.js';
import { MitataHarness } from './mitata.js';
import { TinybenchHarness } from './tinybench.js';
import type { CaptureContext, CapturedTask, Declaration, Harness, HarnessName, Namespace } from './types.js';
import { VitestHarness } from './vitest.js';
import { StandIns, type WorkerHost } from './workers.js';
import { nearestManifest } from '../../../util/manifest.js';

export type { CapturedTask, Declaration, HarnessCopy, HarnessName } from './types.js';

const SYMBOL = Symbol.for('benchgate.capture');

type Pending = () => Promise<CapturedTask[]>;

class Capture implements CaptureContext, WorkerHost {
  private current: (Declaration & { pending: Pending[]; only: boolean }) | undefined;
  private activity = 0;
  /** The unit of the bench file that is loading: 0 the file itself, k its k-th worker. */
  unit = 0;
  /** In an isolate of one unit (isolates.ts): the one worker of a bench file to load (workers.ts). */
  onlyUnit: number | undefined;
  private readonly graphs = new ModuleGraphs();
  private readonly standIns = new StandIns(this);
  /** The harness modules, by the package a bench file imports or requires. */
  private readonly harnesses = new Map<string, Harness>(
    [
      new BenchmarkjsHarness(this),
      new TinybenchHarness(this),
      new MitataHarness(this),
      new VitestHarness(this),
      new CronometroHarness(this),
    ].map((harness) => [harness.package, harness]),
  );

  get loading(): boolean {
    return this.current !== undefined;
  }

  /** What the file that is loading has declared so far (the stand-ins add its workers and refused processes). */
  get declaration(): Declaration | undefined {
    return this.current;
  }

  /** Load one bench file and everything it declares, in any shape benchgate knows. */
  async declare(file: string, load: () => Promise<void>): Promise<Declaration> {
    const declaration: Declaration & { pending: Pending[]; only: boolean } = {
      tasks: [],
      harnesses: [],
      workers: [],
      workerErrors: [],
      children: [],
      lateErrors: [],
      pending: [],
      only: false,
    };
    this.current = declaration;
    this.unit = 0;
    this.standIns.declaring();
    const exit = Object.getOwnPropertyDescriptor(process, 'exit')!;
    process.exit = ((code?: number) => void this.lateError(new Error(`called process.exit(${code ?? ''})`))) as typeof process.exit;
    const undo = [...this.harnesses.values()].map((harness) => harness.declaring?.(file));
    try {
      await load();
      await this.settle();
      for (const pending of declaration.pending) declaration.tasks.push(...(await pending()));
    } finally {
      for (const done of undo) done?.();
      Object.defineProperty(process, 'exit', exit);
      this.current = undefined;
    }
    let { tasks } = declaration;
    if (declaration.only) tasks = tasks.filter((task) => (task as OnlyTask).only);
    return { ...declaration, tasks: uniqueNames(withoutPadding(tasks)) };
  }

  /** Errors thrown or rejected while a file loads land here once it has declared something. */
  lateError(error: unknown): boolean {
    if (!this.current) return false;
    this.current.lateErrors.push(error);
    return true;
  }

  /**
   * Self-running scripts go on after `run()`: an async main, a chain of suites, a worker per
   * scenario. Wait until nothing has happened for three turns of the event loop (100 ms when
   * timers are pending) and no worker is loading, for 10 s at most.
   */
  private async settle(): Promise<void> {
    const end = performance.now() + 10_000;
    let seen = -1;
    let quietSince = performance.now();
    let quietTurns = 0;
    while (performance.now() < end) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.activity !== seen || this.standIns.running > 0) {
        seen = this.activity;
        quietSince = performance.now();
        quietTurns = 0;
        continue;
      }
      quietTurns++;
      const timers = process.getActiveResourcesInfo().includes('Timeout');
      if (quietTurns >= 3 && (!timers || performance.now() - quietSince >= 100)) return;
      if (timers) await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  record(harness: HarnessName, resolved: string): void {
    const declaration = this.current;
    if (!declaration) return;
    const file = resolved.startsWith('file:') ? fileURLToPath(resolved) : resolved;
    if (declaration.harnesses.some((copy) => copy.harness === harness && copy.path === file)) return;
    declaration.harnesses.push({ harness, path: file, ...versionOf(file) });
  }

  add(task: OnlyTask): void {
    this.activity++;
    this.current?.tasks.push({ unit: this.unit, ...task, name: trimmedName(task.name) });
    if (task.only && this.current) this.current.only = true;
  }

  /** A harness that declares its tasks once the file has settled: they belong to the unit that was loading when it was called. */
  later(collect: () => Promise<CapturedTask[]>): void {
    const unit = this.unit;
    this.current?.pending.push(async () => (await collect()).map((task) => ({ unit, ...task })));
  }

  stir(): void {
    this.activity++;
  }

  // The modules hooks.ts generates for a bench file's `import` of a harness call these, by name.

  benchmarkjs(namespace: Namespace, resolved: string): void {
    this.harnesses.get('benchmark')!.imported(resolved, namespace);
  }

  tinybench(namespace: Namespace, resolved: string): void {
    this.harnesses.get('tinybench')!.imported(resolved, namespace);
  }

  /** `real` is the revision's mitata; its other exports (measure, $, ...) stay its own. */
  mitata(real: Namespace, resolved: string): Namespace {
    return this.harnesses.get('mitata')!.imported(resolved, real)!;
  }

  vitest(resolved: string): Namespace {
    return this.harnesses.get('vitest')!.imported(resolved)!;
  }

  /** Our `cronometro` (its default export too); the revision's other exports stay its own. */
  cronometro(_real: Namespace, resolved: string): Namespace {
    return this.harnesses.get('cronometro')!.imported(resolved)!;
  }

  /** A module graph of its own for a bench file (graphs.ts). */
  inNewGraph(file: string): string {
    return this.graphs.inNewGraph(file);
  }

  /** Stand in for Worker and the node-forking functions (workers.ts), and answer `require()` of a harness (graphs.ts). */
  install(): void {
    this.standIns.install();
    this.graphs.wrapRequire((request, resolved, load) => this.harnesses.get(request)!.required(resolved, load));
  }
}

interface OnlyTask extends CapturedTask {
  only?: boolean;
}

function versionOf(file: string): { version?: string } {
  const found = nearestManifest(file, (manifest) => typeof manifest.name === 'string' && typeof manifest.version === 'string');
  return found ? { version: found.manifest.version as string } : {};
}

let installed: Capture | undefined;

/** The process's one capture, installed on first use: the hooks' generated modules find it on globalThis. */
export function harnessCapture(): Capture {
  if (!installed) {
    installed = new Capture();
    installed.install();
    (globalThis as Record<symbol, unknown>)[SYMBOL] = installed;
  }
  return installed;
}
