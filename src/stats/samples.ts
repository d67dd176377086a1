import type { LatencyStat } from '../config/types.js';

/** What the statistics need of a benchmark's measurements, whatever measured them (measure/ adds its own details). */
export type BenchmarkKind = 'micro' | 'http';

/** One revision's figures for one benchmark: one value per round it ran in. */
export interface SideSamples {
  opsPerSec: number[];
}

/** Everything the decision about one benchmark rests on. */
export interface Samples {
  id: string;
  kind: BenchmarkKind;
  /** The file that declares it (relative to the project root), for reports and annotations. */
  file: string | undefined;
  /** Per-round ln(head ops/s / base ops/s): the samples the change and its interval come from. */
  logRatios: number[];
  /** Log ratios of the fresh group of processes (new servers, for HTTP) that had to reproduce a regression. */
  confirmation?: number[] | undefined;
  /**
   * Set by the schedule when the early look ended the first group (its figures decided there): a regression's
   * fresh group is then as large, 3 rounds, read as the early look reads, going on where those do not show it.
   */
  endedEarly?: boolean | undefined;
  /**
   * Set by the schedule when a regression's fresh group starts smaller than the first group (an early step's 3, or
   * the rounds its loss needs): the size it goes on to where those do not show it. A final judgement that finds
   * fewer fresh rounds than this, not showing the loss, was cut by the time limit: not measured, never a pass.
   */
  confirmationPlanned?: number | undefined;
  /** HTTP only: the confirmation group's latency ratios. */
  confirmationLatency?: Record<LatencyStat, number[]> | undefined;
  /** Undefined when the benchmark does not exist at that revision. */
  base: SideSamples | undefined;
  head: SideSamples | undefined;
  /** Set when a revision failed to run it; it gets an `error` verdict. */
  error?: string | undefined;
  /** The revision it failed at, where it was one (undefined: both, or not known). */
  errorAt?: 'base' | 'head' | undefined;
  /** HTTP only: per-round ln(head / base) of each latency figure (higher is slower). */
  latency?: Record<LatencyStat, number[]> | undefined;
  /**
   * HTTP only: per-round ln(head / base) of requests per CPU-second of the server's main thread (higher is
   * better, as logRatios): a second throughput figure, gated at the same budget. Absent where the servers'
   * CPU could not be read in every round.
   */
  cpu?: number[] | undefined;
  /** HTTP only: the confirmation group's ratios of requests per CPU-second. */
  confirmationCpu?: number[] | undefined;
  /**
   * HTTP only: why requests/s does not compare the servers' cost in this run (a fixed rate sets it; a duet whose
   * shared CPU a saturating load left idle compares what the load allowed), so the verdict is read from requests
   * per CPU-second, with requests/s as its guard.
   */
  requestsNotCost?: string | undefined;
}
