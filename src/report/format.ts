import type { ReportBenchmark } from './model.js';

/**
 * A finite number. Figures of a report.json made elsewhere (the two-workflow
 * pattern) may hold anything: every formatter shows '–' for what is not one.
 */
export function isFiniteNumber(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}

/** x.toFixed(digits), or '–' for anything but a finite number. */
export function formatFixed(x: unknown, digits: number): string {
  return isFiniteNumber(x) ? x.toFixed(digits) : '–';
}

/** 1234567 → "1.23M", 45678 → "45.7k", 12.3 → "12.3" */
export function formatOps(ops: number | undefined): string {
  if (!isFiniteNumber(ops)) return '–';
  const units: [number, string][] = [
    [1e9, 'G'],
    [1e6, 'M'],
    [1e3, 'k'],
  ];
  for (const [size, suffix] of units) if (ops >= size) return `${threeDigits(ops / size)}${suffix}`;
  return threeDigits(ops);
}

function threeDigits(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** -0.1234 → "-12.3%", 0.5 → "+50.0%" */
export function formatPercent(fraction: number): string {
  if (!isFiniteNumber(fraction)) return '–';
  const percent = fraction * 100;
  const digits = Math.abs(percent) >= 1000 ? 0 : 1;
  const text = percent.toFixed(digits);
  return `${percent > 0 && Number(text) !== 0 ? '+' : ''}${text === '-0.0' ? '0.0' : text}%`;
}

/** "-12.3% [-14.1%, -10.2%]", or "–" when there is no change to show. */
export function formatChange(benchmark: ReportBenchmark): string {
  const { change } = benchmark;
  if (!change || !isFiniteNumber(change.estimate)) return '–';
  return `${formatPercent(change.estimate)} [${formatPercent(change.low)}, ${formatPercent(change.high)}]`;
}

/** 0.05 → "5%" */
export function formatBudget(budget: number): string {
  if (!isFiniteNumber(budget)) return '–';
  return `${Number((budget * 100).toFixed(2))}%`;
}

/** 0.98333 → "98.3%" */
export function formatConfidence(confidence: number): string {
  if (!isFiniteNumber(confidence)) return '–';
  return `${Number((confidence * 100).toFixed(confidence > 0.999 ? 2 : 1))}%`;
}

/** The sentence a verdict stands for, used by both reports. */
export function explainVerdict(benchmark: ReportBenchmark): string {
  const budget = formatBudget(benchmark.budget);
  switch (benchmark.verdict) {
    case 'regression':
      return `throughput fell by more than its ${budget} budget`;
    case 'improvement':
      return `throughput rose by more than ${budget}`;
    case 'unchanged':
      return `within ±${budget}`;
    case 'inconclusive':
      return `the interval straddles the ${budget} budget: more rounds would decide`;
    case 'new':
      return 'only at head';
    case 'removed':
      return 'only at base';
    case 'error':
      return benchmark.error ?? 'failed';
  }
}

/** Milliseconds with the digits that matter: 0.144, 3.40, 45.1, 210 */
export function formatMs(ms: number): string {
  if (!isFiniteNumber(ms)) return '–';
  return ms < 1 ? ms.toFixed(3) : ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0);
}

/** Shorten a long text in the middle, keeping a benchmark id's file start and task end: "bench/a…task". */
export function fitMiddle(text: string, width: number): string {
  if (text.length <= width) return text;
  const keep = width - 1;
  const start = Math.ceil(keep / 2);
  return `${text.slice(0, start)}…${text.slice(text.length - (keep - start))}`;
}

/** Microseconds with three digits, in ns below 1 µs and ms from 1000 µs: "15.2 ns", "2.06 µs", "1.20 ms". */
export function formatMicros(us: number): string {
  if (!isFiniteNumber(us)) return '–';
  if (us < 1) return `${Number((us * 1000).toPrecision(3))} ns`;
  if (us < 1000) return `${Number(us.toPrecision(3))} µs`;
  return `${Number((us / 1000).toPrecision(3))} ms`;
}
