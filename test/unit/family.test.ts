import { describe, expect, it } from 'vitest';
import type { BenchmarkSamples } from '../../src/measure/types.js';
import type { Report } from '../../src/report/model.js';
import { runLine } from '../../src/report/terminal.js';
import { analyze, budgetedFigures, type AnalyzeOptions } from '../../src/stats/analyze.js';
import { decisionRule, familyConfidence, lookCount } from '../../src/stats/decision.js';
import { hodgesLehmann, minimumRounds } from '../../src/stats/signed-rank.js';
import { printedNumbers, showsValue } from '../report-text.js';

/**
 * The family arithmetic: every budgeted figure, once per look at its data, shares the run's
 * false-verdict rate (Bonferroni), so each interval gets 1 - alpha / family, and needs enough
 * rounds for the widest interval, [min, max] with confidence 1 - 2 / 2^n, to reach it.
 */
const around = (x: number, n: number) => Array.from({ length: n }, (_, i) => Math.log1p(x + ((i % 5) - 2) * 0.002));
const micro = (id: string, logRatios = around(-0.1, 10)): BenchmarkSamples => ({
  id,
  kind: 'micro',
  file: 'bench/x.bench.js',
  logRatios,
  base: { opsPerSec: [1000] },
  head: { opsPerSec: [900] },
});
const http = (id: string): BenchmarkSamples => ({
  ...micro(id),
  kind: 'http',
  latency: { p50: around(0.1, 10), p90: around(0.1, 10), p99: around(0.1, 10), mean: around(0.1, 10) },
});

/** The defaults: 10 rounds, up to 40, a look every 5, at 95%: seven looks. */
const sevenLooks = decisionRule({ confidence: 0.95, rounds: 10, maxRounds: 40, lookEvery: 5 });

describe('looks', () => {
  it('counts a look after the planned rounds, one every lookEvery rounds, and one at max-rounds', () => {
    // 10 to 40 by 5: looks at 10, 15, 20, 25, 30, 35, 40.
    expect(lookCount(10, 40, 5)).toBe(7);
    // 10 to 42: the same seven, and the last rounds end in a look of their own at 42.
    expect(lookCount(10, 42, 5)).toBe(8);
    // 6 to 11 (the HTTP test's plan): at 6 and 11.
    expect(lookCount(6, 11, 5)).toBe(2);
    // No room for more rounds: the one look at the end.
    expect(lookCount(10, 10, 5)).toBe(1);
    expect(lookCount(10, 6, 5)).toBe(1);
  });
});

describe('the family', () => {
  const options = (over: Partial<AnalyzeOptions> = {}): AnalyzeOptions => ({
    rule: sevenLooks,
    budgetFor: () => 0.05,
    ...over,
  });

  it('is every budgeted figure times its looks: 3 benchmarks × 7 looks = 21', () => {
    expect(sevenLooks.looks).toBe(7);
    expect(budgetedFigures([micro('a'), micro('b'), micro('c')])).toBe(3);
    for (const comparison of analyze([micro('a'), micro('b'), micro('c')], options()))
      expect(comparison.change!.confidence).toBeCloseTo(1 - 0.05 / 21, 15);
  });

  it('leaves out what is not compared: errors, new and removed benchmarks, and ones with no rounds', () => {
    const family = budgetedFigures([
      micro('a'),
      { ...micro('failed'), error: 'at head: boom' },
      { ...micro('new'), base: undefined },
      { ...micro('removed'), head: undefined },
      micro('empty', []),
    ]);
    expect(family).toBe(1);
  });

  it('counts each latency budget of a load test as a figure of its own, and the figures measured elsewhere', () => {
    // An HTTP test with p99 and p90 budgets: (1 throughput + 2 latency) × 7 looks = 21; a micro-benchmark
    // has no latency figures whatever budgets match its id: 7; 9 figures measured elsewhere: 37 in all.
    const latencyBudgetFor = (id: string) => (id.startsWith('http') ? { p99: 0.25, p90: 0.25 } : { p99: 0.25 });
    // An HTTP test with p99 and p90 budgets is 3 figures; a micro-benchmark has no latency figures whatever budgets match its id: 4.
    expect(budgetedFigures([http('http > todos'), micro('a')], latencyBudgetFor)).toBe(4);
    // With 9 figures measured elsewhere, 13 figures × 7 looks share the run: each at 1 - 0.05/91.
    const [first] = analyze([http('http > todos'), micro('a')], options({ latencyBudgetFor, otherFigures: 9 }));
    expect(first!.change!.confidence).toBeCloseTo(1 - 0.05 / 91, 15);
  });

  it('gives each interval 1 - alpha / family: 3 benchmarks × 7 looks at 95% is 1 - 0.05/21 each', () => {
    expect(familyConfidence(0.95, 21)).toBeCloseTo(1 - 0.05 / 21, 15);
    expect(familyConfidence(0.99, 4)).toBeCloseTo(1 - 0.01 / 4, 15);
    // An empty family is a family of one: the run's own level.
    expect(familyConfidence(0.95, 0)).toBe(0.95);
    for (const comparison of analyze([micro('a'), micro('b'), micro('c')], options()))
      expect(comparison.change!.confidence).toBeCloseTo(1 - 0.05 / 21, 15);
    // A family known in advance (a look at one load test while the rest is planned) wins over the one in view.
    expect(analyze([micro('a')], options({ figures: 30 }))[0]!.change!.confidence).toBeCloseTo(1 - 0.05 / 210, 15);
  });

  it("reads back from the interval level in the report's run line", () => {
    const run = {
      rounds: 10,
      plannedRounds: 10,
      limited: false,
      isolation: 'alternate',
      confidence: 0.95,
      intervalConfidence: familyConfidence(0.95, 21),
      timeLimitMs: 300_000,
      measureMs: 31_000,
      totalMs: 33_000,
    };
    const report = { run } as Report;
    const line = runLine(report);
    const [interval, run95, family] = printedNumbers(line.slice(line.indexOf('each interval ')));
    expect(showsValue(interval!, 1 - 0.05 / 21), line).toBe(true);
    expect(run95!.value).toBe(0.95);
    expect(family!.value).toBe(21);
    expect(line).toMatch(/each interval .*, so .* for all .* budgeted figures together$/);
  });
});

