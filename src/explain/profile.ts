/**
 * Where the time went: self time per function from a V8 CPU profile, and which
 * functions cost more per call (or per request) at head than at base. Written
 * here because no package we use reads .cpuprofile files; the source-map
 * lookup is Node's own (node:module SourceMap).
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { INLINED } from '../measure/micro/protocol.js';
import type { CpuProfile } from '../measure/profiler.js';
import { FunctionShapes } from './functions.js';

/** One function's self time in one profile. */
export interface FunctionCost {
  function: string;
  /** "src/ids.js:3" relative to the revision's root, "node:internal/crypto/hash:101", or "" for V8's own entries. */
  location: string;
  /**
   * The nearest function of the project's own code on the stack (the function itself, or its caller's
   * caller…), e.g. makeId in src/ids.js:4 above a native crypto call; undefined when there is none.
   */
  via?: Via;
  /**
   * Matches the same function in the other revision: name and file, and `via`; for an anonymous function also its
   * nesting and source shape (functions.ts), or its line where its file cannot be parsed.
   */
  key: string;
  /** For an anonymous function, its key without its shape: pairs it with the other revision's when its body was edited. */
  looseKey?: string;
  selfMs: number;
}

export interface ProfileSummary {
  /** Self time per function. */
  functions: FunctionCost[];
  /** The project's own functions with their total time (self and everything they called), as `selfMs`. */
  ownTotals: FunctionCost[];
  /** Sampled time, idle excluded, in ms. */
  totalMs: number;
  /** Samples of work (idle excluded). */
  samples: number;
}

/** V8's name for the garbage collector's samples. */
export const GC = '(garbage collector)';

/** A function whose cost changed, base against head. */
/** A project function on the stack above a function that is not the project's. */
export interface Via {
  function: string;
  location: string;
}

export interface ProfileRow {
  function: string;
  location: string;
  via?: Via;
  /** Share of the sampled (non-idle) time spent in the function itself. */
  baseShare: number;
  headShare: number;
  /** Self time per operation (call of the task, or request), in microseconds. */
  basePerOpUs: number;
  headPerOpUs: number;
}

/** Entries that are not work: the tree's root and the idle thread. */
const NOT_WORK = new Set(['(root)', '(idle)']);

export interface SummaryOptions {
  maps?: SourceMaps;
  /** Names anonymous functions by nesting and shape (functions.ts); one per run, shared by both revisions' profiles. */
  shapes?: FunctionShapes;
  /** Files whose functions are not listed (benchgate's own runner): their time still counts in the total. */
  hidden?: (file: string) => boolean;
  /** Project files that are not interesting as "own code" (the bench file, whose task calls everything). */
  notOwn?: (file: string) => boolean;
  /**
   * Names of script-less functions that run the task (benchgate's compiled loop): their self time is
   * task code the JIT inlined into them, so they are shown as such, not as native code.
   */
  loops?: readonly string[];
}

