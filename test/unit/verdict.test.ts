import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/stats/analyze.js';
import { beyondBudget, decide, estimateChange, type Change, type Verdict } from '../../src/stats/compare.js';
import { decisionRule } from '../../src/stats/decision.js';

/** One look at 95% (no adaptive rounds): the family is the budgeted figures alone. */
const oneLook = decisionRule({ confidence: 0.95, rounds: 10, maxRounds: 10, lookEvery: 5 });
import type { BenchmarkSamples } from '../../src/measure/types.js';
import { runVerdict, verdictCounts, type ReportBenchmark } from '../../src/report/model.js';

const change = (low: number, high: number, achieved = 0.96): Change => ({
  estimate: (low + high) / 2,
  low,
  high,
  confidence: 0.95,
  achievedConfidence: achieved,
});

describe('verdict against a 5% budget', () => {
  it('is a regression only when the whole interval lies below -5%', () => {
    expect(decide(change(-0.2, -0.06), 0.05)).toBe('regression');
    expect(decide(change(-0.2, -0.04), 0.05)).toBe('inconclusive');
  });
  it('is an improvement only when the whole interval lies above +5%, as a regression lies below -5%', () => {
    expect(decide(change(0.06, 0.3), 0.05)).toBe('improvement');
    expect(decide(change(0.001, 0.03), 0.05)).toBe('unchanged');
  });
  it('is unchanged when the interval lies inside ±5%', () => {
    expect(decide(change(-0.049, 0.03), 0.05)).toBe('unchanged');
    expect(decide(change(-0.049, -0.01), 0.05)).toBe('unchanged');
  });
  it('is within budget, a certain pass, when the interval lies above -5% and reaches past +5% (hapi 6b67d24: +4.3% [+1.5%, +6.8%])', () => {
    expect(decide(change(0.015, 0.068), 0.05)).toBe('within-budget');
    expect(decide(change(-0.03, 0.4), 0.05)).toBe('within-budget');
    expect(decide(change(-0.051, 0.4), 0.05)).toBe('inconclusive');
  });
  it('keeps inconclusive for an interval that straddles -5%: a loss beyond the budget is possible', () => {
    expect(decide(change(-0.06, 0.3), 0.05)).toBe('inconclusive');
    expect(decide(change(-0.06, -0.04), 0.05)).toBe('inconclusive');
  });
  it("answers the gate's question for machines: yes, no or open", () => {
    expect(
      ['regression', 'improvement', 'unchanged', 'within-budget', 'inconclusive', 'unmeasured', 'error'].map((v) =>
        beyondBudget(v as Verdict),
      ),
    ).toEqual(['yes', 'no', 'no', 'no', 'open', 'open', null]);
  });
  it('claims nothing when too few rounds kept the interval below its confidence', () => {
    expect(decide(change(-0.5, -0.4, 0.75), 0.05)).toBe('inconclusive');
    expect(decide(change(-0.01, 0.01, 0.75), 0.05)).toBe('inconclusive');
  });
});

describe('change estimate from per-round log ratios', () => {
  it('maps a halving of throughput to -50%', () => {
    const rounds = [0.99, 1.0, 1.01, 0.995, 1.005, 1.0, 0.998, 1.002].map((x) => Math.log(0.5 * x));
    const result = estimateChange(rounds, 0.95);
    expect(result.estimate).toBeCloseTo(-0.5, 2);
    expect(result.low).toBeLessThan(result.estimate);
    expect(result.high).toBeGreaterThan(result.estimate);
    expect(result.achievedConfidence).toBeGreaterThanOrEqual(0.95);
  });
});

