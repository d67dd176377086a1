/**
 * The node flags an author runs a bench file with: `"bench": "node --expose-gc ./benchmark/bench.js"` in the
 * revision's package.json means the native check runs that file with `--expose-gc` too (fast-json-stringify's
 * worker calls gc() before each warm-up only when it is exposed). Read from the package's scripts, never run
 * through a shell: a flag is passed as one argv entry, and only flags that set how node runs a file are taken.
 * Written by hand: what matters is a small subset of shell syntax (commands joined by && ; || |, env
 * assignments before node), and a script that needs more (quotes, substitutions) is left alone.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export interface AuthorFlags {
  /** The npm script they come from. */
  script: string;
  flags: string[];
}

/** A long flag, with its value after `=` if any, of plain characters: nothing a shell would read otherwise. */
const FLAG = /^--[a-z0-9][a-z0-9-]*(?:=[A-Za-z0-9._,:/@%+-]*)?$/;
/** Flags that change what runs or where it talks, not how the file runs: never taken. */
const REFUSED = new RegExp(
  '^--(?:eval|print|check|interactive|test|run|watch|inspect|debug|require|import|loader|experimental-loader|' +
    'env-file|input-type|cpu-prof|heap-prof|prof|redirect-warnings|diagnostic-dir|report)',
);

/**
 * The flags of the first script (those named bench* first, in package.json order) that runs `node <file>`.
 * Undefined when none does, or when the one that does passes something this does not take (a short flag, a
 * flag with a separate value, a refused flag): then the file runs with none, as `node <file>`.
 */
export function authorFlags(root: string, file: string): AuthorFlags | undefined {
  let scripts: unknown;
  try {
    const text = readFileSync(path.join(root, 'package.json'), 'utf8');
    scripts = text.length <= 1 << 20 ? (JSON.parse(text) as { scripts?: unknown }).scripts : undefined;
  } catch {
    return undefined;
  }
  if (typeof scripts !== 'object' || scripts === null || Array.isArray(scripts)) return undefined;
  const entries = Object.entries(scripts as Record<string, unknown>).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  const ordered = [...entries.filter(([name]) => name.startsWith('bench')), ...entries.filter(([name]) => !name.startsWith('bench'))];
  const target = path.posix.normalize(file);
  for (const [script, command] of ordered) {
    for (const part of command.split(/&&|\|\||[;|]/)) {
      const flags = nodeFlagsFor(part, target);
      if (flags) return flags.length ? { script, flags } : undefined;
    }
  }
  return undefined;
}

/** The flags of one command if it is `node [flags] <target>`; [] when it runs the target with flags not taken; undefined when it does not run it. */
function nodeFlagsFor(command: string, target: string): string[] | undefined {
  const words = command.trim().split(/\s+/);
  let at = 0;
  while (at < words.length && /^[A-Za-z_][A-Za-z0-9_]*=\S*$/.test(words[at]!)) at++;
  if (words[at] !== 'node') return undefined;
  const flags: string[] = [];
  for (at++; at < words.length && words[at]!.startsWith('-'); at++) flags.push(words[at]!);
  const script = words[at];
  if (!script || path.posix.normalize(script) !== target) return undefined;
  return flags.every((flag) => FLAG.test(flag) && !REFUSED.test(flag)) ? flags : [];
}
