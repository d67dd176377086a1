import { describe, expect, it } from 'vitest';
import { joinSeeds, lookAgain, serverRow, type SeededRow, type SeedsCounted } from '../../src/gate/counts.js';
import type { Config, HttpBenchmarkConfig } from '../../src/config/types.js';
import { compareCounts, seedLooks, settledEarly } from '../../src/stats/counts.js';
import { fakeLoadTest } from '../fakes.js';

const side = (instructions: number[]) => ({ instructions, unsteady: [] });
const row = (id: string, base: number[], head: number[], seeds = base.map((_, i) => i + 1)): SeededRow => ({
  id,
  file: '',
  base: side(base),
  head: side(head),
  seeds,
});
const config = { budget: 0.03, budgets: [], timeLimitMs: 300_000, micro: { count: 'instructions' as const } as Config['micro'] };
const tests = new Map<string, HttpBenchmarkConfig>();
const test = (id: string) => tests.get(id) ?? tests.set(id, { ...fakeLoadTest(id.replace(/^http > /, '')), id }).get(id)!;
/** The run's judge, as httpCountsStage builds it: one figure at 95%, each look at its share. */
const judge = (r: SeededRow, planned: readonly number[], weight: number) =>
  serverRow({ ...r, benchmark: test(r.id) }, planned, config, 1 - 2 * 0.05 * weight, () => undefined, weight);