describe('the rounds a level needs', () => {
  it("is the rule's level's: 3 figures × 7 looks need 10 rounds, one look needs 7", () => {
    expect(sevenLooks.minimumRounds(3)).toBe(minimumRounds(1 - 0.05 / 21));
    expect(sevenLooks.minimumRounds(3)).toBe(10);
    expect(decisionRule({ confidence: 0.95, rounds: 10, maxRounds: 10, lookEvery: 5 }).minimumRounds(3)).toBe(7);
  });

  it('is the fewest rounds whose widest interval reaches the level', () => {
    // 1 - 2/2^n >= 0.95 from n = 6 (0.969; 5 rounds give 0.9375).
    expect(minimumRounds(0.95)).toBe(6);
    // 1 - 2/2^n >= 1 - 0.05/3 from n = 7 (2/2^7 = 0.0156 <= 0.0167).
    expect(minimumRounds(1 - 0.05 / 3)).toBe(7);
    // 1 - 2/2^n >= 1 - 0.05/21 from n = 10 (2/2^10 = 0.00195 <= 0.00238; 2/2^9 = 0.0039 is not).
    expect(minimumRounds(1 - 0.05 / 21)).toBe(10);
    for (const level of [0.95, 1 - 0.05 / 3, 1 - 0.05 / 21, 1 - 0.05 / 37]) {
      const n = minimumRounds(level);
      const rounds = (count: number) => Array.from({ length: count }, (_, i) => i + 1);
      expect(hodgesLehmann(rounds(n), level).achievedConfidence).toBeGreaterThanOrEqual(level);
      expect(hodgesLehmann(rounds(n - 1), level).achievedConfidence).toBeLessThan(level);
    }
  });
});

describe('the confirmation level', () => {
  it("judges the fresh rounds at the run's confidence, not the family's share", () => {
    // 3 benchmarks × 7 looks: each first interval at 1 - 0.05/21, which 10 rounds reach. Six fresh rounds
    // all near -10% span an interval of confidence 1 - 2/64 = 0.969: enough for 95%, not for 99.76%.
    const fresh = around(-0.1, 6);
    const results = analyze([{ ...micro('a'), confirmation: fresh }, micro('b'), micro('c')], { rule: sevenLooks, budgetFor: () => 0.05 });
    expect(sevenLooks.confirmationLevel).toBe(0.95);
    expect(results[0]!.change!.confidence).toBeCloseTo(1 - 0.05 / 21, 15);
    expect(results[0]!.verdict).toBe('regression');
    expect(results[0]!.note).toBeUndefined();
    // Too few fresh rounds for even the run's level: not confirmed, and the note says why.
    const [short] = analyze([{ ...micro('a'), confirmation: fresh.slice(0, 5) }], { rule: sevenLooks, budgetFor: () => 0.05 });
    expect(short!.verdict).toBe('inconclusive');
    expect(short!.note).toMatch(/could not be confirmed: only 5 fresh rounds fit in the time limit/);
  });
});
