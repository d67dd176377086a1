/**
 * The figures a harness computes itself when a bench file runs natively (`node <file>`): one JSON line per
 * task, written by the observer preloaded into the run (observer.ts) and read back here. The file is the
 * pull request's code's output, so every line is checked and capped before anything of it is used.
 */

export type NativeHarness = 'benchmark.js' | 'tinybench' | 'mitata' | 'vitest';

/** One task's result as its harness computed it in one native run. */
export interface NativeRecord {
  harness: NativeHarness;
  /** The worker thread it ran in (0: the main thread): find-my-way's layout runs each scenario in a worker. */
  thread: number;
  /** Its suites as the harness names them (a named Suite or Bench, a mitata group). */
  suites: string[];
  name: string;
  /** Operations per second, as the harness reports them (benchmark.js `hz`, tinybench `hz` or `throughput.mean`, 1e9 / mitata's `avg` ns). */
  opsPerSec?: number;
  /** The harness's relative margin of error of that figure, in percent (± at about 95%). */
  rme?: number;
  /** Samples it took. */
  samples?: number;
  /** The task threw, or the harness reported it failed. */
  error?: string;
}

/** The most task lines read from one run, and the longest name or error kept: a bench file cannot flood the report. */
export const MAX_RECORDS = 5_000;
const MAX_TEXT = 1_000;

const HARNESSES: readonly string[] = ['benchmark.js', 'tinybench', 'mitata', 'vitest'];

/** The JSON lines of a run's figures file: the well-formed ones, and how many lines were not. */
export function parseRecords(text: string): { records: NativeRecord[]; rejected: number } {
  const records: NativeRecord[] = [];
  let rejected = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const record = records.length < MAX_RECORDS ? recordOf(parsed(line)) : undefined;
    if (record) records.push(record);
    else rejected++;
  }
  return { records, rejected };
}

function parsed(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** One task's figures from what a run wrote (a figures line, a vitest report's benchmark): checked, capped, or undefined. */
export function recordOf(data: unknown): NativeRecord | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { harness, thread, suites, name, opsPerSec, rme, samples, error } = data as Record<string, unknown>;
  if (typeof harness !== 'string' || !HARNESSES.includes(harness) || typeof name !== 'string') return undefined;
  if (!Array.isArray(suites) || suites.length > 16 || !suites.every((s) => typeof s === 'string')) return undefined;
  return {
    harness: harness as NativeHarness,
    thread: typeof thread === 'number' && Number.isInteger(thread) ? thread : 0,
    suites: suites.map((s) => s.slice(0, MAX_TEXT)),
    name: name.slice(0, MAX_TEXT),
    ...(positive(opsPerSec) ? { opsPerSec } : {}),
    ...(typeof rme === 'number' && Number.isFinite(rme) && rme >= 0 ? { rme } : {}),
    ...(typeof samples === 'number' && Number.isInteger(samples) && samples >= 0 ? { samples } : {}),
    ...(typeof error === 'string' ? { error: error.slice(0, MAX_TEXT) } : {}),
  };
}

function positive(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x) && x > 0;
}

/** Two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom, then 1.96: the table benchmark.js and tinybench 2 use. */
const T95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086,
  2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** The 95% quantile of Student's t with `df` degrees of freedom (1.96 beyond 30). */
export function tQuantile95(df: number): number {
  return df >= 1 && df <= T95.length ? T95[Math.floor(df) - 1]! : 1.96;
}

/**
 * The relative margin of error of a mean, in percent, as benchmark.js and tinybench compute it:
 * t(n − 1) · sd / √n / mean · 100. For samples a harness gives without one (mitata's per-iteration times).
 */
export function relativeMargin(samples: readonly number[]): number | undefined {
  const n = samples.length;
  if (n < 2) return undefined;
  const mean = samples.reduce((sum, x) => sum + x, 0) / n;
  if (!(mean > 0)) return undefined;
  const variance = samples.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1);
  return ((tQuantile95(n - 1) * Math.sqrt(variance)) / Math.sqrt(n) / mean) * 100;
}
