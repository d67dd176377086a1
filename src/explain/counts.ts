/**
 * Profiles in instructions, for the micro-benchmarks counted under callgrind (micro.measure: counts): after the
 * verdicts, one more callgrind process per revision runs what seed 1's ran (the same files in the same order, the same
 * seed: counts are reproducible to the instruction) and reads the blocks each chosen task's count comes from function
 * by function, with names for V8's compiled code from its perf map (measure/counts/functions.ts). Its count is then
 * seed 1's, and its table adds up to it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Revision, RevisionLabel } from '../checkout/revisions.js';
import type { CountedFigure } from '../config/types.js';
import { filesForSeed, runCounted } from '../measure/counts/schedule.js';
import type { CountedFunction, TaskCount } from '../measure/micro/protocol.js';

/** A function's own count a call at each revision (0 where it did not run, or cost under half an instruction a call). */
export interface CountedFunctionRow {
  function: string;
  where: string;
  base: number;
  head: number;
}

/** What a counted micro-benchmark's profile shows: its functions in instructions (or estimated cycles) per call. */
export interface CountsProfileExplanation {
  measure: 'counts';
  figure: CountedFigure;
  unit: 'call';
  /** The seed both revisions were profiled under. */
  seed: number;
  /** The task's count a call in the profiled process (what the table adds up to): seed 1's. */
  perOp: { base: number; head: number };
  /**
   * The verdict's counts a call under the profile's seed, set when the profiled ones differ from them by more than
   * AGREEMENT: the profiled process did not repeat that seed's (counts under one seed repeat to 0.01% or better).
   */
  disagrees?: { base: number; head: number };
  /** The functions whose own count a call grew most. */
  top: CountedFunctionRow[];
  /** The functions whose own count a call fell most (a fix moves work: what it saved is the other half). */
  fell: CountedFunctionRow[];
  /** The project's own functions (not its dependencies, not the bench file) whose count a call with what they call grew most. */
  ownCode: CountedFunctionRow[];
  durationMs: number;
}

export interface CountsProfilePlan {
  targets: readonly { id: string; file: string }[];
  /** What the counts measured (gate/measures.ts StageShare): each revision's files, and the tasks they skipped. */
  files: { base: string[]; head: string[] };
  skip: readonly string[];
  base: Revision;
  head: Revision;
  runnerPath: string;
  valgrind: string;
  figure: CountedFigure;
  stallTimeoutMs: number;
  tempDir: string;
  log: (line: string) => void;
}

/** The most functions listed, each way, and of the project's own. */
const LISTED = 8;
const OWN_LISTED = 3;

