/**
 * cronometro (fast-querystring's and other fastify projects' harness): it times each test in a worker thread of its
 * own, which loads the script node started (process.argv[1]) again and finds the test by its index. Its exports are ES
 * module exports (from 1.x; 0.x's CommonJS function is answered too), so a bench file gets a `cronometro` of ours, as
 * a mitata file gets our `bench`: each call's tests are collected and nothing is timed, no worker started.
 *
 * A test, as cronometro's worker runs it (0.8 to 6.x alike): a function called with a callback, done when what it
 * returns settles if that is a promise, at once if it takes no argument, else when it calls back (`cb(error)`); or
 * `{ test, before, after, skip }`, `before` and `after` run once around the test's calls, done likewise (more leniently:
 * one that takes no argument and returns no promise is done at once, where cronometro would wait for ever). A test with
 * `skip: true` (on the object or the function) is left out, as cronometro 5 and later leave it. The file's default
 * export, where a function, is the tests' setup (1.x on): load.ts runs it once the tests are collected.
 */
import { inspect } from 'node:util';
import type { Fn, FnOptions } from 'tinybench';
import type { CaptureContext, CapturedTask, Harness, Hook, Namespace } from './types.js';

export class CronometroHarness implements Harness {
  readonly name = 'cronometro';
  readonly package = 'cronometro';

  constructor(private readonly capture: CaptureContext) {}

  /** `cronometro` and the default export, ours; its other exports (printResults, Tracker, ...) stay the revision's own. */
  imported(resolved: string): Namespace {
    this.capture.record('cronometro', resolved);
    const cronometro = (tests: unknown, options?: unknown, callback?: unknown): Promise<Record<string, never>> | undefined => {
      this.capture.record('cronometro', resolved);
      for (const task of testsOf(tests)) this.capture.add(task);
      this.capture.stir();
      // What cronometro answers once its tests have run: no results, since none was timed here.
      const done = typeof options === 'function' ? options : callback;
      if (typeof done !== 'function') return Promise.resolve({});
      process.nextTick(() => (done as Hook)(null, {}));
      return undefined;
    };
    return { cronometro, default: cronometro };
  }

  /**
   * A `require()` of it: 0.x is CommonJS, its `module.exports` the function itself with the other exports on it
   * (`require('cronometro')(tests)`); from 1.x an ES module, whose require (Node's require(esm)) answers its namespace.
   */
  required(resolved: string, load: () => unknown): unknown {
    const loaded = load();
    const ours = this.imported(resolved);
    if (typeof loaded === 'function') return Object.assign(ours.cronometro as Hook, loaded, ours);
    return { ...(loaded as object), ...ours };
  }
}

/** The tasks of one call's tests, in their order, those marked `skip` left out. */
function testsOf(tests: unknown): CapturedTask[] {
  if (typeof tests !== 'object' || tests === null)
    throw new Error(`cronometro was given ${tests === null ? 'null' : typeof tests}, not an object of tests by name`);
  return Object.entries(tests as Record<string, unknown>)
    .filter(([, test]) => (test as { skip?: unknown } | undefined)?.skip !== true)
    .map(([name, test]): CapturedTask => {
      if (typeof test === 'function') return { suites: [], name, fn: asTask(test as Hook), opts: {} };
      // A test benchgate cannot run is an error row of its own, the call's other tests measured (cronometro fails that
      // one test, or times a no-op where it has no test function: a benchmark of nothing is a mistake worth naming).
      if (typeof test !== 'object' || test === null)
        return failing(
          name,
          `cronometro test '${name}' is ${test === null ? 'null' : typeof test}, not a function or { test, before, after }`,
        );
      const { test: fn, before, after } = test as Record<string, unknown>;
      if (typeof fn !== 'function') return failing(name, `cronometro test '${name}' has no test function (its test is ${typeof fn})`);
      const opts: FnOptions = {};
      if (typeof before === 'function') opts.beforeAll = () => settled(before as Hook);
      if (typeof after === 'function') opts.afterAll = () => settled(after as Hook);
      return { suites: [], name, fn: asTask(fn as Hook), opts };
    });
}

function failing(name: string, message: string): CapturedTask {
  return {
    suites: [],
    name,
    fn: () => {
      throw new Error(message);
    },
    opts: {},
  };
}

/** A test as a task: as it is when it takes no callback (it returns nothing or a promise), else a promise of its callback. */
function asTask(test: Hook): Fn {
  if (test.length === 0) return test;
  return () => settled(test);
}

/** Done as cronometro's worker waits for a test or hook: what it returns if a promise, at once if it takes no argument, else its callback. */
function settled(hook: Hook): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const returned = hook((error?: unknown) =>
      error ? reject(error instanceof Error ? error : new Error(`it called back with ${inspect(error)}`)) : resolve(),
    );
    if (typeof (returned as { then?: unknown } | undefined)?.then === 'function')
      (returned as Promise<unknown>).then(() => resolve(), reject);
    else if (hook.length === 0) resolve();
  });
}
