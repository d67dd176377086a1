/** One budget rule: benchmarks whose id matches `pattern` may lose at most `budget` (a fraction) of throughput. */
export interface BudgetRule {
  readonly pattern: string;
  readonly budget: number;
}

export type Isolation = 'alternate' | 'process';

export interface MicroConfig {
  /** Glob patterns of bench files, relative to a revision's root. */
  readonly files: readonly string[];
  readonly isolation: Isolation;
  /** Measuring time per task in each process, in ms. */
  readonly taskTimeMs: number;
  /** A benchmark process silent for this long (ms) is killed. */
  readonly taskTimeoutMs: number;
}

/** The whole configuration, parsed and validated once; every stage takes what it needs from here. */
export interface Config {
  /** The file it was read from, or undefined when the defaults apply. */
  readonly file: string | undefined;
  readonly budget: number;
  readonly budgets: readonly BudgetRule[];
  readonly micro: MicroConfig;
  /** A command, false to skip, or undefined to detect from the lockfile. */
  readonly install: string | false | undefined;
  readonly build: string | undefined;
  /** Rounds to run, or undefined for the default. */
  readonly rounds: number | undefined;
  /** Confidence for the whole run, e.g. 0.95. */
  readonly confidence: number;
  readonly timeLimitMs: number;
}

export const DEFAULTS = {
  budget: 0.05,
  files: ['bench/**/*.bench.{js,mjs,cjs}'],
  isolation: 'alternate' as Isolation,
  taskTimeMs: 400,
  taskTimeoutMs: 30_000,
  confidence: 0.95,
  timeLimitMs: 5 * 60_000,
  rounds: 10,
} as const;
