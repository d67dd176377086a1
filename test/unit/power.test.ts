import { describe, expect, it } from 'vitest';
import { estimateChange, decide } from '../../src/stats/compare.js';
import { analyze } from '../../src/stats/analyze.js';
import { decisionRule } from '../../src/stats/decision.js';
import type { BenchmarkSamples } from '../../src/measure/types.js';
import { resolvableChange, roundSpread, roundsToConfirm, roundsToResolve, tQuantile } from '../../src/stats/power.js';
import { achievedAlpha, minimumRounds } from '../../src/stats/signed-rank.js';

describe('what a run can resolve', () => {
  it('uses a robust spread, so one wild round does not blow it up', () => {
    const calm = [0.01, -0.01, 0.02, -0.02, 0.0, 0.01, -0.01, 0.015, -0.015, 0.005];
    expect(roundSpread(calm)).toBeCloseTo(1.4826 * 0.0125, 4);
    expect(roundSpread([...calm.slice(0, 9), 0.9])).toBeLessThan(0.03);
    expect(roundSpread([0.1, 0.2])).toBeNaN();
  });

  it('shrinks with the square root of the rounds', () => {
    const ten = resolvableChange(0.03, 10, 0.95);
    const forty = resolvableChange(0.03, 40, 0.95);
    // (1.96 + 1.645) × 3% / √10 / √0.955 ≈ 3.5%
    expect(ten).toBeCloseTo(Math.expm1((3.605 * 0.03) / Math.sqrt(10) / Math.sqrt(0.955)), 3);
    expect(Math.log1p(ten) / Math.log1p(forty)).toBeCloseTo(2, 6);
  });

  it('inverts: the rounds it takes to resolve a change', () => {
    const rounds = roundsToResolve(0.03, 0.05, 0.95);
    expect(resolvableChange(0.03, rounds, 0.95)).toBeLessThanOrEqual(0.05);
    expect(resolvableChange(0.03, rounds - 1, 0.95)).toBeGreaterThan(0.05);
  });
});

