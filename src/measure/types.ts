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
        /** A duet's blocks, per round of the first group (rounds whose servers were planned by the run's schedule). */
        blocks?: RoundBlocks[] | undefined;
      }
    | undefined;
}

/**
 * One duet round's blocks after the configured warm-up, as ln(head / base) of requests/s and of requests per
 * CPU-second (null where a block's CPU was not read): the learned warm-up's blocks (those both servers answered in),
 * then the measured ones from `measuredFrom`, of which the round's figure is the median of those from `figureFrom`
 * (a pilot's settled half).
 */
export interface RoundBlocks {
  requests: number[];
  cpu: number[] | null;
  measuredFrom: number;
  figureFrom: number;
}

export interface MeasureProgress {
  round: number;
  rounds: number;
  /**
   * How `rounds` bounds the run, where it is not the plan: 'at least' before the first round has found the tasks (their
   * number may add rounds: "round 1 of 10" followed by "round 2 of 15" read as a jump), 'at most' past the planned rounds
   * (adaptive rounds stop as soon as every benchmark is decided).
   */
  bound?: 'at least' | 'at most';
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
