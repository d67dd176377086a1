import { budgetFor } from './config/budgets.js';
import { CONFIG_FILE, loadConfig, parseConfig } from './config/load.js';
import { policyChanges, withPolicyOf, type PolicyInfo, type PolicySource } from './config/policy.js';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEFAULTS, type BudgetRule, type Config, type HttpMode, type Isolation, type ProfileMode } from './config/types.js';
import { checkout, workingTree, type Checkout } from './checkout/revisions.js';
import type { Installs } from './checkout/reuse.js';
import { configHash } from './config/hash.js';
import { discoverBenchFiles, exactFile } from './measure/micro/discover.js';
import { assertInstalled, loadInventory, type RevisionInventory } from './measure/micro/inventory.js';
import { planSuite, type FileCensus, type ShardSpec } from './measure/shard.js';
import type { MeasureSettings } from './measure/micro/protocol.js';
import { measureMicro, type MicroPlan } from './measure/micro/schedule.js';
import type { SoloCheckInfo } from './report/solo.js';
import { judgedWithSolo } from './report/solo-verdict.js';
import { processLevels } from './stats/solo.js';
import { pinLoadGenerator } from './measure/http/pinning.js';
import { cpuReadable } from './measure/http/cpu.js';
import { probeInstructions } from './measure/http/instructions.js';
import { estimatedRoundMs, measureHttp, plannedFigures, type HttpMeasurement } from './measure/http/schedule.js';
import { spikedRounds, type RoundConditions } from './measure/conditions.js';
import type { BenchmarkSamples, Measurement, MeasureProgress } from './measure/types.js';
import { httpDetails } from './report/http.js';
import type { Listing } from './report/listing.js';
import { roundsToConfirm } from './stats/power.js';
import { analyze, budgetedFigures, type AnalyzeOptions, type Comparison } from './stats/analyze.js';
import { decisionRule, EARLY_ROUNDS, type DecisionRule } from './stats/decision.js';
import { decideFamily } from './stats/family.js';
import { currentEnvironment } from './report/environment.js';
import {
  REPORT_VERSION,
  runVerdict,
  sortBenchmarks,
  summarize,
  toReportBenchmark,
  type Report,
  type ReportBenchmark,
  type ShardInfo,
  withAnswer,
} from './report/model.js';
import { describeFailure, messageOf, UserError } from './util/errors.js';
import { allowChildVariables, killStrays } from './util/processes.js';
import { agreement, type MeasuredCost } from './explain/agreement.js';
import { explain, type Explanation, type ProfileTarget } from './explain/run.js';
import { formatDuration, formatShare } from './util/format.js';
import { NATIVE_RUN_TIMEOUT_MS, nativeRunLimits, nativeTargets, runNativeCheck } from './measure/native/check.js';
import { nativeEntries, type NativeCheckInfo } from './report/native.js';

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
    installTimeoutMs?: number | undefined;
    isolation?: Isolation | undefined;
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

/**
 * The whole gate: config → checkout → measure → statistics → explanations → report model.
 * Entry points (CLI, action) call this and render the report their own way.
 */
export async function runGate(options: GateOptions): Promise<Report> {
  const now = options.now ?? Date.now;
  const begun = now();
  const own = loadConfig({ root: options.cwd, file: options.configFile });
  const setup = withOverrides(own, options.overrides);
  allowChildVariables({ trusted: options.childEnv, fromConfig: setup.env });
  const tree = await checkout({
    cwd: options.cwd,
    base: options.base,
    head: options.head,
    install: setup.install,
    build: setup.build,
    commandTimeoutMs: setup.installTimeoutMs,
    installs: options.installs,
    log: options.log,
    onCleanup: options.onCleanup,
  });
  const socketDir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-sock-'));
  const removeSocketDir = () => rmSync(socketDir, { recursive: true, force: true });
  // A signal ends the process without running `finally`: the trap removes the folder (and the worktrees) then.
  const forgetSocketDir = options.onCleanup?.(removeSocketDir);
  const loadBefore = os.loadavg();
  try {
    const { config, policy } = choosePolicy(own, tree, options);
    const found = await findBenchFiles({ config, tree, options });
    const inventory = found ? await checkBenchFiles({ config, tree, options }, found) : [];
    const part = options.shard
      ? planShard(options.shard, { config, tree, options }, found, inventory)
      : { config, files: found, shard: undefined };
    // calibrate measures every benchmark to the time limit: nothing is decided early there.
    const plan = planRun(part.config, part.shard?.familySize, !options.untilTimeLimit);
    const firstLook = planFirstLook(part.config, plan, inventory, part.files);
    if (!options.untilTimeLimit) warnIfFirstLooksCannotFit(part.config, firstLook, options.log);
    const run: RunContext = {
      config: part.config,
      tree,
      options,
      plan,
      firstLook,
      socketDir,
      // time-limit bounds measuring only: checkout, install, build and the check of the bench files are behind us.
      started: now(),
      begun,
      now,
    };
    const files = part.files;
    const micro = files ? await measureMicroStage(run, files) : undefined;
    const http = run.config.http.length ? await measureHttpStage(run, micro) : undefined;
    const judged = judge(run, micro, http);
    const measureEnded = now();
    const explained = await explainStage(run, judged.benchmarks, micro, http);
    const native = options.nativeCheck && files ? await nativeStage(run, files, inventory, explained.benchmarks) : undefined;
    const checked = native?.benchmarks ?? explained.benchmarks;
    const solo = options.soloCheck && files ? await soloStage(run, files, checked, options.soloCheck.processes) : undefined;
    const benchmarks = (solo?.benchmarks ?? checked).map(withAnswer);
    return {
      version: REPORT_VERSION,
      tool: { name: 'benchgate', version: options.toolVersion },
      verdict: runVerdict(benchmarks),
      summary: summarize(benchmarks),
      base: { ref: tree.base.ref, sha: tree.base.sha },
      head: { ref: tree.head.ref, sha: tree.head.sha, dirty: tree.head.dirty },
      benchmarks,
      run: runInfo(run, micro, http, judged, explained.profile && { ...explained.profile, durationMs: now() - measureEnded }),
      environment: { ...currentEnvironment(), loadAverage: { before: loadBefore, after: os.loadavg() } },
      ...(part.shard ? { shard: part.shard } : {}),
      ...(policy ? { policy } : {}),
      ...(native ? { nativeCheck: native.info } : {}),
      ...(solo ? { soloCheck: solo.info } : {}),
    };
  } finally {
    // What the pull request's code detached from its process group (a daemon, a setsid) goes with the run.
    killStrays();
    forgetSocketDir?.();
    removeSocketDir();
    tree.dispose();
  }
}