describe('adaptive seeds: a look after 2 seeds, the rest only for the rows it leaves open', () => {
  it('splits the seeds into two looks of half the error each, and leaves 2 seeds or fewer one look of all of it', () => {
    expect(seedLooks([1, 2, 3])).toEqual([
      { seeds: [1, 2], weight: 0.5 },
      { seeds: [3], weight: 0.5 },
    ]);
    expect(seedLooks([1, 2, 3, 4, 5])).toEqual([
      { seeds: [1, 2], weight: 0.5 },
      { seeds: [3, 4, 5], weight: 0.5 },
    ]);
    expect(seedLooks([1, 2])).toEqual([{ seeds: [1, 2], weight: 1 }]);
  });

  it('stops a row early only where it is decided and its interval is no wider than half its budget', () => {
    const change = (low: number, high: number) => ({ low, high });
    expect(settledEarly({ verdict: 'regression', change: change(-0.055, -0.045), budget: 0.03 })).toBe(true);
    expect(settledEarly({ verdict: 'improvement', change: change(0.09, 0.1), budget: 0.05 })).toBe(true);
    // Decided, but 2 points wide at a 3% budget (the budget's rule settled it): the next seed narrows the estimate.
    expect(settledEarly({ verdict: 'regression', change: change(-0.06, -0.04), budget: 0.03 })).toBe(false);
    // hapi 6b67d24 after two seeds at a 5% budget: certain, not yet quotable.
    expect(settledEarly({ verdict: 'improvement', change: change(0.079, 0.122), budget: 0.05 })).toBe(false);
    expect(settledEarly({ verdict: 'inconclusive', change: change(-0.04, 0.01), budget: 0.03 })).toBe(false);
    expect(settledEarly({ verdict: 'unmeasured', change: change(-0.01, -0.01), budget: 0.03 })).toBe(false);
    // No change to narrow (new, removed, an error): nothing more to count.
    expect(settledEarly({ verdict: 'new', change: null, budget: 0.03 })).toBe(true);
  });

  it("ranks a look's p-value for Holm over the share it spent", () => {
    const base = [1000, 1010, 990];
    const head = [1035, 1040, 1025];
    const whole = compareCounts(base, head, 0.03, 0.9);
    const half = compareCounts(base, head, 0.03, 0.95, 0.5);
    expect(whole.regressionP).toBeGreaterThan(0);
    expect(half.regressionP).toBeCloseTo(Math.min(1, 2 * whole.regressionP), 12);
  });

  it('counts the third seed only for the rows the first look leaves open, and judges them on all three', async () => {
    const calls: [number[], readonly string[]][] = [];
    const lines: string[] = [];
    const first: SeedsCounted = {
      rows: [
        // −4.8% under both seeds, 0.1 point apart: decided, and narrow.
        row('http > settled', [100_000, 100_100], [104_900, 105_100]),
        // −4.5% and −5.5%: a regression at this look's share, but 13 points wide (one degree of freedom).
        row('http > wide', [100_000, 100_000], [104_500, 105_500]),
        // Straddles −3%: open.
        row('http > open', [100_000, 100_000], [101_000, 105_000]),
      ],
      counted: [1, 2],
    };
    const results = await lookAgain(
      seedLooks([1, 2, 3]),
      first,
      judge,
      async (seeds, open) => {
        calls.push([seeds, open]);
        return { rows: open.map((id) => row(id, [100_000], [105_000], [3])), counted: [3] };
      },
      (line) => lines.push(line),
    );
    expect(calls).toEqual([[[3], ['http > wide', 'http > open']]]);
    const [settled, wide, open] = results;
    expect(settled).toMatchObject({ verdict: 'regression', counts: { seeds: [1, 2] } });
    expect(settled!.note).toBeUndefined();
    expect(wide).toMatchObject({ verdict: 'regression', counts: { seeds: [1, 2, 3], base: { seeds: [100_000, 100_000, 100_000] } } });
    // 12 points wide on two seeds; 2.4 on three (Student's t of 12.7 at one degree of freedom, 4.3 at two).
    expect(wide!.change!.high - wide!.change!.low).toBeLessThan(0.03);
    expect(open!.counts!.seeds).toEqual([1, 2, 3]);
    expect(lines).toEqual([
      'counts: 2 row(s) open or wider than half their budget after seed(s) 1, 2 (http > wide, http > open): seed(s) 3 for them',
    ]);
  });

  it('counts no more where the first look settles every row, and says so', async () => {
    const lines: string[] = [];
    let counted = 0;
    const results = await lookAgain(
      seedLooks([1, 2, 3]),
      { rows: [row('http > a', [100_000, 100_001], [100_000, 100_001])], counted: [1, 2] },
      judge,
      () => {
        counted++;
        return Promise.resolve({ rows: [], counted: [] });
      },
      (line) => lines.push(line),
    );
    expect(counted).toBe(0);
    expect(results[0]).toMatchObject({ verdict: 'unchanged', counts: { seeds: [1, 2] } });
    expect(lines).toEqual([
      'counts: every row settled after seed(s) 1, 2 (decided, an interval no wider than half its budget): seed(s) 3 not needed',
    ]);
  });

  it('fails an open row the time limit left without its third seed, unmeasured, naming the seed', async () => {
    const [open] = await lookAgain(
      seedLooks([1, 2, 3]),
      { rows: [row('http > open', [100_000, 100_000], [101_000, 105_000])], counted: [1, 2] },
      judge,
      () => Promise.resolve({ rows: [{ id: 'http > open', file: '', base: undefined, head: undefined, seeds: [] }], counted: [] }),
      () => undefined,
    );
    expect(open).toMatchObject({ verdict: 'unmeasured', counts: { seeds: [1, 2] } });
    expect(open!.note).toContain('seed(s) 3 did not fit in the time limit');
  });

  it('joins the seeds of both looks, and never passes a row a later look lost', () => {
    const first = row('t', [10, 11], [12, 13]);
    expect(joinSeeds(first, row('t', [12], [14], [3]), [3])).toMatchObject({
      seeds: [1, 2, 3],
      base: side([10, 11, 12]),
      head: side([12, 13, 14]),
    });
    expect(joinSeeds(first, undefined, [])).toBe(first);
    expect(joinSeeds(first, undefined, [3])).toMatchObject({ base: undefined, error: 'counted under seed(s) 1, 2 only, not 3' });
    expect(joinSeeds(first, { ...row('t', [1], [1], [3]), error: 'head crashed' }, [3])).toMatchObject({
      base: undefined,
      error: 'head crashed',
    });
  });

  it('holds the false-regression rate at the row share however the seeds stop (a loss exactly at the budget, 20,000 runs)', async () => {
    // A deterministic generator: the rate is a fixed number, not a draw. Seeds 0.2 points apart (fastify's spread).
    let state = 12345;
    const uniform = () => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return (state + 0.5) / 2 ** 32;
    };
    const normal = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    const runs = 20_000;
    let regressions = 0;
    let early = 0;
    for (let i = 0; i < runs; i++) {
      const change = [1, 2, 3].map(() => Math.log(1 - config.budget) + 0.002 * normal());
      const all = row(
        'http > edge',
        change.map((x) => 100_000 * Math.exp(x)),
        change.map(() => 100_000),
      );
      const first = {
        ...all,
        base: side(all.base!.instructions.slice(0, 2)),
        head: side(all.head!.instructions.slice(0, 2)),
        seeds: [1, 2],
      };
      let again = false;
      const [result] = await lookAgain(
        seedLooks([1, 2, 3]),
        { rows: [first], counted: [1, 2] },
        judge,
        () => {
          again = true;
          return Promise.resolve({
            rows: [{ ...all, base: side([all.base!.instructions[2]!]), head: side([100_000]), seeds: [3] }],
            counted: [3],
          });
        },
        () => undefined,
      );
      if (!again) early++;
      if (result!.verdict === 'regression') regressions++;
    }
    // One-sided 5% at one figure; each look alone at 5% would read 8.1% here.
    expect(regressions / runs).toBeLessThan(0.05);
    expect(regressions / runs).toBeGreaterThan(0.03);
    expect(early / runs).toBeGreaterThan(0.02);
  });
});
