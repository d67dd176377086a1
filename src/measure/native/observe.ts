/**
 * The native check's observers: in a bench file's own run (`node <file>`, observer.ts preloaded), each
 * harness runs as it always does, and these only READ its results once it has computed them, through its
 * public API: benchmark.js's 'complete' event (`hz`, `stats.rme`, `stats.sample`), tinybench's
 * `task.result` after `run()` (2.x `hz`/`rme`, 3.x+ `throughput.mean`/`throughput.rme`), mitata's
 * `run()` result (1.x: `benchmarks[].runs[].stats`). Nothing of the harness's timing is changed, so its
 * figures are the ones its author sees.
 */
import { relativeMargin, type NativeHarness, type NativeRecord } from './figures.js';

/** Where a finished task's figures go (observer.ts: one JSON line appended to the run's figures file). */
export type Report = (record: Omit<NativeRecord, 'thread'>) => void;

type Fn = (this: unknown, ...args: unknown[]) => unknown;

/** Each harness class observed once per process, whichever way (import or require) it was reached. */
const observed = new WeakSet<object>();

function once(target: unknown): target is Record<string, unknown> & { prototype: Record<string, unknown> } {
  if (typeof target !== 'function' || observed.has(target)) return false;
  observed.add(target);
  return true;
}

/** A harness's name of a task: text as it is, a number as written, anything else as nothing. */
function nameOf(...candidates: unknown[]): string {
  for (const name of candidates) {
    if (typeof name === 'string') return name;
    if (typeof name === 'number') return String(name);
  }
  return '';
}

