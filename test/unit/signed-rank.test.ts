import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hodgesLehmann, minimumRounds, psignrank, qsignrank } from '../../src/stats/signed-rank.js';

interface IntervalCase {
  n: number;
  confidence: number;
  x: number[];
  estimate: number;
  low: number;
  high: number;
}
interface DistributionCase {
  n: number;
  k: number[];
  p: number[];
  q: number[];
  qp: number[];
}
const reference = JSON.parse(readFileSync(new URL('../reference/signed-rank.json', import.meta.url), 'utf8')) as {
  intervals: IntervalCase[];
  distribution: DistributionCase[];
};

describe('signed-rank distribution, against R', () => {
  for (const c of reference.distribution) {
    it(`psignrank and qsignrank match R for n = ${c.n}`, () => {
      c.k.forEach((k, i) => expect(psignrank(k, c.n)).toBeCloseTo(c.p[i]!, 12));
      c.qp.forEach((p, i) => expect(qsignrank(p, c.n)).toBe(c.q[i]));
    });
  }
});

describe('Hodges–Lehmann interval, against R wilcox.test(conf.int = TRUE)', () => {
  for (const c of reference.intervals) {
    it(`n = ${c.n}, confidence ${c.confidence}`, () => {
      const r = hodgesLehmann(c.x, c.confidence);
      expect(r.estimate).toBeCloseTo(c.estimate, 12);
      expect(r.low).toBeCloseTo(c.low, 12);
      expect(r.high).toBeCloseTo(c.high, 12);
    });
  }

  it('reports the confidence it really reached when rounds are too few', () => {
    const r = hodgesLehmann([0.1, 0.2, 0.3], 0.95);
    expect(r.low).toBe(0.1);
    expect(r.high).toBe(0.3);
    expect(r.achievedConfidence).toBeCloseTo(0.75, 12);
  });

  it('needs enough rounds for the widest interval to reach the level', () => {
    expect(minimumRounds(0.95)).toBe(6);
    expect(minimumRounds(1 - 0.05 / 10)).toBe(9);
    expect(hodgesLehmann([1, 2, 3, 4, 5, 6], 0.95).achievedConfidence).toBeGreaterThanOrEqual(0.95);
  });
});
