/** What measuring hands to the statistics, for any kind of benchmark. */
import type { HttpBenchmarkConfig, LatencyStat } from '../config/types.js';
import type { RoundConditions } from './conditions.js';
import type { HttpRoundFigures } from './http/types.js';

export type BenchmarkKind = 'micro' | 'http';

/** One revision's figures for one benchmark: one value per round it ran in. */
export interface SideSamples {
  opsPerSec: number[];
}

/** Everything measured for one benchmark over a run. */
export interface BenchmarkSamples {
  id: string;
  kind: BenchmarkKind;
  /** The file that declares it (relative to the project root), for reports and annotations. */
  file: string | undefined;
  /** Per-round ln(head ops/s / base ops/s): the samples the change and its interval come from. */
  logRatios: number[];
  /** Log ratios of the fresh group of processes (new servers, for HTTP) that had to reproduce a regression. */
  confirmation?: number[] | undefined;
  /** HTTP only: the confirmation group's latency ratios. */
  confirmationLatency?: Record<LatencyStat, number[]> | undefined;
  /** Undefined when the benchmark does not exist at that revision. */
  base: SideSamples | undefined;
  head: SideSamples | undefined;
  /** Set when a revision failed to run it; it gets an `error` verdict. */
  error?: string | undefined;
  /** Calls per timed sample (micro only). */
  batch?: number | undefined;
  /** HTTP only: per-round ln(head / base) of each latency figure (higher is slower). */
  latency?: Record<LatencyStat, number[]> | undefined;
  /** HTTP only: each revision's figures per round, and the benchmark's config. */
  http?: { base: HttpRoundFigures[]; head: HttpRoundFigures[]; config: HttpBenchmarkConfig } | undefined;
}

export interface MeasureProgress {
  round: number;
  rounds: number;
  elapsedMs: number;
  remainingMs: number;
}

/** The outcome of the measuring phase. */
export interface Measurement {
  benchmarks: BenchmarkSamples[];
  /** Rounds completed and rounds planned. */
  rounds: number;
  plannedRounds: number;
  /** True when the time limit stopped rounds before the plan was done. */
  limited: boolean;
  /** Rounds of the confirmation group (0 when nothing needed confirming). */
  confirmRounds?: number;
  durationMs: number;
  isolation: string;
  /** The machine's state in each completed round. */
  conditions: RoundConditions[];
}
