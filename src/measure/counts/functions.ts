/**
 * A profile in instructions: each function's own cost (self, without what it calls) in a callgrind dump, and names
 * for the functions V8 compiled, from the map `node --perf-basic-prof` writes (callgrind sees JIT code as bare
 * addresses). Written by hand: no npm package reads callgrind's format or V8's perf map.
 */
import path from 'node:path';
import { INLINED, LOOPS } from '../micro/protocol.js';

/** The figure as instructions: callgrind's `Ir`. */
export const INSTRUCTIONS: Readonly<Record<string, number>> = { Ir: 1 };

/**
 * Callgrind's cache model, weighted as KCachegrind's cycle estimate weighs it: an instruction a cycle, a first-level
 * miss (instruction or data, read or write) 10 more, a last-level miss 100 more. A model of a cache, not of this
 * machine's: no branch prediction, no out-of-order overlap, no prefetching.
 */
export const CYCLE_WEIGHTS: Readonly<Record<string, number>> = { Ir: 1, I1mr: 10, D1mr: 10, D1mw: 10, ILmr: 100, DLmr: 100, DLmw: 100 };

/** A function's costs in one dump, with the object file it is in (the node binary, libc, or none: JIT code). */
export interface FunctionCost {
  function: string;
  object: string;
  /** Its own cost, without what it calls. */
  self: number;
  /** With what it calls (its outermost recursion level's cost: the deeper levels are in it). */
  inclusive: number;
}

/**
 * Each function's self and inclusive cost (instructions, or the events weighted as `weights` says) in a dump written with
 * `--compress-strings=no`. A cost line under `fn=` is the function's own; the line after `calls=` is a call's inclusive
 * cost: the callee's (it has its own `fn=` block), and part of the caller's inclusive cost. Recursion levels
 * (`name'2`) are one function: their own costs add up, their calls are already in the outer level's.
 */
export function functionCosts(text: string, weights: Readonly<Record<string, number>> = INSTRUCTIONS): Map<string, FunctionCost> {
  const costs = new Map<string, FunctionCost>();
  let positions = 1;
  // Each event column's weight: instructions alone, or the cache model's cycle estimate (CYCLE_WEIGHTS).
  let columns: number[] = [1];
  let object = '';
  let current: FunctionCost | undefined;
  let inner = false;
  let afterCall: false | 'made' | 'running' = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('positions:')) positions = Math.max(1, line.slice(10).trim().split(/\s+/).filter(Boolean).length);
    else if (line.startsWith('events:'))
      columns = line
        .slice(7)
        .trim()
        .split(/\s+/)
        .map((event) => weights[event] ?? 0);
    // `???`: code in no object file (what V8 compiled).
    else if (line.startsWith('ob=')) object = line.slice(3) === '???' ? '' : line.slice(3);
    else if (line.startsWith('fn=')) {
      inner = /'\d+$/.test(line);
      const name = line.slice(3).replace(/'\d+$/, '');
      const key = `${object}\u0000${name}`;
      current = costs.get(key) ?? { function: name, object, self: 0, inclusive: 0 };
      costs.set(key, current);
    } else if (line.startsWith('calls=')) {
      // `calls=0`: a call made before the dump's segment and still running in it (the frames below the marker's, the
      // loop's caller): its cost is the segment's own, not this function's callees'; callgrind writes it whole.
      afterCall = /^calls=0\b/.test(line) ? 'running' : 'made';
    } else if (/^[-+*0-9]/.test(line) && current) {
      const values = line.split(/\s+/);
      const cost = columns.reduce((sum, weight, i) => sum + (weight ? weight * (Number(values[positions + i] ?? 0) || 0) : 0), 0);
      if (!afterCall) current.self += cost;
      if (!inner && afterCall !== 'running') current.inclusive += cost;
      afterCall = false;
    }
  }
  return costs;
}

/** One code range of V8's perf map: `<start> <size> <name>`, both hex. */
interface MapEntry {
  start: number;
  end: number;
  name: string;
}

/** V8's perf map (`/tmp/perf-<pid>.map`), read as written: a later entry for a range replaces an earlier one. */
export class PerfMap {
  private readonly entries: MapEntry[];

  constructor(text: string) {
    const entries: MapEntry[] = [];
    for (const line of text.split('\n')) {
      const match = /^([0-9a-f]+) ([0-9a-f]+) (.+)$/i.exec(line.trim());
      if (!match) continue;
      const start = Number.parseInt(match[1]!, 16);
      entries.push({ start, end: start + Number.parseInt(match[2]!, 16), name: match[3]! });
    }
    this.entries = entries;
  }

  /** The name of the code at a callgrind address (`0x000000000d045e00`), the latest entry that holds it. */
  nameOf(address: string): string | undefined {
    if (!/^0x[0-9a-f]+$/i.test(address)) return undefined;
    const at = Number.parseInt(address.slice(2), 16);
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (at >= entry.start && at < entry.end) return entry.name;
    }
    return undefined;
  }
}

/** A function as a profile shows it: its name and where it is (a project file and line, V8, or a binary). */
export interface NamedCost {
  function: string;
  where: string;
  self: number;
  inclusive: number;
}