describe('how many fresh rounds a confirmation needs first', () => {
  // A small seeded generator (mulberry32) and Box–Muller normals, so the draws are the same on every run.
  const normals = (seed: number) => {
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  };
  /** n rounds around `centre` (a log ratio), spread `spread`, exactly: the first group a size is read from. */
  const group = (centre: number, spread: number, n = 15) => {
    const draw = normals(7);
    const raw = Array.from({ length: n }, draw);
    const mean = raw.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(raw.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
    return raw.map((x) => centre + ((x - mean) / sd) * spread);
  };

  it("reads Student's t to within 0.5% of the table from 4 degrees of freedom", () => {
    for (const [p, df, table] of [
      [0.95, 4, 2.1318],
      [0.975, 4, 2.7764],
      [0.975, 5, 2.5706],
      [0.975, 10, 2.2281],
      [0.975, 29, 2.0452],
      [0.99, 6, 3.1427],
      [0.995, 14, 2.9768],
    ] as const)
      expect(Math.abs(tQuantile(p, df) / table - 1)).toBeLessThan(0.005);
  });

  it("sizes from how far the loss lies beyond the budget against the rounds' spread, between the fewest the level allows and the first group", () => {
    const least = minimumRounds(0.95);
    expect(least).toBe(6);
    // A step far beyond the budget, rounds that agree: the fewest the signed-rank interval allows.
    expect(roundsToConfirm(group(Math.log(0.7), 0.01), 0.05, 0.95, 15)).toBe(least);
    // At the gate's confirmation level (95% one-sided, 90% two-sided) the least is 5.
    expect(roundsToConfirm(group(Math.log(0.7), 0.01), 0.05, 0.9, 15)).toBe(5);
    // A 5% loss read at −7.4% against a 3% budget, rounds spreading 3% (fastify's): between the two.
    const middle = roundsToConfirm(group(Math.log(0.926), 0.03), 0.03, 0.95, 15);
    expect(middle).toBeGreaterThan(least);
    expect(middle).toBeLessThan(15);
    // More spread, or a loss nearer the budget, needs more rounds; just beyond the budget, the whole group.
    expect(roundsToConfirm(group(Math.log(0.926), 0.04), 0.03, 0.95, 15)).toBeGreaterThan(middle);
    expect(roundsToConfirm(group(Math.log(0.945), 0.03), 0.03, 0.95, 15)).toBeGreaterThan(middle);
    expect(roundsToConfirm(group(Math.log(0.965), 0.03), 0.03, 0.95, 15)).toBe(15);
    // Nothing beyond the budget to size from, too few rounds, a figure missing, or a first group no larger than the least: the whole group.
    expect(roundsToConfirm(group(Math.log(0.99), 0.01), 0.03, 0.95, 15)).toBe(15);
    expect(roundsToConfirm([Math.log(0.7), Math.log(0.7)], 0.05, 0.95, 15)).toBe(15);
    expect(roundsToConfirm([...group(Math.log(0.7), 0.01), Number.NaN], 0.05, 0.95, 15)).toBe(15);
    expect(roundsToConfirm(group(Math.log(0.7), 0.01), 0.05, 0.95, 5)).toBe(5);
  });

  it('is the fewest rounds whose sized interval clears the budget: one fewer would not', () => {
    const ratios = group(Math.log(0.93), 0.03);
    const n = roundsToConfirm(ratios, 0.03, 0.95, 40);
    const reach = (k: number) => ((tQuantile(1 - achievedAlpha(0.025, k), k - 1) + 1.2816) * roundSpread(ratios)) / Math.sqrt(0.955 * k);
    const distance = Math.log(0.97) - [...ratios].sort((a, b) => a - b)[7]!;
    expect(reach(n)).toBeLessThanOrEqual(distance);
    expect(reach(n - 1)).toBeGreaterThan(distance);
  });

  it('gives a fresh group that shows the loss again at the confirmation level in most draws, where the loss is what the first group read', () => {
    // First groups reading −6.5% to −9% with rounds spreading 3% against a 3% budget; fresh groups of the size drawn
    // as the size assumes (around the first group's median, at its spread).
    const draw = normals(11);
    const trials = 400;
    const shownIn = (ratios: number[], n: number) => {
      const centre = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
      let shown = 0;
      for (let t = 0; t < trials; t++) {
        const fresh = Array.from({ length: n }, () => centre + roundSpread(ratios) * draw());
        if (decide(estimateChange(fresh, 0.95), 0.03) === 'regression') shown++;
      }
      return shown / trials;
    };
    const sizes: number[] = [];
    for (const loss of [0.935, 0.945, 0.93, 0.925, 0.92, 0.91]) {
      const ratios = group(Math.log(loss), 0.03);
      const n = roundsToConfirm(ratios, 0.03, 0.95, 15);
      sizes.push(n);
      // Sized for 90% power by the t approximation at the error the exact ranks reach.
      if (n === 15) continue; // no size within the first group's: the whole group, as before
      expect(shownIn(ratios, n)).toBeGreaterThan(0.8);
    }
    expect(new Set(sizes.filter((n) => n < 15)).size).toBeGreaterThan(2);
  });

  it('sizes a load test from the throughput figures that failed, the soonest of them, and a latency loss not at all', () => {
    const rule = decisionRule({ confidence: 0.95, rounds: 15, maxRounds: 15, lookEvery: 5 });
    const options = { rule, budgetFor: () => 0.03, latencyBudgetFor: () => ({ p99: 0.25 }) };
    const flat = group(0, 0.01);
    const load = (figures: Partial<BenchmarkSamples>): BenchmarkSamples => ({
      id: 'http > t',
      kind: 'http',
      file: undefined,
      logRatios: flat,
      base: { opsPerSec: [1] },
      head: { opsPerSec: [1] },
      ...figures,
    });
    const requests = group(Math.log(0.93), 0.035);
    const cpu = group(Math.log(0.88), 0.015);
    // Both figures failed: the one that shows its loss soonest (CPU: farther beyond, less spread) sizes the group.
    const [both] = analyze([load({ logRatios: requests, cpu })], options);
    expect([both!.verdict, both!.cpu!.verdict]).toEqual(['regression', 'regression']);
    const byCpu = roundsToConfirm(cpu, 0.03, rule.confirmationLevel, rule.maxRounds);
    expect(byCpu).toBeLessThan(roundsToConfirm(requests, 0.03, rule.confirmationLevel, rule.maxRounds));
    expect(both!.confirmFirst).toBe(byCpu);
    // Only requests/s failed (CPU within the budget): it alone sizes the group.
    const [one] = analyze([load({ logRatios: requests, cpu: flat })], options);
    expect(one!.cpu!.verdict).not.toBe('regression');
    expect(one!.confirmFirst).toBe(roundsToConfirm(requests, 0.03, rule.confirmationLevel, rule.maxRounds));
    // Only a latency failed: no size, a whole group.
    const [latency] = analyze([load({ cpu: flat, latency: { p50: flat, p90: flat, p99: group(Math.log(2), 0.05), mean: flat } })], options);
    expect(latency!.latency!.p99!.verdict).toBe('regression');
    expect(latency!.confirmFirst).toBeUndefined();
    // Nothing failed, or a fresh group has begun: no size either.
    expect(analyze([load({ cpu: flat })], options)[0]!.confirmFirst).toBeUndefined();
    expect(analyze([load({ logRatios: requests, cpu, confirmation: [], confirmationCpu: [] })], options)[0]!.confirmFirst).toBeUndefined();
  });
});

describe('round conditions', () => {
  it('names the rounds that ran much busier than the median round', async () => {
    const { spikedRounds } = await import('../../src/measure/conditions.js');
    const rounds = [0.55, 0.6, 0.58, 0.97, 0.61, 0.59, 0.95].map((busy) => ({ busy, load1: 1 }));
    expect(spikedRounds(rounds)).toEqual([4, 7]);
    expect(spikedRounds(rounds.slice(0, 2))).toEqual([]);
  });
});
