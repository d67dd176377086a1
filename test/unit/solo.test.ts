import { describe, expect, it } from 'vitest';
import { processLevels, soloChange } from '../../src/stats/solo.js';
import { soloComparison } from '../../src/report/solo.js';
import { judgedWithSolo } from '../../src/report/solo-verdict.js';
import { soloSections } from '../../src/report/solo-sections.js';
import { levelsText } from '../../src/report/levels.js';
import type { BenchmarkSamples } from '../../src/measure/types.js';
import { resolutionSentence, type ReportBenchmark } from '../../src/report/model.js';

/** One benchmark's solo samples: each revision's processes' ops/s. */
const samplesOf = (id: string, base: number[], head: number[]): BenchmarkSamples => ({
  id,
  kind: 'micro',
  file: id.slice(0, id.indexOf(' > ')),
  logRatios: [],
  base: { opsPerSec: base },
  head: { opsPerSec: head },
});

/** A deterministic spread: n values around `center`, ±`spread` (relative), evenly. */
const around = (center: number, n: number, spread: number) =>
  Array.from({ length: n }, (_, i) => center * (1 + spread * ((2 * i) / (n - 1) - 1)));

describe('the solo change: two independent samples of processes', () => {
  it('reads a 10% loss from two spreads, with an interval that holds it and excludes none', () => {
    const change = soloChange(around(1000, 12, 0.02), around(900, 12, 0.02))!;
    expect(change.estimate).toBeCloseTo(-0.1, 2);
    expect(change.low).toBeLessThan(-0.1);
    expect(change.high).toBeGreaterThan(-0.1);
    expect(change.high).toBeLessThan(-0.07);
    expect(change.confidence).toBe(0.95);
  });

  it('reads no change between identical samples, and its interval is as wide as the spread allows', () => {
    const same = soloChange(around(1000, 12, 0.05), around(1000, 12, 0.05))!;
    expect(same.estimate).toBeCloseTo(0, 6);
    expect(same.low).toBeLessThan(0);
    expect(same.high).toBeGreaterThan(0);
    const tight = soloChange(around(1000, 12, 0.01), around(1000, 12, 0.01))!;
    expect(tight.high - tight.low).toBeLessThan(same.high - same.low);
  });

  it('holds a change between processes on levels: its interval covers the change of the levels mixed', () => {
    // Base: half its processes at 1.1 ms a call, half at 1.65 ms; head the same levels 10% slower.
    const base = [...around(1 / 1.1e-3, 6, 0.005), ...around(1 / 1.65e-3, 6, 0.005)];
    const head = base.map((x) => x / 1.1);
    const change = soloChange(base, head)!;
    expect(change.low).toBeLessThan(-0.0909);
    expect(change.high).toBeGreaterThan(-0.0909);
  });

  it('needs two processes a side', () => {
    expect(soloChange([1000], [900, 910])).toBeUndefined();
    expect(soloChange([1000, 0], [900, 910])).toBeUndefined();
  });
});

describe('speed levels of processes', () => {
  it('finds two levels, slowest first, with their counts', () => {
    const levels = processLevels([...around(1 / 1.65e-3, 5, 0.01), ...around(1 / 1.1e-3, 7, 0.01)])!;
    expect(levels.levels.map((l) => l.processes)).toEqual([5, 7]);
    expect(1e3 / levels.levels[0]!.opsPerSec).toBeCloseTo(1.65, 2);
    expect(1e3 / levels.levels[1]!.opsPerSec).toBeCloseTo(1.1, 2);
    expect(levelsText(levels)).toBe('2 speeds from process to process: 1.65 ms or 1.1 ms a call (5 and 7 of 12)');
  });

  it('finds three levels', () => {
    const levels = processLevels([...around(1000, 4, 0.005), ...around(1300, 4, 0.005), ...around(1700, 4, 0.005)])!;
    expect(levels.levels).toHaveLength(3);
    expect(levelsText(levels)).toMatch(/^3 speeds from process to process: .+, .+ or .+ a call \(4, 4 and 4 of 12\)$/);
  });

  it('sees one spread as one level: even, wide, or with one odd process', () => {
    expect(processLevels(around(1000, 12, 0.1))).toBeUndefined();
    expect(processLevels(around(1000, 24, 0.02))).toBeUndefined();
    // One process far off is an outlier, not a level: a level needs 2 processes and a sixth of them.
    expect(processLevels([...around(1000, 11, 0.01), 1500])).toBeUndefined();
    // Two groups 3% apart are too close to be told from spread.
    expect(processLevels([...around(1000, 6, 0.003), ...around(1030, 6, 0.003)])).toBeUndefined();
    expect(processLevels([1000, 2000, 1000])).toBeUndefined();
  });
});

