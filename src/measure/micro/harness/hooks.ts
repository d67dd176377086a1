/**
 * Node module customization hooks (bundled as dist/hooks.js, registered by the
 * benchmark process with module.register before it imports any bench file; in a
 * counted process, with module.registerHooks in its own thread where Node can).
 *
 * Why hooks: an ES module's exports are live, read-only bindings, so the only way
 * to hand a bench file our own `bench`/`describe`/`run` in place of mitata's or
 * vitest's is to answer its `import` with another module. The resolve hook does
 * that for the harnesses benchgate captures: it still resolves the
 * specifier the normal way from the importing file (so each revision uses its
 * own installed copy, and a missing install fails as it would without us) and
 * answers with a small generated module that hands that copy to the capture in
 * the benchmark process (see capture.ts). A CommonJS file's `require()` does not
 * go through these hooks off the thread (graphs.ts covers it by wrapping
 * Module._load), except in a file whose source a load hook gave: a TypeScript
 * file of ours (requiredHarness).
 *
 * The same hooks load TypeScript (see typescript.ts for the choice of transform).
 *
 * Two ways to run them, one logic: off the main thread (`module.register`: every call of the chain is awaited), or
 * in the thread (`module.registerHooks`, Node 22.15 and later: every call answered at once; `inThreadHooks`). Each hook
 * is written once as a generator of its steps (a call down the chain, loading the transform) and run by `settle` or
 * `settleNow`. Off the thread, the order in which the hooks thread answers moves where V8 puts the objects of the
 * files' loading, and with them its lookup caches' hits and a counted task's instructions; in the thread that source
 * is gone (others remain: docs/counts.md).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import vm from 'node:vm';
import { GRAPH_PARAMETER, HARNESS_PACKAGES } from './packages.js';
import { isTypeScript } from './typescript-files.js';

const SCHEME = 'benchgate-harness:';
/** A TypeScript CommonJS file's `require()` of a harness (requiredHarness): answered by a generated CommonJS module. */
const REQUIRE_SCHEME = `${SCHEME}require:`;

interface ResolveContext {
  parentURL?: string;
  conditions: string[];
  importAttributes?: Record<string, string>;
}
interface ResolveResult {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}
type NextResolve = (specifier: string, context?: ResolveContext) => ResolveResult | Promise<ResolveResult>;
interface LoadContext {
  format?: string | null;
  conditions: string[];
  importAttributes?: Record<string, string>;
}
interface LoadResult {
  format: string;
  source?: string | ArrayBuffer | Uint8Array | null;
  shortCircuit?: boolean;
}
type NextLoad = (url: string, context?: LoadContext) => LoadResult | Promise<LoadResult>;

/** A step a hook waits on: a call down the chain, or loading the transform. Written by hand: no library runs one logic both ways. */
type Step = () => unknown;
type Steps<T> = Generator<Step, T, unknown>;

/** Runs a hook's steps as module.register's hooks run: each step awaited. */
async function settle<T>(steps: Steps<T>): Promise<T> {
  let sent: { value: unknown } | { error: unknown } = { value: undefined };
  for (;;) {
    const step: IteratorResult<Step, T> = 'error' in sent ? steps.throw(sent.error) : steps.next(sent.value);
    if (step.done) return step.value;
    try {
      sent = { value: await step.value() };
    } catch (error) {
      sent = { error };
    }
  }
}

/** Runs a hook's steps as module.registerHooks's hooks run: each step answered at once, in the thread. */
function settleNow<T>(steps: Steps<T>): T {
  let sent: { value: unknown } | { error: unknown } = { value: undefined };
  for (;;) {
    const step: IteratorResult<Step, T> = 'error' in sent ? steps.throw(sent.error) : steps.next(sent.value);
    if (step.done) return step.value;
    try {
      sent = { value: step.value() };
    } catch (error) {
      sent = { error };
    }
  }
}

