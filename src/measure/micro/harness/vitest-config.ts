/**
 * A vitest bench file's project config, read in the benchmark process before the file loads, as `vitest bench` reads
 * it (vitestConfigFile: the one the bench script names, else the first up from the folder vitest runs in), imported
 * through benchgate's module hooks (TypeScript included), a function called with vitest's env for a bench run. What it
 * applies, and how:
 * - `test.alias` and `resolve.alias` (in that order, as vitest merges them): a resolve hook for each vitest bench file's
 *   module graph (aliases.ts; registered by load.ts); with the vite-tsconfig-paths plugin, tsconfig.json's paths too;
 * - `test.setupFiles`: imported before each bench file, in the file's module graph, as vitest runs them before each file;
 * - `define`: as vitest applies it in a server-side run: a plain name's JSON value on globalThis (`'__DEV__': 'true'`
 *   makes `globalThis.__DEV__` true), `process.env.X` and `import.meta.env.X` in process.env; any other key, or a value
 *   that is code, is left out and said (Vite replaces those in the text of the files it transforms, which benchgate does
 *   not transform).
 * Read once a process per config file (about 0.1 s: it imports vite); a config that fails to load, or does not finish
 * within CONFIG_TIMEOUT_MS, is said in the file's error where the file then fails too, and the file loads without it.
 */
import { readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { isFile, manifestScripts } from '../../../util/manifest.js';
import { existing, type Alias } from './aliases.js';

export interface VitestConfig {
  /** The config file read, absolute. */
  file: string;
  /** The aliases, in the order they are tried, and Vite's root (for a replacement that starts with `/`). */
  aliases: Alias[];
  viteRoot: string;
  /** Setup files to import before each bench file, absolute. */
  setupFiles: string[];
  /** What was set aside, or why the config was not read, in words. */
  notes: string[];
  /** Where it failed to load: the bench file may still load without it. */
  failed?: string;
}

const NAMES = ['vitest.config', 'vite.config'].flatMap((name) => ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'].map((ext) => name + ext));

/**
 * The config file vitest would read for `file`, and the folder vitest runs in (where Vite's root starts): the one the
 * project's bench script names (`vitest bench --config vitest.bench.config.ts`, `-c …`), run from the project's root;
 * else the first up from the folder vitest would run in (the file's nearest package.json's: a package's script runs
 * there) to `root`, as vitest looks up from where it runs (a stray `playground/vite.config.ts` beside a bench file is
 * not its config), run from the config's own folder.
 */
export function vitestConfigFile(file: string, root: string): { file: string; cwd: string } | undefined {
  const named = scriptConfig(root);
  if (named) return { file: named, cwd: root };
  // The folders from `file`'s up to `root`, no further.
  const atRoot = (dir: string) => path.relative(root, dir) === '' || path.relative(root, dir).startsWith('..') || path.dirname(dir) === dir;
  let start = path.dirname(file);
  while (!isFile(path.join(start, 'package.json')) && !atRoot(start)) start = path.dirname(start);
  for (let dir = start; ; dir = path.dirname(dir)) {
    const found = NAMES.map((name) => path.join(dir, name)).find(isFile);
    if (found) return { file: found, cwd: path.dirname(found) };
    if (atRoot(dir)) return undefined;
  }
}

/** The config a `vitest bench` command of package.json's scripts names, where it exists. */
function scriptConfig(root: string): string | undefined {
  for (const command of Object.values(manifestScripts(root)))
    for (const part of command.split(/&&|\|\||;/)) {
      if (!/\bvitest\s+bench\b/.test(part)) continue;
      const named = /(?:--config[=\s]+|\s-c\s+)(['"]?)([^\s'"]+)\1/.exec(part)?.[2];
      if (named && isFile(path.resolve(root, named))) return path.resolve(root, named);
    }
  return undefined;
}

/** A vitest bench file by its text: it imports vitest, or calls `bench(` with no other harness imported (`globals: true`). */
export function looksLikeVitest(source: string): boolean {
  if (/(?:from\s*|require\s*\(\s*|import\s*\(\s*)['"]vitest['"]/.test(source)) return true;
  return /\bbench\s*\(/.test(source) && !/['"](?:benchmark|tinybench|mitata)['"]/.test(source);
}

const read = new Map<string, Promise<VitestConfig>>();

/** The config of `file`'s project (vitestConfigFile), read once a process. */
export function vitestConfigOf(file: string, root: string): Promise<VitestConfig> | undefined {
  const config = vitestConfigFile(file, root);
  if (!config) return undefined;
  let reading = read.get(config.file);
  if (!reading) {
    reading = readConfig(config.file, config.cwd, root);
    read.set(config.file, reading);
  }
  return reading;
}

/** How long a config may take to load (its plugins' imports): beyond it, the file loads without it. */
const CONFIG_TIMEOUT_MS = 30_000;

/** The config `file`, vitest run in `cwd` (Vite's root, unless the config moves it). */
async function readConfig(file: string, cwd: string, root: string): Promise<VitestConfig> {
  const name = path.relative(root, file).split(path.sep).join('/');
  let exported: unknown;
  // Vite gives an ES module config __dirname and __filename; a CommonJS one has its own.
  const globals = globalThis as Record<string, unknown>;
  const saved = { __dirname: globals.__dirname, __filename: globals.__filename };
  globals.__dirname = path.dirname(file);
  globals.__filename = file;
  let timer: NodeJS.Timeout | undefined;
  try {
    const loading = (async () => {
      const module = (await import(pathToFileURL(file).href)) as { default?: unknown };
      const value = module.default;
      return typeof value === 'function'
        ? await (value as (env: object) => unknown)({ command: 'serve', mode: 'benchmark', isSsrBuild: false, isPreview: false })
        : await value;
    })();
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`it did not finish loading in ${CONFIG_TIMEOUT_MS / 1000} s`)), CONFIG_TIMEOUT_MS);
    });
    exported = await Promise.race([loading, late]);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    return {
      file,
      aliases: [],
      viteRoot: cwd,
      setupFiles: [],
      notes: [],
      failed: `${name} was not read (${message}): its aliases, setupFiles and define do not apply`,
    };
  } finally {
    clearTimeout(timer);
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete globals[key];
      else globals[key] = value;
    }
  }
  const config = (isObject(exported) ? exported : {}) as ViteConfig;
  const viteRoot = realpathOf(path.resolve(cwd, typeof config.root === 'string' ? config.root : '.'));
  const notes: string[] = [];
  // vitest hands test.alias to Vite ahead of resolve.alias (Vite's mergeAlias: the later config's entries first).
  const aliases = [
    ...aliasesOf(config.test?.alias, `${name}: test.alias`, notes),
    ...aliasesOf(config.resolve?.alias, `${name}: resolve.alias`, notes),
    // The vite-tsconfig-paths plugin: tsconfig.json's paths, tried after the config's own, only where a target exists.
    ...(pluginNames(config.plugins).includes('vite-tsconfig-paths') ? tsconfigPaths(viteRoot, notes) : []),
  ];
  const setup = config.test?.setupFiles;
  const setupFiles = (typeof setup === 'string' ? [setup] : Array.isArray(setup) ? setup : [])
    .filter((entry): entry is string => typeof entry === 'string')
    .map((entry) => setupFile(entry, viteRoot));
  defineGlobals(config.define, file, name, root, notes);
  return { file, aliases, viteRoot, setupFiles, notes };
}

/**
 * A setup file as vitest finds it: a package's (`@testing-library/jest-dom/vitest`) resolved from Vite's root, else a
 * path from it, with Vite's extensions or a folder's index where it names none (`./test/setup` for `setup.ts`).
 */
function setupFile(entry: string, viteRoot: string): string {
  if (!/^(\.|\/)/.test(entry))
    try {
      return createRequire(path.join(viteRoot, 'noop.js')).resolve(entry);
    } catch {
      // a path, not a package
    }
  const file = path.resolve(viteRoot, entry);
  return existing(file) ?? file;
}

function realpathOf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

interface ViteConfig {
  root?: unknown;
  plugins?: unknown;
  resolve?: { alias?: unknown };
  define?: unknown;
  test?: { alias?: unknown; setupFiles?: unknown };
}

/** The names of a config's plugins (an array, nested arrays flattened, as Vite takes them). */
function pluginNames(plugins: unknown): string[] {
  return (Array.isArray(plugins) ? (plugins as unknown[]).flat(8) : []).flatMap((plugin) =>
    isObject(plugin) && typeof plugin.name === 'string' ? [plugin.name] : [],
  );
}

/**
 * tsconfig.json's `compilerOptions.paths` (through its `extends` chain of relative files) as aliases: `"@/*": ["src/*"]`
 * maps `@/x` to `<baseUrl or the tsconfig's folder>/src/x`, each target tried in order and the name left as written
 * where none exists, as vite-tsconfig-paths resolves them for the files it transforms. Written here: no library reads
 * tsconfig without TypeScript itself (a JSONC parse).
 */
function tsconfigPaths(dir: string, notes: string[]): Alias[] {
  let options: { paths?: unknown; baseUrl?: unknown; from: string } | undefined;
  // The nearest baseUrl of the chain, wherever paths are (a child's baseUrl with its parent's paths).
  let baseUrl: { value: string; from: string } | undefined;
  const visit = (file: string, depth: number): void => {
    let parsed: { extends?: unknown; compilerOptions?: { paths?: unknown; baseUrl?: unknown } };
    try {
      parsed = JSON.parse(withoutComments(readFileSync(file, 'utf8'))) as typeof parsed;
    } catch (error) {
      notes.push(`${path.basename(file)} was not read for vite-tsconfig-paths (${(error as Error).message})`);
      return;
    }
    const { paths, baseUrl: url } = parsed.compilerOptions ?? {};
    if (typeof url === 'string' && !baseUrl) baseUrl = { value: url, from: path.dirname(file) };
    if (paths !== undefined && !options) options = { paths, from: path.dirname(file) };
    if ((!options || !baseUrl) && typeof parsed.extends === 'string' && parsed.extends.startsWith('.') && depth < 8) {
      const next = path.resolve(path.dirname(file), parsed.extends);
      visit(isFile(next) ? next : `${next}.json`, depth + 1);
    }
  };
  const file = path.join(dir, 'tsconfig.json');
  if (isFile(file)) visit(file, 0);
  if (!options || !isObject(options.paths)) return [];
  const base = baseUrl ? path.resolve(baseUrl.from, baseUrl.value) : options.from;
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return Object.entries(options.paths).flatMap(([pattern, targets]) => {
    const all = (Array.isArray(targets) ? (targets as unknown[]) : []).filter((target): target is string => typeof target === 'string');
    if (!all.length) return [];
    const [prefix, suffix = ''] = pattern.split('*');
    const wild = pattern.includes('*');
    const find = new RegExp(`^${escape(prefix!)}${wild ? '(.*)' : ''}${escape(suffix)}$`);
    const replacement = all.map((target) => path.resolve(base, wild ? target.replace('*', '$1') : target));
    return [{ find, replacement, ifFound: true }];
  });
}

/** JSON with comments and trailing commas (tsconfig's) as JSON: comments and those commas outside strings dropped. */
function withoutComments(text: string): string {
  return text
    .replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_, string: string | undefined) => string ?? '')
    .replace(/("(?:[^"\\]|\\.)*")|,(\s*[}\]])/g, (_, string: string | undefined, close: string | undefined) => string ?? close!);
}

/** Vite's two forms, an object of find → replacement or an array of { find, replacement }; a customResolver is not run. */
function aliasesOf(value: unknown, where: string, notes: string[]): Alias[] {
  const entries = Array.isArray(value)
    ? (value as unknown[])
    : isObject(value)
      ? Object.entries(value).map(([find, replacement]) => ({ find, replacement }))
      : [];
  const aliases: Alias[] = [];
  for (const entry of entries) {
    const { find, replacement, customResolver } = isObject(entry) ? entry : {};
    if ((typeof find === 'string' || find instanceof RegExp) && typeof replacement === 'string') {
      // As Vite's normalizeSingleAlias: `'@/': '/abs/src/'` is `'@': '/abs/src'`.
      const slashed = typeof find === 'string' && find.endsWith('/') && replacement.endsWith('/') && find.length > 1;
      aliases.push(slashed ? { find: find.slice(0, -1), replacement: replacement.slice(0, -1) } : { find, replacement });
      if (customResolver) notes.push(`${where}: the customResolver of '${String(find)}' is not run (the alias is)`);
    } else notes.push(`${where}: an entry without a string or RegExp find and a string replacement is left out`);
  }
  return aliases;
}

/** Each define key a config read in this process set, with its value and the config (and revision root) that set it. */
const definedBy = new Map<string, { file: string; name: string; root: string; text: string }>();
/** The keys a config applied, by config: what another revision's config leaves set for its code too. */
const appliedBy = new Map<string, { name: string; root: string; keys: Set<string> }>();

/**
 * `define` as vitest applies it outside Vite's transform: a plain name's value on globalThis, `process.env.X` and
 * `import.meta.env.X` in process.env (as a string); vitest's own keys (`process`, `global`, `process.env`,
 * `import.meta.vitest`) and any other dotted key left out (Vite replaces those in the text it transforms), said.
 * Base's and head's configs in one process share one globalThis and one process.env: a key set differently, or set by
 * one revision's config and not the other's, is said.
 */
function defineGlobals(define: unknown, file: string, name: string, root: string, notes: string[]): void {
  const keys = new Set<string>();
  for (const [key, code] of Object.entries(isObject(define) ? define : {})) {
    if (['process', 'global', 'process.env', 'import.meta.vitest'].includes(key)) continue;
    const value = definedValue(code);
    const env = /^(?:process|import\.meta)\.env\.([A-Za-z_$][\w$]*)$/.exec(key)?.[1];
    if (!value || (!env && !/^[A-Za-z_$][\w$]*$/.test(key))) {
      notes.push(
        `${name}: define '${key}' is not applied (benchgate sets a plain name's JSON value on globalThis and process.env.X, as vitest does)`,
      );
      continue;
    }
    keys.add(key);
    const earlier = definedBy.get(key);
    const text = JSON.stringify(value.value);
    if (earlier && earlier.file !== file && earlier.text !== text)
      notes.push(
        `${name}: define '${key}' is ${text} here and ${earlier.text} in ${earlier.name} read before it in this process (the other ` +
          "revision's, or another package's): one globalThis holds the last; --isolation process measures each revision alone",
      );
    definedBy.set(key, { file, name, root, text });
    if (env) process.env[env] = typeof value.value === 'string' ? value.value : JSON.stringify(value.value);
    else (globalThis as Record<string, unknown>)[key] = value.value;
  }
  // Keys another revision's config set that this one does not: its code sees them too.
  for (const applied of appliedBy.values())
    if (applied.root !== root)
      for (const key of applied.keys)
        if (!keys.has(key))
          notes.push(
            `${name}: does not define '${key}', which the other revision's ${applied.name} sets in this process: its code sees that value; ` +
              '--isolation process measures each revision alone',
          );
  appliedBy.set(file, { name, root, keys });
}

/** A define's value: its code where that is JSON (`'true'`, `'"x"'`, `'3'`), or a value that is not a string. */
function definedValue(code: unknown): { value: unknown } | undefined {
  if (typeof code !== 'string') return code === undefined || typeof code === 'function' ? undefined : { value: code };
  try {
    return { value: JSON.parse(code) };
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
