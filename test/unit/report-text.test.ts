import { describe, expect, it } from 'vitest';
import { formatConfidence, formatDuration, formatMicros, formatMs, formatOps, formatPercent } from '../../src/util/format.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { runVerdict, type Report, type ReportBenchmark } from '../../src/report/model.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { changeShown, markdownRow, numbersIn, parseNumber, printedAs, printedDurations, showsValue, terminalRow } from '../report-text.js';

describe("reading printed numbers back (the tests' own parser)", () => {
  it('reads signs, separators, suffixes and percentages, whatever their digit count', () => {
    expect(parseNumber('+631.6%')).toBeCloseTo(6.316, 12);
    expect(parseNumber('+1065%')).toBeCloseTo(10.65, 12);
    expect(parseNumber('-1,234')).toBe(-1234);
    expect(parseNumber('1.2k')).toBe(1200);
    expect(parseNumber('28.5M')).toBe(28_500_000);
    expect(parseNumber('0.144')).toBe(0.144);
    expect(parseNumber('\\-50.0%')).toBe(-0.5);
    expect(parseNumber('\u22123%')).toBe(-0.03);
    expect(numbersIn('+12.0% [+3.1%, +20.5%]').map((x) => Number(x.toFixed(6)))).toEqual([0.12, 0.031, 0.205]);
    // Labels with digits in words are not numbers.
    expect(numbersIn('event-loop delay p50/p99/max (ms)')).toEqual([]);
    expect(() => parseNumber('5% regression, 3 rounds')).toThrow(/expected one number/);
  });

  it('knows the precision a number was printed with', () => {
    expect(printedAs('28.5M', 28_460_000)).toBe(true);
    expect(printedAs('28.5M', 28_400_000)).toBe(false);
    expect(printedAs('+784.7%', 7.8474)).toBe(true);
    expect(printedAs('+784.7%', 7.8486)).toBe(false);
    expect(printedAs('+1065%', 10.654)).toBe(true);
    const [ns, ms] = printedDurations('17 ns → 2.96 ms');
    expect(showsValue(ns!, 0.0172)).toBe(true);
    expect(showsValue(ms!, 2962)).toBe(true);
    expect(showsValue(ms!, 2950)).toBe(false);
  });

  it('reads back what the report formatters print, across magnitudes', () => {
    for (const ops of [0.5, 12.34, 999, 1234, 45_678, 1_234_567, 4.56e9]) expect(printedAs(formatOps(ops), ops), formatOps(ops)).toBe(true);
    for (const change of [-0.999, -0.1234, -0.0004, 0.003, 0.5, 6.3158, 12.5])
      expect(printedAs(formatPercent(change), change), formatPercent(change)).toBe(true);
    for (const ms of [0.1443, 3.402, 45.12, 210.4]) expect(printedAs(formatMs(ms), ms), formatMs(ms)).toBe(true);
    for (const us of [0.0172, 2.061, 812.4, 2962])
      expect(showsValue(printedDurations(formatMicros(us))[0]!, us), formatMicros(us)).toBe(true);
  });

  it('prints a run’s duration rounded once, never a 60 in a minute (a counted run read "2m60s")', () => {
    const cases: [number, string][] = [
      [850, '850ms'],
      [999.7, '1.0s'],
      [3_440, '3.4s'],
      [9_960, '10s'],
      [12_300, '12s'],
      [59_700, '1m'],
      [150_000, '2m30s'],
      [179_600, '3m'],
      [3_599_600, '60m'],
    ];
    for (const [ms, shown] of cases) expect(formatDuration(ms), String(ms)).toBe(shown);
    // Every whole second up to 10 minutes reads back as its own minutes and seconds.
    for (let ms = 60_000; ms < 600_000; ms += 437) {
      const [, minutes, seconds] = /^(\d+)m(?:(\d\d)s)?$/.exec(formatDuration(ms))!;
      expect(Number(seconds ?? 0), formatDuration(ms)).toBeLessThan(60);
      expect(Number(minutes) * 60 + Number(seconds ?? 0)).toBe(Math.round(ms / 1000));
    }
  });
});

