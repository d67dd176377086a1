import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Bench, type Fn, type FnOptions } from 'tinybench';
import { harnessCapture, type HarnessCopy } from './harness/capture.js';
import { describeThrown } from './alternate.js';
import { ID_SEPARATOR } from './protocol.js';
import { registerAliases } from './capture-setup.js';
import { GRAPH_PARAMETER } from './harness/packages.js';
import { looksLikeVitest, vitestConfigOf } from './harness/vitest-config.js';

/** A task as a bench file declares it: its name (with its suites: `suite > task`), its function and tinybench's task options (hooks). */
export interface DeclaredTask {
  name: string;
  fn: Fn;
  opts: FnOptions;
  /** Its module graph within the file: 0 the file's own, k its k-th worker's (harness/capture.ts). */
  unit?: number;
}

/** A bench file's tasks and how they were declared. */
export interface LoadedFile {
  /** 'benchmark.js', 'tinybench', 'mitata', 'vitest', 'cronometro' or 'default export' (benchgate's own shape). */
  harness: string;
  /** The harness copies the file resolved (each revision its own). */
  harnesses: HarnessCopy[];
  tasks: DeclaredTask[];
  /** What the file did that benchgate set aside, e.g. an error after its tasks were collected. */
  notes: string[];
  /** Worker files it started, relative to the project root with forward slashes. */
  workers: string[];
}

/** A real tinybench Bench for bench files that take one; it only remembers what was added. */
class CollectingBench extends Bench {
  readonly declared: DeclaredTask[] = [];
  override add(name: string, fn: Fn, opts: FnOptions = {}): this {
    this.declared.push({ name, fn, opts });
    return super.add(name, fn, opts);
  }
}

/** What to write instead of benchmarks in other threads or processes: one task per scenario, in this process. */
const AS_TASKS =
  'Declare each scenario as a task instead, e.g.\n  const bench = new Bench()\n' +
  '  for (const scenario of scenarios) bench.add(scenario.name, () => run(scenario))\n' +
  '  await bench.run()';

const ACCEPTED_SHAPES = [
  "a benchmark.js suite: new Benchmark.Suite().add('name', fn).run()",
  "a tinybench script: const bench = new Bench(); bench.add('name', fn); await bench.run()",
  "a mitata file: bench('name', fn); await run()",
  "a vitest bench file: describe('suite', () => { bench('name', fn) })",
  'a cronometro file: await cronometro({ name() { ... } })',
  "benchgate's own: export default { 'name': fn } or export default (bench) => { bench.add('name', fn) }",
];

/**
 * A file's note for what was thrown after its tasks were collected. An uncaught error is caught where the process is
 * (loading this file) and not where it was made: a timer of a file loaded before throws while this one loads. Where the
 * thrown error's first frame in the project is in another file, the note names that file, not this one.
 */
export function lateNote(error: unknown, file: string, root: string): string {
  const [message, frame] = describeThrown(error, root).split('\n');
  const own = path.relative(root, file).split(path.sep).join('/');
  const from = /\(?((?:[^\s():]+\/)*[^\s():]+\.[cm]?[jt]sx?):\d+:\d+\)?$/.exec(frame?.trim() ?? '')?.[1];
  if (from && from !== own && !from.includes('node_modules'))
    return `while it loaded, ${from} threw (set aside; a timer or callback of that file, not this one's code): ${message}`;
  return `after its tasks were collected it threw (set aside): ${message}`;
}

/**
 * Import a bench file and return its tasks: those its harness declares
 * (benchmark.js, tinybench, mitata, vitest, cronometro; see harness/capture.ts), or else
 * those of its default export (an object of named task functions, or a
 * function that receives a tinybench Bench).
 */
