import { DEFAULTS } from '../config/types.js';
import { type MicroPlan, measureMicro } from '../measure/micro/schedule.js';
import type { BenchmarkSamples, Measurement } from '../measure/types.js';
import { type Comparison, analyze } from '../stats/analyze.js';
import { roundsToConfirm } from '../stats/power.js';
import { MEASURE_DEFAULTS } from './options.js';
import { type RunContext, settled, timeHint } from './plan.js';

/**
 * The micro-benchmark rounds; every look judges with the HTTP figures counted in, as they are planned. `skip`: tasks
 * left to counts. `borrowed`: bench files new at head that base runs head's copy of (gate/files.ts).
 */
export async function measureMicroStage(
  run: RunContext,
  files: { base: string[]; head: string[] },
  skip: readonly string[] = [],
  borrowed?: readonly string[],
): Promise<Measurement> {
  const { config, plan, options } = run;
  const family = plan.familyFigures === undefined ? { otherFigures: plan.otherFigures } : { figures: plan.familyFigures };
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
    skip,
    ...(borrowed?.length ? { borrowed } : {}),
    maxProcesses: config.micro.maxProcesses,
    rounds: plan.rounds,
    minimumRounds: (benchmarks) => plan.rule.minimumRounds(plan.familyFigures ?? benchmarks + plan.otherFigures),
    // A round of several processes when a budget needs it: resolving it means catching a loss of twice the budget with 95% power.
    resolves: (id, spread, rounds, benchmarks) =>
      plan.rule.resolvable(spread, rounds, plan.familyFigures ?? benchmarks + plan.otherFigures) <= plan.analyzeOptions.budgetFor(id),
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
export function microProcesses(
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
