/**
 * compare --native-check: after benchgate's own measurement, each bench file that holds a compared benchmark
 * runs as its author runs it, twice at each revision in the order base, head, head, base (the least a figure
 * of the noise between whole runs needs, and neither revision always first), then, while the check's time
 * allows, one more pair, up to MAX_RUNS per revision. The harness's own figures of each run are read (observer.ts; vitest's
 * JSON report, vitest.ts), never its printed text.
 */
import type { Revision, RevisionLabel } from '../../checkout/revisions.js';
import type { RevisionInventory } from '../micro/inventory.js';
import { authorFlags } from './flags.js';
import { runNative, type NativeRun } from './run.js';

/** One bench file to run natively, and where it exists: the revision's checkout and the harness benchgate found it uses. */
export interface NativeTarget {
  file: string;
  base?: NativeSideTarget | undefined;
  head?: NativeSideTarget | undefined;
}

export interface NativeSideTarget {
  root: string;
  harness?: string | undefined;
  /** The version of the harness copy the revision's file resolved. */
  version?: string | undefined;
}

export interface NativeFileResult {
  file: string;
  /** The harness of its head (or base) revision, as benchgate found it. */
  harness?: string;
  /** Each revision's copy of the harness, where its version is known: two versions' figures may not compare. */
  versions?: { base?: string; head?: string };
  /** In the order they ran. */
  runs: NativeRun[];
  /** Why it was not run natively at all. */
  skipped?: string;
}

export interface NativeCheckOptions {
  /** dist/native.js. */
  observerPath: string;
  /** Where the runs' figures files go (the gate's temp folder). */
  tempDir: string;
  /** Each run is killed after this long (NATIVE_RUN_TIMEOUT_MS by default). */
  runTimeoutMs: number;
  /** More pairs of runs are started only while the whole check has run less than this. */
  extraUntilMs: number;
  /** Runs per revision at most. */
  maxRuns: number;
  log: (line: string) => void;
  now?: () => number;
  /** One run (runNative; a fake in tests). */
  run?: typeof runNative;
}

/** A run that does not end in 2 minutes is killed: the check is information, never a reason for a job to hang. */
export const NATIVE_RUN_TIMEOUT_MS = 120_000;
/** Pairs after the first two only while the check has taken less than this. */
export const NATIVE_EXTRA_UNTIL_MS = 60_000;
/** Runs per revision at most: the two pairs every file gets and one more. */
export const NATIVE_MAX_RUNS = 3;

/**
 * How many runs per revision: by default two, and a third while the check has taken under NATIVE_EXTRA_UNTIL_MS;
 * `runs` (--native-runs) asks for exactly that many, whatever the time (each run still bounded by its timeout).
 */
export function nativeRunLimits(runs: number | undefined): Pick<NativeCheckOptions, 'maxRuns' | 'extraUntilMs'> {
  return runs ? { maxRuns: runs, extraUntilMs: Infinity } : { maxRuns: NATIVE_MAX_RUNS, extraUntilMs: NATIVE_EXTRA_UNTIL_MS };
}

/** Harnesses whose bench files run natively: self-running scripts (`node <file>`), and vitest's (`vitest bench`). */
const RUNNABLE = new Set(['benchmark.js', 'tinybench', 'mitata', 'vitest']);

/**
 * The bench files to run natively: those `compared` names (the files of compared benchmarks), each at the
 * revisions that have it, with the harness benchgate found it uses there (the inventory loaded before measuring).
 */
export function nativeTargets(
  compared: readonly string[],
  sides: { base: Revision; head: Revision },
  files: { base: readonly string[]; head: readonly string[] },
  inventory: readonly RevisionInventory[],
): NativeTarget[] {
  const at = (revision: Revision, file: string) => {
    if (!files[revision.label].includes(file)) return undefined;
    const load = inventory.find((side) => side.revision.label === revision.label)?.files.find((f) => f.file === file);
    return { root: revision.root, harness: load?.harness, version: load?.harnesses?.[0]?.version };
  };
  return [...new Set(compared)].sort().map((file) => ({ file, base: at(sides.base, file), head: at(sides.head, file) }));
}

/** Why a file is not run natively, or undefined when it is. */
export function notRunnable(target: NativeTarget): string | undefined {
  const harness = target.head?.harness ?? target.base?.harness;
  if (harness === 'default export') return 'it exports its tasks for benchgate and runs none itself: nothing to run natively';
  if (harness === 'cronometro')
    return 'cronometro times each test in a worker thread of its own, which benchgate does not observe: not run natively';
  if (harness === undefined || !RUNNABLE.has(harness)) return 'benchgate found no harness it can observe in it: not run natively';
  return undefined;
}

/** Run every target natively, as the time allows beyond the first pair; never rejects. */
export async function runNativeCheck(targets: readonly NativeTarget[], options: NativeCheckOptions): Promise<NativeFileResult[]> {
  const now = options.now ?? (() => performance.now());
  const run = options.run ?? runNative;
  const started = now();
  const results: NativeFileResult[] = targets.map((target) => {
    const harness = target.head?.harness ?? target.base?.harness;
    const skipped = notRunnable(target);
    const versions = {
      ...(target.base?.version ? { base: target.base.version } : {}),
      ...(target.head?.version ? { head: target.head.version } : {}),
    };
    return {
      file: target.file,
      ...(harness ? { harness } : {}),
      ...(Object.keys(versions).length ? { versions } : {}),
      runs: [],
      ...(skipped ? { skipped } : {}),
    };
  });
  const once = async (target: NativeTarget, result: NativeFileResult, revision: RevisionLabel) => {
    const side = target[revision];
    if (!side) return;
    const author = side.harness === 'vitest' ? undefined : authorFlags(side.root, target.file);
    const how = side.harness === 'vitest' ? 'vitest bench' : ['node', ...(author?.flags ?? [])].join(' ');
    options.log(`native check: ${how} ${target.file} at ${revision}${author ? ` (the flags of ${scriptName(author.script)})` : ''}`);
    const outcome = await run({
      revision,
      root: side.root,
      file: target.file,
      ...(author ? { nodeFlags: author.flags } : {}),
      ...(side.harness ? { harness: side.harness } : {}),
      observerPath: options.observerPath,
      tempDir: options.tempDir,
      timeoutMs: options.runTimeoutMs,
    });
    if (outcome.problem) options.log(`native check: ${target.file} at ${revision}: ${outcome.problem.split('\n')[0]}`);
    result.runs.push(outcome);
  };
  for (let pair = 0; pair < options.maxRuns; pair++) {
    const order: RevisionLabel[] = pair % 2 === 1 ? ['head', 'base'] : ['base', 'head'];
    for (const [i, target] of targets.entries()) {
      const result = results[i]!;
      if (result.skipped) continue;
      // After the first pair: only files whose runs all went cleanly; after the second, only while the pair fits in the time left.
      if (pair > 0 && result.runs.some((r) => r.problem)) continue;
      if (pair > 1 && now() - started + lastPairMs(result) > options.extraUntilMs) continue;
      for (const revision of order) await once(target, result, revision);
    }
  }
  return results;
}

function lastPairMs(result: NativeFileResult): number {
  return result.runs.slice(-2).reduce((sum, r) => sum + r.durationMs, 0);
}

/** A script's name from the pull request's package.json, in a log line: as it is when plain, else not at all. */
function scriptName(name: string): string {
  return /^[\w:.-]{1,64}$/.test(name) ? `npm script '${name}'` : 'an npm script';
}
