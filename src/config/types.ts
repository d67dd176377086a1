/** One budget rule: benchmarks whose id matches `pattern` may lose at most `budget` (a fraction) of throughput. */
export interface BudgetRule {
  readonly pattern: string;
  readonly budget: number;
}

/** One micro.measures rule: the micro-benchmarks whose id matches `pattern` are measured in `measure`. */
export interface MeasureRule {
  readonly pattern: string;
  readonly measure: MeasureKind;
}

export type Isolation = 'alternate' | 'thread' | 'process';

/**
 * What a micro-benchmark is measured in: time (calls per second), counts (instructions per call, under callgrind), or
 * both (each, the verdict from the one micro.gate names, the other beside it with their agreement).
 */
export type MeasureKind = 'time' | 'counts' | 'both';

/**
 * What counts mode counts: instructions, or cycles estimated from callgrind's cache model (measure/counts/task.ts
 * readDump).
 */
export type CountedFigure = 'instructions' | 'cycles';

/** measure: both: the figure that decides the verdict. */
export type GateMeasure = 'time' | 'counts';

export interface MicroConfig {
  /** Glob patterns of bench files, relative to a revision's root. */
  readonly files: readonly string[];
  readonly isolation: Isolation;
  /** Measuring time per task in each process, in ms. */
  readonly taskTimeMs: number;
  /** A benchmark process silent for this long (ms) is killed. */
  readonly taskTimeoutMs: number;
  /** The most benchmark processes one round may run (micro.processes; 8 for auto). */
  readonly maxProcesses: number;
  /** micro.measure: time (default), counts (measure/counts/) or both. */
  readonly measure: MeasureKind;
  /** micro.measures: what the micro-benchmarks whose id matches a pattern are measured in, in place of micro.measure. */
  readonly measures: readonly MeasureRule[];
  /** micro.gate: with measure both, the figure the verdict is read from (time by default); the other is shown beside it. */
  readonly gate: GateMeasure;
  /** micro.seeds: counts mode's processes per revision, each under its own V8 hash and random seed. */
  readonly seeds: number;
  /** micro.count: what counts mode counts, micro-benchmarks and counted load tests alike. */
  readonly count: CountedFigure;
}

/** micro.processes: auto means up to this many. */
export const MAX_PROCESSES_PER_ROUND = 8;
/** Fresh processes per revision of the solo check: enough to see two levels and bound the change (±3-5% on real fixes). */
export const SOLO_PROCESSES = 12;
/** The fewest (six are the least in which speed levels can be told from spread) and the most processes per revision. */
export const SOLO_PROCESSES_RANGE = [6, 48] as const;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

/** A status code (404) or a whole class of them ('2xx'). */
export type ExpectedStatus = number | `${1 | 2 | 3 | 4 | 5}xx`;

export interface HttpRequestConfig {
  readonly method: HttpMethod;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  /** The statuses that count as success for this request (default ['2xx']); any other is a failed request. */
  readonly status: readonly ExpectedStatus[];
}

export type LatencyStat = 'p50' | 'p90' | 'p99' | 'mean';
export const LATENCY_STATS: readonly LatencyStat[] = ['p50', 'p90', 'p99', 'mean'];

/** One HTTP load test: the server to start in each revision and the load to put on it. */
export interface HttpBenchmarkConfig {
  readonly name: string;
  /** Benchmark id: `http > name`. */
  readonly id: string;
  readonly start: string;
  readonly ready: string | undefined;
  readonly readyTimeoutMs: number;
  readonly requests: readonly HttpRequestConfig[];
  readonly connections: number;
  /**
   * Requests per second for a fixed-rate load, the same for both servers; `auto`: half the slower server's
   * capacity, measured in the first warm-up. Undefined: saturate the server (as many as `connections` allow).
   */
  readonly rate: number | 'auto' | undefined;
  readonly durationMs: number;
  readonly warmupMs: number;
  /**
   * `auto` (no `duration` set): in a duet, the warm-up and the blocks per pair are chosen per run from the variance
   * the run measures (measure/http/planner.ts); `fixed`: every round is the warm-up, then `duration` in 1 s blocks.
   */
  readonly schedule: 'auto' | 'fixed';
  /** Its own throughput budget, when set (a budgets pattern or the global budget otherwise). */
  readonly budget: number | undefined;
  /** time: requests/s under load (measure/http/); counts: instructions per request under callgrind (measure/counts/server.ts). */
  readonly measure: 'time' | 'counts';
  readonly latencyBudget: Readonly<Partial<Record<LatencyStat, number>>>;
  /** Where it is declared, for messages: "benchgate.yml: http[0]". */
  readonly where: string;
}

export type HttpMode = 'fresh' | 'live' | 'duet';

/** The whole configuration, parsed and validated once; every stage takes what it needs from here. */
export interface Config {
  /** The file it was read from, or undefined when the defaults apply. */
  readonly file: string | undefined;
  readonly budget: number;
  readonly budgets: readonly BudgetRule[];
  readonly micro: MicroConfig;
  readonly http: readonly HttpBenchmarkConfig[];
  readonly httpMode: HttpMode;
  /** Pin servers and the load generator to different cores. */
  readonly httpPin: boolean;
  /** A command, false to skip, or undefined to detect from the lockfile. */
  readonly install: string | false | undefined;
  readonly build: string | undefined;
  /** Rounds to run, or undefined for the default. */
  readonly rounds: number | undefined;
  /** Adaptive rounds: the most micro-benchmark rounds a run may take. */
  readonly maxRounds: number;
  /** Confirm each micro-benchmark regression with a fresh group of processes. */
  readonly confirm: boolean;
  /** Confidence for the whole run, e.g. 0.95. */
  readonly confidence: number;
  /** Bound on measuring only (checkout, install and build not counted). */
  readonly timeLimitMs: number;
  /** Bound on each install and build command of each revision. */
  readonly installTimeoutMs: number;
  /** Variables the children (install, build, bench files, servers) may see beyond the allow-list; none that looks like a credential. */
  readonly env: readonly string[];
}

export const DEFAULTS = {
  budget: 0.05,
  // vitest's default bench file names: x.bench.js, x.benchmark.mts, x.bench.ts, ... anywhere in the project.
  files: ['**/*.{bench,benchmark}.?(c|m)[jt]s?(x)'],
  isolation: 'alternate' as Isolation,
  taskTimeMs: 400,
  taskTimeoutMs: 30_000,
  // Counts mode's processes per revision (micro.seeds).
  seeds: 3,
  confidence: 0.95,
  timeLimitMs: 5 * 60_000,
  installTimeoutMs: 15 * 60_000,
  rounds: 10,
  maxRounds: 40,
  lookEvery: 5,
  httpConnections: 10,
  httpDurationMs: 3000,
  httpWarmupMs: 1000,
  httpReadyTimeoutMs: 15_000,
  httpMode: 'duet' as HttpMode,
  httpPin: true,
  httpStatus: ['2xx'] as readonly ExpectedStatus[],
} as const;

/** When to CPU-profile each revision after the verdicts: for regressions, for every compared benchmark, or never. */
export type ProfileMode = 'regressions' | 'always' | 'never';