/** Self time per function: each sample's time goes to the function on top of its stack. */
export function summarizeProfile(profile: CpuProfile, root: string, options: SummaryOptions = {}): ProfileSummary {
  const maps = options.maps ?? new SourceMaps();
  const shapes = options.shapes ?? new FunctionShapes();
  const selfUs = new Map<number, number>();
  const { samples, timeDeltas } = profile;
  if (samples?.length && timeDeltas?.length === samples.length) {
    // timeDeltas[i] is the time before sample i, so sample i lasted until the next one.
    const mean = (profile.endTime - profile.startTime) / samples.length;
    samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, timeDeltas[i + 1] ?? mean)));
  } else {
    const hits = profile.nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0);
    const perHit = hits > 0 ? (profile.endTime - profile.startTime) / hits : 0;
    for (const node of profile.nodes) selfUs.set(node.id, (node.hitCount ?? 0) * perHit);
  }
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const frames = new Map<number, { name: string; location: string; key: string; looseKey: string; own: boolean; hidden: boolean }>();
  const frameOf = (id: number) => {
    let frame = frames.get(id);
    if (frame) return frame;
    const callFrame = byId.get(id)!.callFrame;
    const place = maps.locate(callFrame.url, callFrame.lineNumber, callFrame.columnNumber, root);
    const loop = !callFrame.url && (options.loops ?? []).includes(callFrame.functionName);
    const name = loop ? INLINED : callFrame.functionName || '(anonymous)';
    // An anonymous function is named by where it sits and what it is, not by its line, which an edit above it moves.
    const identity = !callFrame.functionName && place.path ? shapes.identify(place.path, place.line, place.column) : undefined;
    const key = callFrame.functionName
      ? `${name}|${place.file}`
      : identity
        ? `${name}|${place.file}|${identity.nesting}|${identity.shape}`
        : `${name}|${place.file}:${place.line}`;
    frame = {
      name,
      location: loop ? 'JIT-inlined' : place.file ? (place.line >= 0 ? `${place.file}:${place.line + 1}` : place.file) : '',
      key,
      looseKey: identity ? `${name}|${place.file}|${identity.nesting}` : key,
      own: isOwnCode(place.file) && !options.notOwn?.(place.file),
      hidden: options.hidden?.(place.file) ?? false,
    };
    frames.set(id, frame);
    return frame;
  };
  const viaOf = (id: number): { name: string; location: string; key: string; looseKey: string } | undefined => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) if (frameOf(at).own) return frameOf(at);
    return undefined;
  };
  const byKey = new Map<string, FunctionCost>();
  const ownTotals = new Map<string, FunctionCost>();
  let totalUs = 0;
  let work = 0;
  const hits = new Map<number, number>();
  for (const id of samples ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (us === 0 || NOT_WORK.has(node.callFrame.functionName)) continue;
    totalUs += us;
    work += samples?.length ? (hits.get(node.id) ?? 0) : (node.hitCount ?? 0);
    // Each own function on the stack gets the sample once, however deep its recursion.
    const seen = new Set<string>();
    for (let at: number | undefined = node.id; at !== undefined; at = parent.get(at)) {
      const frame = frameOf(at);
      if (!frame.own || seen.has(frame.key)) continue;
      seen.add(frame.key);
      const total = ownTotals.get(frame.key) ?? {
        function: frame.name,
        location: frame.location,
        key: frame.key,
        ...(frame.looseKey !== frame.key ? { looseKey: frame.looseKey } : {}),
        selfMs: 0,
      };
      total.selfMs += us / 1000;
      ownTotals.set(frame.key, total);
    }
    const frame = frameOf(node.id);
    if (frame.hidden) continue;
    const via = frame.own ? undefined : viaOf(node.id);
    const key = via ? `${frame.key}<${via.key}` : frame.key;
    const looseKey = via ? `${frame.looseKey}<${via.looseKey}` : frame.looseKey;
    const cost = byKey.get(key) ?? {
      function: frame.name,
      location: frame.location,
      key,
      ...(looseKey !== key ? { looseKey } : {}),
      selfMs: 0,
      ...(via ? { via: { function: via.name, location: via.location } } : {}),
    };
    cost.selfMs += us / 1000;
    byKey.set(key, cost);
  }
  const bySize = (a: FunctionCost, b: FunctionCost) => b.selfMs - a.selfMs;
  return {
    functions: [...byKey.values()].sort(bySize),
    ownTotals: [...ownTotals.values()].sort(bySize),
    totalMs: totalUs / 1000,
    samples: work,
  };
}

export interface ProfiledSide {
  summary: ProfileSummary;
  /** Operations (calls of the task, requests) done while the profiler ran. */
  ops: number;
}

/**
 * The functions whose self time per operation grew most from base to head,
 * largest growth first. Per operation rather than by share: a function that
 * costs the same per call loses share when another one grows. With view
 * `ownTotals`, the project's own functions by total (inclusive) time instead.
 */
export function diffProfiles(base: ProfiledSide, head: ProfiledSide, top = 5, view: 'functions' | 'ownTotals' = 'functions'): ProfileRow[] {
  const baseByKey = new Map(base.summary[view].map((f) => [f.key, f]));
  const headByKey = new Map(head.summary[view].map((f) => [f.key, f]));
  pairEdited(baseByKey, headByKey);
  const perOp = (cost: FunctionCost | undefined, side: { ops: number }) => (cost && side.ops > 0 ? (cost.selfMs * 1000) / side.ops : 0);
  const share = (cost: FunctionCost | undefined, side: { summary: ProfileSummary }) =>
    cost && side.summary.totalMs > 0 ? cost.selfMs / side.summary.totalMs : 0;
  const rows: ProfileRow[] = [];
  for (const key of new Set([...baseByKey.keys(), ...headByKey.keys()])) {
    const b = baseByKey.get(key);
    const h = headByKey.get(key);
    const either = (h ?? b)!;
    rows.push({
      function: either.function,
      location: either.location,
      ...(either.via ? { via: either.via } : {}),
      baseShare: share(b, base),
      headShare: share(h, head),
      basePerOpUs: perOp(b, base),
      headPerOpUs: perOp(h, head),
    });
  }
  return rows
    .filter((row) => row.headPerOpUs > row.basePerOpUs)
    .sort((a, b) => b.headPerOpUs - b.basePerOpUs - (a.headPerOpUs - a.basePerOpUs))
    .slice(0, top);
}

