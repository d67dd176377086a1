import { describe, expect, it } from 'vitest';
import type { BenchmarkSamples } from '../../src/measure/types.js';
import type { Report } from '../../src/report/model.js';
import { runLine } from '../../src/report/terminal.js';
import { analyze, budgetedFigures, type AnalyzeOptions } from '../../src/stats/analyze.js';
import { decisionRule, lookCount } from '../../src/stats/decision.js';
import { hodgesLehmann, minimumRounds } from '../../src/stats/signed-rank.js';
import { printedNumbers, showsValue } from '../report-text.js';

/**
 * The family arithmetic: every budgeted figure shares the run's false-verdict rate (Holm's step-down,
 * whose first step is Bonferroni's alpha / family), each figure's share is spent across its looks
 * (alpha spending), and a look needs enough rounds for its widest one-sided bound (confidence
 * 1 - 1 / 2^n) to reach the look's level.
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
// The planned looks alone (these tests are about them; the early look has its own in verdict.test.ts).
const sevenLooks = decisionRule({ confidence: 0.95, rounds: 10, maxRounds: 40, lookEvery: 5, early: false });

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

  it('is every budgeted figure, each bound spending its share of alpha / 3 at the look its rounds end in', () => {
    expect(sevenLooks.looks).toBe(7);
    expect(budgetedFigures([micro('a'), micro('b'), micro('c')])).toBe(3);
    // Ten rounds: the first look; each bound at 1 - (0.05 / 3) × the first look's weight.
    for (const comparison of analyze([micro('a'), micro('b'), micro('c')], options()))
      expect(comparison.change!.confidence).toBeCloseTo(1 - 2 * (0.05 / 3) * sevenLooks.lookWeight(10), 15);
  });

  it('leaves out what is not compared: errors, new and removed benchmarks, and ones with no rounds', () => {
    const family = budgetedFigures([
      micro('a'),
      { ...micro('failed'), error: 'at head: boom' },
      { ...micro('new'), base: undefined },
      { ...micro('removed'), head: undefined },
      { ...micro('empty'), logRatios: [] },
    ]);
    expect(family).toBe(1);
  });

  it('counts each latency budget of a load test as a figure of its own, and the figures measured elsewhere', () => {
    const latencyBudgetFor = (id: string) => (id.startsWith('http') ? { p99: 0.1, p50: 0.1 } : {});
    // The load test: throughput + p99 + p50 budgets = 3 figures; plus one micro-benchmark.
    expect(budgetedFigures([http('http > todos'), micro('a')], latencyBudgetFor)).toBe(4);
    // With 9 figures measured elsewhere, 13 figures share the run: each bound at (0.05 / 13) × the look's weight.
    const [result] = analyze([micro('a')], options({ otherFigures: 12 }));
    expect(result!.change!.confidence).toBeCloseTo(1 - 2 * (0.05 / 13) * sevenLooks.lookWeight(10), 15);
    // A family known in advance (a look at one load test while the rest is planned) wins over the one in view.
    expect(analyze([micro('a')], options({ figures: 30 }))[0]!.change!.confidence).toBeCloseTo(
      1 - 2 * (0.05 / 30) * sevenLooks.lookWeight(10),
      15,
    );
  });

  it('takes the family size from the argument, not from the benchmarks in view (a shard of a larger suite)', () => {
    // The same loss, alone or as one of 200 figures: only the share it is read at changes.
    const loss = micro('a', around(-0.12, 40));
    const alone = analyze([loss], options({ figures: 1 }))[0]!;
    const shard = analyze([loss], options({ figures: 200 }))[0]!;
    expect(alone.change!.high).toBeLessThan(shard.change!.high);
    expect(alone.change!.confidence).toBeCloseTo(1 - 2 * 0.05 * sevenLooks.lookWeight(40), 15);
    // Holm: its p-value passes 0.05/200, so its regression bound is read at the next step's share, 0.05/199.
    expect(shard.verdict).toBe('regression');
    expect(shard.change!.confidence).toBeCloseTo(1 - (0.05 / 200 + 0.05 / 199) * sevenLooks.lookWeight(40), 15);
    // Its p-value does not depend on the family: a merge step ranks it against the others.
    expect(shard.regressionP).toBe(alone.regressionP);
  });

  it("reads the run's figures in the report's run line", () => {
    const run = {
      rounds: 10,
      plannedRounds: 10,
      limited: false,
      isolation: 'alternate',
      confidence: 0.95,
      intervalConfidence: sevenLooks.intervalLevel(21),
      figures: 21,
      timeLimitMs: 300_000,
      measureMs: 31_000,
      totalMs: 33_000,
    };
    const line = runLine({ run } as Report);
    const [run95, family, interval] = printedNumbers(line.slice(line.indexOf(' · ') + 3));
    expect(run95!.value).toBe(0.95);
    expect(family!.value).toBe(21);
    expect(showsValue(interval!, sevenLooks.intervalLevel(21)), line).toBe(true);
    expect(line).toMatch(/for all 21 budgeted figures together \(Holm, one-sided; each interval .* at the last look\)$/);
    // A report written before figures were recorded: the Bonferroni level reads back as before.
    const old = runLine({ run: { ...run, figures: undefined, intervalConfidence: 1 - 0.05 / 21 } } as unknown as Report);
    expect(old).toMatch(/each interval .*, so 95% for all 21 budgeted figures together$/);
    // Fewer rounds than planned: by design at the early look (with its confirmation), or cut by the time limit.
    expect(runLine({ run: { ...run, rounds: 3, confirmRounds: 3 } } as Report)).toMatch(
      /^3 rounds \(ended at the early look\) \+ 3 to confirm \(alternate isolation\)/,
    );
    expect(runLine({ run: { ...run, rounds: 3, limited: true } } as Report)).toMatch(/^3 of 10 rounds \(alternate isolation\)/);
    // Nothing compared (every file failed to load): no look decided anything.
    const failed = [{ id: 'bench/ids.mjs', verdict: 'error', rounds: [] }];
    expect(runLine({ run: { ...run, rounds: 3 }, benchmarks: failed } as unknown as Report)).toMatch(
      /^3 rounds \(nothing to compare\) \(alternate isolation\)/,
    );
  });
});

describe('the rounds a look needs', () => {
  it('raises the first look to the first look of the plan whose bounds can reach their level', () => {
    // One figure: 10 rounds reach 0.05 × 3.2% = 0.0016 (2^-10 = 0.00098); two need the look at 15.
    expect(sevenLooks.minimumRounds(1)).toBe(10);
    expect(sevenLooks.minimumRounds(2)).toBe(15);
    expect(sevenLooks.minimumRounds(20)).toBe(15);
    expect(sevenLooks.minimumRounds(53)).toBe(15);
    expect(sevenLooks.minimumRounds(54)).toBe(20);
    expect(sevenLooks.minimumRounds(200)).toBe(20);
    // One look: the whole share, one-sided: 2^-n < 0.05 / 3 from n = 6.
    expect(decisionRule({ confidence: 0.95, rounds: 10, maxRounds: 10, lookEvery: 5 }).minimumRounds(3)).toBe(6);
    for (const figures of [1, 2, 3, 20, 200]) {
      const n = sevenLooks.minimumRounds(figures);
      const alpha = sevenLooks.lookAlpha(n, 0.05 / figures);
      const rounds = (count: number) => Array.from({ length: count }, (_, i) => i + 1);
      expect(hodgesLehmann(rounds(n), 1 - 2 * alpha).achievedConfidence).toBeGreaterThanOrEqual(1 - 2 * alpha);
      // The look before it could not: a verdict there would have been inconclusive whatever the data.
      if (n > 10) {
        const before = sevenLooks.lookAlpha(n - 5, 0.05 / figures);
        expect(hodgesLehmann(rounds(n - 5), 1 - 2 * before).achievedConfidence).toBeLessThan(1 - 2 * before);
      }
    }
  });

  it('is the fewest rounds whose widest interval reaches the level', () => {
    // 1 - 2/2^n >= 0.95 from n = 6 (0.969; 5 rounds give 0.9375).
    expect(minimumRounds(0.95)).toBe(6);
    // 1 - 2/2^n >= 1 - 0.05/3 from n = 7 (2/2^7 = 0.0156 <= 0.0167).
    expect(minimumRounds(1 - 0.05 / 3)).toBe(7);
    expect(minimumRounds(1 - 0.05 / 21)).toBe(10);
  });
});

describe('the confirmation level', () => {
  it("judges the fresh rounds one-sided at the run's confidence, not the family's share", () => {
    // One benchmark, 10 rounds near -10%: a regression at the first look. Five fresh rounds all near
    // -10% bound it one-sided at 1 - 1/32 = 0.969: enough for 95%, which two-sided would have needed six.
    const fresh = around(-0.1, 5);
    const results = analyze([{ ...micro('a'), confirmation: fresh }], { rule: sevenLooks, budgetFor: () => 0.05 });
    expect(sevenLooks.confirmationLevel).toBeCloseTo(0.9, 15);
    expect(results[0]!.verdict).toBe('regression');
    expect(results[0]!.note).toBeUndefined();
    // Too few fresh rounds for even the run's level, all near -10%: not confirmed, so a regression marked unconfirmed
    // (it fails the run; bisect and drift do not act on it alone).
    const [short] = analyze([{ ...micro('a'), confirmation: fresh.slice(0, 4) }], { rule: sevenLooks, budgetFor: () => 0.05 });
    expect(short!.verdict).toBe('regression');
    expect(short!.unconfirmed).toBe(true);
    expect(short!.note).toMatch(/could not be confirmed: only 4 fresh rounds fit in the time limit \(-10\.\d%\)/);
    // Four fresh rounds near 0%: neither confirmed nor disproved, so unmeasured (never a pass).
    const [none] = analyze([{ ...micro('a'), confirmation: around(0, 4) }], { rule: sevenLooks, budgetFor: () => 0.05 });
    expect(none!.verdict).toBe('unmeasured');
  });
});
