import type { Installs } from '../checkout/reuse.js';
import type { PolicySource } from '../config/policy.js';
import type { BudgetRule, Config, HttpMode, Isolation, MeasureKind, ProfileMode } from '../config/types.js';
import { exactFile } from '../measure/micro/discover.js';
import type { MeasureSettings } from '../measure/micro/protocol.js';
import type { ShardSpec } from '../measure/shard.js';
import type { MeasureProgress } from '../measure/types.js';

/** How each micro-benchmark process measures; chosen from the measurements in the README ("Measurement"). */
export const MEASURE_DEFAULTS: Omit<MeasureSettings, 'taskTimeMs'> = {
  blockMs: 1,
  warmupBlocks: 10,
  minSampleMs: 0.02,
  minBlocks: 10,
};
export interface GateOptions {
  /** The project directory (where benchgate.yml lives), inside a git checkout. */
  cwd: string;
  base: string;
  /** A ref, or undefined for the working tree. */
  head?: string | undefined;
  configFile?: string | undefined;
  /** Command-line values that win over the config file. */
  overrides?: {
    rounds?: number | undefined;
    timeLimitMs?: number | undefined;
    installTimeoutMs?: number | undefined;
    isolation?: Isolation | undefined;
    /** --measure: time, counts or both, for every micro-benchmark: in place of micro.measure and micro.measures. */
    measure?: MeasureKind | undefined;
    /** --files: bench file globs in place of micro.files. */
    files?: readonly string[] | undefined;
    httpMode?: HttpMode | undefined;
    httpPin?: boolean | undefined;
    /** The action's budget inputs: they win over the config file's. */
    budget?: number | undefined;
    budgets?: readonly BudgetRule[] | undefined;
    /** drift: every benchmark judged against this one cumulative budget, in place of the config's budgets. */
    driftBudget?: number | undefined;
    /** bisect's extended compare: this many rounds at most, in place of max-rounds. */
    maxRounds?: number | undefined;
    /** bisect's steps: measure only these bench files (exact paths) and load tests (ids), none of the rest. */
    only?: { files: readonly string[]; http: readonly string[] } | undefined;
  };
  /** Measure one shard of the suite (compare --shard i/n); its verdicts are at the whole suite's level. */
  shard?: ShardSpec | undefined;
  /** Path of the benchmark process script (dist/runner.js). */
  runnerPath: string;
  /** Path of the server-side probe (dist/probe.cjs). */
  probePath: string;
  toolVersion: string;
  /** Profile regressions (default), every compared benchmark, or none; the .cpuprofile files go to profileDir. */
  profile?: ProfileMode | undefined;
  /** Default: .benchgate/profiles under cwd. */
  profileDir?: string | undefined;
  log: (line: string) => void;
  onProgress?: (progress: MeasureProgress) => void;
  /** Counts mode without valgrind: install it (the action does, with apt-get) and say whether that worked. */
  installCallgrind?: ((log: (line: string) => void) => boolean) | undefined;
  /** Registers a cleanup for SIGINT/SIGTERM; returns its deregistration. */
  onCleanup?: (cleanup: () => void) => () => void;
  now?: () => number;
  /** Variables the children may see beyond the allow-list, from a trusted source (the action's env input): any name but the runner's own. */
  childEnv?: readonly string[] | undefined;
  /** Whose config decides pass or fail: the working tree's (head, the CLI's default) or base's (the action's default). */
  policy?: PolicySource | undefined;
  /** calibrate: rounds until the time limit on purpose, so no warning that the first look cannot fit. */
  untilTimeLimit?: boolean;
  /** Installs to reuse across compares (a bisect's steps) or runs (--install-cache); default: each checkout's own. */
  installs?: Installs | undefined;
  /**
   * compare --native-check: after the verdicts, run each compared bench file as its author runs it, with the
   * observer (dist/native.js) preloaded, each run bounded by runTimeoutMs (default NATIVE_RUN_TIMEOUT_MS).
   */
  nativeCheck?: { observerPath: string; runTimeoutMs?: number | undefined; runs?: number | undefined } | undefined;
  /**
   * compare --solo-check: after the verdicts, each revision alone in `processes` fresh processes (process
   * isolation, AB BA), beside the shared-process figures; a benchmark whose solo interval lies apart from its
   * shared one is judged on both.
   */
  soloCheck?: { processes: number } | undefined;
}
export function withOverrides(config: Config, overrides: GateOptions['overrides']): Config {
  if (!overrides) return config;
  return Object.freeze({
    ...config,
    rounds: overrides.rounds ?? config.rounds,
    budget: overrides.driftBudget ?? overrides.budget ?? config.budget,
    budgets:
      overrides.driftBudget !== undefined
        ? []
        : overrides.budgets?.length
          ? [...overrides.budgets, ...config.budgets.filter((rule) => !overrides.budgets!.some((o) => o.pattern === rule.pattern))]
          : config.budgets,
    maxRounds: overrides.maxRounds ?? config.maxRounds,
    // drift judges every benchmark's throughput at the one cumulative budget: an HTTP test's own budgets too.
    http: (overrides.driftBudget !== undefined
      ? config.http.map((b) => Object.freeze({ ...b, budget: overrides.driftBudget, latencyBudget: {} }))
      : config.http
    ).filter((b) => !overrides.only || overrides.only.http.includes(b.id)),
    timeLimitMs: overrides.timeLimitMs ?? config.timeLimitMs,
    installTimeoutMs: overrides.installTimeoutMs ?? config.installTimeoutMs,
    micro: Object.freeze({
      ...config.micro,
      isolation: overrides.isolation ?? config.micro.isolation,
      measure: overrides.measure ?? config.micro.measure,
      measures: overrides.measure ? [] : config.micro.measures,
      files: overrides.only ? overrides.only.files.map(exactFile) : overrides.files?.length ? [...overrides.files] : config.micro.files,
    }),
    httpMode: overrides.httpMode ?? config.httpMode,
    httpPin: overrides.httpPin ?? config.httpPin,
  });
}