describe('the solo check in the report', () => {
  const shared = { estimate: -0.085, low: -0.098, high: -0.08, confidence: 0.95 };
  const samples = (base: number[], head: number[]) => samplesOf('bench/render.bench.js > html()', base, head);

  it('agrees when the solo interval meets the shared one, and names the levels of each revision', () => {
    const base = [...around(1 / 2.45e-3, 6, 0.005), ...around(1 / 4.3e-3, 6, 0.005)];
    const solo = soloComparison(
      samples(
        base,
        base.map((x) => x * 0.92),
      ),
      shared,
    );
    expect(solo.agreement).toBe('agrees');
    expect(solo.base!.levels!.levels).toHaveLength(2);
    expect(solo.base!.processes).toBe(12);
    const bench = { id: 'bench/render.bench.js > html()', kind: 'micro', change: shared, solo } as unknown as ReportBenchmark;
    const sections = soloSections([bench], { processes: 12, durationMs: 30_000 });
    expect(sections.heading).toBe('solo check: 1 compared, 0 disagree (12 processes per revision)');
    expect(sections.rows).toEqual([
      ['bench/render.bench.js > html()', '-8.5% [-9.8%, -8.0%]', expect.stringMatching(/^-8\.0% \[/), 'agrees'],
    ]);
    expect(sections.notes).toEqual([
      'bench/render.bench.js > html(): at base, this call runs at 2 speeds from process to process: 4.3 ms or 2.45 ms a call (6 and 6 of 12)',
      expect.stringMatching(/^bench\/render\.bench\.js > html\(\): at head, this call runs at 2 speeds/),
    ]);
  });

  it('disagrees when the solo interval lies apart from the shared one', () => {
    const solo = soloComparison(samples(around(1000, 12, 0.01), around(1000, 12, 0.01)), shared);
    expect(solo.agreement).toBe('disagrees');
    expect(solo.base!.levels).toBeUndefined();
  });

  it('says the task order, not the process, where the fresh processes sat on one level per task order', async () => {
    const { reversedAt } = await import('../../src/stats/solo.js');
    // Process i runs the tasks in round i's order (declared, declared, reversed, reversed, ...): 8 ns declared, 5.4 ns reversed.
    const base = Array.from({ length: 12 }, (_, i) => (reversedAt(i) ? 1 / 5.4e-9 : 1 / 8e-9) * (1 + 0.001 * (i % 3)));
    const solo = soloComparison(
      samples(
        base,
        base.map((x) => x * 0.92),
      ),
      shared,
    );
    expect(solo.base!.levels!.byOrder).toBeDefined();
    const bench = { id: 'bench/render.bench.js > html()', kind: 'micro', change: shared, solo } as unknown as ReportBenchmark;
    const notes = soloSections([bench], { processes: 12, durationMs: 30_000 }).notes;
    expect(notes[0]).toMatch(
      /^bench\/render\.bench\.js > html\(\): at base, this call runs at 2 speeds, one per task order: [78]\.\d+ ns a call in the declared order, 5\.\d+ ns reversed \(12 processes\): its speed follows the tasks run before it/,
    );
    expect(notes.join(' ')).not.toContain('from process to process');
    // The same speeds in the process's pattern, not the order's: still process levels.
    const byProcess = base.map((_, i) => (i % 2 ? 1 / 5.4e-9 : 1 / 8e-9));
    const spread = soloComparison(samples(byProcess, byProcess), shared);
    expect(spread.base!.levels!.byOrder).toBeUndefined();
    const other = { id: 'x', kind: 'micro', change: shared, solo: spread } as unknown as ReportBenchmark;
    expect(soloSections([other], { processes: 12, durationMs: 30_000 }).notes[0]).toMatch(
      /^x: at base, this call runs at 2 speeds from process to process/,
    );
  });

  it('says unknown without a solo interval, and keeps a revision that failed alone', () => {
    const failed = soloComparison({ ...samples([1000, 1010], []), head: undefined, error: 'head: TypeError: x is not a function' }, shared);
    expect(failed).toMatchObject({ agreement: 'unknown', change: null, head: null, error: 'head: TypeError: x is not a function' });
  });
});

describe('a verdict read from both intervals where the solo interval lies apart from the shared one', () => {
  const shared = { estimate: -0.111, low: -0.163, high: -0.058, confidence: 0.998 };
  const bench = (verdict: string, change = shared) =>
    ({
      id: 'bench/parse.bench.js > skipEmptyLines',
      kind: 'micro',
      budget: 0.05,
      verdict,
      change,
      note: 'confirmed',
      rounds: Array.from({ length: 12 }, () => change.estimate),
      resolvable: 0.03,
    }) as unknown as ReportBenchmark;
  const samples = (base: number[], head: number[]) => samplesOf('bench/parse.bench.js > skipEmptyLines', base, head);

  it('turns a regression that fresh processes do not show inconclusive, over the span of both, and says why', () => {
    // papaparse a93c5c9's shape: -11.1% in the shared process, about -1.5% with each revision alone.
    const judged = judgedWithSolo(bench('regression'), samples(around(1000, 12, 0.01), around(985, 12, 0.01)));
    expect(judged.verdict).toBe('inconclusive');
    const solo = judged.solo!.change!;
    expect(solo.high).toBeGreaterThan(-0.05);
    // The interval printed spans both: the shared estimate, the shared low, the solo high.
    expect(judged.change).toEqual({ ...shared, high: solo.high });
    expect(judged.solo!.shared).toEqual(shared);
    // A regression marked unconfirmed loses the mark with the verdict.
    expect(
      judgedWithSolo({ ...bench('regression'), unconfirmed: true }, samples(around(1000, 12, 0.01), around(985, 12, 0.01))).unconfirmed,
    ).toBeUndefined();
    expect(judged.note).toMatch(
      /^confirmed; each revision alone in fresh processes reads -1\.\d% \[.*\], apart from the shared process's -11\.1% \[-16\.3%, -5\.8%\]: the verdict is read from both intervals together \(regression in the shared process alone\)$/,
    );
    // The report's table shows the shared process's own interval beside the solo one.
    const sections = soloSections([judged], { processes: 12, durationMs: 10_000 });
    expect(sections.rows[0]!.slice(1, 3)).toEqual(['-11.1% [-16.3%, -5.8%]', expect.stringMatching(/^-1\.\d% \[/)]);
  });

  it('says no more resolution than the span printed beside it shows, and its warning from that figure', () => {
    // Shared: 10.5 points wide, resolves 3% (under the 5% budget: no warning). The span with the solo interval is wider.
    const judged = judgedWithSolo(
      { ...bench('regression'), warning: 'the columns note' },
      samples(around(1000, 12, 0.01), around(985, 12, 0.01)),
    );
    const { low, high } = judged.change!;
    const half = (Math.log1p(high) - Math.log1p(low)) / 2;
    // At least the span's half-width (the power term only adds to it).
    expect(judged.resolvable).toBeGreaterThan(Math.expm1(half));
    expect(judged.resolvable).toBeGreaterThan(0.05);
    // The warning names the new figure, parsed back from its text, and keeps the other parts.
    const said = /resolves beyond it \(≈([\d.]+)% with 12 rounds\)/.exec(judged.warning ?? '');
    expect(said).not.toBeNull();
    expect(Number(said![1]) / 100).toBeCloseTo(judged.resolvable!, 2);
    expect(judged.warning).toMatch(/^the columns note; budget 5% is below/);
    // A row that had the warning already (a pass beside a resolution over its budget): the old sentence is said again
    // from the new figure, once, and the other parts stay.
    const flat = { estimate: 0.002, low: -0.01, high: 0.015, confidence: 0.998 };
    const before = resolutionSentence(0.06, 0.05, 'unchanged', 12)!;
    const wide = judgedWithSolo(
      { ...bench('unchanged', flat), resolvable: 0.06, warning: `the columns note; ${before}; another part` },
      samples(around(1000, 12, 0.005), around(1200, 12, 0.005)),
    );
    expect(wide.verdict).toBe('within-budget');
    expect(wide.resolvable).toBeGreaterThan(0.06);
    expect(wide.warning!.split('resolves beyond it')).toHaveLength(2);
    expect(wide.warning).not.toContain(before);
    expect(wide.warning).toBe(`the columns note; another part; ${resolutionSentence(wide.resolvable, 0.05, 'within-budget', 12)}`);
    // A check that keeps the shared interval keeps its figure.
    const kept = judgedWithSolo(bench('regression'), samples(around(1000, 12, 0.01), around(890, 12, 0.01)));
    expect(kept.change).toEqual(shared);
    expect(kept.resolvable).toBe(0.03);
  });

  it('keeps a regression both kinds of process put beyond the budget, and a pass both put inside it', () => {
    // Alone, head loses 20%: apart from the shared interval, but the span still lies wholly beyond -5%.
    const beyond = judgedWithSolo(bench('regression'), samples(around(1000, 12, 0.01), around(800, 12, 0.01)));
    expect(beyond.verdict).toBe('regression');
    expect(beyond.change!.low).toBeLessThan(-0.19);
    expect(beyond.change!.high).toBe(shared.high);
    expect(beyond.note).toMatch(/read from both intervals together$/);
    // An unchanged figure whose solo change lies inside the budget too stays unchanged.
    const flat = { estimate: 0.002, low: -0.01, high: 0.015, confidence: 0.998 };
    const inside = judgedWithSolo(bench('unchanged', flat), samples(around(1000, 12, 0.005), around(1025, 12, 0.005)));
    expect(inside.verdict).toBe('unchanged');
    expect(inside.change!.high).toBeGreaterThan(0.02);
  });

  it('reads the span where a revision sat on speed levels alone and the solo estimate lies outside the shared interval', () => {
    // papaparse a93c5c9 with empty lines (issue 41): shared +55.7% [+37.5%, +78.3%]; alone, base's processes sat at
    // 8.8, 7.6 or 6.7 ms a call (5, 11 and 8 of 24) and the change read +81.5%: the intervals meet, the estimate does not.
    const up = { estimate: 0.557, low: 0.375, high: 0.783, confidence: 0.998 };
    const level = (ms: number, n: number) => around(1000 / ms, n, 0.004);
    const base = [...level(8.817, 5), ...level(7.597, 11), ...level(6.691, 8)];
    const head = around((1000 / 7.597) * 1.87, 24, 0.08);
    const judged = judgedWithSolo(bench('improvement', up), samples(base, head));
    expect(judged.solo!.base!.levels).toBeDefined();
    expect(judged.solo!.agreement).toBe('agrees');
    expect(judged.solo!.change!.estimate).toBeGreaterThan(up.high);
    // The printed interval holds what fresh processes of each revision measure; an improvement it still is.
    expect(judged.change).toEqual({ ...up, high: judged.solo!.change!.high });
    expect(judged.verdict).toBe('improvement');
    expect(judged.note).toMatch(
      /each revision alone in fresh processes reads \+8\d\.\d% \[.*\], on speed levels, its estimate outside the shared process's \+55\.7% \[\+37\.5%, \+78\.3%\]: the verdict is read from both intervals together$/,
    );
    // The solo table marks the row and counts it in its heading (its intervals meet: it does not "disagree").
    const sections = soloSections([judged], { processes: 24, durationMs: 10_000 });
    expect(sections.heading).toBe('solo check: 1 compared, 0 disagree, 1 read on speed levels (24 processes per revision)');
    expect(sections.rows[0]![1]).toBe('+55.7% [+37.5%, +78.3%]');
    expect(sections.rows[0]![3]).toBe('levels');
    // The same figures from processes on one spread: no level, and intervals that meet are left alone.
    const spread = judgedWithSolo(bench('improvement', up), samples(around(1000 / 7.597, 24, 0.3), head));
    expect(spread.solo!.agreement).toBe('agrees');
    expect(spread.solo!.change!.estimate).toBeGreaterThan(up.high);
    expect(spread.solo!.base!.levels).toBeUndefined();
    expect(spread.change).toBe(up);
    expect(soloSections([spread], { processes: 24, durationMs: 10_000 }).rows[0]![3]).toBe('agrees');
  });

  it('leaves a benchmark alone where the intervals meet, even with the solo estimate outside, or no interval decides it', () => {
    const within = judgedWithSolo(bench('regression'), samples(around(1000, 12, 0.05), around(890, 12, 0.05)));
    expect(within.verdict).toBe('regression');
    expect(within.change).toBe(shared);
    expect(within.solo!.shared).toBeUndefined();
    expect(within.note).toBe('confirmed');
    // A few noisy processes put the solo estimate (-1%) outside the shared interval while the intervals meet: no
    // evidence of a difference, so the regression stands on the shared interval.
    const noisy = judgedWithSolo(bench('regression'), samples(around(1000, 6, 0.3), around(990, 6, 0.3)));
    expect(noisy.solo!.change!.estimate).toBeGreaterThan(shared.high);
    expect(noisy.solo!.agreement).toBe('agrees');
    expect(noisy.verdict).toBe('regression');
    expect(noisy.change).toBe(shared);
    // Unmeasured is what the time limit left: no solo figure makes it measured.
    const unmeasured = judgedWithSolo(bench('unmeasured'), samples(around(1000, 12, 0.01), around(1000, 12, 0.01)));
    expect(unmeasured.verdict).toBe('unmeasured');
    expect(unmeasured.change).toBe(shared);
    // An inconclusive verdict stays one: a regression its confirmation did not reproduce keeps the first group's
    // interval beyond the budget, and a solo interval apart from it on the far side must not make it a regression.
    const unconfirmed = judgedWithSolo(bench('inconclusive'), samples(around(1000, 12, 0.01), around(700, 12, 0.01)));
    expect(unconfirmed.solo!.agreement).toBe('disagrees');
    expect(unconfirmed.verdict).toBe('inconclusive');
    expect(unconfirmed.change).toBe(shared);
    // An improvement whose span still lies above +budget is kept; a span that reaches below -budget takes the pass back.
    const up = { estimate: 0.3, low: 0.2, high: 0.4, confidence: 0.998 };
    expect(judgedWithSolo(bench('improvement', up), samples(around(1000, 12, 0.01), around(1600, 12, 0.01))).verdict).toBe('improvement');
    expect(judgedWithSolo(bench('improvement', up), samples(around(1000, 12, 0.01), around(900, 12, 0.01))).verdict).toBe('inconclusive');
    // A revision that failed alone gives no solo interval: nothing to read.
    const failed = judgedWithSolo(bench('regression'), { ...samples(around(1000, 12, 0.01), []), head: undefined });
    expect(failed.verdict).toBe('regression');
  });
});

describe("levels in the shared process's rounds", () => {
  it('says which revision ran at which speeds, and what to run to see each alone', async () => {
    const { roundLevelsLine } = await import('../../src/report/levels.js');
    const base = processLevels([...around(1 / 1.1e-3, 6, 0.005), ...around(1 / 1.65e-3, 6, 0.005)])!;
    expect(roundLevelsLine({ base })).toBe(
      'at base it ran at 2 speeds from process to process: 1.65 ms or 1.1 ms a call (6 and 6 of 12): its figure depends on the ' +
        'process it runs in; compare --solo-check measures each revision alone in fresh processes',
    );
    expect(roundLevelsLine({ base, head: base })).toMatch(/^at base it ran at 2 speeds .*; at head it ran at 2 speeds /);
  });

  it('names the task order, not the process, where the two levels are the two orders the rounds alternate', async () => {
    const { roundLevelsLine } = await import('../../src/report/levels.js');
    const { levelsFollowOrder } = await import('../../src/stats/solo.js');
    const { reversedAt } = await import('../../src/stats/solo.js');
    // Rounds 0 1 declared, 2 3 reversed, ...: reselect's selectorDefault, 8 ns declared and 5.4 ns reversed, 6 and 6 of 12.
    const slow = 1 / 8e-9;
    const fast = 1 / 5.4e-9;
    const byOrder = Array.from({ length: 12 }, (_, round) => (reversedAt(round) ? fast : slow) * (1 + 0.001 * (round % 3)));
    const levels = processLevels(byOrder)!;
    expect(levels.levels.map((level) => level.processes)).toEqual([6, 6]);
    const orders = levelsFollowOrder(byOrder, levels, reversedAt)!;
    expect(orders.declared).toBeCloseTo(slow, -6);
    expect(orders.reversed).toBeCloseTo(fast, -6);
    // The same speeds in another pattern (the process's, not the order's): not the order.
    const byProcess = byOrder.map((_, round) => (round % 2 ? fast : slow));
    expect(levelsFollowOrder(byProcess, processLevels(byProcess)!, reversedAt)).toBeUndefined();
    // One round off the pattern: not the order either.
    const oneOff = byOrder.map((ops, round) => (round === 3 ? slow : ops));
    expect(levelsFollowOrder(oneOff, processLevels(oneOff)!, reversedAt)).toBeUndefined();
    // Six rounds hold only two reversed ones: too few to tell the order's pattern from chance.
    const six = byOrder.slice(0, 6);
    expect(levelsFollowOrder(six, processLevels(six)!, reversedAt)).toBeUndefined();
    const line = roundLevelsLine({ base: { ...levels, byOrder: orders } });
    expect(line).toMatch(
      /^at base it ran at 2 speeds, one per task order: [78]\.\d+ ns a call in the declared order, 5\.\d+ ns reversed \(12 rounds\): /,
    );
    expect(line).toContain('its speed follows the tasks run before it in the process');
    expect(line).not.toContain('from process to process');
    // Base by order, head by process: each side in its own words, both reasons said.
    const both = roundLevelsLine({ base: { ...levels, byOrder: orders }, head: processLevels(byProcess)! });
    expect(both).toMatch(/at base it ran at 2 speeds, one per task order: .*; at head it ran at 2 speeds from process to process: /);
    expect(both).toMatch(/its speed follows the tasks run before it .*; its figure depends on the process it runs in/);
    // A report made elsewhere that claims an order with one level is read as process levels, and does not throw.
    const crafted = { levels: [{ opsPerSec: 1e6, processes: 3 }], byOrder: orders };
    expect(roundLevelsLine({ base: crafted })).toMatch(/^at base it ran at 1 speeds from process to process/);
  });
});

describe('calibration on random draws (seeded)', () => {
  // A linear congruential generator and Box-Muller: the same draws every run.
  const draws = (seed: number) => {
    let state = seed;
    const uniform = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648 || 1e-9;
    return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  };

  it('calls one log-normal spread levels in under 2.5% of draws, and finds two levels 15% apart in most', () => {
    const normal = draws(7);
    for (const n of [10, 12, 24])
      for (const sd of [0.03, 0.05, 0.1]) {
        let found = 0;
        for (let t = 0; t < 400; t++) if (processLevels(Array.from({ length: n }, () => 1000 * Math.exp(sd * normal())))) found++;
        expect(found / 400, `n=${n} sd=${sd}`).toBeLessThan(0.025);
      }
    for (const n of [12, 24]) {
      let found = 0;
      for (let t = 0; t < 400; t++)
        if (processLevels(Array.from({ length: n }, (_, i) => 1000 * Math.exp((i % 2 ? 0.15 : 0) + 0.02 * normal())))) found++;
      expect(found / 400, `n=${n}`).toBeGreaterThan(0.75);
    }
  });

  it("puts the interval's ends at the order statistics of R's wilcox.test: the 38th and 107th of 144 differences for 12 and 12", () => {
    const base = Array.from({ length: 12 }, (_, i) => Math.exp(i * 0.001));
    const head = Array.from({ length: 12 }, (_, i) => Math.exp(1 + i * 0.0137));
    const differences = base.flatMap((b) => head.map((h) => Math.log(h) - Math.log(b))).sort((a, b) => a - b);
    const change = soloChange(base, head)!;
    expect(Math.log1p(change.low)).toBeCloseTo(differences[37]!, 12);
    expect(Math.log1p(change.high)).toBeCloseTo(differences[106]!, 12);
    // 10 and 10: the 24th and 77th of 100.
    const ten = soloChange(base.slice(0, 10), head.slice(0, 10))!;
    const tens = base
      .slice(0, 10)
      .flatMap((b) => head.slice(0, 10).map((h) => Math.log(h) - Math.log(b)))
      .sort((a, b) => a - b);
    expect(Math.log1p(ten.low)).toBeCloseTo(tens[23]!, 12);
    expect(Math.log1p(ten.high)).toBeCloseTo(tens[76]!, 12);
  });

  it('covers the true change in about 95% of draws of 12 and 12 processes', () => {
    const normal = draws(11);
    let covered = 0;
    for (let t = 0; t < 1000; t++) {
      const base = Array.from({ length: 12 }, () => 1000 * Math.exp(0.05 * normal()));
      const head = Array.from({ length: 12 }, () => 900 * Math.exp(0.05 * normal()));
      const change = soloChange(base, head)!;
      if (change.low <= -0.1 && change.high >= -0.1) covered++;
    }
    expect(covered / 1000).toBeGreaterThan(0.93);
    expect(covered / 1000).toBeLessThan(0.98);
  });
});
