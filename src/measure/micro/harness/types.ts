/**
 * What the capture collects, and what a harness module (benchmarkjs.ts, tinybench.ts, mitata.ts,
 * vitest.ts) provides to it and may call back into (capture.ts implements CaptureContext).
 */
import type { Fn, FnOptions } from 'tinybench';

export type HarnessName = 'benchmark.js' | 'tinybench' | 'mitata' | 'vitest' | 'cronometro';

/** One task as a harness declared it, with its suites (vitest describe, mitata group, a named suite or Bench). */
export interface CapturedTask {
  suites: string[];
  name: string;
  fn: Fn;
  opts: FnOptions;
  /** Where it was declared: 0 in the bench file itself, k in the k-th worker the file started (each its own module graph). */
  unit?: number;
}

/** The copy of a harness a bench file got: each revision resolves its own. */
export interface HarnessCopy {
  harness: HarnessName;
  version?: string;
  /** The file the import or require resolved to. */
  path: string;
}

/** What one bench file declared while it was loaded and settled. */
export interface Declaration {
  tasks: CapturedTask[];
  harnesses: HarnessCopy[];
  /** Worker files it started (and whose tasks were collected). */
  workers: string[];
  /** What a worker's file threw while it loaded, by file. */
  workerErrors: { file: string; error: unknown }[];
  /** Node processes it tried to start (refused). */
  children: string[];
  /** What it threw after its tasks were collected (e.g. printing results benchgate does not produce): reported, not fatal. */
  lateErrors: unknown[];
}

/** A function a bench file hands to a harness (a hook, a setup, a mitata bench), called with what it expects. */
export type Hook = (...args: unknown[]) => unknown;

/** A module's exports, by name. */
export type Namespace = Record<string, unknown>;

/**
 * What a harness module provides: how a bench file's `import` and `require()` of the harness are answered.
 * A harness whose exports can be patched (benchmark.js, tinybench) patches the revision's copy in place and
 * answers nothing; one whose exports cannot (mitata, vitest) answers the functions that stand in for them.
 */
export interface Harness {
  readonly name: HarnessName;
  /** The package a bench file imports or requires (one of HARNESS_PACKAGES). */
  readonly package: string;
  /**
   * An `import` of it, through the module hooks' generated module (hooks.ts): `resolved` is the revision's
   * copy it resolved to and `real` that copy's exports (none for vitest, which is resolved, never imported).
   */
  imported(resolved: string, real?: Namespace): Namespace | undefined;
  /** A `require()` of it (graphs.ts, wrapRequire): `load` requires the revision's copy; answers what require returns. */
  required(resolved: string, load: () => unknown): unknown;
  /** A bench file starts loading: what belongs to the previous file is forgotten; answers what to undo once it has settled. */
  declaring?(file: string): (() => void) | undefined;
}

/** What a harness calls back into: the declaration of the bench file that is loading. */
export interface CaptureContext {
  /** The copy of the harness the file got (once per copy). */
  record(harness: HarnessName, resolved: string): void;
  /** A task declared now, in the unit that is loading; one marked `only` leaves out the file's tasks that are not. */
  add(task: CapturedTask & { only?: boolean }): void;
  /** A harness that declares its tasks once the file has settled: they belong to the unit that was loading when it was called. */
  later(collect: () => Promise<CapturedTask[]>): void;
  /** Something happened (a bench declared that collects later, a worker done): the file has not settled yet. */
  stir(): void;
  /** Errors thrown or rejected while a file loads land here once it has declared something. */
  lateError(error: unknown): boolean;
}
