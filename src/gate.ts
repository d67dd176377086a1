import { budgetFor } from './config/budgets.js';
import { loadConfig } from './config/load.js';
import type { Config, Isolation } from './config/types.js';
import { formatDuration } from './config/units.js';
import { checkout } from './checkout/revisions.js';
import { discoverBenchFiles } from './measure/micro/discover.js';
import type { MeasureSettings } from './measure/micro/protocol.js';
import { measureMicro } from './measure/micro/schedule.js';
import type { MeasureProgress } from './measure/types.js';
import { analyze } from './stats/analyze.js';
import { familyConfidence } from './stats/compare.js';
import { currentEnvironment } from './report/environment.js';
import { REPORT_VERSION, runVerdict, sortBenchmarks, summarize, toReportBenchmark, type Report } from './report/model.js';
import { UserError } from './util/errors.js';

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
  overrides?: { rounds?: number | undefined; timeLimitMs?: number | undefined; isolation?: Isolation | undefined };
  /** Path of the benchmark process script (dist/runner.js). */
  runnerPath: string;
  toolVersion: string;
  log: (line: string) => void;
  onProgress?: (progress: MeasureProgress) => void;
  /** Registers a cleanup for SIGINT/SIGTERM; returns its deregistration. */
  onCleanup?: (cleanup: () => void) => () => void;
  now?: () => number;
}

/**
 * The whole gate: config → checkout → measure → statistics → report model.
 * Entry points (CLI, action) call this and render the report their own way.
 */
export async function runGate(options: GateOptions): Promise<Report> {
  const now = options.now ?? Date.now;
  const started = now();
  const config = withOverrides(loadConfig({ root: options.cwd, file: options.configFile }), options.overrides);
  const tree = await checkout({ cwd: options.cwd, base: options.base, head: options.head, install: config.install, build: config.build, log: options.log, onCleanup: options.onCleanup });
  try {
    const [baseFiles, headFiles] = await Promise.all([tree.base, tree.head].map((revision) => discoverBenchFiles(revision.root, config.micro.files)));
    if (baseFiles!.length === 0 && headFiles!.length === 0) {
      throw new UserError(`No bench files match ${config.micro.files.join(', ')} in base or head. Add one (see the README's quick start) or set micro.files in benchgate.yml.`);
    }
    options.log(`bench files: ${describeFiles(baseFiles!, headFiles!)}`);
    const measurement = await measureMicro({
      base: tree.base,
      head: tree.head,
      baseFiles: baseFiles!,
      headFiles: headFiles!,
      isolation: config.micro.isolation,
      settings: { ...MEASURE_DEFAULTS, taskTimeMs: config.micro.taskTimeMs },
      stallTimeoutMs: config.micro.taskTimeoutMs,
      rounds: config.rounds ?? 10,
      confidence: config.confidence,
      timeLimitMs: config.timeLimitMs,
      runnerPath: options.runnerPath,
      log: options.log,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      now,
    });
    if (measurement.limited) options.log(`the time limit (${formatDuration(config.timeLimitMs)}) cut the run to ${measurement.rounds} of ${measurement.plannedRounds} rounds`);
    const comparisons = analyze(measurement.benchmarks, { confidence: config.confidence, budgetFor: (id) => budgetFor(id, config) });
    const benchmarks = sortBenchmarks(comparisons.map(toReportBenchmark));
    const family = comparisons.filter((c) => c.change).length;
    return {
      version: REPORT_VERSION,
      tool: { name: 'benchgate', version: options.toolVersion },
      verdict: runVerdict(benchmarks),
      summary: summarize(benchmarks),
      base: { ref: tree.base.ref, sha: tree.base.sha },
      head: { ref: tree.head.ref, sha: tree.head.sha, dirty: tree.head.dirty },
      benchmarks,
      run: {
        rounds: measurement.rounds,
        plannedRounds: measurement.plannedRounds,
        limited: measurement.limited,
        isolation: measurement.isolation,
        confidence: config.confidence,
        intervalConfidence: familyConfidence(config.confidence, family),
        timeLimitMs: config.timeLimitMs,
        measureMs: measurement.durationMs,
        totalMs: now() - started,
      },
      environment: currentEnvironment(),
    };
  } finally {
    tree.dispose();
  }
}

/** The report of a run that failed before it could compare anything. */
export function errorReport(message: string, toolVersion: string): Report {
  return {
    version: REPORT_VERSION,
    tool: { name: 'benchgate', version: toolVersion },
    verdict: 'error',
    summary: `error: ${message.split('\n')[0]}`,
    base: null,
    head: null,
    benchmarks: [],
    run: null,
    environment: currentEnvironment(),
    error: message,
  };
}

function withOverrides(config: Config, overrides: GateOptions['overrides']): Config {
  if (!overrides) return config;
  return Object.freeze({
    ...config,
    rounds: overrides.rounds ?? config.rounds,
    timeLimitMs: overrides.timeLimitMs ?? config.timeLimitMs,
    micro: Object.freeze({ ...config.micro, isolation: overrides.isolation ?? config.micro.isolation }),
  });
}

function describeFiles(base: string[], head: string[]): string {
  const all = [...new Set([...base, ...head])].sort();
  return all.map((file) => (base.includes(file) ? (head.includes(file) ? file : `${file} (base only)`) : `${file} (head only)`)).join(', ');
}
