/**
 * Harness capture: a bench file written for benchmark.js, tinybench, mitata or
 * vitest runs unmodified in the benchmark process, and every task it declares is
 * collected (name, function, hooks) instead of being timed and printed by the
 * harness. benchgate then measures the tasks with its own engine.
 *
 * How each harness is reached, from how each is built:
 * - benchmark.js (CommonJS, one mutable exports object) and tinybench (classes):
 *   the revision's own copy is loaded as usual and patched in place: `run()`
 *   collects the suite's tasks and returns at once. Patching in place serves
 *   `require` and `import` alike and keeps everything else of the harness real.
 * - mitata and vitest: their functions are ES module exports, which cannot be
 *   patched, and vitest's module only works inside its own runner. A bench file's
 *   `import` of them is answered by a generated module (hooks.ts) exporting the
 *   functions below; `require` by wrapping Module._load (require-in-the-middle's
 *   technique). Both still resolve the revision's installed copy first.
 * - A file that measures in worker threads (find-my-way's one worker per
 *   scenario) gets a stand-in Worker: the worker's file is loaded here, with its
 *   workerData, parentPort and isMainThread, once per worker, and its tasks are
 *   collected like any other. A file that forks node processes is refused.
 *
 * Nothing here is written for one version of a harness: it uses their public
 * API (Suite#run, Bench#add/run, bench/group/run, bench/describe/hooks).
 */