let transformUrl = '';
/** The global (a Symbol.for key) that answers a harness import: the capture, or the native check's observer (measure/native). */
let answerKey = 'benchgate.capture';

/**
 * `data.transform`: the URL of dist/typescript.js, imported only when a TypeScript file is loaded;
 * `data.answer`: the Symbol.for key of the object that answers harness imports (default: the capture's).
 */
export function initialize(data: { transform: string; answer?: string }): void {
  transformUrl = data.transform;
  if (data.answer) answerKey = data.answer;
}

export function resolve(specifier: string, context: ResolveContext, next: NextResolve): Promise<ResolveResult> {
  return settle(resolveSteps(specifier, context, next));
}

export function load(url: string, context: LoadContext, next: NextLoad): Promise<LoadResult> {
  return settle(loadSteps(url, context, next, () => import(transformUrl) as Promise<Transform>));
}

/**
 * The same hooks for `module.registerHooks`, which runs them in the calling thread (`initialize`'s data). There they
 * see every `require()`; off the thread they see only those of a CommonJS file whose source a load hook gave (Node's
 * docs), that is a TypeScript file of ours. So in the thread a require passes straight on (graphs.ts and capture.ts
 * answer a harness's by wrapping Module._load, whoever requires it; a `.json` keeps Node's own rule), except one from a
 * TypeScript file and one of a TypeScript file, which take the hooks as off the thread (`./x.js` for `./x.ts`, the
 * transform's enums).
 */
export function inThreadHooks(data: { transform: string; answer?: string }): {
  resolve: (specifier: string, context: ResolveContext, next: NextResolve) => ResolveResult;
  load: (url: string, context: LoadContext, next: NextLoad) => LoadResult;
} {
  initialize(data);
  const requireTransform = () => createRequire(import.meta.url)(fileURLToPath(transformUrl)) as Transform;
  return {
    resolve: (specifier, context, next) =>
      required(context) && (!isTypeScriptUrl(context.parentURL) || HARNESS_PACKAGES.includes(specifier))
        ? (next(specifier, context) as ResolveResult)
        : settleNow(resolveSteps(specifier, context, next)),
    load: (url, context, next) =>
      required(context) && !isTypeScriptUrl(url) && !url.startsWith(SCHEME)
        ? (next(url, context) as LoadResult)
        : settleNow(loadSteps(url, context, next, requireTransform)),
  };
}

/** Whether `url` is a file: URL of a TypeScript file (its query, a module graph's, aside). */
function isTypeScriptUrl(url: string | undefined): boolean {
  return url?.startsWith('file:') === true && isTypeScript(url);
}

/**
 * Whether the hook was called for a `require()`. Its conditions are an array, or on Node 22.15-22.18 and 24.0-24.4 a
 * Set in a resolve called for a require (nodejs/node#59003): read either way.
 */
function required(context: { conditions?: Iterable<string> }): boolean {
  return Array.from(context.conditions ?? []).includes('require');
}

function* resolveSteps(specifier: string, context: ResolveContext, next: NextResolve): Steps<ResolveResult> {
  const resolved = yield* resolveOnce(specifier, context, next);
  return inParentGraph(resolved, context.parentURL);
}

/**
 * A module imported from a bench file's module graph (graphs.ts, inNewGraph) belongs to that graph:
 * its URL carries the same graph number, so each graph gets its own instance of every file it imports.
 */
function inParentGraph(resolved: ResolveResult, parent: string | undefined): ResolveResult {
  if (!parent?.startsWith('file:') || !resolved.url.startsWith('file:')) return resolved;
  const graph = new URL(parent).searchParams.get(GRAPH_PARAMETER);
  if (graph === null) return resolved;
  const url = new URL(resolved.url);
  // A harness stays one copy per revision, the one the capture patched (a helper in node_modules may import it too).
  if (url.searchParams.has(GRAPH_PARAMETER) || HARNESS_IN_PATH.test(url.pathname)) return resolved;
  // Appended as text: a query the URL already has is kept as it is written.
  const hashAt = resolved.url.indexOf('#');
  const [head, hash] = hashAt < 0 ? [resolved.url, ''] : [resolved.url.slice(0, hashAt), resolved.url.slice(hashAt)];
  return { ...resolved, url: `${head}${head.includes('?') ? '&' : '?'}${GRAPH_PARAMETER}=${graph}${hash}` };
}

