import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { hasDependencies } from '../../checkout/install.js';
import { filesIn } from '../../checkout/reuse.js';
import { isFile, manifestScripts } from '../../util/manifest.js';

/**
 * Where projects keep benchmarks that the default pattern (vitest's `*.bench.*` names) does not match, read from the
 * files alone (before any install): fast-uri's root `benchmark.js`, a `bench/` or `benchmarks/` folder, the file an
 * `npm run bench` script runs. The first place that has any, in this order, since the author's own script names
 * the entry where a folder also holds its helpers:
 * 1. the files `node` runs in a `bench`, `benchmark`, `benchmarks` or `perf` script (or one of theirs, `bench:x`);
 * 2. `bench`, `benchmark`, `benchmarks` or `perf` with a script extension, at the project root;
 * 3. the script files at the top of a `bench/`, `benchmark/`, `benchmarks/` or `perf/` folder.
 * In 2 and 3 a file that names no harness and has no default export is a helper (fixtures, data), not a bench file.
 * Written here: no library reads these conventions.
 */
export interface Conventional {
  files: string[];
  /** Where they were found, for the log: "named by the bench script", "at the project root", "in benchmarks/". */
  where: string;
}

const NAMES = ['bench', 'benchmark', 'benchmarks', 'perf'];
const EXTENSIONS = ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts'];
const SCRIPT = /^(bench|benchmarks?|perf)(:.+)?$/;
/** A bench file names its harness, or exports its tasks: what a helper file does not. */
const DECLARES = /\b(tinybench|benchmark|mitata|vitest|Bench|Suite|cronometro|bench-node)\b|export\s+default|module\.exports/;

export function conventionalBenchFiles(root: string): Conventional | undefined {
  const scripted = filesOfScripts(root);
  if (scripted.files.length) return { files: scripted.files, where: `named by the ${scripted.scripts.join(', ')} script` };
  const atRoot = NAMES.flatMap((name) => EXTENSIONS.map((ext) => `${name}${ext}`)).filter((file) => isBenchFile(root, file));
  if (atRoot.length) return { files: atRoot, where: 'at the project root' };
  for (const dir of NAMES) {
    const files = scriptFilesIn(root, dir).filter((file) => isBenchFile(root, file));
    if (files.length) return { files, where: `in ${dir}/` };
  }
  return undefined;
}

/** The script files `node` runs in the project's bench scripts (`node benchmark.js`, `cd bench && node run.mjs`). */
export function filesOfScripts(root: string): { files: string[]; scripts: string[] } {
  const scripts = Object.entries(manifestScripts(root)).filter(([name]) => SCRIPT.test(name));
  const files = new Set<string>();
  const named: string[] = [];
  for (const [name, command] of scripts) {
    const before = files.size;
    let cwd = '';
    for (const segment of command.split(/&&|\|\||;|\|/)) {
      const words = segment.trim().split(/\s+/);
      if (words[0] === 'cd' && words[1]) {
        cwd = path.posix.join(cwd, words[1]);
        continue;
      }
      if (words[0] !== 'node') continue;
      const target = scriptOf(words.slice(1));
      const file = target && resolveScriptFile(root, path.posix.join(cwd, target));
      if (file) files.add(file);
    }
    if (files.size > before) named.push(`\`${name}\``);
  }
  return { files: [...files].sort(), scripts: named };
}

/** node's flags that take the next word as their value (`--import tsx`), where the script is the first other word. */
const VALUED = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--env-file', '--title']);

function scriptOf(words: readonly string[]): string | undefined {
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!word.startsWith('-')) return word;
    if (VALUED.has(word)) i++;
  }
  return undefined;
}

/** `benchmark.js`, `bench` (a folder: its index), `bench/run` (no extension) as node resolves them; inside the project. */
function resolveScriptFile(root: string, target: string): string | undefined {
  // `cd ./benchmark && node ./` names the folder: no trailing slash, or its index reads `benchmark//index.js`.
  const relative = path.posix.normalize(target.replace(/^\.\//, '')).replace(/\/+$/, '') || '.';
  if (relative.startsWith('..') || path.posix.isAbsolute(relative) || relative.includes('node_modules')) return undefined;
  const candidates = [
    relative,
    ...EXTENSIONS.map((ext) => relative + ext),
    ...EXTENSIONS.map((ext) => path.posix.join(relative, `index${ext}`)),
  ];
  return candidates.find((file) => EXTENSIONS.includes(path.posix.extname(file)) && isFile(path.join(root, file)));
}

function scriptFilesIn(root: string, dir: string): string[] {
  try {
    return readdirSync(path.join(root, dir))
      .filter((name) => EXTENSIONS.includes(path.extname(name)) && !name.endsWith('.d.ts'))
      .map((name) => `${dir}/${name}`)
      .filter((file) => isFile(path.join(root, file)))
      .sort();
  } catch {
    return [];
  }
}

function isBenchFile(root: string, file: string): boolean {
  const full = path.join(root, file);
  if (!isFile(full)) return false;
  try {
    return DECLARES.test(readFileSync(full, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * The folders, inside the project, of the packages of their own that bench files live in: a bench file's nearest
 * package.json below the project's root, where it declares dependencies (uuid's examples/benchmark depends on the
 * project's build). Relative, forward slashes, sorted.
 */
export function benchPackages(root: string, files: readonly string[]): string[] {
  const found = new Set<string>();
  for (const file of files) {
    for (let dir = path.posix.dirname(file); dir !== '.' && dir !== '/' && dir !== ''; dir = path.posix.dirname(dir)) {
      if (!existsSync(path.join(root, dir, 'package.json'))) continue;
      if (hasDependencies(filesIn(path.join(root, dir)))) found.add(dir);
      break;
    }
  }
  return [...found].sort();
}