function message(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

interface BenchmarkInstance {
  name?: unknown;
  hz?: unknown;
  aborted?: unknown;
  error?: unknown;
  stats?: { rme?: unknown; sample?: unknown[] };
  _original?: unknown;
  on(type: string, listener: () => void): unknown;
}

/**
 * benchmark.js: a benchmark's 'complete' event comes once its cycles are evaluated (`hz`, `stats`);
 * its suite is the Suite that ran it. Clones (benchmark.js runs each cycle on one) are not the task.
 */
export function observeBenchmarkjs(Benchmark: unknown, report: Report): void {
  if (!once(Benchmark)) return;
  const suiteOf = new WeakMap<object, string>();
  const watched = new WeakSet<object>();
  const Suite = (Benchmark as unknown as { Suite?: { prototype: Record<string, unknown> } }).Suite;
  const runSuite = Suite?.prototype.run;
  if (Suite && typeof runSuite === 'function')
    Suite.prototype.run = function (this: { name?: unknown; length: number; [i: number]: object }, ...args: unknown[]) {
      for (let i = 0; i < this.length; i++) if (typeof this.name === 'string' && this.name) suiteOf.set(this[i]!, this.name);
      return (runSuite as Fn).apply(this, args);
    };
  const run = Benchmark.prototype.run;
  if (typeof run !== 'function') return;
  Benchmark.prototype.run = function (this: BenchmarkInstance, ...args: unknown[]) {
    if (!this._original && !watched.has(this)) {
      watched.add(this);
      this.on('complete', () => report(benchmarkjsRecord(this, suiteOf.get(this))));
    }
    return (run as Fn).apply(this, args);
  };
}

function benchmarkjsRecord(bench: BenchmarkInstance, suite: string | undefined): Omit<NativeRecord, 'thread'> {
  const base = { harness: 'benchmark.js' as NativeHarness, suites: suite ? [suite] : [], name: nameOf(bench.name) };
  if (bench.error) return { ...base, error: message(bench.error) };
  if (bench.aborted) return { ...base, error: 'aborted' };
  return {
    ...base,
    ...(typeof bench.hz === 'number' ? { opsPerSec: bench.hz } : {}),
    ...(typeof bench.stats?.rme === 'number' ? { rme: bench.stats.rme } : {}),
    ...(Array.isArray(bench.stats?.sample) ? { samples: bench.stats.sample.length } : {}),
  };
}

interface TinyTask {
  name?: unknown;
  result?: {
    state?: unknown;
    error?: unknown;
    hz?: unknown;
    rme?: unknown;
    samples?: unknown;
    throughput?: { mean?: unknown; rme?: unknown; samplesCount?: unknown };
  };
}
interface TinyBench {
  name?: unknown;
  tasks?: TinyTask[];
}

/** tinybench: `run`, `runSync` and `runConcurrently` as they are, then each task's result read. */
export function observeTinybench(Bench: unknown, report: Report): void {
  if (!once(Bench)) return;
  const proto = Bench.prototype;
  const read = (bench: TinyBench) => {
    for (const task of bench.tasks ?? []) report(tinybenchRecord(bench, task));
  };
  for (const method of ['run', 'runConcurrently'] as const) {
    const original = proto[method];
    if (typeof original !== 'function') continue;
    proto[method] = async function (this: TinyBench, ...args: unknown[]) {
      const result = await (original as Fn).apply(this, args);
      read(this);
      return result;
    };
  }
  const runSync = proto.runSync;
  if (typeof runSync === 'function')
    proto.runSync = function (this: TinyBench, ...args: unknown[]) {
      const result = (runSync as Fn).apply(this, args);
      read(this);
      return result;
    };
}

function tinybenchRecord(bench: TinyBench, task: TinyTask): Omit<NativeRecord, 'thread'> {
  const base = {
    harness: 'tinybench' as NativeHarness,
    suites: typeof bench.name === 'string' && bench.name ? [bench.name] : [],
    name: nameOf(task.name),
  };
  const result = task.result;
  if (!result) return { ...base, error: 'no result (the task did not run)' };
  if (result.error !== undefined) return { ...base, error: message(result.error) };
  // tinybench 3 and later: throughput statistics; 2.x: hz and rme of the latency samples.
  const throughput = result.throughput;
  const ops = throughput ? throughput.mean : result.hz;
  const rme = throughput ? throughput.rme : result.rme;
  const samples = throughput ? throughput.samplesCount : Array.isArray(result.samples) ? result.samples.length : undefined;
  return {
    ...base,
    ...(typeof ops === 'number' ? { opsPerSec: ops } : {}),
    ...(typeof rme === 'number' ? { rme } : {}),
    ...(typeof samples === 'number' ? { samples } : {}),
  };
}

interface MitataTrial {
  alias?: unknown;
  group?: unknown;
  runs?: { name?: unknown; error?: unknown; stats?: { avg?: unknown; samples?: unknown } }[];
}
interface MitataResult {
  benchmarks?: MitataTrial[];
  layout?: { name?: unknown }[];
}

/** mitata: its `run` as it is, then its result read: a task per trial's run (one per argument combination). */
export function observeMitataRun(run: unknown, report: Report): unknown {
  if (typeof run !== 'function') return run;
  return async function (this: unknown, ...args: unknown[]) {
    const result = (await (run as Fn).apply(this, args)) as MitataResult | undefined;
    for (const record of mitataRecords(result)) report(record);
    return result;
  };
}

function mitataRecords(result: MitataResult | undefined): Omit<NativeRecord, 'thread'>[] {
  const layout = Array.isArray(result?.layout) ? result.layout : [];
  return (Array.isArray(result?.benchmarks) ? result.benchmarks : []).flatMap((trial) => {
    const group = typeof trial.group === 'number' ? layout[trial.group]?.name : undefined;
    const suites = typeof group === 'string' && group ? [group] : [];
    return (Array.isArray(trial.runs) ? trial.runs : []).map((one) => {
      const base = { harness: 'mitata' as NativeHarness, suites, name: nameOf(one.name, trial.alias) };
      if (one.error !== undefined) return { ...base, error: message(one.error) };
      const avg = one.stats?.avg;
      const samples = Array.isArray(one.stats?.samples) ? (one.stats.samples as unknown[]).filter((x) => typeof x === 'number') : [];
      const rme = relativeMargin(samples);
      return {
        ...base,
        ...(typeof avg === 'number' && avg > 0 ? { opsPerSec: 1e9 / avg } : {}),
        ...(rme !== undefined ? { rme } : {}),
        ...(samples.length ? { samples: samples.length } : {}),
      };
    });
  });
}

/**
 * What answers a bench file's `import` of a harness in a native run (hooks.ts generates the module that calls
 * these, as it does for the capture): the revision's own copy, observed, never replaced.
 */
export class NativeObserver {
  constructor(private readonly report: Report) {}

  benchmarkjs(namespace: Record<string, unknown>): void {
    observeBenchmarkjs(namespace.default, this.report);
  }

  tinybench(namespace: Record<string, unknown>): void {
    const Bench = namespace.Bench ?? (namespace.default as { Bench?: unknown } | undefined)?.Bench;
    observeTinybench(Bench, this.report);
  }

  /** mitata's exports are live bindings: the generated module exports these in their place, `run` observed. */
  mitata(real: Record<string, unknown>): Record<string, unknown> {
    return { ...real, run: observeMitataRun(real.run, this.report) };
  }

  vitest(): never {
    throw new Error('benchgate does not run vitest bench files natively: they run under vitest bench');
  }

  /** cronometro's files are not run natively (check.ts, notRunnable): one that imports it beside another harness gets the real one. */
  cronometro(real: Record<string, unknown>): Record<string, unknown> {
    return real;
  }

  /** A `require()` of a harness (CommonJS does not pass through the module hooks on Node 20): the module it returns. */
  required(request: string, loaded: unknown): unknown {
    if (request === 'benchmark') observeBenchmarkjs(loaded, this.report);
    else if (request === 'tinybench') this.tinybench(loaded as Record<string, unknown>);
    else if (request === 'mitata' && typeof loaded === 'object' && loaded !== null) return this.mitata(loaded as Record<string, unknown>);
    return loaded;
  }
}
