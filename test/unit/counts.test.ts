import { describe, expect, it } from 'vitest';
import { compareCounts } from '../../src/stats/counts.js';
import { callgrindArgs, findCallgrind, INSTALL_LINE, lateOrFromStart, NotInstrumented } from '../../src/measure/counts/callgrind.js';
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
    expect(compareCounts([1000, 1000], [800, 800], 0.05, 0.99).verdict).toBe('improvement');
  });

  it('gives a revision counted under one seed no interval: one process says nothing of how processes differ', () => {
    for (const [base, head] of [
      [[1000], [2000]],
      [[1000], [1000]],
      [[1000, 1000], [2000]],
    ]) {
      const result = compareCounts(base!, head!, 0.05, 0.99);
      expect(result.verdict).toBe('inconclusive');
      expect(result.change.high).toBe(Number.POSITIVE_INFINITY);
      expect(result.regressionP).toBe(1);
    }
  });

  it('pairs the revisions by seed: a level a seed gives both cancels, and the paired t interval reads what is left', () => {
    // Seed 2 puts both revisions on another level (an untouched task after other files): the pairs agree.
    const level = compareCounts([1000, 800, 1000], [1000, 800, 1000], 0.05, 0.99);
    expect(level.verdict).toBe('unchanged');
    expect(level.change.low).toBe(0);
    const base = [1000, 1010, 990];
    const head = [1080, 1100, 1090];
    const result = compareCounts(base, head, 0.05, 0.95);
    const d = base.map((b, i) => Math.log(b / head[i]!));
    const mean = d.reduce((s, a) => s + a, 0) / 3;
    const se = Math.sqrt(d.reduce((s, a) => s + (a - mean) ** 2, 0) / 2 / 3);
    // qt(0.975, 2) = 4.302653 (any t table).
    expect((Math.log1p(result.change.high) - mean) / se).toBeCloseTo(4.302653, 5);
    expect((mean - Math.log1p(result.change.low)) / se).toBeCloseTo(4.302653, 5);
    expect(result.change.estimate).toBeCloseTo(Math.expm1(mean), 12);
    result.logRatios.forEach((x, i) => expect(x).toBeCloseTo(d[i]!, 12));
    expect(result.verdict).toBe(result.change.high < -0.05 ? 'regression' : 'inconclusive');
  });

  it("reads revisions of different seeds with Welch's interval, wider than either alone", () => {
    const result = compareCounts([1000, 1010, 990], [1080, 1100], 0.05, 0.95);
    expect(result.change.low).toBeLessThan(result.change.estimate);
    expect(result.change.high).toBeGreaterThan(result.change.estimate);
    expect(Number.isFinite(result.change.high)).toBe(true);
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

describe('lateOrFromStart: a process started late, or from its start once that failed', () => {
  it('starts again from the start when instrumentation could not be turned on, and every later process too', async () => {
    const valgrind = 'a-valgrind-whose-vgdb-fails';
    const starts: boolean[] = [];
    const log: string[] = [];
    const attempt = (late: boolean) => {
      starts.push(late);
      return late ? Promise.reject(new NotInstrumented('vgdb could not turn it on in pid 7')) : Promise.resolve('counted');
    };
    expect(await lateOrFromStart(valgrind, attempt, (line) => log.push(line), 'server')).toBe('counted');
    expect(await lateOrFromStart(valgrind, attempt, (line) => log.push(line), 'server')).toBe('counted');
    // Late once, then from the start; the second process never tries late (remembered per valgrind), logged once.
    expect(starts).toEqual([true, false, false]);
    // Two started late side by side, both refused: said once.
    const twin = 'a-valgrind-with-two-processes-refused';
    const [a, b] = await Promise.all([0, 1].map(() => lateOrFromStart(twin, attempt, (line) => log.push(line), 'server')));
    expect([a, b]).toEqual(['counted', 'counted']);
    expect(log).toEqual([
      'callgrind: vgdb could not turn it on in pid 7; every server from now on runs instrumented from its start (slower)',
      'callgrind: vgdb could not turn it on in pid 7; every server from now on runs instrumented from its start (slower)',
    ]);
  });

  it('starts late where it works, and passes any other failure on without starting again', async () => {
    const starts: boolean[] = [];
    const ok = (late: boolean) => (starts.push(late), Promise.resolve(late));
    expect(await lateOrFromStart('a-valgrind-whose-vgdb-works', ok, undefined, 'process')).toBe(true);
    const crash = (late: boolean) => (starts.push(late), Promise.reject(new Error('the server crashed')));
    await expect(lateOrFromStart('a-valgrind-whose-vgdb-works', crash, undefined, 'process')).rejects.toThrow('crashed');
    expect(starts).toEqual([true, true]);
    // A crash is not a refusal: the next process still starts late.
    expect(await lateOrFromStart('a-valgrind-whose-vgdb-works', ok, undefined, 'process')).toBe(true);
  });
});
