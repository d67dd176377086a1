import { pathToFileURL } from 'node:url';
import { Bench, type Fn, type FnOptions } from 'tinybench';

/** A task as a bench file declares it: its name, its function and tinybench's task options (hooks). */
export interface DeclaredTask {
  name: string;
  fn: Fn;
  opts: FnOptions;
}

/** A real tinybench Bench for bench files that take one; it only remembers what was added. */
class CollectingBench extends Bench {
  readonly declared: DeclaredTask[] = [];
  override add(name: string, fn: Fn, opts: FnOptions = {}): this {
    this.declared.push({ name, fn, opts });
    return super.add(name, fn, opts);
  }
}

const SHAPE = "export default { 'task name': () => work() }, or export default (bench) => { bench.add('task name', () => work()) }";

/**
 * Import a bench file and return its tasks. Its default export is either an
 * object of named task functions or a function that receives a tinybench Bench.
 */
export async function loadBenchFile(file: string): Promise<DeclaredTask[]> {
  const module = (await import(pathToFileURL(file).href)) as { default?: unknown };
  let exported = module.default;
  // A transpiled CommonJS module carries its ESM default one level down.
  if (isObject(exported) && exported.__esModule === true && 'default' in exported) exported = exported.default;
  let tasks: DeclaredTask[];
  if (typeof exported === 'function') {
    const bench = new CollectingBench();
    await (exported as (bench: Bench) => unknown)(bench);
    tasks = bench.declared;
  } else if (isObject(exported)) {
    tasks = Object.entries(exported).map(([name, fn]) => {
      if (typeof fn !== 'function') throw new Error(`task '${name}' is ${fn === null ? 'null' : typeof fn}, not a function`);
      return { name, fn: fn as Fn, opts: {} };
    });
  } else {
    throw new Error(`its default export is ${exported === undefined ? 'missing' : typeof exported}; expected ${SHAPE}`);
  }
  if (tasks.length === 0) throw new Error(`it declares no tasks; expected ${SHAPE}`);
  return tasks;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