/**
 * The run's policy (what decides pass or fail): base's config in the action by default, the working tree's
 * in the CLI (GateOptions.policy); what is measured stays the working tree's either way. The settings the
 * change makes different from base's are listed whichever applies, so a pull request that loosens its own
 * gate says so in the comment.
 */
function choosePolicy(own: Config, tree: Checkout, options: GateOptions): { config: Config; policy: PolicyInfo | undefined } {
  const file = path.relative(options.cwd, path.resolve(options.cwd, options.configFile ?? CONFIG_FILE));
  const atBase = path.join(tree.base.root, file);
  // A config outside the repository (bisect's recipe: a config kept beside it) is the same file for both revisions.
  const outside = tree.base.worktree !== undefined && path.relative(tree.base.worktree, atBase).startsWith('..');
  // No config at base (the pull request adds benchgate.yml): base's policy is the defaults.
  const base = outside ? own : existsSync(atBase) ? loadConfig({ root: tree.base.root, file }) : parseConfig('', atBase);
  const from = options.policy ?? 'head';
  const changes = policyChanges(base, own);
  const config = withOverrides(from === 'base' ? withPolicyOf(own, base) : own, options.overrides);
  if (changes.length)
    options.log(
      `policy changes at head: ${changes.map((c) => `${c.setting} ${c.base} → ${c.head}`).join(', ')}; ${from === 'base' ? "this run uses base's (they apply once merged)" : 'this run uses them'}`,
    );
  return { config, policy: changes.length || from === 'base' ? { from, changes } : undefined };
}

/** What every stage of one run shares. */
interface RunContext {
  config: Config;
  tree: Checkout;
  options: GateOptions;
  plan: RunPlan;
  /** What the first look needs, from the configured durations: the floor of every "raise time-limit" message. */
  firstLook: FirstLookPlan;
  socketDir: string;
  /** When measuring began: the time limit counts from here. */
  started: number;
  /** When the run began (config, checkout, install, build): the run's total time counts from here. */
  begun: number;
  now: () => number;
}

/** The run's decision rule and how it judges, planned from the config before anything is measured. */
interface RunPlan {
  rule: DecisionRule;
  /** Rounds before the first look. */
  rounds: number;
  /** Budgeted figures of the HTTP load tests (requests/s, requests per CPU-second, each latency budget): planned, so they share the run from the start. */
  httpFigures: number;
  analyzeOptions: AnalyzeOptions;
  /** The micro-benchmarks' share of the time limit: the HTTP rounds (and one load test's confirmation) are set aside first. */
  microLimitMs: number;
  /** A shard: the whole suite's budgeted figures, which every look and the final verdicts use instead of the shard's own. */
  familyFigures: number | undefined;
}

function planRun(config: Config, familyFigures: number | undefined, early: boolean): RunPlan {
  const rounds = config.rounds ?? 10;
  const rule = decisionRule({ confidence: config.confidence, rounds, maxRounds: config.maxRounds, lookEvery: DEFAULTS.lookEvery, early });
  const httpById = new Map(config.http.map((b) => [b.id, b]));
  // HTTP rounds are long and fixed in length; with confirm, a regression found there must be able to reproduce.
  const httpPlannedMs =
    config.http.reduce((sum, b) => sum + rounds * estimatedRoundMs(b), 0) +
    (config.confirm && config.http.length ? rounds * Math.max(...config.http.map(estimatedRoundMs)) : 0);
  return {
    rule,
    rounds,
    httpFigures: plannedFigures(config.http),
    analyzeOptions: {
      rule,
      budgetFor: (id: string) => httpById.get(id)?.budget ?? budgetFor(id, config),
      latencyBudgetFor: (id: string) => httpById.get(id)?.latencyBudget ?? {},
    },
    microLimitMs: config.http.length ? Math.max(config.timeLimitMs - httpPlannedMs, config.timeLimitMs * 0.3) : config.timeLimitMs,
    familyFigures,
  };
}