const HARNESS_IN_PATH = new RegExp(`/node_modules/(${HARNESS_PACKAGES.join('|')})/`);

function* resolveOnce(specifier: string, context: ResolveContext, next: NextResolve): Steps<ResolveResult> {
  const parent = context.parentURL;
  if (HARNESS_PACKAGES.includes(specifier) && parent && !parent.startsWith(SCHEME) && !parent.includes('/node_modules/')) {
    const real = (yield () => next(specifier, context)) as ResolveResult;
    return { url: `${SCHEME}${specifier}?${encodeURIComponent(real.url)}`, shortCircuit: true };
  }
  if (parent && isTypeScriptUrl(parent)) {
    const harness = requiredHarness(specifier, parent);
    if (harness) return { url: `${REQUIRE_SCHEME}${harness}?${encodeURIComponent(parent)}`, shortCircuit: true };
    if (isPathLike(specifier)) return yield* resolveFromTypeScript(specifier, context, next);
  }
  return (yield () => next(specifier, context)) as ResolveResult;
}

/**
 * A TypeScript CommonJS file's `require()` of a harness. Its source is a load hook's, so Node gives it the module
 * loader's `require`, which resolves the package itself and asks the hooks for that file's URL (Node 20 and 24): a
 * bare name never reaches resolveOnce, and the real harness would load past the capture (a `.cts` benchmark.js file
 * declared no task). Found by the file being what `require(name)` from that file resolves to; answered by a CommonJS
 * module that requires the name through Module._load from the file, where graphs.ts's wrap (or the native check's
 * observer) answers it as any CommonJS file's require. The parent's URL, its module graph included, names the module.
 * Any specifier that resolves to the harness's entry file is answered so (`benchmark/benchmark.js` too). A known limit:
 * Node's `require.resolve` in such a file asks these hooks the same way, and returns this URL for a harness, not a path.
 */
