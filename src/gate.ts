import { budgetFor } from './config/budgets.js';
import { loadConfig } from './config/load.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULTS, type BudgetRule, type Config, type HttpMode, type Isolation, type ProfileMode } from './config/types.js';
import { formatDuration } from './config/units.js';
import { checkout } from './checkout/revisions.js';
import { discoverBenchFiles } from './measure/micro/discover.js';
import type { MeasureSettings } from './measure/micro/protocol.js';
import { measureMicro } from './measure/micro/schedule.js';
import { pinLoadGenerator } from './measure/http/pinning.js';
import { estimatedRoundMs, measureHttp, type HttpMeasurement } from './measure/http/schedule.js';
import { spikedRounds, type RoundConditions } from './measure/conditions.js';
import type { BenchmarkSamples, Measurement, MeasureProgress } from './measure/types.js';
import { httpDetails } from './report/http.js';
import { analyze, familySize } from './stats/analyze.js';
import { familyConfidence } from './stats/compare.js';
import { minimumRounds } from './stats/signed-rank.js';
import { currentEnvironment } from './report/environment.js';
import { REPORT_VERSION, runVerdict, sortBenchmarks, summarize, toReportBenchmark, type Report } from './report/model.js';
import { UserError } from './util/errors.js';
import { explain, type ProfileTarget } from './explain/run.js';