interface Place {
  file: string;
  /** 0-based; -1 when unknown. */
  line: number;
  /** 0-based; -1 when unknown. */
  column: number;
  /** The source file on disk, when the frame is one. */
  path?: string;
}

/**
 * An anonymous function whose body was edited has another shape at head: when its file and nesting single it
 * out on both sides (one function of that nesting not matched at base, one at head), it is the same function,
 * and head's entry takes base's key.
 */
function pairEdited(base: Map<string, FunctionCost>, head: Map<string, FunctionCost>): void {
  const unmatched = (side: Map<string, FunctionCost>, other: Map<string, FunctionCost>) => {
    const byLoose = new Map<string, FunctionCost[]>();
    for (const cost of side.values())
      if (cost.looseKey && !other.has(cost.key)) byLoose.set(cost.looseKey, [...(byLoose.get(cost.looseKey) ?? []), cost]);
    return byLoose;
  };
  const baseLoose = unmatched(base, head);
  for (const [loose, heads] of unmatched(head, base)) {
    const bases = baseLoose.get(loose);
    if (heads.length !== 1 || bases?.length !== 1) continue;
    head.delete(heads[0]!.key);
    head.set(bases[0]!.key, heads[0]!);
  }
}

/**
 * Script URLs as people read them, through source maps where a script has one
 * (a `//# sourceMappingURL=` comment naming a file or an inline data URL, or a
 * `.map` file beside it),
 * so a profile of dist/ code points at src/.
 */
export class SourceMaps {
  private readonly maps = new Map<string, { map: SourceMap; dir: string; sourceRoot: string } | null>();

  locate(url: string, line: number, column: number, root: string): Place {
    if (!url) return { file: '', line: -1, column: -1 };
    if (!url.startsWith('file://')) return { file: url, line, column };
    const file = fileURLToPath(url);
    const mapped = this.original(file, line, column);
    const source = mapped?.file ?? file;
    return { file: readable(source, root), line: mapped?.line ?? line, column: mapped ? mapped.column : column, path: source };
  }

  private original(file: string, line: number, column: number): Place | undefined {
    const entry = this.load(file);
    if (!entry || line < 0) return undefined;
    const found = entry.map.findEntry(line, Math.max(0, column)) as {
      originalSource?: string;
      originalLine?: number;
      originalColumn?: number;
    };
    if (!found.originalSource) return undefined;
    const source = found.originalSource.startsWith('file://')
      ? fileURLToPath(found.originalSource)
      : path.resolve(entry.dir, entry.sourceRoot, found.originalSource);
    return { file: source, line: found.originalLine ?? -1, column: found.originalColumn ?? -1 };
  }

  private load(file: string) {
    if (this.maps.has(file)) return this.maps.get(file);
    let entry: { map: SourceMap; dir: string; sourceRoot: string } | null = null;
    try {
      const text = readFileSync(file, 'utf8');
      // The comment names the map; without one, a map file beside the script (esbuild's `sourcemap: 'external'`).
      const reference =
        [...text.matchAll(/\/\/[#@] sourceMappingURL=(\S+)/g)].at(-1)?.[1] ??
        (existsSync(`${file}.map`) ? `${path.basename(file)}.map` : undefined);
      if (reference) {
        let payload: SourceMapPayload;
        let dir = path.dirname(file);
        const inline = /^data:application\/json[^,]*;base64,(.*)$/.exec(reference);
        if (inline) payload = JSON.parse(Buffer.from(inline[1]!, 'base64').toString('utf8')) as SourceMapPayload;
        else {
          const mapFile = path.resolve(dir, decodeURIComponent(reference));
          if (!existsSync(mapFile)) throw new Error('no map file');
          payload = JSON.parse(readFileSync(mapFile, 'utf8')) as SourceMapPayload;
          dir = path.dirname(mapFile);
        }
        entry = { map: new SourceMap(payload), dir, sourceRoot: payload.sourceRoot ?? '' };
      }
    } catch {
      // No readable map: the compiled location is shown.
      entry = null;
    }
    this.maps.set(file, entry);
    return entry;
  }
}

/** A file of the project itself (not a dependency, not Node's, not V8's, not benchgate's). */
function isOwnCode(file: string): boolean {
  return file !== '' && !file.startsWith('node:') && !file.startsWith('node_modules/') && !path.isAbsolute(file) && !file.includes('://');
}

/** Relative to the revision's root; a dependency from node_modules/ on; anything else as it is. */
function readable(file: string, root: string): string {
  const relative = path.relative(root, file);
  if (!relative.startsWith('..') && !path.isAbsolute(relative)) return relative.split(path.sep).join('/');
  const modules = file.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  return modules >= 0
    ? file
        .slice(modules + 1)
        .split(path.sep)
        .join('/')
    : file;
}
