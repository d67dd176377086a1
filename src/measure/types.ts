/** What measuring hands to the statistics, for any kind of benchmark. */
import type { HttpBenchmarkConfig } from '../config/types.js';
import type { Samples } from '../stats/samples.js';
import type { RoundConditions } from './conditions.js';
import type { HttpRoundFigures } from './http/types.js';
import type { ScheduleChoice } from './http/planner.js';

/** Everything measured for one benchmark over a run: what the statistics need, and what the reports show besides. */
export interface BenchmarkSamples extends Samples {
  /** Calls per timed sample (micro only). */
  batch?: number | undefined;
  /** HTTP only: each revision's figures per round, and the benchmark's config. */
  http?:
    | {
        base: HttpRoundFigures[];
        head: HttpRoundFigures[];
        config: HttpBenchmarkConfig;
        /** A duet's schedule chosen per run (planner.ts), once its pilot is done. */
        schedule?: ScheduleChoice | undefined;
      }
    | undefined;
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
  /** Benchmark processes run (process pairs in process isolation), confirmation included: a round may run several. */
  processes?: number;
  durationMs: number;
  isolation: string;
  /** Bench files measured in isolates of their own (a worker thread per revision), not with both revisions in one. */
  isolatedFiles?: string[];
  /** The machine's state in each completed round. */
  conditions: RoundConditions[];
}
