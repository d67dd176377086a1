import { formatBudget, formatConfidence, formatDuration } from '../util/format.js';
import { MAX_PROCESSES_PER_ROUND, type Config, type LatencyStat } from './types.js';

/**
 * The gate's policy: what decides pass or fail, as opposed to what is measured. A pull request edits
 * benchgate.yml like any file, so in the action the policy comes from the base revision's config (the
 * branch the pull request wants to merge into), and the pull request's own changes to it are shown,
 * applying once merged. What is measured (bench files, load tests, install and build) stays the head's:
 * it is the code under test.
 */
export type PolicySource = 'base' | 'head';

/** One setting the pull request changes: "budget 5% → 99%". */
export interface PolicyChange {
  setting: string;
  base: string;
  head: string;
}

/** Where the run's policy came from, and what the pull request changes in it. */
export interface PolicyInfo {
  from: PolicySource;
  changes: PolicyChange[];
}

/** The policy settings as people read them, by name, for a diff. */
function policyOf(config: Config): Map<string, string> {
  const settings = new Map<string, string>([
    ['budget', formatBudget(config.budget)],
    ['confidence', formatConfidence(config.confidence)],
    ['rounds', config.rounds === undefined ? 'default' : String(config.rounds)],
    ['max-rounds', String(config.maxRounds)],
    ['confirm', String(config.confirm)],
    ['time-limit', formatDuration(config.timeLimitMs)],
    ['micro.task-time', formatDuration(config.micro.taskTimeMs)],
    ['micro.processes', config.micro.maxProcesses === MAX_PROCESSES_PER_ROUND ? 'auto' : String(config.micro.maxProcesses)],
    ['micro.measure', config.micro.measure],
    ['micro.gate', config.micro.gate],
    ['micro.seeds', String(config.micro.seeds)],
    ['micro.count', config.micro.count],
  ]);
  for (const rule of config.budgets) settings.set(`budgets["${rule.pattern}"]`, formatBudget(rule.budget));
  for (const rule of config.micro.measures) settings.set(`micro.measures["${rule.pattern}"]`, rule.measure);
  for (const test of config.http) {
    if (test.budget !== undefined) settings.set(`http "${test.name}" budget`, formatBudget(test.budget));
    if (test.measure !== 'time') settings.set(`http "${test.name}" measure`, test.measure);
    for (const [stat, budget] of Object.entries(test.latencyBudget) as [LatencyStat, number][])
      settings.set(`http "${test.name}" latency-budget ${stat}`, formatBudget(budget));
  }
  return settings;
}

/** Every policy setting whose value differs between base's config and head's ("none" where one side has no such setting). */
export function policyChanges(base: Config, head: Config): PolicyChange[] {
  const [before, after] = [policyOf(base), policyOf(head)];
  return [...new Set([...before.keys(), ...after.keys()])]
    .filter((setting) => before.get(setting) !== after.get(setting))
    .map((setting) => ({ setting, base: before.get(setting) ?? 'none', head: after.get(setting) ?? 'none' }));
}

/**
 * Head's config with base's policy: budgets, latency budgets, confidence, rounds, max-rounds, confirm,
 * time-limit, task time, processes per round, what micro-benchmarks are measured in (time or counts) and counts' seeds
 * from base; bench files, load tests, install and build from head. A load test
 * new at head gets base's budgets (its patterns, or the global budget) and no latency budget.
 */
export function withPolicyOf(head: Config, base: Config): Config {
  const baseTests = new Map(base.http.map((test) => [test.id, test]));
  return Object.freeze({
    ...head,
    budget: base.budget,
    budgets: base.budgets,
    confidence: base.confidence,
    rounds: base.rounds,
    maxRounds: base.maxRounds,
    confirm: base.confirm,
    timeLimitMs: base.timeLimitMs,
    micro: Object.freeze({
      ...head.micro,
      taskTimeMs: base.micro.taskTimeMs,
      maxProcesses: base.micro.maxProcesses,
      // What the gate measures in, and how many processes a count has: a pull request must not loosen them.
      measure: base.micro.measure,
      measures: base.micro.measures,
      gate: base.micro.gate,
      seeds: base.micro.seeds,
      count: base.micro.count,
    }),
    http: head.http.map((test) =>
      Object.freeze({
        ...test,
        budget: baseTests.get(test.id)?.budget,
        latencyBudget: baseTests.get(test.id)?.latencyBudget ?? {},
        // Counted or timed as base says: a load test new at head is timed, as the default.
        measure: baseTests.get(test.id)?.measure ?? 'time',
      }),
    ),
  });
}
