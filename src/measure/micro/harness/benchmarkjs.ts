/**
 * benchmark.js (CommonJS, one mutable exports object): the revision's own copy is patched in place, so
 * `Suite#run` and `Benchmark#run` collect the tasks and return at once (patched.ts).
 */
import type { Fn, FnOptions } from 'tinybench';
import { PatchedHarness } from './patched.js';
import type { Namespace } from './types.js';

export class BenchmarkjsHarness extends PatchedHarness<BenchmarkStatic> {
  readonly name = 'benchmark.js';
  readonly package = 'benchmark';

  protected classIn(namespace: Namespace): unknown {
    return namespace.default;
  }

  protected asImported(loaded: unknown): Namespace {
    return { default: loaded };
  }

  protected patch(Benchmark: BenchmarkStatic, used: () => void): void {
    const collect = (suite: BenchmarkSuite) => {
      used();
      for (let i = 0; i < suite.length; i++) this.addBenchmark(suite[i]!, typeof suite.name === 'string' && suite.name ? [suite.name] : []);
      // Listeners of 'complete' may start the next suite; what they print is theirs (benchgate prints its own table).
      try {
        suite.emit('complete');
      } catch (error) {
        this.capture.lateError(error);
      }
    };
    const collectOne = (benchmark: BenchmarkInstance) => {
      used();
      this.addBenchmark(benchmark, []);
    };
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
    this.capture.add({ suites, name, fn: task, opts });
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