describe('family-wise error control', () => {
  it("gives each of m one-sided bounds alpha/m at one look (Holm's first step), so each interval is 1 - 2 alpha/m", () => {
    // The one planned look spends what the early look leaves of each share.
    const kept = 1 - oneLook.earlyAlpha(1);
    expect(oneLook.intervalLevel(1)).toBeCloseTo(1 - 2 * 0.05 * kept, 15);
    expect(oneLook.intervalLevel(10)).toBeCloseTo(1 - 2 * 0.005 * kept, 15);
  });

  it('widens every interval as benchmarks are added, so ten benchmarks are not ten chances of a false alarm', () => {
    const bench = (id: string, shift = 0): BenchmarkSamples => ({
      id,
      kind: 'micro',
      file: 'bench/x.bench.js',
      logRatios: [-0.07, -0.08, -0.065, -0.075, -0.09, -0.06, -0.07, -0.085, -0.072, -0.068].map((x) => x + shift),
      base: { opsPerSec: [100] },
      head: { opsPerSec: [93] },
    });
    const options = { rule: oneLook, budgetFor: () => 0.05 };
    const alone = analyze([bench('a')], options)[0]!;
    // Nine neighbours that lost nothing: Holm's first step, alpha / 10, for everyone.
    const neighbours = ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((id) => bench(id, 0.074));
    const inFamily = analyze([bench('a'), ...neighbours], options);
    expect(alone.change!.confidence).toBeCloseTo(0.9);
    for (const result of inFamily.slice(1)) expect(result.change!.confidence).toBeCloseTo(0.99);
    expect(inFamily[0]!.change!.high).toBeGreaterThan(alone.change!.high);
    expect(alone.verdict).toBe('regression');
  });

  it('steps down (Holm) when several figures lose: ten clear losses are read at up to alpha, not alpha / 10', () => {
    const loss = (id: string): BenchmarkSamples => ({
      id,
      kind: 'micro',
      file: 'bench/x.bench.js',
      logRatios: [-0.07, -0.08, -0.065, -0.075, -0.09, -0.06, -0.07, -0.085, -0.072, -0.068],
      base: { opsPerSec: [100] },
      head: { opsPerSec: [93] },
    });
    const results = analyze(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map(loss), { rule: oneLook, budgetFor: () => 0.05 });
    for (const result of results) {
      expect(result.verdict).toBe('regression');
      // Every one rejected: the regression bound at the last step's share (alpha / 1), the other side stays at alpha / 10.
      expect(result.change!.confidence).toBeCloseTo(1 - (0.05 + 0.005) * (1 - oneLook.earlyAlpha(1)), 12);
    }
  });

  it('keeps failed, new and removed benchmarks out of the family', () => {
    const results = analyze(
      [
        {
          id: 'x > a',
          kind: 'micro',
          file: 'x',
          logRatios: [0.01, -0.01, 0, 0.005, -0.005, 0.002],
          base: { opsPerSec: [1] },
          head: { opsPerSec: [1] },
        },
        { id: 'x > new', kind: 'micro', file: 'x', logRatios: [], base: undefined, head: { opsPerSec: [5] } },
        { id: 'x > gone', kind: 'micro', file: 'x', logRatios: [], base: { opsPerSec: [5] }, head: undefined },
        { id: 'x > bad', kind: 'micro', file: 'x', logRatios: [], base: undefined, head: undefined, error: 'at head: boom' },
      ],
      { rule: oneLook, budgetFor: () => 0.05 },
    );
    expect(results.map((r) => r.verdict)).toEqual(['unchanged', 'new', 'removed', 'error']);
    expect(results[0]!.change!.confidence).toBeCloseTo(0.9);
  });
});

