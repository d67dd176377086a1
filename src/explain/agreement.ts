/**
 * Whether a benchmark's profiles agree with what its rounds measured. The profile is one process per revision
 * (or one for both), the verdict many: a profile can read a change the rounds did not (a process at another
 * speed level, a collection that fell on one side). Where they disagree, the report says so and why, so a
 * "CPU per call went down" never sits silently under a regression.
 */
import { sampleStandardDeviation } from 'simple-statistics';

/** What the rounds measured of a benchmark's cost per operation (time a call, or CPU a request). */
export interface MeasuredCost {
  /** Cost per operation, in µs. */
  baseUs: number;
  headUs: number;
  /** Relative change of the cost per operation, head against base, with the verdict's interval. */
  change: { estimate: number; low: number; high: number };
  /** Per-round relative changes of the cost per operation: how far one process's change strays from the rounds'. */
  rounds: number[];
}

/** What the profiles read of each revision's cost per operation (ProfileExplanation's figures). */
export interface ProfiledCost {
  perOpUs: { base: number; head: number };
  /** Absent from profiles made before these were kept: then no agreement is judged. */
  gcPerOpUs?: { base: number; head: number } | undefined;
  samples?: { base: number; head: number } | undefined;
}

/** Why a profile reads another change than the rounds. Codes, so an uploaded report cannot turn them into text. */
export type DisagreementReason =
  /** Without the garbage collector's time, the profile reads what the rounds read: a collection fell on one side. */
  | 'gc'
  /** Each profiled revision ran at its own speed against the rounds (the profile's cost over the measured one differs). */
  | 'level';

export interface Agreement {
  /** The profile's relative change of cost per operation, head against base. */
  profileChange: number;
  /** The same without the garbage collector's time. */
  profileChangeWithoutGc: number;
  /** The measured change of cost per operation and its interval. */
  measured: MeasuredCost['change'];
  /** How far the profile may stray from the measured interval (on the log scale) and still agree: noise and method. */
  allowance: number;
  /** Each revision's profiled cost per operation over its measured cost (the profiler's overhead and the process's level). */
  factor: { base: number; head: number };
  agrees: boolean;
  /** Disagreeing: in direction (the profile reads a gain where the rounds read a loss, or the reverse), or in size. */
  disagrees?: 'direction' | 'size';
  reason?: DisagreementReason;
}

/**
 * The profile's own method: it runs its own loop (batches of about 1 ms) under a sampling profiler, where the
 * rounds run tinybench's blocks unprofiled. On the fixtures that alone put a profile up to 7% off an unchanged
 * task's rounds (+7.4% against -0.1%) and a 5.4× loss read 4.0×: a quarter of the change, or 10%, apart is the
 * method's. The contradictions lie far beyond it (+86% profiled against +8% measured, or -44% against +9%).
 */
const METHOD_FLOOR = 0.1;
const METHOD_SHARE = 0.25;

/**
 * A profile agrees when its change of cost per operation lies within the measured interval, widened by what one
 * process's change strays from the rounds' (their per-round spread) and the profile's sampling error (about
 * 1/√samples per revision), both at two standard deviations, and by the method's part (above); all on the log scale.
 */
export function agreement(profile: ProfiledCost, measured: MeasuredCost): Agreement | undefined {
  const { perOpUs, gcPerOpUs, samples } = profile;
  if (!gcPerOpUs || !samples) return undefined;
  if (!(perOpUs.base > 0 && perOpUs.head > 0 && measured.baseUs > 0 && measured.headUs > 0)) return undefined;
  if (!(samples.base > 0 && samples.head > 0)) return undefined;
  const logRounds = measured.rounds.filter((r) => r > -1).map((r) => Math.log1p(r));
  const spread = logRounds.length >= 3 ? sampleStandardDeviation(logRounds) : 0;
  const sampling = Math.sqrt(1 / samples.base + 1 / samples.head);
  const method = Math.max(METHOD_FLOOR, METHOD_SHARE * Math.abs(Math.log1p(measured.change.estimate)));
  const allowance = 2 * Math.hypot(spread, sampling) + method;
  const low = Math.log1p(measured.change.low) - allowance;
  const high = Math.log1p(measured.change.high) + allowance;
  const within = (change: number) => Math.log1p(change) >= low && Math.log1p(change) <= high;
  const profileChange = perOpUs.head / perOpUs.base - 1;
  const withoutGc = (side: 'base' | 'head') => Math.max(perOpUs[side] - gcPerOpUs[side], 1e-9);
  const profileChangeWithoutGc = withoutGc('head') / withoutGc('base') - 1;
  const factor = { base: perOpUs.base / measured.baseUs, head: perOpUs.head / measured.headUs };
  const agrees = within(profileChange);
  const result: Agreement = { profileChange, profileChangeWithoutGc, measured: measured.change, allowance, factor, agrees };
  if (agrees) return result;
  // The rounds' interval excludes no change (they know the direction), and the profile reads the other one.
  const decided = measured.change.low > 0 || measured.change.high < 0;
  const opposite = decided && Math.sign(profileChange) !== Math.sign(measured.change.estimate);
  return { ...result, disagrees: opposite ? 'direction' : 'size', reason: within(profileChangeWithoutGc) ? 'gc' : 'level' };
}
