/** What one revision's server did in one round of an HTTP load test. */

/** Server-side figures from the probe, for the measured window only. */
export interface ProbeFigures {
  /** Length of the recorded window(s), in ms. */
  windowMs: number;
  /** Event-loop delay in ms. */
  eventLoopDelay: { p50: number; p99: number; max: number };
  /** Event-loop utilisation over the window, 0 to 1. */
  eventLoopUtilization: number;
  gc: { count: number; totalMs: number; byKind: Record<string, { count: number; totalMs: number }> };
  peakRssBytes: number;
  peakHeapUsedBytes: number;
}

/** Latency of successful responses (with an expected status) in ms, from hrtime, so sub-millisecond values keep their digits. */
export interface LatencyFigures {
  p50: number;
  p90: number;
  p99: number;
  mean: number;
}

/** Counts of what went wrong under load. */
export interface TrafficFigures {
  /** All responses, and those with a status their request expects (2xx unless configured). */
  responses: number;
  ok: number;
  non2xx: number;
  /** Status classes other than 2xx, e.g. { "5xx": 12 }, expected or not. */
  byClass: Record<string, number>;
  /**
   * Per request (in config order), the responses whose status it does not expect, by status: [{ "200": 12 }, {}].
   * Absent in reports of versions that counted every non-2xx as a failure.
   */
  unexpected?: Record<string, number>[];
  errors: number;
  timeouts: number;
  resets: number;
  /** Body bytes of the responses with an expected status (their mean size is bodyBytes / ok). Absent in older reports. */
  bodyBytes?: number;
}

/**
 * The server's CPU per request answered with an expected status, in ns, over the measured load (from
 * /proc/<pid>/task/<tid>/schedstat: see measure/http/cpu.ts).
 */
export interface CpuFigures {
  /** The main thread, where the server's JavaScript runs. */
  mainNs: number;
  /** All its threads: the main one, GC helpers, the libuv pool. */
  processNs: number;
  /** The main thread's wait for a CPU while it was runnable: contention from the rest of the machine. */
  mainWaitNs: number;
  /** User-mode instructions of the whole process per request, where the machine has hardware counters (measure/http/instructions.ts). */
  instructions?: number;
}

/** A fixed-rate load's check: the rate asked, the answers with an expected status per second, the share of requests sent late. */
export interface RateFigures {
  /** Requests per second asked of both servers. */
  asked: number;
  /** Answers with an expected status per second of the load's window. */
  reached: number;
  /** The share of requests the load generator sent more than 5 ms after they were due. */
  lateShare: number;
}

/**
 * `duet` rounds: how busy the CPU both servers shared was over the measured blocks (median of the blocks, 0 to 1)
 * and benchgate's load generator (a share of one CPU); `saturated` false when a saturating load left the shared
 * CPU idle for a tenth of the time or more (the servers did not compete for it), undefined for a fixed rate or
 * where it could not be read. The same object on both sides of a round.
 */
export interface DuetFigures {
  coreBusy?: number;
  loadGeneratorBusy: number;
  saturated: boolean | undefined;
}

export interface HttpRoundFigures {
  /** Successful responses (with an expected status) per second. */
  requestsPerSec: number;
  /** Fixed-rate load tests (`rate:`): the rate asked and what was reached, over the round's measured blocks. */
  rate?: RateFigures;
  /** Absent where the server's CPU could not be read (not Linux, no process of its own to read). */
  cpuPerRequest?: CpuFigures;
  latency: LatencyFigures;
  traffic: TrafficFigures;
  /** Undefined when the server is not a Node process started with `node …`. */
  probe: ProbeFigures | undefined;
  /** `duet` rounds only: the shared CPU's and the load generator's busy shares. */
  duet?: DuetFigures;
}

/** One revision's server over a load test, from the probe's figures of each round. */
export interface ServerSummary {
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  eventLoopUtilization: number;
  gc: { count: number; totalMs: number; share: number; byKindMs: Record<string, number> };
  peakRssMb: number;
  peakHeapUsedMb: number;
}