function requiredHarness(specifier: string, parent: string): string | undefined {
  if (!specifier.startsWith('file:') || parent.includes('/node_modules/')) return undefined;
  const name = HARNESS_IN_PATH.exec(new URL(specifier).pathname)?.[1];
  if (!name) return undefined;
  try {
    return pathToFileURL(createRequire(fileURLToPath(parent)).resolve(name)).href === specifier ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A TypeScript file imports its siblings the way tsc resolves them: `./x.js` for
 * `./x.ts` (NodeNext), or without an extension (bundler resolution). Node's own
 * resolution is tried first, so a real `./x.js` always wins.
 */
function* resolveFromTypeScript(specifier: string, context: ResolveContext, next: NextResolve): Steps<ResolveResult> {
  try {
    return (yield () => next(specifier, context)) as ResolveResult;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'ERR_UNSUPPORTED_DIR_IMPORT') throw error;
    for (const candidate of typeScriptCandidates(specifier)) {
      try {
        return (yield () => next(candidate, context)) as ResolveResult;
      } catch {
        // try the next spelling
      }
    }
    throw error;
  }
}

function typeScriptCandidates(specifier: string): string[] {
  const swapped: Record<string, string[]> = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'], '.jsx': ['.tsx'] };
  const extension = path.posix.extname(specifier);
  if (swapped[extension]) return swapped[extension].map((ext) => specifier.slice(0, -extension.length) + ext);
  return ['.ts', '.tsx', '.mts', '.js', '.mjs', '/index.ts', '/index.js'].map((ext) => specifier.replace(/\/$/, '') + ext);
}

function isPathLike(specifier: string): boolean {
  return specifier.startsWith('./') || specifier.startsWith('../') || specifier.startsWith('/') || specifier.startsWith('file:');
}

/** How the TypeScript transform's bundle is loaded: imported off the thread, required in it (inThreadHooks). */
type TransformLoader = () => Transform | Promise<Transform>;

function* loadSteps(url: string, context: LoadContext, next: NextLoad, loadTransform: TransformLoader): Steps<LoadResult> {
  if (url.startsWith(REQUIRE_SCHEME)) return { format: 'commonjs', source: requireModule(url), shortCircuit: true };
  if (url.startsWith(SCHEME)) return { format: 'module', source: yield* captureModule(url, next), shortCircuit: true };
  if (isTypeScriptUrl(url)) return yield* loadTypeScript(url, loadTransform);
  if (isBareJsonImport(url, context)) return loadJson(url);
  return (yield () => next(url, context)) as LoadResult;
}

/**
 * A project's own `.json` file imported without `with { type: 'json' }`: Node refuses it, vitest (through Vite)
 * loads it, and bench files written for vitest do it (jshttp/cookie's `import topCookies from '../scripts/x.json'`).
 * Answered as Vite answers it: the parsed value as the default export, and each top-level key that is an identifier
 * as a named export. A package's own files (under node_modules) keep Node's rule.
 */
function isBareJsonImport(url: string, context: LoadContext): boolean {
  if (!url.startsWith('file:') || context.importAttributes?.type !== undefined) return false;
  const { pathname } = new URL(url);
  return pathname.endsWith('.json') && !pathname.includes('/node_modules/');
}

function loadJson(url: string): LoadResult {
  const file = fileURLToPath(url);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: not valid JSON (${(error as Error).message})`, { cause: error });
  }
  const names =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.keys(value).filter((key) => /^[A-Za-z_$][\w$]*$/.test(key) && !RESERVED.has(key))
      : [];
  const source = [
    `const value = JSON.parse(${JSON.stringify(JSON.stringify(value))});`,
    'export default value;',
    ...names.map((key) => `export const ${key} = value[${JSON.stringify(key)}];`),
  ].join('\n');
  return { format: 'module', source, shortCircuit: true };
}

/** Words a named export cannot be declared as (`export const default = ...` would not parse). */
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if ' +
    'import in instanceof new null return super switch this throw true try typeof var void while with yield let static ' +
    'implements interface package private protected public await arguments eval'
  ).split(' '),
);

/**
 * The module a bench file gets for `import ... from '<harness>'`: it hands the
 * revision's real copy to the capture (globalThis[Symbol.for('benchgate.capture')],
 * set up by the benchmark process; in a native run the observer, measure/native/observer.ts)
 * and exports what the capture answers.
 */
function* captureModule(url: string, next: NextLoad): Steps<string> {
  const { name, value: real } = schemeUrl(url, SCHEME);
  const target = JSON.stringify(real);
  const capture = `const capture = globalThis[Symbol.for(${JSON.stringify(answerKey)})];`;
  if (name === 'vitest') {
    // vitest's own module cannot run outside its runner (it throws on describe/bench): it is resolved, never imported.
    const names = [
      'bench',
      'describe',
      'suite',
      'it',
      'test',
      'beforeAll',
      'afterAll',
      'beforeEach',
      'afterEach',
      'vi',
      'vitest',
      'expect',
      'assert',
    ];
    return `${capture}\nconst api = capture.vitest(${target});\nexport const { ${names.join(', ')} } = api;\nexport default api;\n`;
  }
  if (name === 'cronometro') {
    const answered = `const answered = capture.cronometro(real, ${target});`;
    const exported = `export const cronometro = answered.cronometro;\nexport default answered.default;\nexport * from ${target};`;
    return `import * as real from ${target};\n${capture}\n${answered}\n${exported}\n`;
  }
  const hasDefault = yield* exportsDefault(real, next);
  const reexport = `export * from ${target};${hasDefault ? `\nexport { default } from ${target};` : ''}`;
  if (name === 'mitata') {
    const names = ['bench', 'group', 'summary', 'barplot', 'boxplot', 'lineplot', 'compact', 'baseline', 'run', 'do_not_optimize'];
    return `import * as real from ${target};\n${capture}\nexport const { ${names.join(', ')} } = capture.mitata(real, ${target});\n${reexport}\n`;
  }
  return `import * as real from ${target};\n${capture}\ncapture.${name === 'benchmark' ? 'benchmarkjs' : 'tinybench'}(real, ${target});\n${reexport}\n`;
}

/**
 * The CommonJS module a TypeScript file's `require()` of a harness gets (requiredHarness): Module._load's answer from
 * that file. Through `module.constructor` (Module) and createRequire of the file: the `require` Node gives this module
 * is the module loader's, which would resolve the name from this module's own URL and ask these hooks again.
 */
function requireModule(url: string): string {
  const { name, value } = schemeUrl(url, REQUIRE_SCHEME);
  const file = fileURLToPath(value);
  return `module.exports = module.constructor.createRequire(${JSON.stringify(file)})(${JSON.stringify(name)});\n`;
}

/** `<scheme><name>?<encoded value>`, the URLs resolveOnce answers a harness with: the name and the value decoded. */
function schemeUrl(url: string, scheme: string): { name: string; value: string } {
  const query = url.indexOf('?');
  return { name: url.slice(scheme.length, query), value: decodeURIComponent(url.slice(query + 1)) };
}

/** Whether `url`'s module has a default export: always for CommonJS, by its source for an ES module. */
function* exportsDefault(url: string, next: NextLoad): Steps<boolean> {
  if (!url.startsWith('file:')) return false;
  const loaded = (yield () => next(url, { conditions: [], format: undefined })) as LoadResult;
  if (loaded.format === 'commonjs') return true;
  const source = loaded.source ? Buffer.from(loaded.source as Uint8Array).toString('utf8') : '';
  return /\bexport\s+default\b|\bas\s+default\b/.test(source);
}

interface Transform {
  transformTypeScript(source: string, file: string): { code: string; mapped: boolean };
}
let transform: Transform | undefined;

function* loadTypeScript(url: string, loadTransform: TransformLoader): Steps<LoadResult> {
  const file = fileURLToPath(url);
  if (file.endsWith('.tsx')) throw new Error(`${file}: JSX in TypeScript bench files is not supported`);
  transform ??= (yield loadTransform) as Transform;
  const { code } = transform.transformTypeScript(readFileSync(file, 'utf8'), file);
  return { format: typeScriptFormat(file, code), source: code, shortCircuit: true };
}

/**
 * .mts is a module and .cts CommonJS; a .ts file follows its package.json "type",
 * and without one it is a module if it only parses as one, as Node decides for .js
 * files (vitest bench files use import syntax in packages of either type).
 */
function typeScriptFormat(file: string, code: string): 'module' | 'commonjs' {
  if (file.endsWith('.mts')) return 'module';
  if (file.endsWith('.cts')) return 'commonjs';
  const type = packageType(path.dirname(file));
  if (type === 'module') return 'module';
  if (type === 'commonjs') return 'commonjs';
  try {
    new vm.Script(`(function () {${code}\n})`, { filename: file });
    return 'commonjs';
  } catch {
    return 'module';
  }
}

function packageType(dir: string): string | undefined {
  for (let current = dir; ; current = path.dirname(current)) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(current, 'package.json'), 'utf8')) as { type?: unknown };
      return typeof manifest.type === 'string' ? manifest.type : 'none';
    } catch {
      if (path.dirname(current) === current) return undefined;
    }
  }
}