/**
 * A sharded run: a census of the whole suite (every bench file loaded once per revision, no task
 * run), the split that every shard plans alike from it, and this shard's part: its bench files and
 * its load tests. The config keeps only this shard's load tests; the family stays the whole suite's.
 */
function planShard(
  spec: ShardSpec,
  { config, options }: Pick<RunContext, 'config' | 'tree' | 'options'>,
  files: { base: string[]; head: string[] } | undefined,
  inventory: RevisionInventory[],
): { config: Config; files: { base: string[]; head: string[] } | undefined; shard: ShardInfo } {
  const census = censusOf(files, inventory);
  const suite = planSuite(
    census,
    config.http,
    { taskTimeMs: config.micro.taskTimeMs, httpRoundMs: estimatedRoundMs, httpFigures: plannedFigures },
    spec.count,
  );
  const assigned = suite.shards[spec.index - 1]!;
  const mine = new Set(assigned);
  options.log(
    `shard ${spec.index}/${spec.count}: ${assigned.length ? assigned.join(', ') : 'nothing (more shards than bench files and load tests)'}; judged as a family of ${suite.familySize} budgeted figures, the whole suite's`,
  );
  const own = files && { base: files.base.filter((f) => mine.has(f)), head: files.head.filter((f) => mine.has(f)) };
  return {
    config: Object.freeze({ ...config, http: config.http.filter((b) => mine.has(b.id)) }),
    files: own && (own.base.length > 0 || own.head.length > 0) ? own : undefined,
    shard: {
      index: spec.index,
      count: spec.count,
      assigned,
      suite: suite.units,
      familySize: suite.familySize,
      configHash: configHash(config),
    },
  };
}

/** Which tasks every bench file declares at each revision (undefined where it did not load): what a shard splits. */
function censusOf(files: { base: string[]; head: string[] } | undefined, inventory: RevisionInventory[]): FileCensus[] {
  if (!files) return [];
  const tasksAt = (label: string) =>
    new Map(
      inventory
        .filter((side) => side.revision.label === label)
        .flatMap((side) => side.files.map((f) => [f.file, f.error ? undefined : f.tasks])),
    );
  const [base, head] = [tasksAt('base'), tasksAt('head')];
  return [...new Set([...files.base, ...files.head])].sort().map((file) => ({ file, base: base.get(file), head: head.get(file) }));
}

/** Each revision's bench files; undefined when neither has any (HTTP only), an error when there is nothing to measure at all. */
async function findBenchFiles({
  config,
  tree,
  options,
}: Pick<RunContext, 'config' | 'tree' | 'options'>): Promise<{ base: string[]; head: string[] } | undefined> {
  const [base, head] = await Promise.all([tree.base, tree.head].map((revision) => discoverBenchFiles(revision.root, config.micro.files)));
  if (base!.length > 0 || head!.length > 0) {
    options.log(`bench files: ${describeFiles(base!, head!)}`);
    return { base: base!, head: head! };
  }
  if (config.http.length === 0) {
    throw new UserError(
      `No bench files match ${config.micro.files.join(', ')} in base or head, and benchgate.yml declares no http load tests. Add a bench file (see the README's quick start), set micro.files, or declare http benchmarks.`,
    );
  }
  return undefined;
}

/**
 * Load each revision's bench files once before measuring (a second or two): a revision that is
 * not installed stops the run here with the package and the command, not after rounds of import
 * errors; and the log says which harness (and which copy of it) each revision's files use.
 */
async function checkBenchFiles(
  run: Pick<RunContext, 'config' | 'tree' | 'options'>,
  files: { base: string[]; head: string[] },
): Promise<RevisionInventory[]> {
  const { tree, config, options } = run;
  const inventory = await loadInventory(
    [
      { revision: tree.base, files: files.base },
      { revision: tree.head, files: files.head },
    ],
    { runnerPath: options.runnerPath, stallTimeoutMs: config.micro.taskTimeoutMs },
  );
  assertInstalled(inventory, config.install);
  for (const { revision, files: loads } of inventory) {
    const copies = [
      ...new Set(loads.flatMap((load) => load.harnesses?.map((h) => `${h.harness}${h.version ? ` ${h.version}` : ''}`) ?? [])),
    ];
    if (copies.length) options.log(`${revision.label} bench files use ${copies.join(', ')}`);
    for (const load of loads) for (const note of load.notes ?? []) options.log(`${revision.label}: ${load.file}: ${note}`);
  }
  return inventory;
}

/** Check out (base and head, or only the working tree without a base), install, build, and load every bench file once. */
export async function listBenchmarks(options: Omit<GateOptions, 'base' | 'probePath'> & { base?: string | undefined }): Promise<Listing> {
  const config = withOverrides(loadConfig({ root: options.cwd, file: options.configFile }), options.overrides);
  allowChildVariables({ trusted: options.childEnv, fromConfig: config.env });
  // Neither revision named: the working tree as it is, with nothing checked out.
  const tree =
    options.base === undefined && options.head === undefined
      ? { base: undefined, head: await workingTree(options.cwd), dispose: () => undefined }
      : await checkout({
          cwd: options.cwd,
          // Only --head: it is checked out, installed and built like any revision (its twin at base goes unused).
          base: options.base ?? options.head!,
          head: options.head,
          install: config.install,
          build: config.build,
          installs: options.installs,
          log: options.log,
          onCleanup: options.onCleanup,
        });
  try {
    const revisions = options.base === undefined || !tree.base ? [tree.head] : [tree.base, tree.head];
    const inventory = await loadInventory(
      await Promise.all(
        revisions.map(async (revision) => ({ revision, files: await discoverBenchFiles(revision.root, config.micro.files) })),
      ),
      { runnerPath: options.runnerPath, stallTimeoutMs: config.micro.taskTimeoutMs },
    );
    return {
      revisions: inventory.map(({ revision, files }) => ({
        label: revision.label,
        ref: revision.ref,
        sha: revision.sha,
        root: revision.root,
        files,
      })),
    };
  } finally {
    killStrays();
    tree.dispose();
  }
}

