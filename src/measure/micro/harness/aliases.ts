/**
 * A vitest project's aliases (`resolve.alias`, `test.alias` of its vitest.config or vite.config, read by
 * vitest-config.ts), as a module resolve hook of their own (bundled as dist/aliases.js, registered after hooks.ts, so
 * it runs first and hands the rewritten specifier down the chain). One registration per revision: an alias applies to
 * imports from that revision's own files (its root, outside node_modules), as vitest applies them to the files Vite
 * transforms and not to the dependencies it leaves to Node.
 *
 * Matched and replaced as Vite's alias plugin (@rollup/plugin-alias) does, first entry first: a string matches the
 * specifier itself or a path below it (`@lib` matches `@lib` and `@lib/x`, not `@libx`), a RegExp where it tests true;
 * the first match is replaced. The result is then found as Vite finds it: an absolute path that exists (or with one
 * of Vite's extensions, or a folder's index), else a path from the project's root (`/src/x`, Vite's root-relative
 * form), else it goes on as written (a package name, `lodash` for `lodash-es`). Written here: Node's hooks have no
 * alias library, and Vite's own resolver needs a dev server.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface Alias {
  find: string | RegExp;
  replacement: string;
}

/** What the hook is registered with: structured-cloneable (a RegExp is), as module.register's data must be. */
export interface AliasData {
  root: string;
  aliases: Alias[];
}

interface Context {
  parentURL?: string;
}
type Next<R> = (specifier: string, context?: Context) => R;

let own: AliasData = { root: '', aliases: [] };

export function initialize(data: AliasData): void {
  own = data;
}

/** Off the thread (module.register). */
export function resolve<R>(specifier: string, context: Context, next: Next<R>): R {
  return next(aliased(own, specifier, context.parentURL) ?? specifier, context);
}

/** In the thread (module.registerHooks): the same hook over its own data. */
export function inThreadAliases(data: AliasData): { resolve: <R>(specifier: string, context: Context, next: Next<R>) => R } {
  return { resolve: (specifier, context, next) => next(aliased(data, specifier, context.parentURL) ?? specifier, context) };
}

/** The specifier an alias makes of `specifier` imported from `parent`, or undefined where none applies. */
export function aliased(data: AliasData, specifier: string, parent: string | undefined): string | undefined {
  if (!parent?.startsWith('file:') || !data.aliases.length) return undefined;
  const from = fileURLToPath(parent.replace(/[?#].*$/, ''));
  const relative = path.relative(data.root, from);
  if (relative.startsWith('..') || path.isAbsolute(relative) || relative.split(path.sep).includes('node_modules')) return undefined;
  const alias = data.aliases.find(({ find }) => matches(find, specifier));
  if (!alias) return undefined;
  const replaced = specifier.replace(alias.find, alias.replacement);
  if (!path.isAbsolute(replaced)) return replaced;
  const found = existing(replaced) ?? (replaced.startsWith('/') ? existing(path.join(data.root, replaced)) : undefined);
  return found ? pathToFileURL(found).href : replaced;
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

function existing(file: string): string | undefined {
  const isFile = (candidate: string) => statSync(candidate, { throwIfNoEntry: false })?.isFile() === true;
  if (isFile(file)) return file;
  for (const extension of EXTENSIONS) if (isFile(file + extension)) return file + extension;
  for (const extension of EXTENSIONS) if (isFile(path.join(file, `index${extension}`))) return path.join(file, `index${extension}`);
  return undefined;
}
