/**
 * A vitest bench file's project config, read in the benchmark process before the file loads, as `vitest bench` reads
 * it: the nearest `vitest.config.*` (else `vite.config.*`) from the file's folder up to the revision's root, imported
 * through benchgate's module hooks (TypeScript included), a function called with vitest's env for a bench run. What it
 * applies, and how:
 * - `resolve.alias` and `test.alias`: a resolve hook for that revision's files (aliases.ts);
 * - `test.setupFiles`: imported before each bench file, in the file's module graph, as vitest runs them before each file;
 * - `define`: set on globalThis, as vitest sets it in a server-side run (`'__DEV__': 'true'` makes `globalThis.__DEV__`
 *   true; a dotted key an object path); a value that is not JSON (an expression) is left out, and said.
 * Read once a process per config file (about 0.1 s: it imports vite); a config that fails to load is said in the
 * file's error where the file then fails too, and the file loads without it.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Alias } from './aliases.js';

export interface VitestConfig {
  /** The config file read, absolute. */
  file: string;
  /** Setup files to import before each bench file, absolute. */
  setupFiles: string[];
  /** What was set aside, or why the config was not read, in words. */
  notes: string[];
  /** Where it failed to load: the bench file may still load without it. */
  failed?: string;
}

const NAMES = ['vitest.config', 'vite.config'].flatMap((name) => ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'].map((ext) => name + ext));

const isFile = (file: string) => statSync(file, { throwIfNoEntry: false })?.isFile() === true;

/**
 * The config file vitest would read for `file`: the one the project's bench script names (`vitest bench --config
 * vitest.bench.config.ts`, `-c …`), else the nearest from the file's folder up to `root`.
 */
export function vitestConfigFile(file: string, root: string): string | undefined {
  const named = scriptConfig(root);
  if (named) return named;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const found = NAMES.map((name) => path.join(dir, name)).find(isFile);
    if (found) return found;
    if (path.relative(root, dir) === '' || path.dirname(dir) === dir || path.relative(root, dir).startsWith('..')) return undefined;
  }
}