/**
 * Whether a look ends a benchmark's first group: any verdict but `inconclusive`. At the early look a regression
 * does too (a step far beyond its budget) once every budgeted figure of it is decided there (a load test's other
 * throughput figure, its latency budgets): its confirmation is then a fresh group as large as the first, 3 rounds,
 * right after it, read as the early look reads (stats/analyze.ts), so a huge step is decided in 6 rounds. Where a
 * figure is still open, the group goes on to its planned looks, which judge every figure.
 */
function settled(c: Comparison): boolean {
  if (c.verdict === 'inconclusive') return false;
  return !(c.verdict === 'regression' && c.openFigures && c.logRatios.length <= EARLY_ROUNDS);
}

/** The micro-benchmark rounds; every look judges with the HTTP figures counted in, as they are planned. */
async function measureMicroStage(run: RunContext, files: { base: string[]; head: string[] }): Promise<Measurement> {
  const { config, plan, options } = run;
  const family = plan.familyFigures === undefined ? { otherFigures: plan.httpFigures } : { figures: plan.familyFigures };
  const verdicts = (partial: BenchmarkSamples[]) => analyze(partial, { ...plan.analyzeOptions, ...family });
  const ids = (partial: BenchmarkSamples[], keep: (c: Comparison) => boolean) =>
    new Set(
      verdicts(partial)
        .filter(keep)
        .map((c) => c.id),
    );
  const micro = await measureMicro({
    ...microProcesses(run, files),
    isolation: config.micro.isolation,
    maxProcesses: config.micro.maxProcesses,
    rounds: plan.rounds,
    minimumRounds: (benchmarks) => plan.rule.minimumRounds(plan.familyFigures ?? benchmarks + plan.httpFigures),
    // A round of several processes when a budget needs it: resolving it means catching a loss of twice the budget with 95% power.
    resolves: (id, spread, rounds, benchmarks) =>
      plan.rule.resolvable(spread, rounds, plan.familyFigures ?? benchmarks + plan.httpFigures) <= plan.analyzeOptions.budgetFor(id),
    adaptive: {
      maxRounds: config.maxRounds,
      lookEvery: DEFAULTS.lookEvery,
      decided: (partial) => ids(partial, settled),
      toConfirm: (partial) => (config.confirm ? ids(partial, (c) => c.verdict === 'regression') : new Set()),
      confirmRounds: config.confirm ? plan.rounds : 0,
      // A micro-benchmark has one figure: the one its regression failed on.
      confirmSize: (samples, full) =>
        roundsToConfirm(samples.logRatios, plan.analyzeOptions.budgetFor(samples.id), plan.rule.confirmationLevel, full),
      earlyLook: plan.rule.earlyRounds,
    },
    timeLimitMs: plan.microLimitMs,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  if (micro.limited)
    options.log(
      `the time limit cut the micro-benchmarks to ${micro.rounds} of ${micro.plannedRounds} rounds: ${timeHint('micro', micro, run)}`,
    );
  return micro;
}

/** What every measuring of micro-benchmarks in this run shares: the checkouts, the bench files, the runner and its settings. */
function microProcesses(
  run: RunContext,
  files: { base: string[]; head: string[] },
): Pick<MicroPlan, 'base' | 'head' | 'baseFiles' | 'headFiles' | 'settings' | 'stallTimeoutMs' | 'runnerPath' | 'log' | 'now'> {
  const { config, options } = run;
  return {
    base: run.tree.base,
    head: run.tree.head,
    baseFiles: files.base,
    headFiles: files.head,
    settings: { ...MEASURE_DEFAULTS, taskTimeMs: config.micro.taskTimeMs },
    stallTimeoutMs: config.micro.taskTimeoutMs,
    runnerPath: options.runnerPath,
    log: options.log,
    now: run.now,
  };
}

/**
 * What the first look needs, so the fix (more time, or more shards) can be sized: said when the time limit cut a
 * stage short, and in the note of every benchmark left unmeasured. The floor is the plan's (the configured
 * durations); a stage that measured rounds may show a slower pace, which then wins. Never a pace of no rounds.
 */
function timeHint(
  stage: 'micro' | 'http',
  measured: { durationMs: number; rounds: number; plannedRounds: number },
  run: RunContext,
): string {
  const perRound = stage === 'micro' ? run.firstLook.microRoundMs : run.firstLook.httpRoundMs;
  const planned = perRound * measured.plannedRounds;
  const paced = measured.rounds > 0 ? (measured.durationMs / measured.rounds) * measured.plannedRounds : 0;
  const needs = Math.max(planned, paced);
  const how =
    paced > planned
      ? `at this run's pace of ${formatDuration(measured.durationMs / measured.rounds)} a round`
      : 'from the configured durations';
  return `the first look needs ${measured.plannedRounds} rounds, about ${formatDuration(needs)} of measuring (${how}), and time-limit gave ${formatDuration(run.config.timeLimitMs)} (checkout, install and build not counted): ${timeFix(needs, stage === 'micro' ? run.firstLook.files : run.config.http.length, run.config.timeLimitMs)}`;
}

/** More time, or more shards where the suite has the units to split (a shard holds whole bench files and load tests). */
function timeFix(needs: number, units: number, limitMs: number): string {
  const shards = Math.max(2, Math.ceil(needs / limitMs));
  const raise = `raise time-limit to at least ${formatDuration(needs)}`;
  return units >= shards ? `${raise}, or split the suite into ${shards} or more shards (--shard)` : raise;
}

/** The shortest round a micro task can have: the runner's warm-up and fewest blocks at both revisions. */
const SHORTEST_TASK_MS = (MEASURE_DEFAULTS.warmupBlocks + MEASURE_DEFAULTS.minBlocks) * MEASURE_DEFAULTS.blockMs * 2;
/** A benchmark process's start and its bench files' load, at the least (measured: 0.1–0.5 s on a 2-core machine). */
const PROCESS_START_MS = 150;

/** What the first look needs at the least, from the configured durations, before anything is measured. */
interface FirstLookPlan {
  /** Rounds before every benchmark's first look. */
  rounds: number;
  /** Micro tasks of this run (both revisions' files, each task once). */
  tasks: number;
  /** Bench files of this run: what shards split the micro-benchmarks by. */
  files: number;
  /** One micro round at its shortest (task times shrink to fit; process starts do not). */
  microRoundMs: number;
  /** One round of every load test (their durations are fixed). */
  httpRoundMs: number;
}

function planFirstLook(
  config: Config,
  plan: RunPlan,
  inventory: RevisionInventory[],
  files: { base: string[]; head: string[] } | undefined,
): FirstLookPlan {
  const mine = new Set([...(files?.base ?? []), ...(files?.head ?? [])]);
  const tasks = new Set(
    inventory.flatMap((side) => side.files.filter((f) => mine.has(f.file)).flatMap((f) => (f.tasks ?? []).map((t) => `${f.file}\0${t}`))),
  ).size;
  const figures = plan.familyFigures ?? tasks + plan.httpFigures;
  const processes = config.micro.isolation === 'process' ? 2 : 1;
  return {
    rounds: Math.max(plan.rounds, plan.rule.minimumRounds(figures)),
    tasks,
    files: mine.size,
    microRoundMs: tasks ? tasks * SHORTEST_TASK_MS + processes * PROCESS_START_MS : 0,
    httpRoundMs: config.http.reduce((sum, b) => sum + estimatedRoundMs(b), 0),
  };
}

/**
 * Before the first round: when the plan cannot reach every first look within time-limit even at its
 * shortest (micro task times shrink to fit, load tests do not), say so now, loudly, with what would fit.
 * The run goes on (a fast machine may still make it); what it leaves unmeasured fails it.
 */
function warnIfFirstLooksCannotFit(config: Config, first: FirstLookPlan, log: (line: string) => void): void {
  const microMs = first.rounds * first.microRoundMs;
  const httpMs = first.rounds * first.httpRoundMs;
  const needs = microMs + httpMs;
  if (needs <= config.timeLimitMs) return;
  const parts = [
    ...(microMs ? [`${first.tasks} micro task(s) at their shortest, ${formatDuration(microMs)}`] : []),
    ...(httpMs ? [`${config.http.length} load test(s), ${formatDuration(httpMs)}`] : []),
  ];
  log(
    `warning: the first look needs ${first.rounds} rounds of every benchmark, at least ${formatDuration(needs)} of measuring (${parts.join('; ')}), but time-limit is ${formatDuration(config.timeLimitMs)}: what it leaves unmeasured fails the run: ${timeFix(needs, first.files + config.http.length, config.timeLimitMs)}.`,
  );
}

/** The HTTP load tests, after the micro-benchmarks: each look uses the whole run's figures (micro measured, HTTP planned). */
async function measureHttpStage(run: RunContext, micro: Measurement | undefined): Promise<HttpMeasurement> {
  const { config, plan, options } = run;
  const figures = plan.familyFigures ?? plan.httpFigures + comparableMicro(micro);
  const judged = (samples: BenchmarkSamples) => analyze([samples], { ...plan.analyzeOptions, figures })[0]!;
  const pinning = config.httpPin ? pinLoadGenerator(options.log, config.httpMode === 'duet') : undefined;
  // A duet needs both servers on one core of their own: without pinning, they would not share one speed.
  const mode: HttpMode = config.httpMode === 'duet' && pinning?.sharedCpu === undefined ? 'live' : config.httpMode;
  if (mode !== config.httpMode)
    options.log(
      `http-mode duet needs the servers pinned to one core of their own (http-pin: true, taskset, 2+ cores): ${config.httpPin ? 'pinning is not available here' : 'http-pin is false'}, so the load tests alternate (live)`,
    );
  options.log(`http load tests: ${config.http.map((b) => b.name).join(', ')} (${mode} servers${pinning ? ', pinned' : ''})`);
  // Hardware instruction counts where the machine has them (reported beside CPU per request, not gated).
  const instructions = cpuReadable() ? probeInstructions() : "the servers' CPU cannot be read here";
  options.log(
    typeof instructions === 'string'
      ? `instructions per request: not counted: ${instructions}`
      : 'instructions per request: counted with perf (hardware counters), reported beside CPU per request',
  );
  try {
    const measured = await measureHttp({
      base: run.tree.base,
      head: run.tree.head,
      benchmarks: config.http,
      mode,
      rounds: Math.max(plan.rounds, plan.rule.minimumRounds(figures)),
      adaptive: {
        maxRounds: config.maxRounds,
        lookEvery: DEFAULTS.lookEvery,
        decided: (samples) => settled(judged(samples)),
        toConfirm: (samples) => config.confirm && judged(samples).verdict === 'regression',
        confirmRounds: config.confirm ? plan.rounds : 0,
        // Sized from the throughput figures that failed (analyze's confirmFirst); a whole group where only a latency did.
        confirmSize: (samples, full) => Math.min(full, judged(samples).confirmFirst ?? full),
        earlyLook: plan.rule.earlyRounds,
      },
      deadline: run.started + config.timeLimitMs,
      probePath: options.probePath,
      socketDir: run.socketDir,
      ...(pinning ? { serverPrefix: pinning.serverPrefix } : {}),
      ...(pinning?.sharedCpu !== undefined ? { sharedCpu: pinning.sharedCpu } : {}),
      ...(typeof instructions === 'string' ? {} : { instructions }),
      log: options.log,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      now: run.now,
    });
    if (measured.limited)
      options.log(`the time limit cut the load tests short of ${measured.plannedRounds} rounds: ${timeHint('http', measured, run)}`);
    return { ...measured, mode, ...(pinning ? { cpus: pinning.split } : {}) };
  } finally {
    pinning?.release();
  }
}

/** Every measured benchmark judged once more, together: the final verdicts, at the level the whole run's figures set. */
function judge(
  run: RunContext,
  micro: Measurement | undefined,
  http: HttpMeasurement | undefined,
): { benchmarks: ReportBenchmark[]; intervalLevel: number; figures: number } {
  const { analyzeOptions, rule, familyFigures } = run.plan;
  const samples = [...(micro?.benchmarks ?? []), ...(http?.benchmarks ?? [])];
  const figures = familyFigures ?? budgetedFigures(samples, analyzeOptions.latencyBudgetFor);
  const firstLook = (benchmark: BenchmarkSamples) => {
    const measured = (benchmark.http ? http : micro) ?? { durationMs: 0, rounds: 0, plannedRounds: run.firstLook.rounds };
    return { rounds: measured.plannedRounds, hint: timeHint(benchmark.http ? 'http' : 'micro', measured, run) };
  };
  const comparisons = analyze(samples, { ...analyzeOptions, figures, firstLook });
  const benchmarks = comparisons.map((c, i) =>
    withRoundLevels(toReportBenchmark(c, samples[i]!.http ? httpDetails(samples[i]!, c) : undefined), samples[i]!),
  );
  return { benchmarks: sortBenchmarks(decideFamily(benchmarks, figures)), intervalLevel: rule.intervalLevel(figures), figures };
}

/** After the verdicts, outside the measured rounds: a CPU profile of each revision for the regressions (or all, or none). */
async function explainStage(
  run: RunContext,
  judged: ReportBenchmark[],
  micro: Measurement | undefined,
  http: HttpMeasurement | undefined,
): Promise<{ benchmarks: ReportBenchmark[]; profile?: { dir?: string; benchmarks: number } }> {
  const { options, config, tree } = run;
  const mode = options.profile ?? 'regressions';
  const targets: ProfileTarget[] = judged
    .filter((b) => b.change && (b.verdict === 'regression' || mode === 'always') && mode !== 'never')
    .slice(0, MAX_PROFILED)
    .map((b) => ({ id: b.id, kind: b.kind, file: b.file }));
  if (!targets.length) return { benchmarks: judged };
  const dir = path.resolve(options.cwd, options.profileDir ?? path.join('.benchgate', 'profiles'));
  const warmups = new Map(http?.benchmarks.map((b) => [b.id, b.http?.schedule?.warmupMs]));
  const common = {
    base: tree.base,
    head: tree.head,
    http: config.http,
    dir,
    runnerPath: options.runnerPath,
    probePath: options.probePath,
    socketDir: run.socketDir,
    stallTimeoutMs: config.micro.taskTimeoutMs,
    log: options.log,
    // Profiled as measured: both revisions in one process, unless the file was measured in isolates or processes of its own.
    shared: (file: string) => micro?.isolation === 'alternate' && !micro.isolatedFiles?.includes(file),
  };
  const explanations = await explain({ ...common, targets: targets.filter((t) => t.kind !== 'http') });
  // Load tests measured in a duet are profiled in one: both servers pinned to the shared core again (only while they
  // are: a micro profile's process would inherit the pinning), after the warm-up their rounds ran (the learned one).
  const loads = targets.filter((t) => t.kind === 'http');
  const pinning = http?.mode === 'duet' && loads.length ? pinLoadGenerator(options.log, true) : undefined;
  const duet = (id: string) => {
    const declared = config.http.find((b) => b.id === id);
    return pinning?.sharedCpu !== undefined && declared
      ? { serverPrefix: pinning.serverPrefix, warmupMs: warmups.get(id) ?? declared.warmupMs }
      : undefined;
  };
  if (loads.length)
    for (const [id, explanation] of await explain({ ...common, targets: loads, duet }).finally(() => pinning?.release()))
      explanations.set(id, explanation);
  const benchmarks = judged.map((b) => (explanations.has(b.id) ? { ...b, profile: withAgreement(explanations.get(b.id)!, b) } : b));
  // The folder only when it holds a profile: an output or a line pointing at nothing would mislead.
  return {
    benchmarks,
    profile: { ...(benchmarks.some((b) => b.profile && 'files' in b.profile) ? { dir } : {}), benchmarks: targets.length },
  };
}

/** A micro-benchmark whose rounds sat on speed levels at a revision (not a spread) says so (ReportBenchmark.levels). */
function withRoundLevels(benchmark: ReportBenchmark, samples: BenchmarkSamples): ReportBenchmark {
  if (benchmark.kind !== 'micro' || !benchmark.change) return benchmark;
  const base = processLevels(samples.base?.opsPerSec ?? []);
  const head = processLevels(samples.head?.opsPerSec ?? []);
  return base || head ? { ...benchmark, levels: { ...(base ? { base } : {}), ...(head ? { head } : {}) } } : benchmark;
}

/**
 * compare --solo-check, after the verdicts and outside the measured rounds: the compared micro-benchmarks' bench
 * files measured once more with one revision per process (pairs of fresh processes, AB BA), as production runs one
 * revision; each benchmark's solo change goes beside its shared-process one, with the speed levels its processes
 * fell on. A benchmark whose solo interval lies apart from its shared one (or whose revision sat on speed levels alone,
 * the solo estimate outside the shared interval) is judged on both (judgedWithSolo); a check that fails leaves the
 * verdicts as they are.
 */
async function soloStage(
  run: RunContext,
  files: { base: string[]; head: string[] },
  judged: ReportBenchmark[],
  processes: number,
): Promise<{ benchmarks: ReportBenchmark[]; info: SoloCheckInfo }> {
  const { options } = run;
  const started = run.now();
  const compared = new Set(judged.filter((b) => b.kind === 'micro' && b.file && b.change).map((b) => b.file!));
  const info = { processes, durationMs: 0 };
  if (!compared.size) return { benchmarks: judged, info };
  options.log(`solo check: ${compared.size} bench file(s), each revision alone in ${processes} fresh processes (AB BA pairs)`);
  try {
    const solo = await measureMicro({
      ...microProcesses(run, {
        base: files.base.filter((file) => compared.has(file)),
        head: files.head.filter((file) => compared.has(file)),
      }),
      isolation: 'process',
      rounds: processes,
      minimumRounds: () => processes,
      // Its own time: the verdicts are in, and the check runs every pair it was asked for.
      timeLimitMs: Number.POSITIVE_INFINITY,
    });
    const byId = new Map(solo.benchmarks.map((b) => [b.id, b]));
    const benchmarks = judged.map((b) => {
      const samples = byId.get(b.id);
      return samples ? judgedWithSolo(b, samples) : b;
    });
    return { benchmarks, info: { ...info, durationMs: run.now() - started } };
  } catch (error) {
    options.log(`solo check failed (the comparison stands): ${messageOf(error)}`);
    return { benchmarks: judged, info: { ...info, durationMs: run.now() - started, error: describeFailure(error) } };
  }
}

/** A profile, with whether it agrees with what the rounds measured of its benchmark's cost per operation. */
function withAgreement(profile: Explanation, benchmark: ReportBenchmark): Explanation {
  const measured = measuredCost(benchmark);
  const agreed = 'error' in profile || !measured ? undefined : agreement(profile, measured);
  return agreed ? { ...profile, agreement: agreed } : profile;
}

/**
 * What the rounds measured of a benchmark's cost per operation: a micro task's time a call (from its calls per
 * second), an HTTP server's main-thread CPU a request (what its profile samples). The changes are of cost, so
 * the inverse of throughput's: -20% of calls per second is +25% of time a call.
 */
function measuredCost(b: ReportBenchmark): MeasuredCost | undefined {
  const cost = (throughput: number) => 1 / (1 + throughput) - 1;
  const ofCost = (c: { estimate: number; low: number; high: number }) => ({
    estimate: cost(c.estimate),
    low: cost(c.high),
    high: cost(c.low),
  });
  const rounds = (of: number[]) => of.map(cost);
  if (b.kind === 'http') {
    const cpu = b.http?.cpu;
    return cpu?.change
      ? { baseUs: cpu.base.mainUs, headUs: cpu.head.mainUs, change: ofCost(cpu.change), rounds: rounds(cpu.rounds) }
      : undefined;
  }
  if (!b.base || !b.head || !b.change) return undefined;
  // head's own median: the table's head column is base's moved by the change, which would only restate it.
  const headOps = b.head.measured ?? b.head.opsPerSec;
  return { baseUs: 1e6 / b.base.opsPerSec, headUs: 1e6 / headOps, change: ofCost(b.change), rounds: rounds(b.rounds) };
}

/**
 * compare --native-check, after the verdicts and outside the measured rounds: each bench file that holds a
 * compared benchmark runs as its author runs it, and its harness's figures go beside benchgate's. Information
 * only: whatever happens here (a run that fails or hangs, the check itself failing) leaves the verdicts as they are.
 */
async function nativeStage(
  run: RunContext,
  files: { base: string[]; head: string[] },
  inventory: RevisionInventory[],
  judged: ReportBenchmark[],
): Promise<{ benchmarks: ReportBenchmark[]; info: NativeCheckInfo }> {
  const { options, tree } = run;
  const runTimeoutMs = options.nativeCheck?.runTimeoutMs ?? NATIVE_RUN_TIMEOUT_MS;
  try {
    const compared = judged.filter((b) => b.kind === 'micro' && b.file).map((b) => b.file!);
    const targets = nativeTargets(compared, tree, files, inventory);
    options.log(
      `native check: ${targets.length} bench file(s), each run as its author runs it${options.nativeCheck!.runs ? `, ${options.nativeCheck!.runs} times per revision` : ''}, at most ${formatDuration(runTimeoutMs)} a run`,
    );
    const results = await runNativeCheck(targets, {
      observerPath: options.nativeCheck!.observerPath,
      // The gate's temp folder: removed at its end, and by the signal trap.
      tempDir: run.socketDir,
      runTimeoutMs,
      ...nativeRunLimits(options.nativeCheck!.runs),
      log: options.log,
    });
    const { byId, files: described } = nativeEntries(results, judged);
    return {
      benchmarks: judged.map((b) => (byId.has(b.id) ? { ...b, native: byId.get(b.id)! } : b)),
      info: { runTimeoutMs, files: described },
    };
  } catch (error) {
    options.log(`native check failed (the comparison stands): ${messageOf(error)}`);
    return { benchmarks: judged, info: { runTimeoutMs, files: [], error: describeFailure(error) } };
  }
}

/** How the run went: rounds, looks, levels, time, profiling, and the machine's conditions. */
function runInfo(
  run: RunContext,
  micro: Measurement | undefined,
  http: HttpMeasurement | undefined,
  judged: { intervalLevel: number; figures: number },
  profile: { dir?: string; benchmarks: number; durationMs: number } | undefined,
): NonNullable<Report['run']> {
  const { config, plan } = run;
  const conditions = [...(micro?.conditions ?? []), ...(http?.conditions ?? [])];
  const spiked = spikedRounds(conditions);
  return {
    rounds: micro?.rounds ?? 0,
    plannedRounds: micro?.plannedRounds ?? 0,
    ...(micro
      ? {
          maxRounds: Math.max(config.maxRounds, micro.plannedRounds),
          looks: plan.rule.looks,
          confirmRounds: micro.confirmRounds ?? 0,
          ...(micro.processes ? { processes: micro.processes } : {}),
        }
      : {}),
    ...(http
      ? {
          httpRounds: http.rounds,
          httpMode: http.mode ?? config.httpMode,
          ...(http.confirmRounds ? { httpConfirmRounds: http.confirmRounds } : {}),
          ...(http.cpus ? { httpCpus: http.cpus } : {}),
        }
      : {}),
    limited: Boolean(micro?.limited || http?.limited),
    isolation: config.micro.isolation,
    confidence: config.confidence,
    intervalConfidence: judged.intervalLevel,
    figures: judged.figures,
    timeLimitMs: config.timeLimitMs,
    measureMs: (micro?.durationMs ?? 0) + (http?.durationMs ?? 0),
    totalMs: run.now() - run.begun,
    ...(profile ? { profile } : {}),
    conditions: {
      busy: conditions.map((c) => c.busy),
      spikedRounds: spiked,
      ...(spiked.length ? { note: spikeNote(conditions, spiked) } : {}),
    },
  };
}

/** "the machine was much busier in rounds 3 and 7 (CPU 97%, 95% against a median of 58%)…" */
function spikeNote(conditions: RoundConditions[], spiked: number[]): string {
  const busy = conditions.map((c) => c.busy);
  const median = [...busy].sort((a, b) => a - b)[Math.floor(busy.length / 2)]!;
  const pct = (x: number) => formatShare(x, 0);
  const which = spiked.length === 1 ? `round ${spiked[0]}` : `rounds ${spiked.slice(0, -1).join(', ')} and ${spiked.at(-1)}`;
  return `the machine was much busier in ${which} (CPU ${spiked.map((r) => pct(busy[r - 1]!)).join(', ')} against a median of ${pct(median)}): other jobs ran beside benchgate. Their samples still count (the intervals are robust to a few odd rounds), but a surprising verdict is worth a re-run.`;
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
      files: overrides.only ? overrides.only.files.map(exactFile) : overrides.files?.length ? [...overrides.files] : config.micro.files,
    }),
    httpMode: overrides.httpMode ?? config.httpMode,
    httpPin: overrides.httpPin ?? config.httpPin,
  });
}

function describeFiles(base: string[], head: string[]): string {
  const all = [...new Set([...base, ...head])].sort();
  return all.map((file) => (base.includes(file) ? (head.includes(file) ? file : `${file} (base only)`) : `${file} (head only)`)).join(', ');
}
