import { describe, expect, it } from 'vitest';
import type { BenchmarkSamples } from '../../src/measure/types.js';
import { analyze } from '../../src/stats/analyze.js';
import { regressionNominalP } from '../../src/stats/compare.js';
import { decisionRule, hwangShihDeCani, lanDeMetsObrienFleming, lookRounds, stepDown } from '../../src/stats/decision.js';
import { hodgesLehmannBounds, signedRankP } from '../../src/stats/signed-rank.js';

const sevenLooks = decisionRule({ confidence: 0.95, rounds: 10, maxRounds: 40, lookEvery: 5 });

describe('alpha spending across looks', () => {
  it("matches the Lan–DeMets O'Brien–Fleming-type function's published values", () => {
    // alpha(t) = 2 - 2 Phi(z_{alpha/2} / sqrt(t)) at alpha = 0.05 (DeMets & Lan, Stat Med 13:1341, 1994, Table I):
    // 0.0056 spent by half the information, 0.0284 by 80%, and all of it at the end.
    expect(lanDeMetsObrienFleming(0.05, 0.5)).toBeCloseTo(0.0056, 4);
    expect(lanDeMetsObrienFleming(0.05, 0.8)).toBeCloseTo(0.0284, 4);
    expect(lanDeMetsObrienFleming(0.05, 0.2)).toBeLessThan(0.0001);
    expect(lanDeMetsObrienFleming(0.05, 1)).toBeCloseTo(0.05, 6);
    expect(lanDeMetsObrienFleming(0.025, 1)).toBeCloseTo(0.025, 6);
  });

  it('spends like Hwang–Shih–DeCani with gamma -4: little early, most at the end', () => {
    const spend = hwangShihDeCani(-4);
    // alpha (1 - e^{4t}) / (1 - e^4) at alpha = 0.025: 0.00298 by half the information.
    expect(0.025 * spend(0.5)).toBeCloseTo(0.00298, 5);
    expect(spend(0)).toBe(0);
    expect(spend(1)).toBeCloseTo(1, 15);
    // gamma 0 is the straight line (equal shares per unit of information).
    expect(hwangShihDeCani(0)(0.3)).toBeCloseTo(0.3, 15);
    // O'Brien–Fleming-like: by half the information, both spend under an eighth of alpha.
    expect(spend(0.5)).toBeLessThan(0.125);
    expect(lanDeMetsObrienFleming(0.025, 0.5) / 0.025).toBeLessThan(0.125);
  });

  it('never spends less by a later look, and spends exactly the share over the planned looks', () => {
    for (const plan of [
      { rounds: 10, maxRounds: 40, lookEvery: 5 },
      { rounds: 10, maxRounds: 42, lookEvery: 5 },
      { rounds: 6, maxRounds: 11, lookEvery: 5 },
      { rounds: 10, maxRounds: 10, lookEvery: 5 },
    ]) {
      const rule = decisionRule({ confidence: 0.95, ...plan });
      const looks = lookRounds(plan.rounds, plan.maxRounds, plan.lookEvery);
      expect(looks).toHaveLength(rule.looks);
      const weights = looks.map((n) => rule.lookWeight(n));
      for (const w of weights) expect(w).toBeGreaterThan(0);
      // Cumulative spend only grows; on evenly spaced looks, so does each look's increment (back-loaded).
      const cumulative = weights.map((_, k) => weights.slice(0, k + 1).reduce((a, b) => a + b, 0));
      for (let k = 1; k < cumulative.length; k++) expect(cumulative[k]!).toBeGreaterThan(cumulative[k - 1]!);
      // (The last look gives the early look its weight: the rest of its increment.)
      if (plan.maxRounds === 40) {
        for (let k = 1; k < weights.length - 1; k++) expect(weights[k]!).toBeGreaterThan(weights[k - 1]!);
        expect(weights.at(-1)! + rule.earlyAlpha(1)).toBeGreaterThan(weights.at(-2)!);
        expect(rule.earlyAlpha(1)).toBeCloseTo(0.2, 12);
      }
      // The planned looks spend what the early look leaves (taken from the last look), together the whole share.
      expect(rule.earlyAlpha(1)).toBeGreaterThan(0);
      expect(rule.earlyAlpha(1)).toBeLessThanOrEqual(0.2);
      expect(weights.reduce((a, b) => a + b, 0) + rule.earlyAlpha(1)).toBeCloseTo(1, 12);
      // The run's total, one side, for a family of 7: alpha.
      expect(looks.reduce((sum, n) => sum + 7 * rule.lookAlpha(n, 0.05 / 7), 0) + 7 * rule.earlyAlpha(0.05 / 7)).toBeCloseTo(0.05, 12);
    }
  });

  it('spends less than the share when the time limit ends a figure between looks', () => {
    // Looks at 10, 15 and 20, then the limit at 23: 23 spends only since 20, and the four looks stay under the share.
    const spent = [10, 15, 20, 23].reduce((sum, n) => sum + sevenLooks.lookWeight(n), 0);
    expect(sevenLooks.lookWeight(23)).toBeCloseTo(hwangShihDeCani(-4)(23 / 40) - hwangShihDeCani(-4)(20 / 40), 15);
    expect(spent).toBeLessThan(1);
    // A look past the plan (a first look raised beyond max-rounds) is the only one, at the last look's weight.
    expect(sevenLooks.lookWeight(55)).toBe(sevenLooks.lookWeight(40));
  });

  it("reads the p-value of a figure as its last look's nominal p over that look's weight", () => {
    expect(sevenLooks.regressionP(0.001, 40)).toBeCloseTo(0.001 / sevenLooks.lookWeight(40), 15);
    expect(sevenLooks.regressionP(0.5, 10)).toBe(1);
    // One planned look: the nominal p-value over what the early look leaves it.
    const one = decisionRule({ confidence: 0.95, rounds: 10, maxRounds: 10, lookEvery: 5 });
    expect(one.regressionP(0.02, 10)).toBeCloseTo(0.02 / (1 - one.earlyAlpha(1)), 15);
  });
});

