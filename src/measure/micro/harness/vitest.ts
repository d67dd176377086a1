/**
 * vitest: its module only works inside its own runner, so it is resolved, never loaded, and a bench file
 * gets `bench`, `describe` and the hooks of our own, with vitest's semantics (suites collected after the
 * file has loaded, hooks per suite), including files written for `globals: true`.
 */
import Module from 'node:module';
import type { Fn, FnOptions } from 'tinybench';
import type { CaptureContext, CapturedTask, Harness, Hook, Namespace } from './types.js';

export class VitestHarness implements Harness {
  readonly name = 'vitest';
  readonly package = 'vitest';
  private readonly suiteStack: VitestSuite[] = [];

  constructor(private readonly capture: CaptureContext) {}

  imported(resolved: string): Namespace {
    this.capture.record('vitest', resolved);
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
        if (parent.parent === undefined && parent.children.length === 1) this.capture.later(() => collect(parent));
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

  /** Resolved, never loaded: a require() gets the same stand-ins as an import. */
  required(resolved: string): Namespace {
    return this.imported(resolved);
  }

  /** A file starts with no suites (the previous file's root suite is still on the stack), and has vitest's globals while it loads. */
  declaring(file: string): () => void {
    this.suiteStack.length = 0;
    return this.vitestGlobals(file);
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
    const vitest = () => (api ??= this.imported(resolveFrom(file, 'vitest') ?? 'vitest (globals; not installed)'));
    for (const name of free) Object.defineProperty(scope, name, { configurable: true, get: () => vitest()[name] });
    return () => {
      for (const name of free) delete scope[name];
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
    // A bench marked only: the capture keeps only such tasks of this file.
    this.capture.add({ suites, name, fn, opts, ...(only ? { only: true } : {}) });
  }
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

function resolveFrom(file: string, specifier: string): string | undefined {
  try {
    return Module.createRequire(file).resolve(specifier);
  } catch {
    return undefined;
  }
}
