import type { GateOptions } from './gate/options.js';
import { runGate } from './gate/run.js';
import type { CalibratedBenchmark, Calibration } from './report/calibration.js';
import { decisionRule } from './stats/decision.js';
import { resolvableChange, roundSpread } from './stats/power.js';
import { formatPercent } from './util/format.js';

/**
 * Run one revision against itself (two worktrees of the same commit) for the
 * time limit, and turn the spread of its rounds into what a compare can resolve.
 */
export async function calibrate(options: Omit<GateOptions, 'head'> & { compareRounds: number }): Promise<Calibration> {
  // A/A: an alarm here is noise, so there is nothing to explain with a profile.
  const report = await runGate({
    ...options,
    head: options.base,
    profile: 'never',
    untilTimeLimit: true,
    overrides: { ...options.overrides, rounds: 500 },
  });
  if (report.verdict === 'error' && report.benchmarks.length === 0) throw new Error(report.error ?? 'the calibration run failed');
  const measured = report.benchmarks.filter((b) => b.change);
  // What a compare of these benchmarks with compareRounds rounds (one look) reads each interval at.
  const rule = decisionRule({
    confidence: report.run?.confidence ?? 0.95,
    rounds: options.compareRounds,
    maxRounds: options.compareRounds,
    lookEvery: 1,
  });
  const level = rule.intervalLevel(measured.length);
  const benchmarks = measured.map((b): CalibratedBenchmark => {
    const logRatios = b.rounds.map((x) => Math.log1p(x));
    const spread = roundSpread(logRatios);
    const resolvable = resolvableChange(spread, options.compareRounds, level);
    return {
      id: b.id,
      kind: b.kind,
      spread,
      rounds: logRatios.length,
      resolvable,
      suggestedBudget: Math.max(0.01, Math.ceil(resolvable * 100 - 1e-9) / 100),
      budget: b.budget,
      ...(b.verdict === 'regression' || b.verdict === 'improvement'
        ? {
            warning: `identical code measured as a ${b.verdict} (${formatPercent(b.change!.estimate)}): this benchmark's measurement is biased on this machine`,
          }
        : {}),
    };
  });
  return {
    version: 1,
    kind: 'calibration',
    ref: options.base,
    sha: report.base?.sha ?? '',
    compareRounds: options.compareRounds,
    durationMs: report.run?.measureMs ?? 0,
    benchmarks,
    report,
  };
}