/** The most benchmarks profiled in one run: each costs a few seconds. */
const MAX_PROFILED = 10;

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
    isolation?: Isolation | undefined;
    httpMode?: HttpMode | undefined;
    httpPin?: boolean | undefined;
    /** The action's budget inputs: they win over the config file's. */
    budget?: number | undefined;
    budgets?: readonly BudgetRule[] | undefined;
  };
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
  const tree = await checkout({
    cwd: options.cwd,
    base: options.base,
    head: options.head,
    install: config.install,
    build: config.build,
    log: options.log,
    onCleanup: options.onCleanup,
  });
  const socketDir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-sock-'));
  const removeSocketDir = () => rmSync(socketDir, { recursive: true, force: true });
  // A signal ends the process without running `finally`: the trap removes the folder (and the worktrees) then.
  const forgetSocketDir = options.onCleanup?.(removeSocketDir);
  const loadBefore = os.loadavg();
  try {
    const [baseFiles, headFiles] = await Promise.all(
      [tree.base, tree.head].map((revision) => discoverBenchFiles(revision.root, config.micro.files)),
    );
    const hasMicro = baseFiles!.length > 0 || headFiles!.length > 0;
    if (!hasMicro && config.http.length === 0) {
      throw new UserError(
        `No bench files match ${config.micro.files.join(', ')} in base or head, and benchgate.yml declares no http load tests. Add a bench file (see the README's quick start), set micro.files, or declare http benchmarks.`,
      );
    }
    const rounds = config.rounds ?? 10;
    const looks = lookCount(rounds, config.maxRounds, DEFAULTS.lookEvery);
    const httpFamily = looks * config.http.reduce((sum, b) => sum + 1 + Object.keys(b.latencyBudget).length, 0);
    const httpById = new Map(config.http.map((b) => [b.id, b]));
    const analyzeOptions = {
      confidence: config.confidence,
      budgetFor: (id: string) => httpById.get(id)?.budget ?? budgetFor(id, config),
      latencyBudgetFor: (id: string) => httpById.get(id)?.latencyBudget ?? {},
      looksFor: () => looks,
    };
    const microVerdicts = (partial: BenchmarkSamples[]) => analyze(partial, { ...analyzeOptions, extraFamily: httpFamily });
    // The HTTP load tests' planned time is set aside first: their rounds are long and fixed in length.
    // With confirm, one load test's worth of confirmation rounds too: a regression found there must be able to reproduce.
    const httpPlannedMs =
      config.http.reduce((sum, b) => sum + rounds * estimatedRoundMs(b), 0) +
      (config.confirm && config.http.length ? rounds * Math.max(...config.http.map(estimatedRoundMs)) : 0);
    const microLimitMs = config.http.length ? Math.max(config.timeLimitMs - httpPlannedMs, config.timeLimitMs * 0.3) : config.timeLimitMs;
    let micro: Measurement | undefined;
    if (hasMicro) {
      options.log(`bench files: ${describeFiles(baseFiles!, headFiles!)}`);
      micro = await measureMicro({
        base: tree.base,
        head: tree.head,
        baseFiles: baseFiles!,
        headFiles: headFiles!,
        isolation: config.micro.isolation,
        settings: { ...MEASURE_DEFAULTS, taskTimeMs: config.micro.taskTimeMs },
        stallTimeoutMs: config.micro.taskTimeoutMs,
        rounds,
        confidence: config.confidence,
        otherFamily: httpFamily,
        adaptive: {
          maxRounds: config.maxRounds,
          lookEvery: DEFAULTS.lookEvery,
          looks,
          decided: (partial) =>
            new Set(
              microVerdicts(partial)
                .filter((c) => c.verdict !== 'inconclusive')
                .map((c) => c.id),
            ),
          toConfirm: (partial) =>
            config.confirm
              ? new Set(
                  microVerdicts(partial)
                    .filter((c) => c.verdict === 'regression')
                    .map((c) => c.id),
                )
              : new Set(),
          confirmRounds: config.confirm ? rounds : 0,
        },
        timeLimitMs: microLimitMs,
        runnerPath: options.runnerPath,
        log: options.log,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        now,
      });
      if (micro.limited) options.log(`the time limit cut the micro-benchmarks to ${micro.rounds} of ${micro.plannedRounds} rounds`);
    }
    let http: HttpMeasurement | undefined;
    if (config.http.length) {
      options.log(
        `http load tests: ${config.http.map((b) => b.name).join(', ')} (${config.httpMode} servers${config.httpPin ? ', pinned' : ''})`,
      );
      const pinning = config.httpPin ? pinLoadGenerator(options.log) : undefined;
      // Each look at a load test uses the level of the whole run's family: the micro-benchmarks measured, every HTTP figure planned.
      const family = httpFamily + comparableMicro(micro) * looks;
      const httpVerdict = (samples: BenchmarkSamples) => analyze([samples], { ...analyzeOptions, family })[0]!.verdict;
      try {
        http = await measureHttp({
          base: tree.base,
          head: tree.head,
          benchmarks: config.http,
          mode: config.httpMode,
          // Enough rounds for each interval to reach its share of the confidence, as for micro-benchmarks.
          rounds: Math.max(rounds, minimumRounds(familyConfidence(config.confidence, family))),
          adaptive: {
            maxRounds: config.maxRounds,
            lookEvery: DEFAULTS.lookEvery,
            decided: (samples) => httpVerdict(samples) !== 'inconclusive',
            toConfirm: (samples) => config.confirm && httpVerdict(samples) === 'regression',
            confirmRounds: config.confirm ? rounds : 0,
          },
          deadline: started + config.timeLimitMs,
          probePath: options.probePath,
          socketDir,
          ...(pinning ? { serverPrefix: pinning.serverPrefix } : {}),
          log: options.log,
          ...(options.onProgress ? { onProgress: options.onProgress } : {}),
          now,
        });
      } finally {
        pinning?.release();
      }
    }
    const loadAfter = os.loadavg();
    const roundConditions = [...(micro?.conditions ?? []), ...(http?.conditions ?? [])];
    const spiked = spikedRounds(roundConditions);
    const samples = [...(micro?.benchmarks ?? []), ...(http?.benchmarks ?? [])];
    const comparisons = analyze(samples, analyzeOptions);
    let benchmarks = sortBenchmarks(
      comparisons.map((c, i) => toReportBenchmark(c, samples[i]!.http ? httpDetails(samples[i]!, c) : undefined)),
    );
    const family = familySize(samples, analyzeOptions);
    const measureEnded = now();
    const profileMode = options.profile ?? 'regressions';
    const targets: ProfileTarget[] = benchmarks
      .filter((b) => b.change && (b.verdict === 'regression' || profileMode === 'always') && profileMode !== 'never')
      .slice(0, MAX_PROFILED)
      .map((b) => ({ id: b.id, kind: b.kind, file: b.file }));
    const profileDir = path.resolve(options.cwd, options.profileDir ?? path.join('.benchgate', 'profiles'));
    if (targets.length) {
      const explanations = await explain({
        targets,
        base: tree.base,
        head: tree.head,
        http: config.http,
        dir: profileDir,
        runnerPath: options.runnerPath,
        probePath: options.probePath,
        socketDir,
        stallTimeoutMs: config.micro.taskTimeoutMs,
        log: options.log,
      });
      benchmarks = benchmarks.map((b) => (explanations.has(b.id) ? { ...b, profile: explanations.get(b.id)! } : b));
    }
    return {
      version: REPORT_VERSION,
      tool: { name: 'benchgate', version: options.toolVersion },
      verdict: runVerdict(benchmarks),
      summary: summarize(benchmarks),
      base: { ref: tree.base.ref, sha: tree.base.sha },
      head: { ref: tree.head.ref, sha: tree.head.sha, dirty: tree.head.dirty },
      benchmarks,
      run: {
        rounds: micro?.rounds ?? 0,
        plannedRounds: micro?.plannedRounds ?? 0,
        ...(micro ? { maxRounds: Math.max(config.maxRounds, micro.plannedRounds), looks, confirmRounds: micro.confirmRounds ?? 0 } : {}),
        ...(http
          ? { httpRounds: http.rounds, httpMode: config.httpMode, ...(http.confirmRounds ? { httpConfirmRounds: http.confirmRounds } : {}) }
          : {}),
        limited: Boolean(micro?.limited || http?.limited),
        isolation: config.micro.isolation,
        confidence: config.confidence,
        intervalConfidence: familyConfidence(config.confidence, family),
        timeLimitMs: config.timeLimitMs,
        measureMs: (micro?.durationMs ?? 0) + (http?.durationMs ?? 0),
        totalMs: now() - started,
        ...(targets.length
          ? {
              // The folder only when it holds a profile: an output or a line pointing at nothing would mislead.
              profile: {
                ...(benchmarks.some((b) => b.profile && 'files' in b.profile) ? { dir: profileDir } : {}),
                benchmarks: targets.length,
                durationMs: now() - measureEnded,
              },
            }
          : {}),
        conditions: {
          busy: roundConditions.map((c) => c.busy),
          spikedRounds: spiked,
          ...(spiked.length ? { note: spikeNote(roundConditions, spiked) } : {}),
        },
      },
      environment: { ...currentEnvironment(), loadAverage: { before: loadBefore, after: loadAfter } },
    };
  } finally {
    forgetSocketDir?.();
    removeSocketDir();
    tree.dispose();
  }
}