import { EventEmitter } from 'node:events';
import childProcess from 'node:child_process';
import { readFileSync } from 'node:fs';
import Module, { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import workerThreads from 'node:worker_threads';
import type { Fn, FnOptions } from 'tinybench';
import { GRAPH_PARAMETER, HARNESS_PACKAGES } from './packages.js';

export type HarnessName = 'benchmark.js' | 'tinybench' | 'mitata' | 'vitest';

/** One task as a harness declared it, with its suites (vitest describe, mitata group, a named suite or Bench). */
export interface CapturedTask {
  suites: string[];
  name: string;
  fn: Fn;
  opts: FnOptions;
  /** Where it was declared: 0 in the bench file itself, k in the k-th worker the file started (each its own module graph). */
  unit?: number;
}

/** The copy of a harness a bench file got: each revision resolves its own. */
export interface HarnessCopy {
  harness: HarnessName;
  version?: string;
  /** The file the import or require resolved to. */
  path: string;
}

/** What one bench file declared while it was loaded and settled. */
export interface Declaration {
  tasks: CapturedTask[];
  harnesses: HarnessCopy[];
  /** Worker files it started (and whose tasks were collected). */
  workers: string[];
  /** What a worker's file threw while it loaded, by file. */
  workerErrors: { file: string; error: unknown }[];
  /** Node processes it tried to start (refused). */
  children: string[];
  /** What it threw after its tasks were collected (e.g. printing results benchgate does not produce): reported, not fatal. */
  lateErrors: unknown[];
}

const SYMBOL = Symbol.for('benchgate.capture');

type Hook = (...args: unknown[]) => unknown;
/** Node's require cache: modules by file name (Module._cache). */
type ModuleCache = Record<string, unknown>;
type Pending = () => Promise<CapturedTask[]>;

class Capture {
  private current: (Declaration & { pending: Pending[]; only: boolean }) | undefined;
  private activity = 0;
  private workersRunning = 0;
  private workerQueue: Promise<void> = Promise.resolve();
  private workerCount = 0;
  /** CommonJS modules loaded before any bench file (benchgate's own): kept when a new module graph starts. */
  private preloaded: Set<string> | undefined;
  private graphs = 0;
  private readonly graphCaches = new Map<number, ModuleCache>();
  private readonly cacheOfModule = new WeakMap<object, ModuleCache | undefined>();
  /** The unit of the bench file that is loading: 0 the file itself, k its k-th worker. */
  private unit = 0;
  private workersOfFile = 0;
  private readonly patched = new WeakSet<object>();
  private readonly suiteStack: VitestSuite[] = [];
  private mitataGroups: string[] = [];

  get loading(): boolean {
    return this.current !== undefined;
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
    this.workersOfFile = 0;
    this.suiteStack.length = 0;
    this.mitataGroups = [];
    const exit = Object.getOwnPropertyDescriptor(process, 'exit')!;
    process.exit = ((code?: number) => void this.lateError(new Error(`called process.exit(${code ?? ''})`))) as typeof process.exit;
    const removeGlobals = this.vitestGlobals(file);
    try {
      await load();
      await this.settle();
      for (const pending of declaration.pending) declaration.tasks.push(...(await pending()));
    } finally {
      removeGlobals();
      Object.defineProperty(process, 'exit', exit);
      this.current = undefined;
    }
    let { tasks } = declaration;
    if (declaration.only) tasks = tasks.filter((task) => (task as OnlyTask).only);
    return { ...declaration, tasks: uniqueNames(withoutPadding(tasks)) };
  }

  /**
   * vitest's `globals: true`: bench files that call `bench` and `describe` without importing them.
   * While a file loads, those names (where the global scope has none) stand for the vitest capture.
   */
  private vitestGlobals(file: string): () => void {
    const names = ['bench', 'describe', 'suite', 'beforeAll', 'afterAll', 'beforeEach', 'afterEach'];
    const scope = globalThis as Record<string, unknown>;
    const free = names.filter((name) => !(name in scope));
    let api: Record<string, unknown> | undefined;
    const vitest = () => (api ??= this.vitest(resolveFrom(file, 'vitest') ?? 'vitest (globals; not installed)'));
    for (const name of free) Object.defineProperty(scope, name, { configurable: true, get: () => vitest()[name] });
    return () => {
      for (const name of free) delete scope[name];
    };
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
      if (this.activity !== seen || this.workersRunning > 0) {
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

  private record(harness: HarnessName, resolved: string): void {
    const declaration = this.current;
    if (!declaration) return;
    const file = resolved.startsWith('file:') ? fileURLToPath(resolved) : resolved;
    if (declaration.harnesses.some((copy) => copy.harness === harness && copy.path === file)) return;
    declaration.harnesses.push({ harness, path: file, ...versionOf(file) });
  }

  private add(task: CapturedTask & { only?: boolean }): void {
    this.activity++;
    this.current?.tasks.push({ unit: this.unit, ...task, name: String(task.name).trimEnd() || String(task.name) });
  }

  /** A harness that declares its tasks once the file has settled: they belong to the unit that was loading when it was called. */
  private later(collect: () => Promise<CapturedTask[]>): void {
    const unit = this.unit;
    this.current?.pending.push(async () => (await collect()).map((task) => ({ unit, ...task })));
  }

  // --- benchmark.js ---------------------------------------------------------

  benchmarkjs(namespace: { default?: unknown }, resolved: string): void {
    this.record('benchmark.js', resolved);
    const Benchmark = namespace.default as BenchmarkStatic | undefined;
    if (typeof Benchmark !== 'function' || this.patched.has(Benchmark)) return;
    this.patched.add(Benchmark);
    const collect = (suite: BenchmarkSuite) => {
      for (let i = 0; i < suite.length; i++) this.addBenchmark(suite[i]!, typeof suite.name === 'string' && suite.name ? [suite.name] : []);
      // Listeners of 'complete' may start the next suite; what they print is theirs (benchgate prints its own table).
      try {
        suite.emit('complete');
      } catch (error) {
        this.lateError(error);
      }
    };
    const collectOne = (benchmark: BenchmarkInstance) => this.addBenchmark(benchmark, []);
    Benchmark.Suite.prototype.run = function (this: BenchmarkSuite) {
      collect(this);
      return this;
    };
    Benchmark.prototype.run = function (this: BenchmarkInstance) {
      collectOne(this);
      return this;
    };
  }

  private addBenchmark(benchmark: BenchmarkInstance, suites: string[]): void {
    const { fn, setup, teardown } = benchmark;
    const name = benchmark.name ?? `benchmark ${benchmark.id ?? ''}`.trim();
    if (typeof fn !== 'function')
      throw new Error(`benchmark.js task '${name}' gives its code as a string; benchgate captures functions only: pass a function`);
    for (const [hook, value] of [
      ['setup', setup],
      ['teardown', teardown],
    ] as const)
      if (typeof value === 'string' && value.trim())
        throw new Error(`benchmark.js task '${name}' gives its ${hook} as a string; benchgate captures functions only: pass a function`);
    const opts: FnOptions = {};
    // benchmark.js runs setup and teardown around each timed cycle; benchgate's closest is once around the task in each process.
    if (typeof setup === 'function') opts.beforeAll = () => setup.call(benchmark) as void;
    if (typeof teardown === 'function') opts.afterAll = () => teardown.call(benchmark) as void;
    // A deferred task calls deferred.resolve() when one call is done: a call is then a promise.
    const task: Fn = benchmark.defer
      ? () =>
          new Promise<void>((resolve, reject) => {
            try {
              fn.call(benchmark, { benchmark, resolve: () => resolve(), cycles: 0, elapsed: 0, timeStamp: 0 });
            } catch (error) {
              reject(error instanceof Error ? error : new Error(String(error)));
            }
          })
      : (fn as Fn);
    this.add({ suites, name, fn: task, opts });
  }

  // --- tinybench -------------------------------------------------------------

  tinybench(namespace: { Bench?: unknown; default?: unknown }, resolved: string): void {
    this.record('tinybench', resolved);
    const Bench = namespace.Bench ?? (namespace.default as { Bench?: unknown } | undefined)?.Bench ?? namespace.default;
    if (typeof Bench !== 'function' || this.patched.has(Bench)) return;
    this.patched.add(Bench);
    const proto = (Bench as { prototype: TinyBench }).prototype;
    const declared = new WeakMap<TinyBench, { name: string; fn: Fn; opts: FnOptions }[]>();
    const collected = new WeakSet<TinyBench>();
    const add = proto.add;
    proto.add = function (this: TinyBench, name: string, fn: Fn, opts: FnOptions = {}) {
      const list = declared.get(this) ?? [];
      list.push({ name, fn, opts });
      declared.set(this, list);
      return add.call(this, name, fn, opts);
    };
    const collect = (bench: TinyBench) => {
      if (collected.has(bench)) return;
      collected.add(bench);
      const present = new Set((bench.tasks ?? []).map((task) => task.name));
      const latest = new Map((declared.get(bench) ?? []).filter((task) => present.has(task.name)).map((task) => [task.name, task]));
      for (const { name, fn, opts } of latest.values())
        this.add({
          suites: typeof bench.name === 'string' && bench.name ? [bench.name] : [],
          name,
          fn,
          opts: withBenchHooks(bench, name, opts),
        });
    };
    for (const method of ['run', 'runConcurrently'] as const)
      if (typeof proto[method] === 'function')
        proto[method] = function (this: TinyBench) {
          collect(this);
          return Promise.resolve(this.tasks);
        };
    if (typeof proto.runSync === 'function')
      proto.runSync = function (this: TinyBench) {
        collect(this);
        return this.tasks;
      };
    // tinybench 2 has warmup() methods; from 3 on `warmup` is an option.
    for (const method of ['warmup', 'warmupConcurrently'] as const)
      if (typeof proto[method] === 'function') proto[method] = () => Promise.resolve();
  }

  // --- mitata ----------------------------------------------------------------

  /** `real` is the revision's mitata; its other exports (measure, $, ...) stay its own. */
  mitata(_real: Record<string, unknown>, resolved: string): Record<string, unknown> {
    this.record('mitata', resolved);
    const within = <T>(name: string | undefined, body: () => T): T => {
      const saved = this.mitataGroups;
      if (name) this.mitataGroups = [...saved, name];
      try {
        return body();
      } finally {
        this.mitataGroups = saved;
      }
    };
    const passThrough = (...args: unknown[]) => {
      const body = args.find((arg) => typeof arg === 'function') as (() => unknown) | undefined;
      return body?.();
    };
    const bench = (name: unknown, fn?: unknown) => {
      const [label, body] = typeof name === 'function' ? [name.name || 'anonymous', name as Hook] : [String(name), fn as Hook];
      const declared = new MitataBench(label, body, [...this.mitataGroups]);
      this.activity++;
      this.later(() => declared.tasks());
      return declared;
    };
    return {
      bench,
      baseline: bench,
      group: (name: unknown, body?: unknown) =>
        typeof name === 'function'
          ? within(undefined, name as () => unknown)
          : within(typeof name === 'string' ? name : (name as { name?: string } | undefined)?.name, body as () => unknown),
      summary: passThrough,
      barplot: passThrough,
      boxplot: passThrough,
      lineplot: passThrough,
      compact: passThrough,
      run: () => Promise.resolve({ benchmarks: [], context: {}, layout: [] }),
      do_not_optimize: (value: unknown) => void (sink.value = value),
    };
  }

  // --- vitest ----------------------------------------------------------------

  vitest(resolved: string): Record<string, unknown> {
    this.record('vitest', resolved);
    const root = (): VitestSuite => {
      if (!this.suiteStack.length) this.suiteStack.push(newSuite('', undefined, false));
      return this.suiteStack[this.suiteStack.length - 1]!;
    };
    const register = (name: unknown, fn: unknown, options: VitestBenchOptions | undefined, only: boolean) => {
      if (typeof fn !== 'function') return;
      const suite = root();
      this.addVitest(suite, String(name), fn as Fn, options ?? {}, only || suite.only);
    };
    const bench = Object.assign((name: unknown, fn?: unknown, options?: VitestBenchOptions) => register(name, fn, options, false), {
      only: (name: unknown, fn?: unknown, options?: VitestBenchOptions) => register(name, fn, options, true),
      skip: () => undefined,
      todo: () => undefined,
      skipIf: (condition: unknown) => (condition ? () => undefined : bench),
      runIf: (condition: unknown) => (condition ? bench : () => undefined),
    });
    // As vitest collects: describe() only registers its factory; factories run after the file has loaded,
    // one at a time in order, each awaited, so an async factory's benches land in its own suite.
    const collect = async (suite: VitestSuite): Promise<CapturedTask[]> => {
      for (let i = 0; i < suite.children.length; i++) {
        const child = suite.children[i]!;
        this.suiteStack.push(child);
        try {
          await child.factory?.();
        } finally {
          this.suiteStack.pop();
        }
        await collect(child);
      }
      return [];
    };
    const describeWith =
      (only: boolean) =>
      (name: unknown, fn?: unknown): void => {
        const body = (typeof fn === 'function' ? fn : typeof name === 'function' ? name : undefined) as (() => unknown) | undefined;
        const label = typeof name === 'function' ? name.name : String(name);
        const parent = root();
        const suite = newSuite(label, parent, only || parent.only);
        suite.factory = body;
        parent.children.push(suite);
        if (parent.parent === undefined && parent.children.length === 1) this.later(() => collect(parent));
      };
    const describe = Object.assign(describeWith(false), {
      only: describeWith(true),
      skip: () => undefined,
      todo: () => undefined,
      skipIf: (condition: unknown) => (condition ? () => undefined : describe),
      runIf: (condition: unknown) => (condition ? describe : () => undefined),
    });
    const hook = (kind: keyof VitestHooks) => (fn: Hook) => void root()[kind].push(fn);
    const test = Object.assign(() => undefined, {
      only: () => undefined,
      skip: () => undefined,
      todo: () => undefined,
      each: () => () => undefined,
    });
    const unavailable = (what: string) =>
      new Proxy(() => undefined, {
        get: () => {
          throw new Error(`benchgate runs vitest bench files without vitest: '${what}' is not available in them`);
        },
        apply: () => {
          throw new Error(`benchgate runs vitest bench files without vitest: '${what}' is not available in them`);
        },
      });
    return {
      bench,
      describe,
      suite: describe,
      it: test,
      test,
      beforeAll: hook('beforeAll'),
      afterAll: hook('afterAll'),
      beforeEach: hook('beforeEach'),
      afterEach: hook('afterEach'),
      vi: unavailable('vi'),
      vitest: unavailable('vitest'),
      expect: unavailable('expect'),
      assert: unavailable('assert'),
    };
  }

  /**
   * vitest's semantics in benchgate's per-task hooks: a suite's beforeAll hooks run once, before the
   * first of its benches in this process (and what they return is a cleanup), its afterAll hooks after
   * the last; beforeEach/afterEach hooks run around each bench; the bench's own setup/teardown
   * options (tinybench's, called with the task and 'run') run innermost.
   */
  private addVitest(suite: VitestSuite, name: string, fn: Fn, options: VitestBenchOptions, only: boolean): void {
    const chain: VitestSuite[] = [];
    for (let at: VitestSuite | undefined = suite; at; at = at.parent) chain.unshift(at);
    for (const member of chain) member.remaining++;
    const task = { name };
    const opts: FnOptions = {
      beforeAll: async () => {
        for (const member of chain) {
          if (member.started) continue;
          member.started = true;
          for (const hook of member.beforeAll) {
            const cleanup = await hook();
            if (typeof cleanup === 'function') member.cleanups.unshift(cleanup as Hook);
          }
        }
        for (const member of chain) for (const hook of member.beforeEach) await hook();
        await options.setup?.(task, 'run');
      },
      afterAll: async () => {
        await options.teardown?.(task, 'run');
        for (const member of [...chain].reverse()) for (const hook of member.afterEach) await hook();
        for (const member of [...chain].reverse()) {
          if (--member.remaining > 0) continue;
          for (const hook of [...member.cleanups, ...member.afterAll]) await hook();
        }
      },
    };
    const suites = chain.map((member) => member.name).filter(Boolean);
    this.add({ suites, name, fn, opts, ...(only ? { only: true } : {}) });
    if (only && this.current) this.current.only = true;
  }

  // --- worker threads and child processes --------------------------------------

  /**
   * Replace Worker and the node-forking functions. Only while a bench file loads: a task that starts a
   * worker or a process when it is measured gets the real thing.
   */
  install(): void {
    const start = (worker: EventEmitter, port: EventEmitter, filename: string | URL, options: WorkerOptions) =>
      this.startWorker(worker, port, filename, options);
    const loading = () => this.loading;
    const RealWorker = workerThreads.Worker;
    class CapturedWorker extends EventEmitter {
      readonly threadId: number = 0;
      private readonly port = new EventEmitter();
      constructor(filename: string | URL, options: WorkerOptions = {}) {
        super();
        // A constructor may answer another object: outside loading, the real Worker.
        if (!loading()) return new RealWorker(filename, options) as unknown as CapturedWorker;
        this.threadId = start(this, this.port, filename, options);
      }
      postMessage(message: unknown): void {
        setImmediate(() => this.port.emit('message', message));
      }
      terminate(): Promise<number> {
        return Promise.resolve(0);
      }
      ref(): void {}
      unref(): void {}
    }
    (workerThreads as { Worker: unknown }).Worker = CapturedWorker;
    const refuse = (what: string, file: string) => {
      this.current?.children.push(file);
      throw new Error(
        `benchgate does not run benchmarks in child processes (${what} '${file}'): it times tasks in its own processes, alternating base and head`,
      );
    };
    const isNode = (command: unknown) => command === process.execPath || command === 'node' || String(command).endsWith('/node');
    const real = childProcess as unknown as Record<string, Hook>;
    const { fork } = real;
    const stand = {
      fork: (modulePath: string | URL, ...rest: unknown[]) =>
        this.loading ? refuse('child_process.fork', String(modulePath)) : fork!(modulePath, ...rest),
    } as Record<string, Hook>;
    // A node script started these ways while a file loads is a benchmark run in another process; any other command passes.
    for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync']) {
      const original = real[name]!;
      stand[name] = (command: unknown, ...rest: unknown[]) =>
        isNode(command) && this.loading ? refuse(name, nodeScript(rest)) : original(command, ...rest);
    }
    Object.assign(childProcess, stand);
    syncBuiltinESMExports();
    this.wrapRequire();
  }

  /** A stand-in Worker's start: its file is loaded after the workers started before it; then it exits with 0. */
  private startWorker(worker: EventEmitter, port: EventEmitter, filename: string | URL, options: WorkerOptions): number {
    const threadId = ++this.workerCount;
    const unit = ++this.workersOfFile;
    const file = filename instanceof URL || String(filename).startsWith('file:') ? fileURLToPath(filename) : path.resolve(String(filename));
    if (options.eval) throw new Error('benchgate cannot collect tasks from a worker started from a string of code (eval: true)');
    this.current?.workers.push(file);
    this.workersRunning++;
    Object.assign(port, {
      postMessage: (message: unknown) => setImmediate(() => worker.emit('message', message)),
      close() {},
      ref() {},
      unref() {},
    });
    this.workerQueue = this.workerQueue.then(async () => {
      try {
        await this.runWorker(file, threadId, unit, options.workerData, port);
        setImmediate(() => (worker.emit('online'), worker.emit('exit', 0)));
      } catch (error) {
        this.current?.workerErrors.push({ file, error });
        setImmediate(() => (worker.emit('error', error), worker.emit('exit', 1)));
      } finally {
        this.workersRunning--;
        this.activity++;
      }
    });
    return threadId;
  }

  /** Load a worker's file in this thread, as that worker would see it, once per worker. */
  private async runWorker(file: string, threadId: number, unit: number, workerData: unknown, port: EventEmitter): Promise<void> {
    const builtin = workerThreads as unknown as Record<string, unknown>;
    const saved = {
      workerData: builtin.workerData,
      parentPort: builtin.parentPort,
      isMainThread: builtin.isMainThread,
      threadId: builtin.threadId,
    };
    Object.assign(builtin, { workerData: structuredClone(workerData), parentPort: port, isMainThread: false, threadId });
    syncBuiltinESMExports();
    // Tasks declared from here until the worker is done belong to its graph. A worker that declares them later
    // (after an await of its own) gets the file's unit: its decided tasks then warm up before the file's, which
    // costs time but never leaves a measured task without a neighbour it had.
    this.unit = unit;
    try {
      try {
        await import(this.inNewGraph(file));
      } finally {
        Object.assign(builtin, saved);
        syncBuiltinESMExports();
      }
      // Messages the main script posts to the worker arrive on the next turns.
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      this.unit = 0;
    }
  }

  /**
   * The URL to import `file` with so that it and everything it imports get instances of their own: a
   * module graph per bench file and per worker, as each would have in its own process or thread. Code
   * shared by the tasks of two files, or by two workers' scenarios (one router class behind eighteen
   * lookup scenarios), would otherwise be one function in this process, its inline caches and
   * optimised code shaped by whichever scenarios ran before: a task's figure would depend on its
   * neighbours, and change when they are decided and leave (docs/statistics.md). ES modules: the URL
   * carries a graph number that the resolve hook (hooks.ts) passes on to every file the module
   * imports. CommonJS: a require cache per graph, since Node keys a CommonJS module by its path alone.
   */
  inNewGraph(file: string): string {
    const internal = Module as unknown as { _cache: ModuleCache };
    this.preloaded ??= new Set(Object.keys(internal._cache));
    // Each graph has a require cache of its own, active while it loads (and for its requires later, see
    // inGraphOf). benchgate's own modules and native addons stay shared: an addon's library is loaded
    // once per process whatever the cache says.
    const cache: ModuleCache = Object.create(null) as ModuleCache;
    for (const [key, module] of Object.entries(internal._cache)) if (this.preloaded.has(key) || key.endsWith('.node')) cache[key] = module;
    internal._cache = cache;
    this.graphCaches.set(++this.graphs, cache);
    return `${pathToFileURL(file).href}?${GRAPH_PARAMETER}=${this.graphs}`;
  }

  /** `require()` of a harness, which Node 20 does not pass through the module hooks. */
  private wrapRequire(): void {
    const internal = Module as unknown as {
      _load: (request: string, parent: { filename?: string } | undefined, isMain: boolean) => unknown;
      _resolveFilename: (request: string, parent: unknown) => string;
    };
    const load = internal._load;
    const answer = (request: string, resolved: string, exports: () => unknown): unknown => {
      if (request === 'vitest') return this.vitest(resolved);
      const loaded = exports();
      if (request === 'benchmark') this.benchmarkjs({ default: loaded }, resolved);
      else if (request === 'tinybench') this.tinybench(loaded as { Bench?: unknown }, resolved);
      else return { ...(loaded as object), ...this.mitata(loaded as Record<string, unknown>, resolved) };
      return loaded;
    };
    const inGraphOf = this.inGraphOf.bind(this);
    internal._load = function (request, parent, isMain) {
      const harness =
        HARNESS_PACKAGES.includes(request) && parent?.filename && !parent.filename.includes(`${path.sep}node_modules${path.sep}`);
      return inGraphOf(parent, () => {
        if (!harness) return load.call(this, request, parent, isMain);
        return answer(request, internal._resolveFilename(request, parent), () => load.call(this, request, parent, isMain));
      });
    };
  }

  /**
   * A require() runs against the require cache of its parent's module graph: a module that requires lazily
   * (inside a function, at measurement time, after other graphs have loaded) gets its own graph's instances.
   */
  private inGraphOf<T>(parent: object | undefined, load: () => T): T {
    const cache = parent ? this.graphCacheOf(parent) : undefined;
    const internal = Module as unknown as { _cache: ModuleCache };
    if (!cache || cache === internal._cache) return load();
    const active = internal._cache;
    internal._cache = cache;
    try {
      return load();
    } finally {
      internal._cache = active;
    }
  }

  private graphCacheOf(module: object): ModuleCache | undefined {
    if (this.cacheOfModule.has(module)) return this.cacheOfModule.get(module);
    const filename = (module as { filename?: unknown }).filename;
    if (typeof filename !== 'string') return undefined;
    const cache = [...this.graphCaches.values()].find((candidate) => candidate[filename] === module);
    if (cache) this.cacheOfModule.set(module, cache);
    return cache;
  }
}

interface WorkerOptions {
  workerData?: unknown;
  eval?: boolean;
}

interface OnlyTask extends CapturedTask {
  only?: boolean;
}

interface VitestHooks {
  beforeAll: Hook[];
  afterAll: Hook[];
  beforeEach: Hook[];
  afterEach: Hook[];
}
interface VitestSuite extends VitestHooks {
  name: string;
  /** The describe() callback, run when the file is collected. */
  factory?: (() => unknown) | undefined;
  children: VitestSuite[];
  parent: VitestSuite | undefined;
  only: boolean;
  started: boolean;
  remaining: number;
  cleanups: Hook[];
}
interface VitestBenchOptions {
  setup?: (task: unknown, mode: string) => unknown;
  teardown?: (task: unknown, mode: string) => unknown;
}

function newSuite(name: string, parent: VitestSuite | undefined, only: boolean): VitestSuite {
  return {
    name,
    parent,
    only,
    children: [],
    started: false,
    remaining: 0,
    cleanups: [],
    beforeAll: [],
    afterAll: [],
    beforeEach: [],
    afterEach: [],
  };
}

/**
 * A mitata bench: a function, or a generator whose code before `yield` is setup and after it teardown,
 * yielding the function to time (or `{ 0() {...}, bench(x) {...} }`, computed arguments made before each
 * call). `.args()`/`.range()` make one task per combination, `$name` in the name replaced by the value.
 */
class MitataBench {
  private readonly params = new Map<string, unknown[]>();
  constructor(
    private label: string,
    private readonly fn: Hook,
    private readonly groups: string[],
  ) {}
  name(label: string): this {
    this.label = label;
    return this;
  }
  args(name: unknown, values?: unknown): this {
    if (Array.isArray(name)) this.params.set('x', name);
    else if (typeof name === 'object' && name !== null)
      for (const [key, list] of Object.entries(name)) this.params.set(key, list as unknown[]);
    else this.params.set(String(name), values as unknown[]);
    return this;
  }
  range(name: string, start: number, end: number, multiplier = 8): this {
    const values: number[] = [];
    for (let value = start; value <= end; value *= multiplier) values.push(value);
    return this.args(name, values);
  }
  dense_range(name: string, start: number, end: number, step = 1): this {
    const values: number[] = [];
    for (let value = start; value <= end; value += step) values.push(value);
    return this.args(name, values);
  }
  baseline(): this {
    return this;
  }
  gc(): this {
    return this;
  }
  compact(): this {
    return this;
  }
  highlight(): this {
    return this;
  }

  async tasks(): Promise<CapturedTask[]> {
    let combinations: Record<string, unknown>[] = [{}];
    for (const [key, values] of this.params)
      combinations = combinations.flatMap((combo) => values.map((value) => ({ ...combo, [key]: value })));
    const tasks: CapturedTask[] = [];
    for (const combo of combinations) {
      const name = this.label.replace(/\$(\w+)/g, (whole, key: string) => (key in combo ? String(combo[key]) : whole));
      tasks.push({ suites: this.groups, name, ...(await this.task(combo)) });
    }
    return tasks;
  }

  private async task(combo: Record<string, unknown>): Promise<{ fn: Fn; opts: FnOptions }> {
    const state = { get: (key: string) => combo[key], ...combo };
    const kind = this.fn.constructor.name;
    if (kind !== 'GeneratorFunction' && kind !== 'AsyncGeneratorFunction') {
      const fn = this.fn;
      return { fn: fn.length > 0 ? () => fn(state) : fn, opts: {} };
    }
    // The setup before `yield` runs once here; the teardown after it runs after the task.
    const generator = this.fn(state) as Generator<unknown> | AsyncGenerator<unknown>;
    const first = await generator.next();
    const teardown: FnOptions = { afterAll: async () => void (await generator.next()) };
    const yielded: unknown = first.value;
    if (typeof yielded === 'function') return { fn: yielded as Fn, opts: teardown };
    if (typeof yielded === 'object' && yielded !== null && typeof (yielded as { bench?: unknown }).bench === 'function') {
      const computed = yielded as Record<string, Hook> & { bench: Hook };
      const makers = Object.keys(computed)
        .filter((key) => /^\d+$/.test(key))
        .sort((a, b) => Number(a) - Number(b))
        .map((key) => computed[key]!);
      let values: unknown[] = [];
      return {
        fn: () => computed.bench(...values),
        opts: { ...teardown, beforeEach: () => void (values = makers.map((make) => make())) },
      };
    }
    throw new Error(`mitata bench '${this.label}' yields ${typeof yielded}, not the function to time`);
  }
}

interface BenchmarkInstance {
  name?: string;
  id?: number;
  fn?: unknown;
  setup?: unknown;
  teardown?: unknown;
  defer?: boolean;
  run?: unknown;
}
interface BenchmarkSuite {
  length: number;
  name?: unknown;
  [index: number]: BenchmarkInstance;
  emit(type: string): unknown;
}
interface BenchmarkStatic {
  (...args: unknown[]): unknown;
  prototype: { run: unknown };
  Suite: { prototype: { run: unknown } };
}
interface TinyBench {
  name?: unknown;
  tasks?: { name: string }[];
  setup?: unknown;
  teardown?: unknown;
  getTask?: (name: string) => unknown;
  add: (name: string, fn: Fn, opts?: FnOptions) => unknown;
  run?: unknown;
  runSync?: unknown;
  runConcurrently?: unknown;
  warmup?: unknown;
  warmupConcurrently?: unknown;
}

/** A Bench's setup/teardown options (called with the task and 'run' around each task) around the task's own hooks. */
function withBenchHooks(bench: TinyBench, name: string, opts: FnOptions): FnOptions {
  const { setup, teardown } = bench;
  if (typeof setup !== 'function' && typeof teardown !== 'function') return opts;
  const task = () => bench.getTask?.(name);
  return {
    ...opts,
    beforeAll: async function (this: unknown) {
      if (typeof setup === 'function') await (setup as Hook)(task(), 'run');
      await (opts.beforeAll as Hook | undefined)?.call(this);
    },
    afterAll: async function (this: unknown) {
      await (opts.afterAll as Hook | undefined)?.call(this);
      if (typeof teardown === 'function') await (teardown as Hook)(task(), 'run');
    },
  };
}

/**
 * Names padded to one width for aligned output (find-my-way's `name.padEnd(longest, '.')`): when two
 * or more names of the longest length end in dots, those dots are padding, not part of the names.
 */
function withoutPadding(tasks: CapturedTask[]): CapturedTask[] {
  const longest = Math.max(0, ...tasks.map((task) => task.name.length));
  const padded = tasks.filter((task) => task.name.length === longest && task.name.endsWith('.'));
  if (padded.length < 2) return tasks;
  return tasks.map((task) => (task.name.length === longest ? { ...task, name: task.name.replace(/\.+$/, '') || task.name } : task));
}

/** Two tasks of one file with one id get ' (2)', ' (3)': every id names one task. */
function uniqueNames(tasks: CapturedTask[]): CapturedTask[] {
  const seen = new Map<string, number>();
  return tasks.map((task) => {
    const key = [...task.suites, task.name].join('\u0000');
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    return count === 1 ? task : { ...task, name: `${task.name} (${count})` };
  });
}

function resolveFrom(file: string, specifier: string): string | undefined {
  try {
    return Module.createRequire(file).resolve(specifier);
  } catch {
    return undefined;
  }
}

function versionOf(file: string): { version?: string } {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (typeof manifest.name === 'string' && typeof manifest.version === 'string') return { version: manifest.version };
    } catch {
      // keep looking upwards
    }
  }
  return {};
}

function nodeScript(rest: unknown[]): string {
  const args = rest.find((arg): arg is unknown[] => Array.isArray(arg));
  const script = args?.find((arg): arg is string => typeof arg === 'string' && !arg.startsWith('-'));
  return script ?? 'a script';
}

const sink: { value: unknown } = { value: undefined };

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
