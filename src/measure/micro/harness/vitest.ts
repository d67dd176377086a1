/**
 * vitest: its module only works inside its own runner, so it is resolved, never loaded, and a bench file
 * gets `bench`, `describe` and the hooks of our own, with vitest's semantics (suites collected after the
 * file has loaded, hooks per suite), including files written for `globals: true`.
 */
import { readFileSync } from 'node:fs';
import Module from 'node:module';
import { format } from 'node:util';
import type { Fn, FnOptions } from 'tinybench';
import type { CaptureContext, CapturedTask, Harness, Hook, Namespace } from './types.js';
import { looksLikeVitest } from './vitest-config.js';

function vitestText(file: string): boolean {
  try {
    return looksLikeVitest(readFileSync(file, 'utf8'));
  } catch {
    return false;
  }
}

export class VitestHarness implements Harness {
  readonly name = 'vitest';
  readonly package = 'vitest';
  private readonly suiteStack: VitestSuite[] = [];

  constructor(private readonly capture: CaptureContext) {}

  imported(resolved: string): Namespace {
    // The module answering `import ... from 'vitest'` is evaluated once a process, at the first file that imports it:
    // each later file that declares through it is recorded as a vitest file too (else listed as plain tinybench).
    const used = () => this.capture.record('vitest', resolved);
    used();
    const root = (): VitestSuite => {
      used();
      if (!this.suiteStack.length) this.suiteStack.push(newSuite('', undefined, false));
      return this.suiteStack[this.suiteStack.length - 1]!;
    };
    const register = (name: unknown, fn: unknown, options: VitestBenchOptions | undefined, only: boolean) => {
      if (typeof fn !== 'function') return;
      const suite = root();
      this.addVitest(suite, vitestName(name), fn as Fn, options ?? {}, only || suite.only);
    };
    const benchOnly = (name: unknown, fn?: unknown, options?: VitestBenchOptions) => register(name, fn, options, true);
    const benchSkipped = skippedWith(benchOnly);
    const bench: VitestApi = Object.assign(
      (name: unknown, fn?: unknown, options?: VitestBenchOptions) => register(name, fn, options, false),
      {
        only: benchOnly,
        skip: benchSkipped,
        todo: benchSkipped,
        skipIf: (condition: unknown) => (condition ? benchSkipped : bench),
        runIf: (condition: unknown) => (condition ? bench : benchSkipped),
      },
    );
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
        const label = vitestName(name);
        const parent = root();
        const suite = newSuite(label, parent, only || parent.only);
        suite.factory = body;
        parent.children.push(suite);
        if (parent.parent === undefined && parent.children.length === 1) this.capture.later(() => collect(parent));
      };
    const plain = describeWith(false);
    const only = describeWith(true);
    // only wins over skip and todo in vitest, in either order: describe.only.skip(...) runs, alone.
    const describeOnly: object = Object.assign(only, { each: eachOf(only, true), for: eachOf(only, false) });
    Object.assign(describeOnly, { skip: describeOnly, todo: describeOnly });
    const describeSkipped = skippedWith(describeOnly);
    const describe: VitestApi = Object.assign(plain, {
      only: describeOnly,
      skip: describeSkipped,
      todo: describeSkipped,
      skipIf: (condition: unknown) => (condition ? describeSkipped : describe),
      runIf: (condition: unknown) => (condition ? describe : describeSkipped),
      each: eachOf(plain, true),
      for: eachOf(plain, false),
    });
    // Flags of how vitest schedules a suite's tests: benches run one at a time whatever they say (in any order of the
    // chain: describe.concurrent.only, describe.only.concurrent).
    Object.assign(describe, { concurrent: describe, sequential: describe, shuffle: describe });
    Object.assign(describeOnly, { concurrent: describeOnly, sequential: describeOnly, shuffle: describeOnly });
    const hook = (kind: keyof VitestHooks) => (fn: Hook) => void root()[kind].push(fn);
    // Tests in a bench file are not run by vitest bench: every form of test/it (test.each(cases)(...), test.skipIf(x)(...),
    // test.concurrent.only(...)) declares nothing.
    const test = IGNORED;
    // `expect.extend(...)`, a setup file's usual line (matchers for tests, which a bench run never calls), passes.
    const unavailable = (what: string, allowed: Record<string, unknown> = {}) =>
      new Proxy(() => undefined, {
        get: (_, key) => {
          if (typeof key === 'string' && Object.hasOwn(allowed, key)) return allowed[key];
          throw new Error(`benchgate runs vitest bench files without vitest: '${what}' is not available in them`);
        },
        apply: () => {
          throw new Error(`benchgate runs vitest bench files without vitest: '${what}' is not available in them`);
        },
      });
    return {
      bench: supported(bench, 'bench'),
      describe: supported(describe, 'describe'),
      suite: supported(describe, 'suite'),
      it: test,
      test,
      beforeAll: hook('beforeAll'),
      afterAll: hook('afterAll'),
      beforeEach: hook('beforeEach'),
      afterEach: hook('afterEach'),
      vi: unavailable('vi'),
      vitest: unavailable('vitest'),
      expect: unavailable('expect', { extend: () => undefined }),
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
    // Test-only globals (a setup file's `expect.extend`) where the file is vitest's by its text: in another harness's file a
    // dependency's `typeof expect` must not find vitest.
    const names = ['bench', 'describe', 'suite', 'beforeAll', 'afterAll', 'beforeEach', 'afterEach'];
    if (vitestText(file)) names.push('it', 'test', 'vi', 'expect', 'assert');
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

type VitestApi = object;

/**
 * `bench.skip`, `describe.todo`, ...: declares nothing, in each of its forms (`describe.skip.each(cases)(...)`) and with
 * any of vitest's modifiers after it (`describe.skip.concurrent(...)`, `describe.todo.skip`), except `only`, which wins
 * over skip and todo in vitest (`describe.skip.only(...)` runs, alone): `only` is the API's own only.
 */
function skippedWith(only: object): object {
  const skipped: object = Object.assign(() => undefined, { each: () => () => undefined, for: () => () => undefined });
  return Object.assign(skipped, {
    skip: skipped,
    todo: skipped,
    concurrent: skipped,
    sequential: skipped,
    shuffle: skipped,
    skipIf: () => skipped,
    runIf: () => skipped,
    only,
  });
}

/** A call or chain that declares nothing, whatever its form (a `test` in a bench file); never a thenable. */
const IGNORED: object = new Proxy(() => IGNORED, {
  get: (_target, property) => (property === 'then' || typeof property === 'symbol' ? undefined : IGNORED),
});

/**
 * A bench's or suite's name as vitest formats it: a function (reselect's `bench(selector, ...)`, named with
 * Object.defineProperty) by its `name`, never its source text; anything else as a string.
 */
function vitestName(name: unknown): string {
  if (typeof name === 'string') return name;
  return typeof name === 'function' ? name.name || '<anonymous>' : String(name);
}

/**
 * vitest's `describe.each(cases)(name, fn)` (spread: an array case is spread into fn's arguments when every case is
 * an array) and `describe.for(cases)(name, fn)` (each case as it is): one suite a case, named as vitest names it.
 * A template-literal table (describe.each`...`) is not supported: a clear error says so.
 */
function eachOf(describe: (name: unknown, fn?: unknown) => void, spread: boolean) {
  return (cases: unknown, ...rest: unknown[]) => {
    const form = spread ? 'describe.each' : 'describe.for';
    if (!Array.isArray(cases) || (rest.length > 0 && Array.isArray((cases as unknown as { raw?: unknown }).raw)))
      throw new Error(
        `benchgate runs vitest bench files without vitest: ${form} takes an array of cases here (a template-literal table is not supported)`,
      );
    const arrays = cases.every(Array.isArray);
    return (name: unknown, fn?: unknown): void => {
      if (typeof fn !== 'function') return;
      cases.forEach((item: unknown, index) => {
        const items = Array.isArray(item) ? (item as unknown[]) : [item];
        const args = spread && arrays ? items : [item];
        describe(eachTitle(vitestName(name), items, index), () => (fn as (...a: unknown[]) => unknown)(...args));
      });
    };
  };
}

/**
 * A case's suite name as vitest formats it: `%#` (index) and `%$` (index + 1), printf placeholders (%s, %d, %i, %f,
 * %j, %o, %%) filled from the case's items, and `$name` (or `$a.b`) from an object case's fields.
 */
export function eachTitle(template: string, items: readonly unknown[], index: number): string {
  // A private-use character holds an escaped '%%' while '%#' and '%$' are filled.
  const escaped = '\uE000';
  let title = template
    .replaceAll('%%', escaped)
    .replaceAll('%#', String(index))
    .replaceAll('%$', String(index + 1))
    .replaceAll(escaped, '%%');
  const placeholders = (title.match(/%[sdifjoOc]/g) ?? []).length;
  title = placeholders > 0 ? format(title, ...items.slice(0, placeholders)) : title.replace(/%%/g, '%');
  const first = items[0];
  if (first === null || typeof first !== 'object' || Array.isArray(first)) return title;
  return title.replace(/\$([\w$.]+)/g, (whole, key: string) => {
    let value: unknown = first;
    for (const part of key.split('.')) {
      if (value === null || typeof value !== 'object' || !(part in value)) return whole;
      value = (value as Record<string, unknown>)[part];
    }
    return typeof value === 'string' ? value : format('%o', value);
  });
}

/**
 * vitest's API with a clear error for a member we do not provide (`bench.each`, `describe.skip.concurrent`...), where
 * the file would otherwise stop on a raw "is not a function" TypeError.
 */
function supported<T extends object>(api: T, name: string): T {
  return new Proxy(api, {
    get(target, property, receiver) {
      if (typeof property === 'symbol') return Reflect.get(target, property, receiver) as unknown;
      if (!(property in target))
        throw new Error(`benchgate runs vitest bench files without vitest: '${name}.${property}' is not supported in them`);
      const value = Reflect.get(target, property, receiver) as unknown;
      // A member of the chain (describe.skip, bench.only) answers the same way for what follows it.
      return typeof value === 'function' && Object.hasOwn(target, property) ? supported(value, `${name}.${property}`) : value;
    },
  });
}