export async function loadBenchFile(file: string, root: string): Promise<LoadedFile> {
  // Not loaded at all: a harness benchgate does not run times its tasks its own way, which may outlive the load.
  const source = sourceOf(file);
  const unsupported = UNSUPPORTED_HARNESSES.find(({ pattern }) => pattern.test(source))?.name;
  if (unsupported) throw new Error(`it uses ${unsupported}, a harness benchgate does not run. ${AS_TASKS}`);
  // A vitest bench file's config (harness/vitest-config.ts), read before the file loads.
  const config = looksLikeVitest(source) ? await vitestConfigOf(file, root) : undefined;
  let module: { default?: unknown } = {};
  let thrown: { error: unknown } | undefined;
  const setupErrors: string[] = [];
  const declaration = await harnessCapture().declare(file, async () => {
    try {
      const url = harnessCapture().inNewGraph(file);
      // The config's aliases for this file's module graph alone; its setup files run before it, in that graph, as vitest runs them.
      const graph = new URL(url).searchParams.get(GRAPH_PARAMETER)!;
      if (config?.aliases.length) registerAliases({ graph, viteRoot: config.viteRoot, aliases: config.aliases });
      for (const setup of config?.setupFiles ?? [])
        try {
          await import(`${pathToFileURL(setup).href}?${GRAPH_PARAMETER}=${graph}`);
        } catch (error) {
          // Setup files are mostly for tests (matchers, DOM, mocks): one that throws is set aside, and said.
          setupErrors.push(
            `its setup file ${path.relative(root, setup).split(path.sep).join('/')} threw (set aside): ${describeThrown(error, root).split('\n')[0]!}`,
          );
        }
      module = (await import(url)) as { default?: unknown };
    } catch (error) {
      thrown = { error };
    }
  });
  // A config that did not load, or a setup file that threw, is said where the file fails (an alias may be why), and noted where it loads.
  const setAside = [...(config?.failed ? [config.failed] : []), ...setupErrors];
  const harness = declaration.harnesses[0]?.harness;
  const workers = declaration.workers.map((worker) => path.relative(root, worker).split(path.sep).join('/'));
  if (declaration.tasks.length > 0) {
    if (harness === 'cronometro' && !thrown) await cronometroSetup(module.default, root);
    const notes = [
      ...setAside,
      ...(config?.notes ?? []),
      ...[...declaration.lateErrors, ...(thrown ? [thrown.error] : [])].map((error) => lateNote(error, file, root)),
    ];
    return {
      harness: harness ?? 'tinybench',
      harnesses: declaration.harnesses,
      tasks: declaration.tasks.map((task) => ({
        name: [...task.suites, task.name].join(ID_SEPARATOR),
        fn: task.fn,
        opts: task.opts,
        unit: task.unit ?? 0,
      })),
      notes,
      workers,
    };
  }
  if (declaration.children.length)
    throw new Error(
      `it measures in child processes (${declaration.children.map((child) => path.relative(root, child)).join(', ')}), ` +
        `which benchgate does not time. ${AS_TASKS}`,
    );
  if (thrown) throw setAside.length ? withConfigFailure(thrown.error, setAside.join('; ')) : thrown.error;
  const fromDefault = await defaultExportTasks(module.default);
  if (fromDefault?.length) return { harness: 'default export', harnesses: declaration.harnesses, tasks: fromDefault, notes: [], workers };
  const failed = declaration.workerErrors[0];
  if (failed)
    throw new Error(
      `its worker ${path.relative(root, failed.file).split(path.sep).join('/')} failed to load: ${describeThrown(failed.error, root)}`,
    );
  if (declaration.workers.length)
    throw new Error(`it measures in worker threads (${workers.join(', ')}) and no task was declared there. ${AS_TASKS}`);
  const exported = module.default;
  const what = harness
    ? `it imports ${harness} but declares no task`
    : exported !== undefined && typeof exported !== 'object' && typeof exported !== 'function'
      ? `its default export is ${typeof exported}, which declares no task`
      : 'it declares no task';
  throw new Error(`${what}. benchgate accepts:\n${ACCEPTED_SHAPES.map((shape) => `  - ${shape}`).join('\n')}`);
}

/**
 * cronometro's worker (1.x on) imports the file and then awaits its default export, where that is a function, before
 * the tests: their setup (data they read, a server they call). Run once here, in the file's own module graph; where it
 * throws, every test of the file would fail under cronometro, and the file is an error here.
 */
async function cronometroSetup(exported: unknown, root: string): Promise<void> {
  if (typeof exported !== 'function') return;
  try {
    await (exported as () => unknown)();
  } catch (error) {
    throw new Error(
      `its default export, the setup cronometro runs before its tests, threw: ${describeThrown(error, root).split('\n')[0]!}`,
      { cause: error },
    );
  }
}

function withConfigFailure(error: unknown, failed: string): unknown {
  if (!(error instanceof Error)) return error;
  const wrapped = Object.assign(new Error(`${error.message} (${failed})`, { cause: error }), { code: (error as { code?: unknown }).code });
  wrapped.name = error.name;
  wrapped.stack = `${error.name}: ${wrapped.message}\n${(error.stack ?? '').split('\n').slice(1).join('\n')}`;
  return wrapped;
}

/**
 * Harnesses that time their tasks their own way (bench-node: its own Suite and timer), which a file that declares no
 * task may be using: named, so the error says why nothing was found. A text match on the file's imports.
 */
const UNSUPPORTED_HARNESSES = ['bench-node'].map((name) => ({
  name,
  // `from 'x'`, `require('x')` or `import('x')`: the name in a comment or a string of its own is no import.
  pattern: new RegExp(`(?:from\\s*|require\\s*\\(\\s*|import\\s*\\(\\s*)['"]${name}['"]`),
}));

/** A bench file's text, read before it loads (empty where it cannot be read: the import then says why). */
function sourceOf(file: string): string {
  try {
    return readFileSync(file.startsWith('file:') ? new URL(file) : file, 'utf8');
  } catch {
    return '';
  }
}

async function defaultExportTasks(exported: unknown): Promise<DeclaredTask[] | undefined> {
  // A transpiled CommonJS module carries its ESM default one level down.
  if (isObject(exported) && exported.__esModule === true && 'default' in exported) exported = exported.default;
  if (typeof exported === 'function') {
    const bench = new CollectingBench();
    await (exported as (bench: Bench) => unknown)(bench);
    return bench.declared;
  }
  if (!isObject(exported)) return undefined;
  return Object.entries(exported).map(([name, fn]) => {
    if (typeof fn !== 'function') throw new Error(`task '${name}' is ${fn === null ? 'null' : typeof fn}, not a function`);
    return { name, fn: fn as Fn, opts: {} };
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
