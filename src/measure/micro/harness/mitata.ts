/**
 * mitata: its functions are ES module exports, which cannot be patched, so a bench file gets `bench`,
 * `group`, `run` and the layout functions of our own; each bench's tasks are collected once the file
 * has settled (a generator's setup runs then).
 */
import type { Fn, FnOptions } from 'tinybench';
import type { CaptureContext, CapturedTask, Harness, Hook, Namespace } from './types.js';

export class MitataHarness implements Harness {
  readonly name = 'mitata';
  readonly package = 'mitata';
  private groups: string[] = [];

  constructor(private readonly capture: CaptureContext) {}

  declaring(): undefined {
    this.groups = [];
  }

  /** Our `bench`, `group`, `run`...: the revision's other exports (measure, $, ...) stay its own, beside these. */
  imported(resolved: string): Namespace {
    this.capture.record('mitata', resolved);
    const within = <T>(name: string | undefined, body: () => T): T => {
      const saved = this.groups;
      if (name) this.groups = [...saved, name];
      try {
        return body();
      } finally {
        this.groups = saved;
      }
    };
    const passThrough = (...args: unknown[]) => {
      const body = args.find((arg) => typeof arg === 'function') as (() => unknown) | undefined;
      return body?.();
    };
    const bench = (name: unknown, fn?: unknown) => {
      const [label, body] = typeof name === 'function' ? [name.name || 'anonymous', name as Hook] : [String(name), fn as Hook];
      const declared = new MitataBench(label, body, [...this.groups]);
      // Evaluated once a process: each file that declares through it is recorded as a mitata file.
      this.capture.record('mitata', resolved);
      this.capture.stir();
      this.capture.later(() => declared.tasks());
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

  required(resolved: string, load: () => unknown): unknown {
    const loaded = load();
    return { ...(loaded as object), ...this.imported(resolved) };
  }
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

const sink: { value: unknown } = { value: undefined };