describe('confirmation of a regression by a fresh group of rounds', () => {
  // The rounds of a real run (etag with injected work, budget 1%, 21 budgeted figure-looks): the first
  // group says regression; the fresh group's one outlier (+1.5%) spans its interval at the family's level.
  const first = [-3.5, -9.2, -4.3, -8.2, -5.7, -8.1, -11.8, -4.8, -8.4, -6.5].map((x) => Math.log1p(x / 100));
  const fresh = [1.5, -6.7, -2.1, -12.1, -5.3, -7.7, -6.3, -6.0, -1.9, -6.8].map((x) => Math.log1p(x / 100));
  const samples = (confirmation: number[]): BenchmarkSamples => ({
    id: 'etag',
    kind: 'micro',
    file: 'bench/work.bench.js',
    logRatios: first,
    confirmation,
    base: { opsPerSec: [1] },
    head: { opsPerSec: [1] },
  });
  const options = { rule: oneLook, budgetFor: () => 0.01, otherFigures: 20 };

  it('holds when the fresh group shows the loss at the run confidence, however wide the family', () => {
    const [result] = analyze([samples(fresh)], options);
    // Holm: the regression passes 0.05/21, so its regression bound is read at 0.05/20, the other at 0.05/21.
    expect(result!.change!.confidence).toBeCloseTo(1 - (0.05 / 21 + 0.05 / 20) * (1 - oneLook.earlyAlpha(1)), 9);
    expect(result!.verdict).toBe('regression');
    // At the family's level the same fresh rounds would not have confirmed it: that lost half the 5% regressions.
    expect(decide(estimateChange(fresh, 1 - 0.05 / 21), 0.01)).toBe('inconclusive');
  });

  it('does not hold when the fresh group shows no loss (a transient offset), and says why', () => {
    const transient = [0.4, -0.8, 0.1, -0.3, 0.6, -0.2, 0.9, -0.5, 0.2, -0.1].map((x) => Math.log1p(x / 100));
    const [result] = analyze([samples(transient)], options);
    expect(result!.verdict).toBe('inconclusive');
    expect(result!.note).toBe(
      'a regression in the first 10 rounds (-7.0%) did not reproduce in 10 fresh rounds (0.0% [-0.3%, +0.3%]): not failing the build on it',
    );
  });

  it('says when the fresh group was cut too short to confirm anything', () => {
    // Three fresh rounds that read the loss too (-2.4% against 1%): too few for the level, so not confirmed, but the
    // loss the first group bounds is what was measured: a regression marked unconfirmed, which fails the run.
    const [short] = analyze([samples(fresh.slice(0, 3))], options);
    expect(short!.verdict).toBe('regression');
    expect(short!.unconfirmed).toBe(true);
    expect(short!.note).toMatch(
      /^a regression in the first 10 rounds \(-7\.0% \[-\d+\.\d%, -\d+\.\d%\]\) could not be confirmed: only 3 fresh rounds fit in the time limit \(-2\.4%\), too few for the interval's level: a loss as measured, not shown again in fresh rounds \(a transient of the first rounds would look the same\): it fails the run, unconfirmed; raise time-limit to confirm it$/,
    );
    // Three fresh rounds that do not read it: not disproved either, so unmeasured (never a pass).
    const [noLoss] = analyze([samples([0.4, -0.8, 0.1].map((x) => Math.log1p(x / 100)))], options);
    expect(noLoss!.verdict).toBe('unmeasured');
    expect(noLoss!.unconfirmed).toBeUndefined();
    expect(noLoss!.note).toMatch(
      /could not be confirmed: only 3 fresh rounds fit in the time limit, too few for the interval's level: unmeasured/,
    );
  });

  it('takes a fresh group the time limit stopped short of the size it goes on to as cut: unmeasured, or an unconfirmed regression', () => {
    const transient = [0.4, -0.8, 0.1, -0.3, 0.6, -0.2, 0.9, -0.5, 0.2, -0.1].map((x) => Math.log1p(x / 100));
    const planned = (confirmation: number[]) => ({ ...samples(confirmation), confirmationPlanned: 10 });
    const final = { ...options, firstLook: () => ({ rounds: 10, hint: 'raise time-limit' }) };
    // Six fresh rounds (enough for the level) that do not show the loss, where the group goes on to 10: while
    // measuring, not shown (so the schedule goes on); in the final judgement, cut by the time limit: unmeasured.
    expect(analyze([planned(transient.slice(0, 6))], options)[0]!.verdict).toBe('inconclusive');
    const [cut] = analyze([planned(transient.slice(0, 6))], final);
    expect(cut!.verdict).toBe('unmeasured');
    expect(cut!.note).toMatch(
      /could not be confirmed: only 6 fresh rounds fit in the time limit, fewer than the 10 it goes on to where its first do not show the loss: unmeasured/,
    );
    // Six that read the loss without confirming it: what was measured, a regression marked unconfirmed.
    const [loss] = analyze([planned([1.5, -6.7, -2.1, 2.0, -5.3, -7.7].map((x) => Math.log1p(x / 100)))], final);
    expect(loss!.verdict).toBe('regression');
    expect(loss!.unconfirmed).toBe(true);
    // The whole 10 not showing it: it did not reproduce, measured.
    expect(analyze([planned(transient)], final)[0]!.verdict).toBe('inconclusive');
    // Six that show it are enough: confirmed.
    const clear = [-6.1, -7.2, -5.9, -6.6, -7.0, -6.4].map((x) => Math.log1p(x / 100));
    const [shown] = analyze([planned(clear)], final);
    expect(shown!.verdict).toBe('regression');
    expect(shown!.unconfirmed).toBeUndefined();
  });

  it('calls a regression whose confirmation began with no round in the time limit an unconfirmed regression, its other figures too', () => {
    const [micro] = analyze([samples([])], options);
    expect(micro!.verdict).toBe('regression');
    expect(micro!.unconfirmed).toBe(true);
    expect(micro!.note).toMatch(
      /^a regression in the first 10 rounds \(-7\.0% \[[^\]]+\]\) could not be confirmed: no fresh round fit in the time limit: a loss as measured, not shown again in fresh rounds \(a transient of the first rounds would look the same\): it fails the run, unconfirmed; raise time-limit to confirm it$/,
    );
    // A load test's CPU figure had no fresh round either: unconfirmed too, and so is the benchmark.
    const [load] = analyze([{ ...samples([]), kind: 'http', cpu: first }], options);
    expect(load!.cpu!.verdict).toBe('regression');
    expect(load!.verdict).toBe('regression');
    expect(load!.unconfirmed).toBe(true);
    // With no confirmation begun (confirm: false), the first group's regression stands, confirmed as planned.
    const [unconfirmed] = analyze([{ ...samples([]), confirmation: undefined }], options);
    expect(unconfirmed!.verdict).toBe('regression');
    expect(unconfirmed!.unconfirmed).toBeUndefined();
    // Confirmed by its fresh group: no mark.
    expect(analyze([samples(fresh)], options)[0]!.unconfirmed).toBeUndefined();
  });
});

