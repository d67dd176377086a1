import { describe, expect, it } from 'vitest';
import { compareCounts } from '../../src/stats/counts.js';
import { callgrindArgs, findCallgrind, INSTALL_LINE } from '../../src/measure/counts/callgrind.js';
import { checkRunnerMessage } from '../../src/measure/micro/messages.js';
import { UserError } from '../../src/util/errors.js';

describe('compareCounts: a change from each seed of each revision', () => {
  it('reads counts that no seed moves as exact: the interval is the estimate, the verdict needs no confidence', () => {
    const slower = compareCounts([1000, 1000, 1000], [1100, 1100, 1100], 0.05, 0.99);
    // 1000 instructions a call at base, 1100 at head: head does 1/1.1 as many calls per instruction.
    expect(slower.change.estimate).toBeCloseTo(1000 / 1100 - 1, 12);
    expect(slower.change.low).toBe(slower.change.estimate);
    expect(slower.change.high).toBe(slower.change.estimate);
    expect(slower.verdict).toBe('regression');
    expect(slower.regressionP).toBe(0);
    const within = compareCounts([1000, 1000], [1030, 1030], 0.05, 0.99);
    expect(within.verdict).toBe('unchanged');
    expect(within.regressionP).toBe(1);
    expect(compareCounts([1000], [800], 0.05, 0.99).verdict).toBe('improvement');
  });

  it("reads a spread across seeds with Welch's t interval on the log counts", () => {
    const base = [1000, 1010, 990];
    // head = base × 1.09: the same spread on the log scale at both, so Welch's df is exactly 2 × (3 - 1) = 4.
    const head = base.map((x) => x * 1.09);
    const result = compareCounts(base, head, 0.05, 0.95);
    const x = base.map(Math.log);
    const y = head.map(Math.log);
    const mean = (v: number[]) => v.reduce((s, a) => s + a, 0) / v.length;
    const variance = (v: number[]) => v.reduce((s, a) => s + (a - mean(v)) ** 2, 0) / (v.length - 1);
    const d = mean(x) - mean(y);
    const se = Math.sqrt(variance(x) / 3 + variance(y) / 3);
    const df = (variance(x) / 3 + variance(y) / 3) ** 2 / ((variance(x) / 3) ** 2 / 2 + (variance(y) / 3) ** 2 / 2);
    expect(df).toBeCloseTo(4, 9);
    // qt(0.975, 4) = 2.776445 (any t table).
    expect((Math.log1p(result.change.high) - d) / se).toBeCloseTo(2.776445, 5);
    expect((d - Math.log1p(result.change.low)) / se).toBeCloseTo(2.776445, 5);
    expect(result.change.estimate).toBeCloseTo(Math.expm1(d), 12);
    // About -8%: beyond a 5% budget, but the interval's upper bound decides.
    expect(result.verdict).toBe(result.change.high < -0.05 ? 'regression' : 'inconclusive');
    expect(result.logRatios).toHaveLength(3);
  });

  it('keeps a regression p-value that agrees with the interval: below the side error exactly when the bound is beyond the budget', () => {
    for (const spread of [0.001, 0.01, 0.03, 0.06]) {
      const base = [1000 * (1 - spread), 1000, 1000 * (1 + spread)];
      const head = base.map((x) => x * 1.06);
      const level = 0.95;
      const result = compareCounts(base, head, 0.05, level);
      const regression = result.change.high < -0.05;
      expect(result.regressionP < (1 - level) / 2, `spread ${spread}`).toBe(regression);
      expect(result.verdict === 'regression').toBe(regression);
    }
  });

  it('refuses a missing or non-positive count rather than reading it', () => {
    expect(() => compareCounts([], [1], 0.05, 0.95)).toThrow(RangeError);
    expect(() => compareCounts([0], [1], 0.05, 0.95)).toThrow(RangeError);
    expect(() => compareCounts([Number.NaN], [1], 0.05, 0.95)).toThrow(RangeError);
  });
});

describe('callgrind', () => {
  it('names the install line and the way back to time when valgrind is missing', () => {
    let thrown: unknown;
    try {
      findCallgrind('/nonexistent/valgrind');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UserError);
    expect((thrown as Error).message).toContain(INSTALL_LINE);
    expect((thrown as Error).message).toContain('measure: time');
  });

  it('starts node predictable under the seed, at full tiering, dumping at the marker', () => {
    const args = callgrindArgs('/tmp/x/callgrind.0', 7, '/usr/bin/node');
    expect(args).toContain('--tool=callgrind');
    expect(args).toContain('--dump-before=uv_os_getpriority');
    expect(args).toContain('--callgrind-out-file=/tmp/x/callgrind.0');
    const node = args.indexOf('/usr/bin/node');
    expect(args.slice(node + 1)).toEqual(['--predictable', '--predictable-gc-schedule', '--hash-seed=7', '--random-seed=7']);
    expect(args.some((a) => a === '--no-opt' || a === '--jitless')).toBe(false);
  });

  it("checks a count job's answer like every runner message", () => {
    expect(checkRunnerMessage({ type: 'counted', files: [], counts: [{ id: 'a > b', instructions: 10, steady: true }] }).ok).toBe(true);
    expect(checkRunnerMessage({ type: 'counted', files: [], counts: [{ id: 'a > b', instructions: -1 }] }).ok).toBe(false);
    expect(checkRunnerMessage({ type: 'counted', files: [] }).ok).toBe(false);
  });
});
