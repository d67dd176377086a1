import type { Checkout } from '../checkout/revisions.js';
import { budgetFor } from '../config/budgets.js';
import { type Config, DEFAULTS } from '../config/types.js';
import { estimatedRoundMs, plannedFigures } from '../measure/http/schedule.js';
import type { RevisionInventory } from '../measure/micro/inventory.js';
import { taskIds } from '../measure/micro/protocol.js';
import type { AnalyzeOptions, Comparison } from '../stats/analyze.js';
import { type DecisionRule, EARLY_ROUNDS, decisionRule } from '../stats/decision.js';
import { formatDuration } from '../util/format.js';
import { type GateOptions, MEASURE_DEFAULTS } from './options.js';

/** What every stage of one run shares. */
export interface RunContext {
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
  /**
   * Budgeted figures outside the timed micro rounds: the HTTP load tests' (requests/s, requests per CPU-second, each
   * latency budget) and the micro-benchmarks counted only (micro.measures): planned, so they share the run from the start.
   */
  otherFigures: number;
  /** The micro-benchmarks measured in counts alone: in the family of every timed verdict too, final ones included. */
  countedOnly: number;
  analyzeOptions: AnalyzeOptions;
  /** The micro-benchmarks' share of the time limit: the HTTP rounds (and one load test's confirmation) are set aside first. */
  microLimitMs: number;
  /** A shard: the whole suite's budgeted figures, which every look and the final verdicts use instead of the shard's own. */
  familyFigures: number | undefined;
}
/** `countedOnly`: micro-benchmarks measured in counts alone, budgeted figures the timed looks share the run's error with. */
export function planRun(config: Config, familyFigures: number | undefined, early: boolean, countedOnly = 0): RunPlan {
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
    otherFigures: plannedFigures(config.http) + countedOnly,
    countedOnly,
    analyzeOptions: {
      rule,
      budgetFor: (id: string) => httpById.get(id)?.budget ?? budgetFor(id, config),
      latencyBudgetFor: (id: string) => httpById.get(id)?.latencyBudget ?? {},
    },
    microLimitMs: config.http.length ? Math.max(config.timeLimitMs - httpPlannedMs, config.timeLimitMs * 0.3) : config.timeLimitMs,
    familyFigures,
  };
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
export function planFirstLook(
  config: Config,
  plan: RunPlan,
  inventory: RevisionInventory[],
  files: { base: string[]; head: string[] } | undefined,
  skip: readonly string[] = [],
): FirstLookPlan {
  const mine = new Set([...(files?.base ?? []), ...(files?.head ?? [])]);
  const tasks = new Set(inventory.flatMap((side) => side.files.filter((f) => mine.has(f.file)).flatMap(taskIds)));
  for (const id of skip) tasks.delete(id);
  const figures = plan.familyFigures ?? tasks.size + plan.otherFigures;
  const processes = config.micro.isolation === 'process' ? 2 : 1;
  return {
    rounds: Math.max(plan.rounds, plan.rule.minimumRounds(figures)),
    tasks: tasks.size,
    files: mine.size,
    microRoundMs: tasks.size ? tasks.size * SHORTEST_TASK_MS + processes * PROCESS_START_MS : 0,
    httpRoundMs: config.http.reduce((sum, b) => sum + estimatedRoundMs(b), 0),
  };
}
/**
 * Before the first round: when the plan cannot reach every first look within time-limit even at its
 * shortest (micro task times shrink to fit, load tests do not), say so now, loudly, with what would fit.
 * The run goes on (a fast machine may still make it); what it leaves unmeasured fails it.
 */
export function warnIfFirstLooksCannotFit(config: Config, first: FirstLookPlan, log: (line: string) => void): void {
  const microMs = first.rounds * first.microRoundMs;
  const httpMs = first.rounds * first.httpRoundMs;
  const needs = microMs + httpMs;
  if (needs <= config.timeLimitMs) return;
  const parts = [
    ...(microMs ? [`${first.tasks} micro task(s) at their shortest, ${formatDuration(microMs)}`] : []),
    ...(httpMs ? [`${config.http.length} load test(s), ${formatDuration(httpMs)}`] : []),
  ];
  log(
    `warning: the first look needs ${first.rounds} rounds of every benchmark, at least ${formatDuration(needs)} ` +
      `of measuring (${parts.join('; ')}), but time-limit is ${formatDuration(config.timeLimitMs)}: what it ` +
      `leaves unmeasured fails the run: ${timeFix(needs, first.files + config.http.length, config.timeLimitMs)}.`,
  );
}
/**
 * What the first look needs, so the fix (more time, or more shards) can be sized: said when the time limit cut a
 * stage short, and in the note of every benchmark left unmeasured. The floor is the plan's (the configured
 * durations); a stage that measured rounds may show a slower pace, which then wins. Never a pace of no rounds.
 */
export function timeHint(
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
  return (
    `the first look needs ${measured.plannedRounds} rounds, about ${formatDuration(needs)} of measuring (${how}), ` +
    `and time-limit gave ${formatDuration(run.config.timeLimitMs)} (checkout, install and build not counted): ` +
    `${timeFix(needs, stage === 'micro' ? run.firstLook.files : run.config.http.length, run.config.timeLimitMs)}`
  );
}
/** More time, or more shards where the suite has the units to split (a shard holds whole bench files and load tests). */
function timeFix(needs: number, units: number, limitMs: number): string {
  const shards = Math.max(2, Math.ceil(needs / limitMs));
  const raise = `raise time-limit to at least ${formatDuration(needs)}`;
  return units >= shards ? `${raise}, or split the suite into ${shards} or more shards (--shard)` : raise;
}
/**
 * Whether a look ends a benchmark's first group: any verdict but `inconclusive`. At the early look a regression
 * does too (a step far beyond its budget) once every budgeted figure of it is decided there (a load test's other
 * throughput figure, its latency budgets): its confirmation is then a fresh group as large as the first, 3 rounds,
 * right after it, read as the early look reads (stats/analyze.ts), so a huge step is decided in 6 rounds. Where a
 * figure is still open, the group goes on to its planned looks, which judge every figure.
 */
export function settled(c: Comparison): boolean {
  if (c.verdict === 'inconclusive') return false;
  return !(c.verdict === 'regression' && c.openFigures && c.logRatios.length <= EARLY_ROUNDS);
}