describe('a benchmark short of its first look is unmeasured, never a pass', () => {
  const tenRounds = decisionRule({ confidence: 0.95, rounds: 10, maxRounds: 10, lookEvery: 5 });
  const aa = (rounds: number, offset = 0): BenchmarkSamples => ({
    id: 'x > task',
    kind: 'micro',
    file: 'x',
    // Identical code, a few rounds: what a run cut by the time limit has (rounds ±20% apart: too spread for the early look).
    logRatios: Array.from({ length: rounds }, (_, i) => Math.log1p(offset + ((i % 3) - 1) * 0.2)),
    base: { opsPerSec: Array.from({ length: rounds }, () => 100) },
    head: { opsPerSec: Array.from({ length: rounds }, () => 100) },
  });
  const firstLook = () => ({ rounds: 10, hint: 'raise time-limit' });

  it('gives 3 of 10 rounds the verdict unmeasured, with the rounds and the hint in its note', () => {
    const [result] = analyze([aa(3)], { rule: tenRounds, budgetFor: () => 0.5, firstLook });
    expect(result!.verdict).toBe('unmeasured');
    expect(result!.note).toBe(
      'measured in 3 of the 10 rounds its first look needs: too few for a verdict, and an unmeasured benchmark is never a pass: raise time-limit',
    );
    // Without the first look (a look while measuring), the same rounds are merely not decided yet.
    expect(analyze([aa(3)], { rule: tenRounds, budgetFor: () => 0.5 })[0]!.verdict).toBe('inconclusive');
  });

  it('gives a benchmark measured in 0 rounds the verdict unmeasured, micro and HTTP alike, with the plan in its note', () => {
    const http: BenchmarkSamples = {
      id: 'list',
      kind: 'http',
      file: undefined,
      logRatios: [],
      base: { opsPerSec: [] },
      head: { opsPerSec: [] },
      latency: { mean: [], p50: [], p90: [], p99: [] },
      cpu: [],
    };
    const plan = () => ({ rounds: 15, hint: 'the first look needs 15 rounds, about 1m53s of measuring' });
    const results = analyze([aa(0), http], {
      rule: tenRounds,
      budgetFor: () => 0.05,
      latencyBudgetFor: (id) => (id === 'list' ? { p99: 0.1 } : {}),
      firstLook: plan,
    });
    for (const result of results) {
      expect(result.verdict).toBe('unmeasured');
      expect(result.change).toBeUndefined();
      expect(result.note).toBe(
        'measured in 0 of the 15 rounds its first look needs: too few for a verdict, and an unmeasured benchmark is never a pass: the first look needs 15 rounds, about 1m53s of measuring',
      );
    }
    expect(runVerdict(results.map((r) => ({ verdict: r.verdict }) as ReportBenchmark))).toBe('error');
    // While measuring (no first look given), no round yet is only "not decided yet": the look keeps measuring it.
    expect(analyze([aa(0), http], { rule: tenRounds, budgetFor: () => 0.05 }).map((r) => r.verdict)).toEqual([
      'inconclusive',
      'inconclusive',
    ]);
  });

  it('decides a step far beyond its budget at the early look, from 3 rounds, and confirms a regression as any other', () => {
    // A step of -81% whose rounds agree within 1%: 3 rounds put it beyond a 10% budget at the early look's level.
    // Its schedule ended the first group there (endedEarly).
    const huge: BenchmarkSamples = { ...aa(3), logRatios: [-0.81, -0.8, -0.82].map((x) => Math.log1p(x)), endedEarly: true };
    const [result] = analyze([huge], { rule: tenRounds, budgetFor: () => 0.1, firstLook });
    expect(result!.verdict).toBe('regression');
    expect(result!.decidedEarly).toBe(true);
    expect(result!.change!.high).toBeLessThan(-0.1);
    // Its interval is the early look's: each side at the early share of alpha (0.05 × its weight), a t interval on 2 df.
    expect(result!.change!.confidence).toBeCloseTo(1 - 2 * tenRounds.earlyAlpha(0.05), 12);
    // The early look ended its first group (not the time limit): with no confirmation asked (confirm: false), it stands.
    expect(result!.unconfirmed).toBeUndefined();
    expect(result!.note).toMatch(
      /^decided at the early look: its first 3 rounds put the whole interval \(-81\.0% \[-8\d\.\d%, -7\d\.\d%\], a t interval at 99\.50%\)/,
    );
    // The slow server of a time-limited run (default plan: looks from 10 to 40 rounds, so the early look spends 20% of
    // the share): 3 HTTP rounds of -72.7% from -79.1% to -65.5%, against a 5% budget.
    const adaptive = decisionRule({ confidence: 0.95, rounds: 10, maxRounds: 40, lookEvery: 5 });
    const slow = { ...aa(3), logRatios: [-0.791, -0.727, -0.655].map((x) => Math.log1p(x)) };
    const [cut] = analyze([slow], { rule: adaptive, budgetFor: () => 0.05, firstLook });
    expect(cut!.verdict).toBe('regression');
    expect(cut!.change!.high).toBeLessThan(-0.05);
    // With one planned look the early look spends less (5%): the same rounds are not enough there.
    expect(analyze([slow], { rule: tenRounds, budgetFor: () => 0.05, firstLook })[0]!.verdict).toBe('unmeasured');
    // The same rounds with no early end recorded: the time limit cut the group at 3 rounds, so no confirmation began
    // and the regression stands unconfirmed.
    const [cutAt3] = analyze([{ ...huge, endedEarly: undefined }], { rule: tenRounds, budgetFor: () => 0.1, firstLook });
    expect(cutAt3!.verdict).toBe('regression');
    expect(cutAt3!.unconfirmed).toBe(true);
    expect(cutAt3!.note).toMatch(/could not be confirmed: the time limit cut the first group at 3 of the 10 rounds its first look needs/);
    // Its confirmation is a fresh group as large as its first (3 rounds), read as the early look reads, at the
    // confirmation's level: shown again, it stands. While measuring (no first look given), 3 fresh rounds that do
    // not show it leave it undecided (the schedule's fresh group goes on to the first look's size); in the final
    // judgement a quick group that stayed 3 rounds was cut by the time limit: unmeasured where the fresh rounds do not
    // read the loss, an unconfirmed regression where they do.
    const judge = (confirmation: number[], final = true) =>
      analyze([{ ...huge, confirmation }], { rule: tenRounds, budgetFor: () => 0.1, ...(final ? { firstLook } : {}) })[0]!;
    const shown = judge([-0.8, -0.79, -0.81].map((x) => Math.log1p(x)));
    expect(shown.verdict).toBe('regression');
    expect(shown.unconfirmed).toBeUndefined();
    expect(judge([0.01, -0.01, 0.0], false).verdict).toBe('inconclusive');
    const transient = judge([0.01, -0.01, 0.0]);
    expect(transient.verdict).toBe('unmeasured');
    expect(transient.note).toMatch(/^a regression in the first 3 rounds \(-81\.0%\) could not be confirmed: only 3 fresh rounds fit/);
    // Three fresh rounds that spread too much for the t interval to clear the budget at the confirmation's level.
    expect(
      judge(
        [-0.8, 0.05, -0.5].map((x) => Math.log1p(x)),
        false,
      ).verdict,
    ).toBe('inconclusive');
    const spread = judge([-0.8, 0.05, -0.5].map((x) => Math.log1p(x)));
    expect(spread.verdict).toBe('regression');
    expect(spread.unconfirmed).toBe(true);
    // Gone on to the first look's size and not showing it: disproved, not failing the build.
    const goneOn = judge([0.01, -0.01, 0.0, 0.005, -0.005, 0.0, 0.01, -0.01, 0.0, 0.002]);
    expect(goneOn.verdict).toBe('inconclusive');
    expect(goneOn.note).toMatch(/^a regression in the first 3 rounds \(-81\.0%\) did not reproduce in 10 fresh rounds/);
    // A larger fresh group (other regressions needed one) is read by its signed-rank bound, as any.
    expect(judge(Array.from({ length: 10 }, (_, i) => Math.log1p(-0.8 + ((i * 7) % 10) * 0.002))).verdict).toBe('regression');
    expect(judge(Array.from({ length: 10 }, (_, i) => (i % 3) * 0.01 - 0.01)).verdict).toBe('inconclusive');
    // Two fresh rounds before the time limit, reading the loss: too few for the level, an unconfirmed regression.
    const two = judge([-0.8, -0.79].map((x) => Math.log1p(x)));
    expect(two.verdict).toBe('regression');
    expect(two.unconfirmed).toBe(true);
    const noTime = judge([]);
    expect(noTime.verdict).toBe('regression');
    expect(noTime.unconfirmed).toBe(true);
    expect(noTime.note).toMatch(
      /^a regression in the first 3 rounds \(-81\.0% \[[^\]]+\]\) could not be confirmed: no fresh round fit.*; decided at the early look: /,
    );
    // A 5% step at a 5% budget, rounds 2% apart: nothing near its budget is decided early.
    const near = { ...aa(3), logRatios: [-0.05, -0.07, -0.03].map((x) => Math.log1p(x)) };
    expect(analyze([near], { rule: tenRounds, budgetFor: () => 0.05, firstLook })[0]!.verdict).toBe('unmeasured');
  });

  it('keeps a load test open at the early look while one of its budgeted figures is undecided', () => {
    // Requests/s far beyond the budget from 3 rounds; requests per CPU-second 3 rounds apart, undecided: the group must
    // go on (gate/plan.ts settled), so that the planned looks judge every figure.
    const load: BenchmarkSamples = {
      ...aa(3),
      kind: 'http',
      logRatios: [-0.81, -0.8, -0.82].map((x) => Math.log1p(x)),
      cpu: [-0.3, 0.2, -0.05].map((x) => Math.log1p(x)),
    };
    const [open] = analyze([load], { rule: tenRounds, budgetFor: () => 0.1 });
    expect(open!.verdict).toBe('regression');
    expect(open!.openFigures).toBe(true);
    // Both figures far beyond it: nothing open.
    const [closed] = analyze([{ ...load, cpu: [-0.8, -0.79, -0.81].map((x) => Math.log1p(x)) }], { rule: tenRounds, budgetFor: () => 0.1 });
    expect(closed!.openFigures).toBeUndefined();
  });

  it('judges a benchmark that reached its first look as usual', () => {
    // Judged (not unmeasured); its rounds, at exactly -20%, 0 and +20%, are three groups of 3-4, too small for the
    // interval's level, so the judgement is that no verdict can be read: inconclusive.
    expect(analyze([aa(10)], { rule: tenRounds, budgetFor: () => 0.5, firstLook })[0]!.verdict).toBe('inconclusive');
    // No word of too few rounds (its rounds, at exactly -20%, 0 and +20%, are three groups, which the note names).
    expect(analyze([aa(10)], { rule: tenRounds, budgetFor: () => 0.5, firstLook })[0]!.note).not.toMatch(/first look|unmeasured/);
  });

  it('keeps a regression a regression, and leaves errors, new and removed benchmarks as they are', () => {
    // A loss so large that even 9 rounds bound it below the budget: failing on it is right, whatever the rounds.
    // (Rounds spread around -50%, not the three exact levels aa() makes: three groups of 3 rounds each are too small to
    // bound at the interval's level, and would read inconclusive: mixture.test.ts.)
    const lost = {
      ...aa(9, -0.5),
      id: 'x > lost',
      logRatios: Array.from({ length: 9 }, (_, i) => Math.log1p(-0.5 + ((i * 4) % 9) * 0.004)),
    };
    const others: BenchmarkSamples[] = [
      { id: 'x > new', kind: 'micro', file: 'x', logRatios: [], base: undefined, head: { opsPerSec: [5] } },
      { id: 'x > bad', kind: 'micro', file: 'x', logRatios: [], base: undefined, head: undefined, error: 'at head: boom' },
    ];
    const results = analyze([lost, ...others], { rule: oneLookAt(9), budgetFor: () => 0.05, firstLook });
    expect(results.map((r) => r.verdict)).toEqual(['regression', 'new', 'error']);
  });

  it('fails the run: error (exit 2), counted in the summary', () => {
    const bench = (verdict: ReportBenchmark['verdict']) => ({ verdict }) as ReportBenchmark;
    expect(runVerdict([bench('unchanged'), bench('unmeasured')])).toBe('error');
    expect(runVerdict([bench('regression'), bench('unmeasured')])).toBe('error');
    expect(runVerdict([bench('unchanged'), bench('inconclusive')])).toBe('pass');
    expect(verdictCounts([bench('unmeasured'), bench('unmeasured'), bench('unchanged')])).toBe('2 unmeasured, 1 unchanged');
  });
});

function oneLookAt(rounds: number) {
  return decisionRule({ confidence: 0.95, rounds, maxRounds: rounds, lookEvery: 5 });
}