describe('a confidence level as printed', () => {
  it('never reads 100% or 0% for a level strictly between them, and keeps the digits that say what it is', () => {
    expect(formatConfidence(0.95)).toBe('95%');
    expect(formatConfidence(0.98333)).toBe('98.3%');
    expect(formatConfidence(0.998)).toBe('99.8%');
    expect(formatConfidence(0.99962)).toBe('99.96%');
    expect(formatConfidence(0.999998)).toBe('99.9998%');
    expect(formatConfidence(0.000004)).toBe('0.0004%');
    for (const level of [0.9999999, 0.99995, 0.999951, 1e-9, 0.00004]) {
      const printed = parseNumber(formatConfidence(level));
      expect(printed, formatConfidence(level)).toBeGreaterThan(0);
      expect(printed, formatConfidence(level)).toBeLessThan(1);
    }
    expect(formatConfidence(1)).toBe('100%');
    expect(formatConfidence(Number.NaN)).toBe('–');
  });
});

describe('reading report rows back as cells', () => {
  const bench = (over: Partial<ReportBenchmark>): ReportBenchmark => ({
    id: 'bench/ids.bench.js > make request id',
    kind: 'micro',
    file: 'bench/ids.bench.js',
    verdict: 'regression',
    budget: 0.05,
    base: { opsPerSec: 28_460_000, samples: 10 },
    head: { opsPerSec: 812_300, samples: 10 },
    change: { estimate: -0.9715, low: -0.9812, high: -0.9493, confidence: 0.95 },
    rounds: [],
    resolvable: null,
    ...over,
  });
  const benchmarks = [
    bench({}),
    bench({
      id: 'bench/a | b.bench.js > x',
      verdict: 'unchanged',
      base: { opsPerSec: 950, samples: 10 },
      head: { opsPerSec: 951, samples: 10 },
      change: { estimate: 0.001, low: -0.01, high: 0.012, confidence: 0.95 },
    }),
  ];
  const report: Report = {
    version: 1,
    tool: { name: 'benchgate', version: '0' },
    verdict: runVerdict(benchmarks),
    summary: '',
    base: { ref: 'main', sha: 'a'.repeat(40) },
    head: { ref: 'working tree', sha: 'b'.repeat(40), dirty: false },
    benchmarks,
    run: {
      rounds: 10,
      plannedRounds: 10,
      limited: false,
      isolation: 'alternate',
      confidence: 0.95,
      intervalConfidence: 0.975,
      timeLimitMs: 300_000,
      measureMs: 31_000,
      totalMs: 33_000,
    },
    environment: { node: 'v24.0.0', os: 'Linux', arch: 'x64', cpus: { model: 'Test CPU', count: 2 } },
  };

  it('splits a terminal row into its cells and its figures into numbers', () => {
    const row = terminalRow(renderTerminal(report, { color: false }), '✗ regression');
    expect(row[1]).toBe('bench/ids.bench.js > make request id');
    expect(printedAs(row[2]!, 28_460_000)).toBe(true);
    expect(printedAs(row[3]!, 812_300)).toBe(true);
    expect(changeShown(row[4]!, benchmarks[0]!.change!)).toBe(true);
    expect(changeShown(row[4]!, { ...benchmarks[0]!.change!, high: -0.93 })).toBe(false);
    expect(row[5]).toBe('5%');
  });

  it('splits a markdown row on unescaped pipes only, and undoes the escapes', () => {
    const markdown = renderMarkdown(report);
    const row = markdownRow(markdown, '⚪ unchanged');
    expect(row).toHaveLength(7);
    expect(row[1]).toBe('bench/a | b.bench.js > x');
    expect(printedAs(row[2]!, 950)).toBe(true);
    expect(changeShown(row[4]!, benchmarks[1]!.change!)).toBe(true);
    expect(() => markdownRow(markdown, 'nothing like this')).toThrow(/expected one row/);
  });
});