/** "the machine was much busier in rounds 3 and 7 (CPU 97%, 95% against a median of 58%)…" */
function spikeNote(conditions: RoundConditions[], spiked: number[]): string {
  const busy = conditions.map((c) => c.busy);
  const median = [...busy].sort((a, b) => a - b)[Math.floor(busy.length / 2)]!;
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  const which = spiked.length === 1 ? `round ${spiked[0]}` : `rounds ${spiked.slice(0, -1).join(', ')} and ${spiked.at(-1)}`;
  return `the machine was much busier in ${which} (CPU ${spiked.map((r) => pct(busy[r - 1]!)).join(', ')} against a median of ${pct(median)}): other jobs ran beside benchgate. Their samples still count (the intervals are robust to a few odd rounds), but a surprising verdict is worth a re-run.`;
}

/**
 * Adaptive rounds: a look after `rounds`, then every `lookEvery` rounds up to `maxRounds` (the last
 * rounds, however few, end in a look too); each look is paid for in the family.
 */
export function lookCount(rounds: number, maxRounds: number, lookEvery: number): number {
  return maxRounds > rounds ? 1 + Math.ceil((maxRounds - rounds) / lookEvery) : 1;
}

function comparableMicro(micro: Measurement | undefined): number {
  return micro ? micro.benchmarks.filter((b) => !b.error && b.logRatios.length > 0).length : 0;
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
    budget: overrides.budget ?? config.budget,
    budgets: overrides.budgets?.length
      ? [...overrides.budgets, ...config.budgets.filter((rule) => !overrides.budgets!.some((o) => o.pattern === rule.pattern))]
      : config.budgets,
    timeLimitMs: overrides.timeLimitMs ?? config.timeLimitMs,
    micro: Object.freeze({ ...config.micro, isolation: overrides.isolation ?? config.micro.isolation }),
    httpMode: overrides.httpMode ?? config.httpMode,
    httpPin: overrides.httpPin ?? config.httpPin,
  });
}

function describeFiles(base: string[], head: string[]): string {
  const all = [...new Set([...base, ...head])].sort();
  return all.map((file) => (base.includes(file) ? (head.includes(file) ? file : `${file} (base only)`) : `${file} (head only)`)).join(', ');
}