/**
 * Names for a dump's functions: JIT code by V8's map (`JS:*makeId /repo/src/ids.js:4:20` → `makeId`, at
 * `src/ids.js:4`, paths relative to `root`; the tier mark dropped, so a function's tiers add up), V8's builtins
 * (`Builtins_StringAdd_CheckNone` → `StringAdd_CheckNone`, V8), native code by its object file's name. Costs of one
 * name and place are added.
 */
export function nameCosts(costs: Iterable<FunctionCost>, map: PerfMap, root: string): NamedCost[] {
  const named = new Map<string, NamedCost>();
  for (const cost of costs) {
    const { name, where } = nameOf(cost, map, root);
    const key = `${where}\u0000${name}`;
    const entry = named.get(key) ?? { function: name, where, self: 0, inclusive: 0 };
    entry.self += cost.self;
    // A function's tiers (interpreted, baseline, optimized) are entries of their own, and one may enter another (a
    // baseline entry that jumps into the optimized code, which callgrind counts as a call): the outermost holds the
    // others, so the largest is the function's cost with what it calls (a sum counted the ids fixture's makeId twice).
    entry.inclusive = Math.max(entry.inclusive, cost.inclusive);
    named.set(key, entry);
  }
  return [...named.values()];
}

function nameOf(cost: FunctionCost, map: PerfMap, root: string): { name: string; where: string } {
  const mapped = map.nameOf(cost.function);
  if (mapped) {
    // `JS:*name file:line:column` (V8 11-12; older V8 wrote `LazyCompile:*name file:line`), or `Builtin:Name`, `Stub:…`.
    // A name may hold spaces (a method named by a string key); its place is the last word, `file:line:column`.
    const js = /^(?:JS|LazyCompile|Function|Script):[~^+*']*(.*?)(?: (\S+:\d+(?::\d+)?))?$/.exec(mapped);
    // benchgate's loop around the task (measure/micro/alternate.ts): its own cost is the task's code V8 inlined into it.
    if (js && LOOPS.includes(js[1]!)) return { name: INLINED, where: 'JIT' };
    if (js) return { name: js[1] || '(anonymous)', where: (js[2] && place(js[2], root)) || 'JIT' };
    const kind = /^(\w+):(.+)$/.exec(mapped);
    // A regular expression V8 compiled is named by its source.
    if (kind?.[1] === 'RegExp') return { name: `/${kind[2]!}/`, where: 'regexp' };
    return kind ? { name: kind[2]!, where: 'V8' } : { name: mapped, where: 'JIT' };
  }
  if (cost.function.startsWith('Builtins_')) return { name: cost.function.slice('Builtins_'.length), where: 'V8' };
  if (/^0x[0-9a-f]+$/i.test(cost.function) && !cost.object) return { name: '(JIT code, unnamed)', where: 'JIT' };
  const name = shortName(cost.function);
  if (name.startsWith('v8::')) return { name: name.replace(/^v8::(?:internal::)?/, ''), where: 'V8' };
  return { name, where: cost.object ? path.basename(cost.object) : 'native' };
}

/**
 * A C++ symbol without its return type and parameters: `v8::internal::JsonStringifier::Result
 * v8::internal::JsonStringifier::Serialize_<true>(v8::internal::Handle<…>, bool)` → `v8::internal::JsonStringifier::Serialize_<true>`.
 */
export function shortName(full: string): string {
  // Valgrind's own names for what is not a symbol: `(below main)`.
  if (full.startsWith('(')) return full;
  // `(anonymous namespace)` is part of a name, not its parameters; `@@GLIBC_2.34` is a symbol's version, not its name.
  const symbol = full.replaceAll('(anonymous namespace)', '{anonymous}').replace(/@@?[\w.]+$/, '');
  let depth = 0;
  let open = -1;
  let start = 0;
  for (let i = 0; i < symbol.length; i++) {
    const c = symbol[i];
    if (c === '<') depth++;
    else if (c === '>') depth--;
    else if (c === '(' && depth === 0 && open < 0 && i > 0) open = i;
    else if (c === ' ' && depth === 0 && open < 0 && !symbol.slice(0, i).endsWith('operator')) start = i + 1;
  }
  const name = symbol.slice(start, open < 0 ? undefined : open);
  return name || full;
}

/** `file:///repo/src/ids.js:4:20` or `/repo/src/ids.js:4:20` → `src/ids.js:4`; node's own modules as they are. */
function place(location: string, root: string): string {
  const match = /^(.*?):(\d+)(?::\d+)?$/.exec(location);
  // A module's URL may carry a query (benchgate's own module graphs, `?benchgate-graph=1`): the file is without it.
  const file = decoded((match?.[1] ?? location).replace(/^file:\/\//, '').replace(/\?.*$/, ''));
  // Code with no script (a function built from a string) has a line and no file.
  if (!file) return '';
  const line = match ? `:${match[2]}` : '';
  if (!path.isAbsolute(file)) return `${file}${line}`;
  const relative = path.relative(root, file);
  return `${relative.startsWith('..') ? file : relative.split(path.sep).join('/')}${line}`;
}

/** A URL's path as a file's (`%20` a space); as written where it is not one. */
function decoded(url: string): string {
  try {
    return decodeURI(url);
  } catch {
    return url;
  }
}
