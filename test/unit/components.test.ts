import { normal, seeded } from '../fakes.js';
import { describe, expect, it } from 'vitest';
import { costOfPrecision, optimalRepetitions, varianceComponents } from '../../src/stats/components.js';

describe('variance components of a nested experiment (Kalibera & Jones)', () => {
  it('reads a two-level example worked by hand', () => {
    // Pairs [1, 3] and [5, 7]: within each, variance 2 (S²_1 = 2); pair means 2 and 6, variance 8 (S²_2 = 8).
    // T²_1 = 2; T²_2 = 8 − 2 / 2 = 7.
    const c = varianceComponents([
      [1, 3],
      [5, 7],
    ]);
    expect(c.mean).toBe(4);
    expect(c.spreads).toEqual([2, 8]);
    expect(c.repetitions).toEqual([2]);
    expect(c.variances).toEqual([2, 7]);
  });

  it('clamps a level whose spread is all from the level below at 0', () => {
    // Pair means 2 and 2.5 spread less than blocks of variance 2 would make them: no pair effect seen.
    const c = varianceComponents([
      [1, 3],
      [1.5, 3.5],
    ]);
    expect(c.variances[1]).toBe(0);
    expect(c.variances[0]).toBe(2);
  });

  it('recovers known components from simulated pairs, blocks and windows', () => {
    const random = seeded(7);
    const [pair, block, window] = [0.03, 0.01, 0.05];
    const data = Array.from({ length: 400 }, () => {
      const p = pair * normal(random);
      return Array.from({ length: 8 }, () => {
        const b = p + block * normal(random);
        return Array.from({ length: 4 }, () => b + window * normal(random));
      });
    });
    const c = varianceComponents(data);
    expect(c.repetitions).toEqual([4, 8]);
    // Each within 20% of the truth in SD (400 pairs): a formula that forgot to subtract the level below would put
    // blocks at sqrt(0.01² + 0.05²/4) = 0.027, nearly three times 0.01.
    expect(Math.sqrt(c.variances[2]!)).toBeGreaterThan(pair * 0.8);
    expect(Math.sqrt(c.variances[2]!)).toBeLessThan(pair * 1.2);
    expect(Math.sqrt(c.variances[1]!)).toBeGreaterThan(block * 0.8);
    expect(Math.sqrt(c.variances[1]!)).toBeLessThan(block * 1.2);
    expect(Math.sqrt(c.variances[0]!)).toBeGreaterThan(window * 0.9);
    expect(Math.sqrt(c.variances[0]!)).toBeLessThan(window * 1.1);
  });

  it('takes groups of slightly different sizes (a block left out of a pair)', () => {
    const c = varianceComponents([
      [1, 3, 2],
      [5, 7],
      [4, 4, 4],
    ]);
    expect(c.repetitions[0]).toBeCloseTo(8 / 3);
    expect(Number.isFinite(c.variances[1])).toBe(true);
  });

  it('refuses an empty group rather than reading NaN as a variance', () => {
    expect(() => varianceComponents([[], [1, 2]])).toThrow(/empty group/);
  });
});

describe('the optimal repetitions (K&J: the most precision for the time)', () => {
  it('is the minimum of variance × time over the repetition count', () => {
    for (const [upperCost, lowerCost, upperVar, lowerVar] of [
      [2000, 1000, 0.0004, 0.0009],
      [100, 1000, 0.0004, 0.0009],
      [5000, 250, 0.0001, 0.0025],
    ] as const) {
      const r = optimalRepetitions(upperCost, lowerCost, upperVar, lowerVar);
      const at = (x: number) => costOfPrecision(upperCost, lowerCost, upperVar, lowerVar, x);
      for (const other of [r * 0.5, r * 0.8, r * 1.25, r * 2]) expect(at(r)).toBeLessThan(at(other));
    }
  });

  it('asks for more blocks per pair when a pair is slow to start, and fewer when pairs differ more', () => {
    const fast = optimalRepetitions(50, 1000, 0.0004, 0.0009);
    const slow = optimalRepetitions(2000, 1000, 0.0004, 0.0009);
    expect(slow).toBeCloseTo(fast * Math.sqrt(2000 / 50));
    expect(optimalRepetitions(2000, 1000, 0.0016, 0.0009)).toBeCloseTo(slow / 2);
  });

  it('is unbounded when pairs add no variance, and undefined for nonsense costs', () => {
    expect(optimalRepetitions(2000, 1000, 0, 0.0009)).toBe(Infinity);
    expect(optimalRepetitions(2000, 0, 0.0004, 0.0009)).toBeNaN();
  });
});
