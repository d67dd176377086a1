import { describe, expect, it } from 'vitest';
import { resolvableChange, roundSpread, roundsToResolve } from '../../src/stats/power.js';

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

describe('round conditions', () => {
  it('names the rounds that ran much busier than the median round', async () => {
    const { spikedRounds } = await import('../../src/measure/conditions.js');
    const rounds = [0.55, 0.6, 0.58, 0.97, 0.61, 0.59, 0.95].map((busy) => ({ busy, load1: 1 }));
    expect(spikedRounds(rounds)).toEqual([4, 7]);
    expect(spikedRounds(rounds.slice(0, 2))).toEqual([]);
  });
});