describe("Holm's step-down over the family", () => {
  it('rejects the smallest p-values while each passes alpha / (m - rank + 1), and stops at the first that fails', () => {
    // Sorted: 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: stop. Two rejected, the others read at 0.05/2.
    expect(stepDown([0.01, 0.04, 0.03, 0.005], 0.05)).toEqual({ rejected: [true, false, false, true], share: 0.025 });
    // 0.031 would pass 0.05/1, but the step-down already stopped at 0.03.
    expect(stepDown([0.001, 0.03, 0.031], 0.05).rejected).toEqual([true, false, false]);
    // More than Bonferroni: 0.02 fails 0.05/3 on its own but passes 0.05/2 after the first rejection.
    expect(stepDown([0.001, 0.02, 0.9], 0.05).rejected).toEqual([true, true, false]);
    expect(stepDown([], 0.05)).toEqual({ rejected: [], share: 0.05 });
  });

  it('treats tied p-values alike, at a threshold and below it', () => {
    expect(stepDown([0.02, 0.02, 0.02], 0.05).rejected).toEqual([false, false, false]);
    expect(stepDown([0.0125, 0.9, 0.0125, 0.9], 0.05).rejected).toEqual([true, false, true, false]);
    expect(stepDown([0.025, 0.025], 0.05)).toEqual({ rejected: [true, true], share: 0.05 });
  });

  it('takes the family size from its argument: a shard sees a few figures of a larger suite', () => {
    expect(stepDown([0.01], 0.05, 4).rejected).toEqual([true]);
    expect(stepDown([0.01], 0.05, 6)).toEqual({ rejected: [false], share: 0.05 / 6 });
    // Never smaller than the figures in view, and a missing p-value (NaN) is never rejected.
    expect(stepDown([0.01, 0.01], 0.05, 1).rejected).toEqual([true, true]);
    expect(stepDown([Number.NaN, 0.001], 0.05).rejected).toEqual([false, true]);
  });

  it("agrees with the merge of shard reports: the whole family's p-values, stepped down once", () => {
    const shardA = [0.0001, 0.2];
    const shardB = [0.004, 0.5, 0.011];
    const merged = stepDown([...shardA, ...shardB], 0.05);
    // Sorted 0.0001 <= 0.01, 0.004 <= 0.0125, 0.011 <= 0.0167, 0.2 > 0.025.
    expect(merged.rejected).toEqual([true, false, true, false, true]);
    // A shard alone, with the family's size, rejects no more than the merge does.
    expect(stepDown(shardB, 0.05, 5).rejected).toEqual([true, false, true]);
    expect(stepDown(shardA, 0.05, 5).rejected).toEqual([true, false]);
    expect(stepDown([0.011], 0.05, 5).rejected).toEqual([false]);
  });
});

describe('one-sided regression decisions', () => {
  it('tests only the loss side against the budget: an improvement has no regression p-value to speak of', () => {
    const loss = Array.from({ length: 10 }, (_, i) => Math.log(0.9) + (i - 5) * 0.001);
    const gain = loss.map((x) => -x);
    expect(regressionNominalP(loss, 0.05)).toBeCloseTo(1 / 1024, 12);
    expect(regressionNominalP(gain, 0.05)).toBe(1);
    // Latency (lower is better) mirrors it: a rise beyond the budget is the loss.
    expect(regressionNominalP(gain, 0.05, true)).toBeCloseTo(1 / 1024, 12);
    expect(regressionNominalP(loss, 0.05, true)).toBe(1);
    // A budget of 100% or more cannot be lost.
    expect(regressionNominalP(loss, 1)).toBe(1);
  });

  it("rejects exactly when the one-sided bound at the same error lies beyond the budget's centre", () => {
    let seed = 7;
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    for (let trial = 0; trial < 200; trial++) {
      const n = 6 + (trial % 15);
      const values = Array.from({ length: n }, () => (random() - 0.6) * 0.2);
      const centre = -0.02;
      for (const alpha of [0.05, 0.01, 0.003]) {
        const p = signedRankP(values, centre, 'below');
        const bound = hodgesLehmannBounds(values, 0.25, alpha);
        const reached = bound.achievedConfidence >= 1 - 0.25 - alpha - 1e-12;
        expect(reached && bound.high < centre, `n=${n} alpha=${alpha} p=${p}`).toBe(p < alpha);
      }
    }
  });

  it('needs fewer rounds for a clear loss than a two-sided interval at the same confidence', () => {
    // One look at 95%: five rounds bound one side at 1 - 1/32 = 0.969; two-sided, 95% needs six.
    const five: BenchmarkSamples = {
      id: 'a',
      kind: 'micro',
      file: 'x',
      // The first three rounds spread too much for the early look: the planned look (signed-rank) decides.
      logRatios: [-0.3, -0.1, -0.5, -0.32, -0.3],
      base: { opsPerSec: [1] },
      head: { opsPerSec: [1] },
    };
    const oneLook = decisionRule({ confidence: 0.95, rounds: 5, maxRounds: 5, lookEvery: 5 });
    const [result] = analyze([five], { rule: oneLook, budgetFor: () => 0.05 });
    expect(result!.verdict).toBe('regression');
    expect(result!.change!.confidence).toBeCloseTo(1 - 2 * 0.05 * (1 - oneLook.earlyAlpha(1)), 12);
    expect(result!.note).toBeUndefined();
    expect(oneLook.minimumRounds(1)).toBe(5);
  });
});
