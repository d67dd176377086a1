/**
 * The one set of number formatters, for every report, note and log line. Each shows '–' for
 * anything that is not a finite number: figures of a report.json made elsewhere (the two-workflow
 * pattern) may hold anything.
 */

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

/** A fraction as a percentage with `digits` decimals: 0.1234 → "12.3%" (shares, utilisation, CPU busy). */
export function formatShare(fraction: unknown, digits = 1): string {
  return isFiniteNumber(fraction) ? `${(fraction * 100).toFixed(digits)}%` : '–';
}

/** A fraction as a percentage with at most `digits` decimals, trailing zeros dropped: 0.05 → "5%", 0.0125 → "1.25%". */
export function formatShortPercent(fraction: unknown, digits: number): string {
  return isFiniteNumber(fraction) ? `${Number((fraction * 100).toFixed(digits))}%` : '–';
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

/** 0.05 → "5%" */
export function formatBudget(budget: unknown): string {
  return formatShortPercent(budget, 2);
}

/**
 * A confidence level: 0.98333 → "98.3%", 0.99962 → "99.96%", 0.999998 → "99.9998%". A level strictly between 0
 * and 1 never reads 100% or 0%: digits are added until the rounding says what it is.
 */
export function formatConfidence(confidence: unknown): string {
  if (!isFiniteNumber(confidence)) return '–';
  let digits = confidence > 0.999 ? 2 : 1;
  const shown = () => Number((confidence * 100).toFixed(digits));
  while (digits < 12 && confidence > 0 && confidence < 1 && (shown() >= 100 || shown() <= 0)) digits++;
  return `${shown()}%`;
}

/** Milliseconds with the digits that matter: 0.144, 3.40, 45.1, 210 */
export function formatMs(ms: number): string {
  if (!isFiniteNumber(ms)) return '–';
  return ms < 1 ? ms.toFixed(3) : ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0);
}

/** Microseconds with three digits, in ns below 1 µs and ms from 1000 µs: "15.2 ns", "2.06 µs", "1.20 ms". */
export function formatMicros(us: number): string {
  if (!isFiniteNumber(us)) return '–';
  if (us < 1) return `${Number((us * 1000).toPrecision(3))} ns`;
  if (us < 1000) return `${Number(us.toPrecision(3))} µs`;
  return `${Number((us / 1000).toPrecision(3))} ms`;
}

/**
 * 850 → "850ms", 12_300 → "12s", 150_000 → "2m30s". Rounded once, to the unit shown, before it is split: 179_600 is
 * "3m", never "2m60s" (and 999.7 "1.0s", 9_960 "10s", 59_700 "1m").
 */
export function formatDuration(ms: unknown): string {
  if (!isFiniteNumber(ms)) return '–';
  if (Math.round(ms) < 1000) return `${Math.round(ms)}ms`;
  if (Math.round(ms / 100) < 100) return `${(Math.round(ms / 100) / 10).toFixed(1)}s`;
  const total = Math.round(ms / 1000);
  if (total < 60) return `${total}s`;
  const [minutes, seconds] = [Math.floor(total / 60), total % 60];
  return seconds ? `${minutes}m${String(seconds).padStart(2, '0')}s` : `${minutes}m`;
}

/**
 * A request path for messages and tables, cut in the middle when long (a query string can run to
 * thousands of characters), keeping the route's start and the query's end:
 * "/search?q=aaaa…aaaa (2000 characters)".
 */
export function formatPath(path: string, width = 60): string {
  if (path.length <= width) return path;
  const keep = width - 1;
  const start = Math.ceil((keep * 2) / 3);
  return `${path.slice(0, start)}…${path.slice(path.length - (keep - start))} (${path.length} characters)`;
}

/** A verdict as a reader sees it: "within budget" for `within-budget`, the others as they are. */
export function verdictWord(verdict: string): string {
  return verdict === 'within-budget' ? 'within budget' : verdict;
}

/** An estimate and its interval: "-12.3% [-14.1%, -10.2%]" (each figure "–" when it is not a number). */
export function formatInterval(change: { estimate: number; low: number; high: number }): string {
  return `${formatPercent(change.estimate)} [${formatPercent(change.low)}, ${formatPercent(change.high)}]`;
}

/** "round 3 of 15", "round 1 of at least 10", "round 16 of at most 40": where the run stands, as a progress line says it. */
export function roundOf(p: { round: number; rounds: number; bound?: 'at least' | 'at most' | undefined }): string {
  return `round ${p.round} of ${p.bound ? `${p.bound} ` : ''}${p.rounds}`;
}
