/**
 * A vitest project's aliases (`resolve.alias`, `test.alias` of its vitest.config or vite.config, read by
 * vitest-config.ts), as a module resolve hook of their own (bundled as dist/aliases.js). Registered once for each
 * vitest bench file, after hooks.ts (so it runs first and hands the rewritten specifier down the chain), with that
 * file's module graph (graphs.ts): an alias applies to imports from the file's own graph, outside node_modules, as
 * vitest applies them to the files Vite transforms and not to the dependencies it leaves to Node. So another harness's
 * file, or a file another config governs, never sees them, whatever was loaded before it; and each registration is a
 * module instance of its own (a query on its URL), since Node would hand a second register of one URL the same one.
 *
 * Matched and replaced as Vite's alias plugin (@rollup/plugin-alias) does, first entry first: a string matches the
 * specifier itself or a path below it (`@lib` matches `@lib` and `@lib/x`, not `@libx`), a RegExp where it tests true;
 * the first match is replaced. The result is then found as Vite finds it: an absolute path that exists (or with one
 * of Vite's extensions, or a folder's index), else a path from Vite's root (`/src/x`, Vite's root-relative form), else
 * it goes on as written (a package name, `lodash` for `lodash-es`). An alias marked `ifFound` (tsconfig's paths, as
 * vite-tsconfig-paths applies them) tries each of its replacements and leaves the specifier as written where none
 * exists. Written here: Node's hooks have no alias library, and Vite's own resolver needs a dev server.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isFile } from '../../../util/manifest.js';
import { GRAPH_PARAMETER } from './packages.js';

export interface Alias {
  find: string | RegExp;
  /** One replacement, or (ifFound) several tried in order. */
  replacement: string | string[];
  /** Applied only where a replacement names a file that exists (tsconfig's paths). */
  ifFound?: boolean;
}

/** What the hook is registered with: structured-cloneable (a RegExp is), as module.register's data must be. */
export interface AliasData {
  /** The module graph (graphs.ts) of the bench file these aliases are for. */
  graph: string;
  /** Vite's root, for a replacement that starts with `/`. */
  viteRoot: string;
  aliases: Alias[];
}

interface Context {
  parentURL?: string;
  conditions?: Iterable<string>;
}
type Next<R> = (specifier: string, context?: Context) => R;

let own: AliasData = { graph: '', viteRoot: '', aliases: [] };

export function initialize(data: AliasData): void {
  own = data;
}

/** Off the thread (module.register): there a require() reaches no hook, except a TypeScript file's (hooks.ts). */
export function resolve<R>(specifier: string, context: Context, next: Next<R>): R {
  return next(aliased(own, specifier, context.parentURL) ?? specifier, context);
}

/**
 * In the thread (module.registerHooks): the same hook over its own data. There every require() reaches it: one from a
 * JavaScript file passes as off the thread, so both ways load the same modules.
 */
export function inThreadAliases(data: AliasData): { resolve: <R>(specifier: string, context: Context, next: Next<R>) => R } {
  return {
    resolve: (specifier, context, next) =>
      Array.from(context.conditions ?? []).includes('require') && !/\.[cm]?tsx?(\?|$)/.test(context.parentURL ?? '')
        ? next(specifier, context)
        : next(aliased(data, specifier, context.parentURL) ?? specifier, context),
  };
}

/** The specifier an alias makes of `specifier` imported from `parent`, or undefined where none applies. */
export function aliased(data: AliasData, specifier: string, parent: string | undefined): string | undefined {
  if (!parent?.startsWith('file:') || !data.aliases.length) return undefined;
  const url = new URL(parent);
  if (url.searchParams.get(GRAPH_PARAMETER) !== data.graph || url.pathname.includes('/node_modules/')) return undefined;
  for (const alias of data.aliases) {
    if (!matches(alias.find, specifier)) continue;
    // tsconfig's paths are for bare names: a relative, absolute or scheme specifier is never one (vite-tsconfig-paths).
    if (alias.ifFound && /^(\.|\/|[a-z]+:)/.test(specifier)) continue;
    const replacements = typeof alias.replacement === 'string' ? [alias.replacement] : alias.replacement;
    for (const replacement of replacements) {
      if (alias.find instanceof RegExp) alias.find.lastIndex = 0;
      const replaced = specifier.replace(alias.find, replacement);
      const found = path.isAbsolute(replaced)
        ? (existing(replaced) ?? (replaced.startsWith('/') ? existing(path.join(data.viteRoot, replaced)) : undefined))
        : undefined;
      if (found) return pathToFileURL(found).href;
      if (!alias.ifFound) return replaced;
    }
    // tsconfig's paths: no target exists, so the specifier resolves as written (and the next alias may match).
  }
  return undefined;
}

function matches(find: string | RegExp, specifier: string): boolean {
  if (find instanceof RegExp) {
    find.lastIndex = 0;
    return find.test(specifier);
  }
  return specifier === find || specifier.startsWith(`${find}/`);
}

/** Vite's resolve.extensions, in its order. */
const EXTENSIONS = ['.mjs', '.js', '.mts', '.ts', '.jsx', '.tsx', '.json'];

/** `file` as Vite finds it: itself, with one of Vite's extensions, or a folder's index. */
export function existing(file: string): string | undefined {
  if (isFile(file)) return file;
  for (const extension of EXTENSIONS) if (isFile(file + extension)) return file + extension;
  for (const extension of EXTENSIONS) if (isFile(path.join(file, `index${extension}`))) return path.join(file, `index${extension}`);
  return undefined;
}