export async function explainCounts(
  plan: CountsProfilePlan,
): Promise<Map<string, CountsProfileExplanation | { error: string; durationMs: number }>> {
  const started = Date.now();
  const seed = 1;
  const files = filesForSeed(plan.files.base, plan.files.head, seed);
  const only = plan.targets.map((t) => t.id);
  const temp = mkdtempSync(path.join(plan.tempDir, 'benchgate-count-profile-'));
  plan.log(`profiles: ${only.length} counted benchmark(s) in instructions, a callgrind process per revision`);
  try {
    const side = async (revision: Revision) => {
      const dumpPrefix = path.join(temp, `callgrind.${revision.label}`);
      const outcome = await runCounted(
        {
          kind: 'count',
          sides: [{ revision: revision.label, root: revision.root, files: files[revision.label] }],
          dumpPrefix,
          skip: [...plan.skip],
          profile: only,
          figure: plan.figure,
        },
        { ...plan, seed, cwd: revision.root, functions: true },
      );
      return outcome.ok ? { counts: outcome.counts ?? [] } : { error: outcome.message };
    };
    const [base, head] = await Promise.all([side(plan.base), side(plan.head)]);
    const durationMs = Date.now() - started;
    const results = new Map<string, CountsProfileExplanation | { error: string; durationMs: number }>();
    for (const { id } of plan.targets) {
      const of = (label: RevisionLabel, outcome: typeof base): TaskCount | string => {
        if ('error' in outcome) return `${label}: ${outcome.error}`;
        const count = outcome.counts.find((c) => c.id === id);
        if (!count) return `${label}: the task was not counted`;
        if (count.error || count.instructions === undefined) return `${label}: ${count.error ?? 'no count'}`;
        return count;
      };
      const a = of('base', base);
      const b = of('head', head);
      if (typeof a === 'string' || typeof b === 'string') {
        results.set(id, { error: [a, b].filter((x) => typeof x === 'string').join('; '), durationMs });
        continue;
      }
      results.set(id, {
        measure: 'counts',
        figure: plan.figure,
        unit: 'call',
        seed,
        perOp: { base: a.instructions!, head: b.instructions! },
        ...compareFunctions(a.functions ?? [], b.functions ?? [], plan.targets.find((t) => t.id === id)!.file),
        durationMs,
      });
    }
    return results;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/** Both revisions' functions side by side, matched by name and place: those that grew most, and those that fell most. */
export function compareFunctions(
  base: readonly CountedFunction[],
  head: readonly CountedFunction[],
  benchFile = '',
): { top: CountedFunctionRow[]; fell: CountedFunctionRow[]; ownCode: CountedFunctionRow[] } {
  const rows = new Map<string, CountedFunctionRow>();
  const withCallees = new Map<string, CountedFunctionRow>();
  // Matched by name and file, not line: an edit above a function moves its line (fast-uri's serializePathEncoding at
  // lib/utils.js:478 at base, :519 at head, was two rows, one grown and one fallen). Shown at head's place.
  const row = (f: CountedFunction, of = rows) => {
    const key = `${f.where.replace(/:\d+$/, '')}\u0000${f.function}`;
    const entry = of.get(key) ?? { function: f.function, where: f.where, base: 0, head: 0 };
    of.set(key, entry);
    return entry;
  };
  for (const f of head) row(f).head += f.perCall;
  for (const f of base) row(f).base += f.perCall;
  // The project's own code: a place in a file of the project (`src/ids.js:4`), not a dependency's, not the bench file's
  // (whose task calls everything), not node's (`node:…`) or V8's.
  const own = (f: CountedFunction) =>
    /:\d+$/.test(f.where) &&
    !f.where.startsWith('/') &&
    !f.where.startsWith('node:') &&
    !f.where.includes('node_modules/') &&
    !f.where.startsWith(`${benchFile}:`);
  for (const f of head.filter(own)) row(f, withCallees).head += f.inclusive ?? f.perCall;
  for (const f of base.filter(own)) row(f, withCallees).base += f.inclusive ?? f.perCall;
  // The rows that moved most in one direction: half an instruction a call is the runner's floor (task.ts
  // functionsPerCall), smaller moves are not shown.
  const most = (of: Iterable<CountedFunctionRow>, grown: (r: CountedFunctionRow) => number, listed: number) =>
    [...of]
      .filter((r) => grown(r) >= 0.5)
      .sort((x, y) => grown(y) - grown(x))
      .slice(0, listed);
  const ownCode = most(withCallees.values(), (r) => r.head - r.base, OWN_LISTED);
  const top = most(rows.values(), (r) => r.head - r.base, LISTED);
  const fell = most(rows.values(), (r) => r.base - r.head, LISTED);
  return { top, fell, ownCode };
}

/** How far a profiled count a call may be from the verdict's under its seed before the report says so (relative, either revision). */
export const AGREEMENT = 0.02;

/** The profile, with the verdict's counts where its own differ from them by more than AGREEMENT. */
export function withCounted(
  profile: CountsProfileExplanation,
  counted: { base: number; head: number } | undefined,
): CountsProfileExplanation {
  if (!counted) return profile;
  const off = (side: 'base' | 'head') => Math.abs(profile.perOp[side] / counted[side] - 1) > AGREEMENT;
  return off('base') || off('head') ? { ...profile, disagrees: counted } : profile;
}
