// The module hooks run two ways (harness/hooks.ts): off the thread (module.register, every call of the chain awaited)
// and in it (inThreadHooks for module.registerHooks, every call answered at once). One logic, so the same answers:
// each case below asks both, with a fake chain below them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { inThreadHooks, load, resolve } from '../../src/measure/micro/harness/hooks.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-hooks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The real transform, as the runner's bundle requires it in the thread (built by npm run build, as the suite's runner).
const TRANSFORM = new URL('../../dist/typescript.js', import.meta.url).href;
const hooks = inThreadHooks({ transform: TRANSFORM });
const IMPORT = ['node', 'import'];
const REQUIRE = ['node', 'require'];

/** A chain that knows these specifiers (anything else is not found, as Node says it), and records what it was asked. */
function chain(known: Record<string, string>) {
  const asked: string[] = [];
  const answer = (specifier: string) => {
    asked.push(specifier);
    const url = known[specifier];
    if (url) return { url };
    throw Object.assign(new Error(`Cannot find module '${specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' });
  };
  return {
    asked,
    sync: (specifier: string) => answer(specifier),
    async: async (specifier: string) => answer(specifier),
  };
}

/** Both ways' answers to one resolve, or both errors. */
async function bothResolve(specifier: string, context: { parentURL?: string; conditions: string[] }, known: Record<string, string>) {
  const off = chain(known);
  const inThread = chain(known);
  const settle = async (run: () => unknown, inThread: boolean) => {
    try {
      const answer = run();
      // In the thread the answer is the value itself: registerHooks takes no promise.
      if (inThread) expect(answer).not.toBeInstanceOf(Promise);
      return { url: ((await answer) as { url: string }).url };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  return {
    off: await settle(() => resolve(specifier, context, off.async), false),
    inThread: await settle(() => hooks.resolve(specifier, context, inThread.sync), true),
    asked: { off: off.asked, inThread: inThread.asked },
  };
}

describe('module hooks in the thread and off it', () => {
  it('answer a bench file’s harness import with the capture’s module, the revision’s copy named in it', async () => {
    const real = 'file:///p/node_modules/tinybench/dist/index.js';
    const both = await bothResolve('tinybench', { parentURL: 'file:///p/bench/a.bench.mjs', conditions: IMPORT }, { tinybench: real });
    expect(both.off).toEqual({ url: `benchgate-harness:tinybench?${encodeURIComponent(real)}` });
    expect(both.inThread).toEqual(both.off);
  });

  it('resolve a TypeScript file’s ./x.js to ./x.ts after Node’s own resolution fails, and fail as Node does when none exists', async () => {
    const parent = { parentURL: 'file:///p/bench/a.bench.ts', conditions: IMPORT };
    const found = await bothResolve('./x.js', parent, { './x.ts': 'file:///p/bench/x.ts' });
    expect(found.off).toEqual({ url: 'file:///p/bench/x.ts' });
    expect(found.inThread).toEqual(found.off);
    expect(found.asked.inThread).toEqual(['./x.js', './x.ts']);
    expect(found.asked.inThread).toEqual(found.asked.off);
    const missing = await bothResolve('./y.js', parent, {});
    expect(missing.off).toEqual({ error: "Cannot find module './y.js'" });
    expect(missing.inThread).toEqual(missing.off);
  });

  it('keep a module imported from a bench file’s graph in that graph', async () => {
    const both = await bothResolve(
      '../src/lib.js',
      { parentURL: 'file:///p/bench/a.bench.mjs?benchgate-graph=2', conditions: IMPORT },
      { '../src/lib.js': 'file:///p/src/lib.js' },
    );
    expect(both.off).toEqual({ url: 'file:///p/src/lib.js?benchgate-graph=2' });
    expect(both.inThread).toEqual(both.off);
  });

  it('load a bare JSON import as vitest does, both ways alike', async () => {
    const file = path.join(dir, 'data.json');
    writeFileSync(file, JSON.stringify({ name: 'x', list: [1, 2] }));
    const url = pathToFileURL(file).href;
    const never = () => {
      throw new Error('the chain was asked');
    };
    const off = await load(url, { conditions: IMPORT }, never);
    const inThread = hooks.load(url, { conditions: IMPORT }, never);
    expect(off.format).toBe('module');
    expect(off.source as string).toContain('export const name = value["name"];');
    expect(inThread).toEqual(off);
  });

  it('in the thread, pass a require() of a JavaScript file straight on, as the hooks off the thread never saw one', async () => {
    const real = 'file:///p/node_modules/benchmark/benchmark.js';
    const asked = chain({ benchmark: real });
    expect(hooks.resolve('benchmark', { parentURL: 'file:///p/bench/a.js', conditions: REQUIRE }, asked.sync)).toEqual({ url: real });
    // Node 22.15-22.18 and 24.0-24.4 hand a require's conditions as a Set (nodejs/node#59003): read alike.
    const inSet = { parentURL: 'file:///p/bench/a.js', conditions: new Set(REQUIRE) as unknown as string[] };
    expect(hooks.resolve('benchmark', inSet, asked.sync)).toEqual({ url: real });
    const file = path.join(dir, 'data.json');
    writeFileSync(file, '{"a":1}');
    const loaded = { format: 'json', source: '{"a":1}' };
    expect(hooks.load(pathToFileURL(file).href, { conditions: REQUIRE }, () => loaded)).toBe(loaded);
  });

  it('in the thread, take a require() from or of a TypeScript file through the hooks, as off the thread', async () => {
    // From a .cts file (its source was a load hook's, so off the thread its requires came to the hooks): ./x.js is ./x.ts.
    const asked = chain({ './x.ts': 'file:///p/bench/x.ts' });
    const fromTs = { parentURL: 'file:///p/bench/a.bench.cts', conditions: REQUIRE };
    expect(hooks.resolve('./x.js', fromTs, asked.sync)).toEqual({ url: 'file:///p/bench/x.ts' });
    // A harness it requires is the revision's own file: Module._load's wrapper captures it (a require cannot load the
    // capture's module: a .cts benchmark.js file, counted on Node 24, read "ENOENT … benchgate-harness:benchmark").
    const real = 'file:///p/node_modules/benchmark/benchmark.js';
    expect(hooks.resolve('benchmark', fromTs, chain({ benchmark: real }).sync)).toEqual({ url: real });
    // Of a TypeScript file: the transform's, enums and all (Node's own stripping refuses an enum), as CommonJS here.
    const file = path.join(dir, 'lib.cts');
    writeFileSync(file, 'enum Mode { A = 1 }\nconst mode: Mode = Mode.A;\nmodule.exports = { mode };\n');
    const never = () => {
      throw new Error('the chain was asked');
    };
    const loaded = hooks.load(pathToFileURL(file).href, { conditions: REQUIRE }, never);
    expect(loaded.format).toBe('commonjs');
    expect(loaded.source as string).not.toContain(': Mode');
    expect(loaded.source as string).toContain('Mode["A"]');
    expect(fileURLToPath(TRANSFORM)).toMatch(/dist[/\\]typescript\.js$/);
  });

  it("answer the module loader's require of a harness from a TypeScript file, by the file it resolved to, both ways alike", async () => {
    // The loader's require resolves the name first and asks the hooks for the file (import conditions, a file: URL).
    const project = mkdtempSync(path.join(dir, 'p-'));
    const entry = path.join(project, 'node_modules/benchmark/benchmark.js');
    mkdirSync(path.dirname(entry), { recursive: true });
    writeFileSync(path.join(project, 'node_modules/benchmark/package.json'), '{"name":"benchmark","main":"benchmark.js"}');
    writeFileSync(entry, 'module.exports = {}\n');
    writeFileSync(path.join(project, 'node_modules/benchmark/other.js'), 'module.exports = {}\n');
    const parent = `${pathToFileURL(path.join(project, 'a.bench.cts')).href}?benchgate-graph=3`;
    const both = await bothResolve(pathToFileURL(entry).href, { parentURL: parent, conditions: IMPORT }, {});
    const redirect = `benchgate-harness:require:benchmark?${encodeURIComponent(parent)}`;
    expect(both).toMatchObject({ off: { url: redirect }, inThread: { url: redirect }, asked: { off: [], inThread: [] } });
    // Another file of the package, or the entry from a JavaScript parent, is Node's own.
    const other = pathToFileURL(path.join(project, 'node_modules/benchmark/other.js')).href;
    const known = { [other]: other, [pathToFileURL(entry).href]: pathToFileURL(entry).href };
    expect((await bothResolve(other, { parentURL: parent, conditions: IMPORT }, known)).inThread).toEqual({ url: other });
    const fromJs = parent.replace('.cts', '.cjs');
    expect((await bothResolve(pathToFileURL(entry).href, { parentURL: fromJs, conditions: IMPORT }, known)).off).toEqual({
      url: pathToFileURL(entry).href,
    });
    // Its load: CommonJS that requires the name through Module._load from the bench file, however it was asked.
    const never = () => {
      throw new Error('the chain was asked');
    };
    const off = await load(redirect, { conditions: IMPORT }, never);
    const source = `module.exports = module.constructor.createRequire(${JSON.stringify(path.join(project, 'a.bench.cts'))})("benchmark");\n`;
    expect(off).toEqual({ format: 'commonjs', source, shortCircuit: true });
    expect(hooks.load(redirect, { conditions: IMPORT }, never)).toEqual(off);
    expect(hooks.load(redirect, { conditions: REQUIRE }, never)).toEqual(off);
  });
});

describe("a vitest project's aliases (harness/aliases.ts), in the thread and off it", () => {
  it("rewrite what vitest rewrites, from the bench file's own module graph only, and find the file as Vite does", async () => {
    const aliases = await import('../../src/measure/micro/harness/aliases.js');
    const root = path.join(dir, 'aliased');
    mkdirSync(path.join(root, 'src/lib'), { recursive: true });
    mkdirSync(path.join(root, 'types'), { recursive: true });
    writeFileSync(path.join(root, 'src/lib/math.ts'), 'export {}\n');
    writeFileSync(path.join(root, 'src/lib/index.js'), 'export {}\n');
    writeFileSync(path.join(root, 'types/only-here.ts'), 'export {}\n');
    const data = {
      graph: '3',
      viteRoot: root,
      aliases: [
        { find: '@lib', replacement: path.join(root, 'src/lib') },
        { find: /^~(.*)$/y, replacement: '/src/lib$1' },
        { find: 'lodash', replacement: 'lodash-es' },
        // tsconfig's "*": ["src/lib/*", "types/*"]: tried in order, only where a target exists, never for a path.
        { find: /^(.*)$/, replacement: [path.join(root, 'src/lib/$1'), path.join(root, 'types/$1')], ifFound: true },
      ],
    };
    aliases.initialize(data);
    const inThread = aliases.inThreadAliases(data);
    const bench = pathToFileURL(path.join(root, 'bench/a.bench.ts')).href + '?benchgate-graph=3';
    const ask = (specifier: string, parentURL: string | undefined) => {
      const off = aliases.resolve(specifier, { parentURL }, (s: string) => s);
      expect(inThread.resolve(specifier, { parentURL, conditions: IMPORT }, (s: string) => s)).toBe(off);
      return off;
    };
    // A folder's path with an extension Vite tries, and its index.
    expect(ask('@lib/math', bench)).toBe(pathToFileURL(path.join(root, 'src/lib/math.ts')).href);
    expect(ask('@lib', bench)).toBe(pathToFileURL(path.join(root, 'src/lib/index.js')).href);
    // A sticky RegExp (its lastIndex reset before the replace), to a path from Vite's root.
    expect(ask('~/math', bench)).toBe(pathToFileURL(path.join(root, 'src/lib/math.ts')).href);
    expect(ask('~/math', bench)).toBe(pathToFileURL(path.join(root, 'src/lib/math.ts')).href);
    // A package name for another: passed on as written. A name that only starts like an alias is not one.
    expect(ask('lodash/fp', bench)).toBe('lodash-es/fp');
    expect(ask('@library', bench)).toBe('@library');
    // tsconfig's paths: the second target where the first has no file; as written where none has; never a relative path.
    expect(ask('only-here', bench)).toBe(pathToFileURL(path.join(root, 'types/only-here.ts')).href);
    expect(ask('tinybench', bench)).toBe('tinybench');
    expect(ask('./math', bench)).toBe('./math');
    // Not from another graph (another bench file, another config's), a dependency's file, or no parent.
    expect(ask('@lib/math', pathToFileURL(path.join(root, 'bench/b.bench.ts')).href + '?benchgate-graph=4')).toBe('@lib/math');
    expect(ask('@lib/math', pathToFileURL(path.join(root, 'bench/c.bench.mjs')).href)).toBe('@lib/math');
    expect(ask('@lib/math', pathToFileURL(path.join(root, 'node_modules/x/index.js')).href + '?benchgate-graph=3')).toBe('@lib/math');
    expect(ask('@lib/math', undefined)).toBe('@lib/math');
    // A path that does not exist goes on as written, for Node to say it is not found.
    expect(ask('@lib/nothing', bench)).toBe(path.join(root, 'src/lib/nothing'));
    // In the thread a JavaScript file's require() passes as off the thread (where no hook sees it); a TypeScript file's is aliased.
    const js = pathToFileURL(path.join(root, 'bench/a.bench.cjs')).href + '?benchgate-graph=3';
    expect(inThread.resolve('@lib/math', { parentURL: js, conditions: REQUIRE }, (s: string) => s)).toBe('@lib/math');
    expect(inThread.resolve('@lib/math', { parentURL: bench, conditions: REQUIRE }, (s: string) => s)).toBe(
      pathToFileURL(path.join(root, 'src/lib/math.ts')).href,
    );
  });
});
