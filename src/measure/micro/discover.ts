import { escapePath, glob } from 'tinyglobby';
import { DEFAULTS } from '../../config/types.js';

/** Where the default patterns do not look, as vitest's bench defaults: build output and caches hold copies, not sources. */
const DEFAULT_EXCLUDED = ['**/dist/**', '**/.cache/**', '**/.idea/**'];

/** Bench files of one revision, relative to its project root with forward slashes, sorted. */
export async function discoverBenchFiles(root: string, patterns: readonly string[]): Promise<string[]> {
  const isDefault = isDefaultPattern(patterns);
  const files = await glob([...patterns], {
    cwd: root,
    onlyFiles: true,
    ignore: ['**/node_modules/**', '**/.git/**', ...(isDefault ? DEFAULT_EXCLUDED : [])],
    expandDirectories: false,
  });
  return files.map((file) => file.replace(/\\/g, '/')).sort();
}

/** micro.files as the defaults set it (vitest's bench file names), not as a user chose. */
export function isDefaultPattern(patterns: readonly string[]): boolean {
  return patterns.length === DEFAULTS.files.length && patterns.every((p, i) => p === DEFAULTS.files[i]);
}

/** A pattern that matches this one bench file (its path's glob characters escaped): '[id].bench.js' matches only itself. */
export function exactFile(file: string): string {
  return escapePath(file);
}