/** The config a `vitest bench` command of package.json's scripts names, where it exists. */
function scriptConfig(root: string): string | undefined {
  let scripts: unknown;
  try {
    scripts = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: unknown }).scripts;
  } catch {
    return undefined;
  }
  for (const command of Object.values(isObject(scripts) ? scripts : {}))
    for (const part of typeof command === 'string' ? command.split(/&&|\|\||;/) : []) {
      if (!/\bvitest\b/.test(part) || !/\bbench\b/.test(part)) continue;
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

/**
 * The config of `file`'s project, read once a process; `applyAliases` registers a revision's aliases (capture-setup.ts,
 * in the thread or off it as the other hooks run).
 */
export function vitestConfigOf(
  file: string,
  root: string,
  applyAliases: (root: string, aliases: Alias[]) => void,
): Promise<VitestConfig> | undefined {
  const config = vitestConfigFile(file, root);
  if (!config) return undefined;
  let reading = read.get(config);
  if (!reading) {
    reading = readConfig(config, root, applyAliases);
    read.set(config, reading);
  }
  return reading;
}

async function readConfig(file: string, root: string, applyAliases: (root: string, aliases: Alias[]) => void): Promise<VitestConfig> {
  const name = path.relative(root, file).split(path.sep).join('/');
  let exported: unknown;
  // Vite gives an ES module config __dirname and __filename; a CommonJS one has its own.
  const globals = globalThis as Record<string, unknown>;
  const saved = { __dirname: globals.__dirname, __filename: globals.__filename };
  globals.__dirname = path.dirname(file);
  globals.__filename = file;
  try {
    const module = (await import(pathToFileURL(file).href)) as { default?: unknown };
    exported = module.default;
    if (typeof exported === 'function')
      exported = await (exported as (env: object) => unknown)({ command: 'serve', mode: 'benchmark', isSsrBuild: false, isPreview: false });
    exported = await exported;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    return {
      file,
      setupFiles: [],
      notes: [],
      failed: `${name} was not read (${message}): its aliases, setupFiles and define do not apply`,
    };
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete globals[key];
      else globals[key] = value;
    }
  }
  const config = (isObject(exported) ? exported : {}) as ViteConfig;
  // Vite's root: the folder vitest runs in (the project's, for the config its bench script names; the config's own
  // folder for the nearest, as a package's script runs there), moved by the config's `root`.
  const cwd = file === scriptConfig(root) ? root : path.dirname(file);
  const base = path.resolve(cwd, typeof config.root === 'string' ? config.root : '.');
  const notes: string[] = [];
  const aliases = [
    ...aliasesOf(config.resolve?.alias, `${name}: resolve.alias`, notes),
    ...aliasesOf(config.test?.alias, `${name}: test.alias`, notes),
    // The vite-tsconfig-paths plugin: tsconfig.json's paths, as aliases after the config's own.
    ...(pluginNames(config.plugins).includes('vite-tsconfig-paths') ? tsconfigPaths(base, notes) : []),
  ];
  if (aliases.length) applyAliases(root, aliases);
  const setup = config.test?.setupFiles;
  const setupFiles = (typeof setup === 'string' ? [setup] : Array.isArray(setup) ? setup : [])
    .filter((entry): entry is string => typeof entry === 'string')
    .map((entry) => path.resolve(base, entry));
  defineGlobals(config.define, name, notes);
  return { file, setupFiles, notes };
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
 * maps `@/x` to `<baseUrl or the tsconfig's folder>/src/x`, the first target of each, as vite-tsconfig-paths resolves
 * them for the files it transforms. Written here: no library reads tsconfig without TypeScript itself (a JSONC parse).
 */
function tsconfigPaths(dir: string, notes: string[]): Alias[] {
  let options: { paths?: unknown; baseUrl?: unknown; from: string } | undefined;
  const visit = (file: string, depth: number): void => {
    let parsed: { extends?: unknown; compilerOptions?: { paths?: unknown; baseUrl?: unknown } };
    try {
      parsed = JSON.parse(withoutComments(readFileSync(file, 'utf8'))) as typeof parsed;
    } catch (error) {
      notes.push(`${path.basename(file)} was not read for vite-tsconfig-paths (${(error as Error).message})`);
      return;
    }
    const { paths, baseUrl } = parsed.compilerOptions ?? {};
    if (paths !== undefined && !options) options = { paths, baseUrl, from: path.dirname(file) };
    if (!options && typeof parsed.extends === 'string' && parsed.extends.startsWith('.') && depth < 8) {
      const next = path.resolve(path.dirname(file), parsed.extends);
      visit(isFile(next) ? next : `${next}.json`, depth + 1);
    }
  };
  const file = path.join(dir, 'tsconfig.json');
  if (isFile(file)) visit(file, 0);
  if (!options || !isObject(options.paths)) return [];
  const base = path.resolve(options.from, typeof options.baseUrl === 'string' ? options.baseUrl : '.');
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return Object.entries(options.paths).flatMap(([pattern, targets]) => {
    const target = Array.isArray(targets) && typeof targets[0] === 'string' ? (targets[0] as string) : undefined;
    if (!target) return [];
    const [prefix, suffix = ''] = pattern.split('*');
    const wild = pattern.includes('*');
    const find = new RegExp(`^${escape(prefix!)}${wild ? '(.*)' : ''}${escape(suffix)}$`);
    return [{ find, replacement: path.resolve(base, wild ? target.replace('*', '$1') : target) }];
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
      aliases.push({ find, replacement });
      if (customResolver) notes.push(`${where}: the customResolver of '${String(find)}' is not run (the alias is)`);
    } else notes.push(`${where}: an entry without a string or RegExp find and a string replacement is left out`);
  }
  return aliases;
}

const definedBy = new Map<string, { name: string; text: string }>();

function defineGlobals(define: unknown, name: string, notes: string[]): void {
  if (!isObject(define)) return;
  for (const [key, code] of Object.entries(define)) {
    const value = definedValue(code);
    if (!value || key.startsWith('import.meta') || !/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(key)) {
      notes.push(`${name}: define '${key}' is not applied (benchgate sets JSON values on globalThis, as vitest does)`);
      continue;
    }
    // Base's and head's configs in one process set one globalThis: a value another config set differently is said.
    const earlier = definedBy.get(key);
    const text = JSON.stringify(value.value);
    if (earlier && earlier.text !== text)
      notes.push(
        `${name}: define '${key}' is ${text} here and ${earlier.text} in ${earlier.name} read before it in this process (the other ` +
          "revision's, or another package's): one globalThis holds the last; --isolation process measures each revision alone",
      );
    definedBy.set(key, { name, text });
    const segments = key.split('.');
    let target = globalThis as Record<string, unknown>;
    for (const segment of segments.slice(0, -1)) target = isObject(target[segment]) ? target[segment] : (target[segment] = {});
    target[segments.at(-1)!] = value.value;
  }
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
