/**
 * A module graph per bench file and per worker (inNewGraph), and `require()` through Module._load: run
 * against the require cache of its parent's graph, and answered by the capture for a harness.
 */
import Module from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { GRAPH_PARAMETER, HARNESS_PACKAGES } from './packages.js';

/** Node's require cache: modules by file name (Module._cache). */
type ModuleCache = Record<string, unknown>;

/** How a bench file's `require()` of a harness package is answered: `load` requires the revision's copy. */
export type RequireAnswer = (request: string, resolved: string, load: () => unknown) => unknown;

export class ModuleGraphs {
  /** CommonJS modules loaded before any bench file (benchgate's own): kept when a new module graph starts. */
  private preloaded: Set<string> | undefined;
  private graphs = 0;
  private readonly graphCaches = new Map<number, ModuleCache>();
  private readonly cacheOfModule = new WeakMap<object, ModuleCache | undefined>();

  /**
   * The URL to import `file` with so that it and everything it imports get instances of their own: a
   * module graph per bench file and per worker, as each would have in its own process or thread. Code
   * shared by the tasks of two files, or by two workers' scenarios (one router class behind eighteen
   * lookup scenarios), would otherwise be one function in this process, its inline caches and
   * optimised code shaped by whichever scenarios ran before: a task's figure would depend on its
   * neighbours, and change when they are decided and leave (docs/statistics.md). ES modules: the URL
   * carries a graph number that the resolve hook (hooks.ts) passes on to every file the module
   * imports. CommonJS: a require cache per graph, since Node keys a CommonJS module by its path alone.
   */
  inNewGraph(file: string): string {
    const internal = Module as unknown as { _cache: ModuleCache };
    this.preloaded ??= new Set(Object.keys(internal._cache));
    // Each graph has a require cache of its own, active while it loads (and for its requires later, see
    // inGraphOf). benchgate's own modules and native addons stay shared: an addon's library is loaded
    // once per process whatever the cache says.
    const cache: ModuleCache = Object.create(null) as ModuleCache;
    for (const [key, module] of Object.entries(internal._cache)) if (this.preloaded.has(key) || key.endsWith('.node')) cache[key] = module;
    internal._cache = cache;
    this.graphCaches.set(++this.graphs, cache);
    return `${pathToFileURL(file).href}?${GRAPH_PARAMETER}=${this.graphs}`;
  }

  /**
   * `require()` of a harness, which Node 20 does not pass through the module hooks: answered by `answer` when
   * a file outside node_modules requires it. Every require() runs in its parent's graph (inGraphOf).
   */
  wrapRequire(answer: RequireAnswer): void {
    const internal = Module as unknown as {
      _load: (request: string, parent: { filename?: string } | undefined, isMain: boolean) => unknown;
      _resolveFilename: (request: string, parent: unknown) => string;
    };
    const load = internal._load;
    const inGraphOf = this.inGraphOf.bind(this);
    internal._load = function (request, parent, isMain) {
      const harness =
        HARNESS_PACKAGES.includes(request) && parent?.filename && !parent.filename.includes(`${path.sep}node_modules${path.sep}`);
      return inGraphOf(parent, () => {
        if (!harness) return load.call(this, request, parent, isMain);
        return answer(request, internal._resolveFilename(request, parent), () => load.call(this, request, parent, isMain));
      });
    };
  }

  /**
   * A require() runs against the require cache of its parent's module graph: a module that requires lazily
   * (inside a function, at measurement time, after other graphs have loaded) gets its own graph's instances.
   */
  private inGraphOf<T>(parent: object | undefined, load: () => T): T {
    const cache = parent ? this.graphCacheOf(parent) : undefined;
    const internal = Module as unknown as { _cache: ModuleCache };
    if (!cache || cache === internal._cache) return load();
    const active = internal._cache;
    internal._cache = cache;
    try {
      return load();
    } finally {
      internal._cache = active;
    }
  }

  private graphCacheOf(module: object): ModuleCache | undefined {
    if (this.cacheOfModule.has(module)) return this.cacheOfModule.get(module);
    const filename = (module as { filename?: unknown }).filename;
    if (typeof filename !== 'string') return undefined;
    const cache = [...this.graphCaches.values()].find((candidate) => candidate[filename] === module);
    if (cache) this.cacheOfModule.set(module, cache);
    return cache;
  }
}
