/**
 * tinybench (classes): the revision's own Bench is patched in place, so `add` remembers each task and
 * `run`/`runSync`/`runConcurrently` collect the Bench's tasks and return at once (patched.ts).
 */
import type { Fn, FnOptions } from 'tinybench';
import { PatchedHarness } from './patched.js';
import type { Hook, Namespace } from './types.js';

export class TinybenchHarness extends PatchedHarness<{ prototype: TinyBench }> {
  readonly name = 'tinybench';
  readonly package = 'tinybench';

  protected classIn(namespace: Namespace): unknown {
    return namespace.Bench ?? (namespace.default as { Bench?: unknown } | undefined)?.Bench ?? namespace.default;
  }

  protected asImported(loaded: unknown): Namespace {
    return loaded as Namespace;
  }

  protected patch(Bench: { prototype: TinyBench }, used: () => void): void {
    const proto = Bench.prototype;
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
      used();
      const present = new Set((bench.tasks ?? []).map((task) => task.name));
      const latest = new Map((declared.get(bench) ?? []).filter((task) => present.has(task.name)).map((task) => [task.name, task]));
      for (const { name, fn, opts } of latest.values())
        this.capture.add({
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
