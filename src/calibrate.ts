import { runGate, type GateOptions } from './gate.js';
import type { Report } from './report/model.js';
import { familyConfidence } from './stats/compare.js';
import { resolvableChange, roundSpread } from './stats/power.js';

/** What `benchgate calibrate` finds for one benchmark, from an A/A run. */
export interface CalibratedBenchmark {
  id: string;
  kind: string;
  /** Robust SD of one round's ln(head/base), with identical code on both sides. */
  spread: number;
  /** Rounds the calibration ran. */
  rounds: number;
  /** What a compare with `compareRounds` rounds resolves beyond its budget with 95% power (relative). */
  resolvable: number;
  /** The smallest whole-percent budget at or above `resolvable`, 1% at least. */
  suggestedBudget: number;
  /** The budget the config gives it now. */
  budget: number;
  /** A/A must find nothing: set when it found a regression or an improvement (a biased measurement). */
  warning?: string;
}

export interface Calibration {
  version: 1;
  kind: 'calibration';
  ref: string;
  sha: string;
  compareRounds: number;
  durationMs: number;
  benchmarks: CalibratedBenchmark[];
  report: Report;
}

/**
 * Run one revision against itself (two worktrees of the same commit) for the
 * time limit, and turn the spread of its rounds into what a compare can resolve.
 */
export async function calibrate(options: Omit<GateOptions, 'head'> & { compareRounds: number }): Promise<Calibration> {
  // A/A: an alarm here is noise, so there is nothing to explain with a profile.
  const report = await runGate({ ...options, head: options.base, profile: 'never', overrides: { ...options.overrides, rounds: 500 } });
  if (report.verdict === 'error' && report.benchmarks.length === 0) throw new Error(report.error ?? 'the calibration run failed');
  const measured = report.benchmarks.filter((b) => b.change);
  const level = familyConfidence(report.run?.confidence ?? 0.95, measured.length);
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
        ? { warning: `identical code measured as a ${b.verdict} (${(b.change!.estimate * 100).toFixed(1)}%): this benchmark's measurement is biased on this machine` }
        : {}),
    };
  });
  return { version: 1, kind: 'calibration', ref: options.base, sha: report.base?.sha ?? '', compareRounds: options.compareRounds, durationMs: report.run?.measureMs ?? 0, benchmarks, report };
}
