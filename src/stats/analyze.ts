import { median } from 'simple-statistics';
import type { LatencyStat } from '../config/types.js';
import type { BenchmarkKind, Samples as BenchmarkSamples } from './samples.js';
import { resolvableFromInterval, roundsToConfirm, roundSpread } from './power.js';
import { describeGroups, groupRegressionP, groupsText, holdGroups, roundGroups, type RoundGroup } from './mixture.js';
import { decide, decideLowerIsBetter, estimateChangeBounds, regressionNominalP, type Change, type Verdict } from './compare.js';
import { stepDown, type DecisionRule } from './decision.js';
import { earlyChange } from './early.js';
import { formatPercent } from '../util/format.js';

/** One revision's summary for one benchmark. */
export interface SideSummary {
  /** Median over rounds of ops/s. */
  opsPerSec: number;
  /** Rounds it ran in. */
  samples: number;
}

/** The statistical comparison of one benchmark between base and head. */
export interface Comparison {
  id: string;
  kind: BenchmarkKind;
  file: string | undefined;
  verdict: Verdict;
  budget: number;
  base: SideSummary | undefined;
  head: SideSummary | undefined;
  change: Change | undefined;
  /** The per-round log ratios the change was estimated from. */
  logRatios: readonly number[];
  /** Log ratios of the confirmation group, when a regression had to reproduce. */
  confirmation?: readonly number[] | undefined;
  /**
   * The smallest change beyond the budget this run's rounds detect with 95% power (relative); NaN when unknown.
   * Never less than the interval printed beside it shows: at least what its half-width needs to clear the budget.
   */
  resolvable?: number | undefined;
  /**
   * The verdict's throughput rounds fell in groups (stats/mixture.ts): a change one size in some processes and another
   * in others. The interval holds every group's, and the verdict with it.
   */
  groups?: RoundGroup[] | undefined;
  /** Why the verdict is what it is, when that is not plain from the interval (an unconfirmed regression). */
  note?: string | undefined;
  /**
   * The throughput's p-value for "it lost no more than its budget" at its last look (the rule's
   * regressionP): what Holm's step-down ranks, here or, for a run split in shards, when they are merged.
   */
  regressionP?: number | undefined;
  /** HTTP only: the change of each latency figure (positive = slower), with a verdict where it has a budget. */
  latency?: Partial<Record<LatencyStat, LatencyComparison>> | undefined;
  /**
   * HTTP only, where the servers' CPU was read: the change of requests per CPU-second of the server's main
   * thread, the second throughput figure, judged at the same budget (higher is better).
   */
  cpu?: CpuComparison | undefined;
  /**
   * HTTP with both throughput figures: the one the verdict is read from, the one with the least spread over the
   * rounds that the guards allow (requests/s only where it compares the servers' cost: a saturated duet, not a
   * fixed rate). The other guards it: its confirmed regression (a server that only waits shows in requests/s
   * alone) still fails the benchmark, its doubt does not.
   */
  gatedOn?: 'requests' | 'cpu' | undefined;
  /**
   * Decided at the early look (DecisionRule.earlyRounds): the throughput figure's first rounds put its whole
   * interval beyond (or within) the budget at the early look's share (a regression is still confirmed).
   */
  decidedEarly?: boolean | undefined;
  /**
   * The change's estimate is the early look's, from 3 rounds: coarse. Its interval is the early look's (a safe verdict),
   * or the span of both groups' where fresh rounds did not show its regression again.
   */
  coarse?: boolean | undefined;
  /**
   * A `regression` whose failing figures were never shown again in fresh rounds: the time limit cut the first group
   * short of its first look, or left its confirmation too few rounds. It fails the run as any regression does; bisect
   * and drift, which act on a regression beyond failing, measure again or leave it undecided.
   */
  unconfirmed?: boolean | undefined;
  /** Some budgeted figure (requests/s, requests per CPU-second, a latency) is still undecided: its group must go on. */
  openFigures?: boolean | undefined;
  /**
   * A regression no fresh group has begun to confirm: the fresh rounds that would show it again first (power.ts
   * roundsToConfirm, up to the rule's max rounds), the fewest over its failing throughput figures (requests/s, a load
   * test's requests per CPU-second). Absent where only a latency figure fails: that one is confirmed by a whole group.
   */
  confirmFirst?: number | undefined;
  error?: string | undefined;
  /** The revision it failed at (BenchmarkSamples.errorAt). */
  errorAt?: 'base' | 'head' | undefined;
}

export interface LatencyComparison {
  change: Change;
  budget: number | undefined;
  verdict: Verdict | undefined;
  /** Budgeted figures only: the p-value Holm's step-down ranks (see Comparison.regressionP). */
  regressionP?: number | undefined;
}

export interface CpuComparison {
  change: Change;
  verdict: Verdict;
  /** Its rounds fell in groups (see Comparison.groups). */
  groups?: RoundGroup[] | undefined;
  /** The p-value Holm's step-down ranks (see Comparison.regressionP). */
  regressionP: number;
}

/** A load test's per-round ratios of requests per CPU-second, when there is one for every round (else it is not a figure of the run). */
function cpuRatios(benchmark: BenchmarkSamples): readonly number[] | undefined {
  const ratios = benchmark.cpu;
  return ratios && ratios.length > 0 && ratios.length === benchmark.logRatios.length && ratios.every(Number.isFinite) ? ratios : undefined;
}

export interface AnalyzeOptions {
  /** The run's decision rule: the level of each interval and of a confirmation. */
  rule: DecisionRule;
  budgetFor: (id: string) => number;
  /** Latency budgets of an HTTP benchmark, by id. */
  latencyBudgetFor?: (id: string) => Partial<Record<LatencyStat, number>>;
  /** Budgeted figures measured elsewhere (HTTP, while micro rounds are still running) that share the run. */
  otherFigures?: number;
  /** The run's budgeted figures when known in advance (a look at one load test while the others are done or planned). */
  figures?: number;
  /**
   * The final judgement only (never a look while measuring): the rounds each benchmark's first look needs, and
   * what to say when it has fewer (what took the time, what would fit). A compared benchmark short of its first
   * look is `unmeasured`, unless it is already a regression.
   */
  firstLook?: (benchmark: BenchmarkSamples) => { rounds: number; hint: string };
}

/**
 * Turn measured samples into comparisons with verdicts. The family over which false verdicts are
 * controlled is every budgeted figure of the run (`figures`, or those in view plus `otherFigures`).
 * Each figure's regression p-value at its last look goes into Holm's step-down over the family; its
 * regression-side bound is read at the share that leaves (so a regression verdict is exactly a Holm
 * rejection), the other bound at the Bonferroni share, each spent across looks by the rule.
 */
export function analyze(benchmarks: readonly BenchmarkSamples[], options: AnalyzeOptions): Comparison[] {
  const { rule } = options;
  const latencyBudgets = (id: string) => options.latencyBudgetFor?.(id) ?? {};
  const family = options.figures ?? budgetedFigures(benchmarks, options.latencyBudgetFor) + (options.otherFigures ?? 0);
  const alpha = 1 - rule.confidence;
  const compared = (b: BenchmarkSamples) => !b.error && b.base && b.head && b.logRatios.length > 0;
  // A figure whose rounds fall in groups loses its budget only if every group does: its p-value is the largest of
  // the whole's and each group's (each group tested alone), so Holm ranks it as its widened interval reads.
  const pOf = (ratios: readonly number[], budget: number, lowerIsBetter: boolean) => {
    const groups = roundGroups(ratios) ?? [];
    return rule.regressionP(
      Math.max(regressionNominalP(ratios, budget, lowerIsBetter), ...groups.map((g) => groupRegressionP(g, groups, budget, lowerIsBetter))),
      ratios.length,
    );
  };
  /** A figure's change with each bound one-sided at its error, widened to hold every group its rounds fall in (mixture.ts). */
  const bounded = (ratios: readonly number[], lowerAlpha: number, upperAlpha: number): { change: Change; groups?: RoundGroup[] } => {
    const change = estimateChangeBounds(ratios, lowerAlpha, upperAlpha);
    const groups = roundGroups(ratios);
    return groups ? { change: holdGroups(change, groups, lowerAlpha, upperAlpha), groups: describeGroups(groups) } : { change };
  };
  const pValues = benchmarks.filter(compared).flatMap((b) => {
    const budgets = b.latency ? latencyBudgets(b.id) : {};
    const latency = Object.entries(budgets).map(([stat, budget]) => {
      const ratios = b.latency?.[stat as LatencyStat];
      return ratios ? pOf(ratios, budget, true) : 1;
    });
    const cpu = cpuRatios(b);
    return [pOf(b.logRatios, options.budgetFor(b.id), false), ...(cpu ? [pOf(cpu, options.budgetFor(b.id), false)] : []), ...latency];
  });
  // The regression side: Holm's share; the other side (improvement, and the lower half of unchanged): Bonferroni's.
  const regressionShare = stepDown(pValues, alpha, family).share;
  const otherShare = alpha / Math.max(1, family);
  /** A figure decided at the early look from its first rounds (each side at the early share of Bonferroni's), or undefined. */
  // A figure decided there ends its first group (gate/plan.ts `settled`; a regression only once every budgeted figure is
  // decided), and a regression's confirmation is then a fresh group as large (`confirm`). A group that went on past the
  // early look is judged by its planned look; the early verdict stands there only for a regression the time limit cut
  // short of that look (`cutShort`), when the rounds it measured after the early look read the loss too (their median
  // beyond the budget).
  const earlyVerdict = (ratios: readonly number[], judge: (c: Change) => Verdict, cutShort: boolean) => {
    if (ratios.length < rule.earlyRounds || !ratios.slice(0, rule.earlyRounds).every(Number.isFinite)) return undefined;
    const change = earlyChange(ratios.slice(0, rule.earlyRounds), rule.earlyAlpha(otherShare), rule.earlyAlpha(otherShare));
    const verdict = judge(change);
    // Only a regression (which a fresh group must show again) or a step inside ±budget (a bisect's good step, an A/A)
    // ends a group at 3 rounds. A large gain waits for the planned look: 3 rounds cannot show that they fell in one
    // group of several (uuid's v4 read +126% [+114%, +140%] from 3 rounds where 4 of 15 rounds sit near 0%), and
    // from 8 rounds the groups are looked for.
    if (verdict !== 'regression' && verdict !== 'unchanged') return undefined;
    if (ratios.length > rule.earlyRounds) {
      const later = ratios.slice(rule.earlyRounds);
      if (verdict !== 'regression' || !cutShort || !later.every(Number.isFinite) || judge(pointChange(median([...later]))) !== 'regression')
        return undefined;
    }
    return { change, verdict };
  };
  return benchmarks.map((benchmark) => {
    const budget = options.budgetFor(benchmark.id);
    const base = summarize(benchmark.base?.opsPerSec);
    const head = summarize(benchmark.head?.opsPerSec);
    const common = {
      id: benchmark.id,
      kind: benchmark.kind,
      file: benchmark.file,
      budget,
      base,
      head,
      logRatios: benchmark.logRatios,
      confirmation: benchmark.confirmation,
    };
    if (benchmark.error) {
      const at = benchmark.errorAt ? { errorAt: benchmark.errorAt } : {};
      return { ...common, verdict: 'error', change: undefined, error: benchmark.error, ...at };
    }
    if (!benchmark.base) return { ...common, verdict: 'new', change: undefined };
    if (!benchmark.head) return { ...common, verdict: 'removed', change: undefined };
    const rounds = benchmark.logRatios.length;
    const firstLook = options.firstLook?.(benchmark);
    /** Short of its first look (the final judgement only): the early look ended the first group, or the time limit cut it. */
    const shortOfFirstLook = firstLook !== undefined && rounds < firstLook.rounds;
    if (rounds === 0) {
      // While measuring, no round yet is only "not decided yet"; in the final judgement it is no figure at all.
      if (!firstLook) return { ...common, verdict: 'inconclusive', change: undefined };
      return { ...common, verdict: 'unmeasured', change: undefined, note: tooFewRounds(0, firstLook) };
    }
    const measured = bounded(benchmark.logRatios, rule.lookAlpha(rounds, otherShare), rule.lookAlpha(rounds, regressionShare));
    const change = measured.change;
    const regressionP = pOf(benchmark.logRatios, budget, false);
    // The early look: the first rounds alone, at the early share (Bonferroni's), decide a step far beyond or within the budget.
    const early = earlyVerdict(benchmark.logRatios, (c) => decide(c, budget), shortOfFirstLook);
    const perCpu = cpuRatios(benchmark);
    const earlyCpu = perCpu ? earlyVerdict(perCpu, (c) => decide(c, budget), shortOfFirstLook) : undefined;
    const gatedOn = perCpu ? gatedFigure(benchmark.logRatios, perCpu, benchmark.requestsNotCost) : undefined;
    /** The early look ended the first group (its schedule says so): a regression's confirmation is then as large. */
    const endedEarly = benchmark.endedEarly === true && rounds === rule.earlyRounds;
    /** The time limit cut the first group short of its first look. */
    const cutShort = shortOfFirstLook && !endedEarly;
    const notes: string[] = [];
    /** Per figure judged a regression: whether it was confirmed (false: the time limit cut its confirmation). */
    const regressions: boolean[] = [];
    /** What would give a regression the time limit cut short its first look and confirmation (said once). */
    let raiseTimeLimit: string | undefined;
    // A confirmation that began but gave a figure no fresh round of its own: that figure was not shown again.
    const noFreshRound = benchmark.confirmation !== undefined ? [] : undefined;
    /** Per failing figure not yet confirmed: the fresh rounds that would show it again (Infinity: a whole group). */
    const firstSizes: number[] = [];
    // The regression stands only if the fresh group alone shows it too, at the rule's confirmation level.
    const confirm = (
      verdict: Verdict | undefined,
      what: string,
      first: Change,
      rounds: number,
      fresh: readonly number[] | undefined,
      judge: (c: Change) => Verdict,
      ratios?: readonly number[],
    ) => {
      if (verdict !== 'regression') return verdict;
      if (fresh === undefined) {
        firstSizes.push(ratios ? roundsToConfirm(ratios, budget, rule.confirmationLevel, rule.maxRounds) : Infinity);
        // No confirmation begun: a run with `confirm: false`, or a first group the time limit cut short of its first look.
        if (cutShort) {
          const why = `the time limit cut the first group at ${benchmark.logRatios.length} of the ${firstLook.rounds} rounds its first look needs`;
          notes.push(notConfirmed(what, rounds, first, why));
          raiseTimeLimit = firstLook.hint;
        }
        regressions.push(!cutShort);
        return verdict;
      }
      if (fresh.length === 0) {
        // The confirmation began and the time limit left it no round: the loss its first rounds bound beyond the
        // budget is reported as what it is, a regression, marked unconfirmed (it fails the run either way).
        notes.push(notConfirmed(what, rounds, first, 'no fresh round fit in the time limit'));
        raiseTimeLimit ??= CONFIRM_HINT;
        regressions.push(false);
        return 'regression';
      }
      if (!fresh.every(Number.isFinite)) {
        notes.push(notConfirmed(what, rounds, first, 'its fresh rounds have no figure'));
        regressions.push(false);
        return verdict;
      }
      // A first group the early look ended is confirmed by a fresh group as large, read as the early look reads (a t
      // interval), at the confirmation's level; a larger fresh group (run for other regressions too) by its signed-rank bound.
      const confirmAlpha = (1 - rule.confirmationLevel) / 2;
      const quick = endedEarly && fresh.length === rule.earlyRounds;
      // A fresh group whose rounds fall in groups shows the loss only if every group does (its interval holds them all).
      const freshBound = quick ? { change: earlyChange(fresh, confirmAlpha, confirmAlpha) } : bounded(fresh, confirmAlpha, confirmAlpha);
      const again = freshBound.change;
      if (judge(again) === 'regression') {
        regressions.push(true);
        return verdict;
      }
      // Those 3 not showing it is no disproof: the schedule goes on to the first look's size. In the final judgement
      // a quick group that stayed 3 rounds was cut by the time limit, as one too short for its level is.
      // So is a fresh group that stopped short of the size it goes on to where its first rounds do not show the loss
      // (the schedule's confirmationPlanned: the first group's size, after an early step's 3 or a sized group).
      const shortOfLevel = again.achievedConfidence < again.confidence - 1e-12 || (quick && firstLook !== undefined);
      const shortOfPlan = firstLook !== undefined && fresh.length < (benchmark.confirmationPlanned ?? 0);
      const cut = shortOfLevel || shortOfPlan;
      const tooFew = shortOfLevel
        ? "too few for the interval's level"
        : `fewer than the ${benchmark.confirmationPlanned} it goes on to where its first do not show the loss`;
      // Too few fresh rounds to reach the level, and they read a loss beyond the budget too: unconfirmed, as above.
      if (cut && judge(pointChange(Math.log1p(again.estimate))) === 'regression') {
        notes.push(
          notConfirmed(what, rounds, first, `only ${fresh.length} fresh rounds fit in the time limit (${pct(again.estimate)}), ${tooFew}`),
        );
        raiseTimeLimit ??= CONFIRM_HINT;
        regressions.push(false);
        return 'regression';
      }
      notes.push(unconfirmed(what, rounds, first, again, fresh.length, cut ? tooFew : undefined));
      unreproduced = { first, again, ...(freshBound.groups ? { groups: freshBound.groups } : {}) };
      // Too few fresh rounds that do not read the loss: not disproved, only unmeasured, which fails the run too.
      return cut ? 'unmeasured' : 'inconclusive';
    };
    /** The last figure whose fresh group did not show its regression again: both groups' intervals. */
    let unreproduced: { first: Change; again: Change; groups?: RoundGroup[] } | undefined;
    // A regression, early or not, must show again in a fresh group (a transient of the first processes looks the same).
    const throughput = confirm(
      early?.verdict ?? decide(change, budget),
      'a regression',
      early?.change ?? change,
      early ? rule.earlyRounds : rounds,
      benchmark.confirmation,
      (c) => decide(c, budget),
      benchmark.logRatios,
    )!;
    // A regression its fresh group did not show again is shown with the span of both groups' intervals, so the row's
    // interval agrees with its verdict (uuid's forward run read "inconclusive -56.6% [-62.1%, -50.4%]" from its first 3
    // rounds, where 4 of its 15 fresh rounds sat near 0%).
    const thenSpan = unreproduced;
    // Short of its first look, the verdict's figure decided at the early look is measured enough.
    const gatedEarly = gatedOn === 'cpu' ? earlyCpu !== undefined : early !== undefined;
    // Rounds in groups: said for whichever throughput figure shows them (the verdict is bounded over them).
    const groupsNote: string[] = [];
    const sayGroups = (groups: readonly RoundGroup[] | undefined, whose: string) => {
      if (groups)
        groupsNote.push(
          `${whose} rounds fell in ${groups.length} groups, ${groupsText(groups, pct)}: the change differs ` +
            `from process to process, so the interval holds every group and the verdict is read from it`,
        );
    };
    if (!early) sayGroups(measured.groups, 'its');
    // A regression its fresh rounds did not show again, where those rounds fell in groups (uuid's forward run: 3 first
    // rounds at -57%, then 15 fresh ones, some near -57% and some near 0%): the groups say why the span is wide.
    if (thenSpan?.groups) sayGroups(thenSpan.groups, 'its fresh');
    /** The early look decided the throughput figure, and its verdict stands (not a regression a fresh group did not show again). */
    const earlyStands = early !== undefined && early.verdict === throughput;
    // Said last (the notes of the confirmation and the other figures lead): the verdict's figure decided early, where
    // that decision stands; one its fresh rounds overturned is said by the confirmation's note, never "safe".
    const earlyNote = (cpuVerdict: Verdict | undefined) =>
      gatedOn === 'cpu'
        ? earlyCpu && earlyCpu.verdict === cpuVerdict
          ? [decidedEarlyNote(earlyCpu.change, "requests per CPU-second's", rule.earlyRounds)]
          : []
        : earlyStands
          ? [decidedEarlyNote(early.change, 'its', rule.earlyRounds)]
          : [];
    /** The notes joined; `cpuVerdict`, a load test's requests per CPU-second verdict once judged. */
    const note = (cpuVerdict?: Verdict) => {
      const all = [...notes, ...groupsNote, ...earlyNote(cpuVerdict), ...(raiseTimeLimit ? [raiseTimeLimit] : [])];
      return all.length ? { note: all.join('; ') } : {};
    };
    const sizedFirst = () => {
      const size = Math.min(...firstSizes);
      return Number.isFinite(size) ? { confirmFirst: size } : {};
    };
    /** A regression none of whose failing figures was confirmed: the time limit cut every confirmation. */
    const unconfirmedIf = (verdict: Verdict) =>
      verdict === 'regression' && regressions.length > 0 && !regressions.includes(true) ? { unconfirmed: true } : {};
    if (cutShort && throughput !== 'regression' && !gatedEarly) {
      notes.push(tooFewRounds(rounds, firstLook));
      return {
        ...common,
        change,
        resolvable: honestResolvable(
          rule.resolvable(roundSpread(benchmark.logRatios), rounds, family),
          change,
          rule.lookAlpha(rounds, otherShare),
        ),
        regressionP,
        ...(measured.groups ? { groups: measured.groups } : {}),
        verdict: 'unmeasured',
        ...note(),
      };
    }
    // What the regression side resolves at this look, at the share that does not depend on other figures' outcomes,
    // from the rounds' robust spread, and never less than the interval printed beside it shows (set below, once the
    // gated figure's interval is known).
    const spreadResolvable = rule.resolvable(roundSpread(gatedOn === 'cpu' ? perCpu! : benchmark.logRatios), rounds, family);
    const first = early?.change ?? change;
    const shown = thenSpan
      ? { ...first, low: Math.min(first.low, thenSpan.again.low), high: Math.max(first.high, thenSpan.again.high) }
      : first;
    const result = {
      ...common,
      change: shown,
      resolvable: honestResolvable(spreadResolvable, shown, rule.lookAlpha(rounds, otherShare)),
      regressionP,
      ...(measured.groups && !early ? { groups: measured.groups } : {}),
      ...(gatedOn ? { gatedOn } : {}),
      // Decided early where that decision stands: the gated figure's (a CPU-gated load test's is set once judged, below).
      ...(gatedOn !== 'cpu' && earlyStands ? { decidedEarly: true } : {}),
      ...(early ? { coarse: true } : {}),
    };
    let cpu: CpuComparison | undefined;
    if (perCpu) {
      const n = perCpu.length;
      const regular = bounded(perCpu, rule.lookAlpha(n, otherShare), rule.lookAlpha(n, regressionShare));
      const judge = (c: Change) => decide(c, budget);
      const cpuChange = earlyCpu?.change ?? regular.change;
      const verdict = confirm(
        earlyCpu?.verdict ?? judge(cpuChange),
        'a regression of requests per CPU-second',
        cpuChange,
        earlyCpu ? rule.earlyRounds : n,
        benchmark.confirmationCpu ?? noFreshRound,
        judge,
        perCpu,
      )!;
      if (!earlyCpu) sayGroups(regular.groups, "requests per CPU-second's");
      if (gatedOn === 'cpu' && earlyCpu?.verdict === verdict) result.decidedEarly = true;
      cpu = {
        change: cpuChange,
        verdict,
        regressionP: pOf(perCpu, budget, false),
        ...(regular.groups && !earlyCpu ? { groups: regular.groups } : {}),
      };
      // Never less than either printed interval shows (the row prints requests/s, its details requests per CPU-second).
      if (gatedOn === 'cpu')
        result.resolvable = Math.max(result.resolvable, honestResolvable(spreadResolvable, cpuChange, rule.lookAlpha(n, otherShare)));
      if (verdict === 'regression' && throughput !== 'regression')
        notes.push(
          `requests per CPU-second of the server's main thread lost more than the budget (${pct(cpuChange.estimate)} ` +
            `[${pct(cpuChange.low)}, ${pct(cpuChange.high)}]): each request costs the server more CPU, which requests/s alone did not show`,
        );
    }
    if (!benchmark.latency && !cpu) return { ...result, verdict: throughput, ...unconfirmedIf(throughput), ...sizedFirst(), ...note() };
    const latency: Partial<Record<LatencyStat, LatencyComparison>> = {};
    const budgets = latencyBudgets(benchmark.id);
    for (const [stat, ratios] of Object.entries(benchmark.latency ?? {}) as [LatencyStat, number[]][]) {
      if (ratios.length === 0 || ratios.some((r) => !Number.isFinite(r))) continue;
      const statBudget = budgets[stat];
      const n = ratios.length;
      // Higher latency is worse: the lower bound is the regression side. An unbudgeted figure is reported at the other side's share.
      const latencyChange = bounded(
        ratios,
        rule.lookAlpha(n, statBudget === undefined ? otherShare : regressionShare),
        rule.lookAlpha(n, otherShare),
      ).change;
      const judge = (c: Change) => decideLowerIsBetter(c, statBudget!);
      const verdict = confirm(
        statBudget === undefined ? undefined : judge(latencyChange),
        `a ${stat} latency regression`,
        latencyChange,
        n,
        benchmark.confirmationLatency?.[stat] ?? noFreshRound,
        judge,
      );
      latency[stat] = {
        change: latencyChange,
        budget: statBudget,
        verdict,
        ...(statBudget === undefined ? {} : { regressionP: pOf(ratios, statBudget, true) }),
      };
    }
    // The gated figure's verdict; the other throughput figure is a guard: only what fails the run (a regression, or one
    // left unmeasured) counts from it.
    const guard = (verdict: Verdict): Verdict[] => (verdict === 'regression' || verdict === 'unmeasured' ? [verdict] : []);
    const figures =
      cpu === undefined ? [throughput] : gatedOn === 'cpu' ? [cpu.verdict, ...guard(throughput)] : [throughput, ...guard(cpu.verdict)];
    const verdicts = [...figures, ...Object.values(latency).flatMap((l) => (l.verdict ? [l.verdict] : []))];
    const verdict = combine(verdicts);
    const open = [
      throughput,
      ...(cpu ? [cpu.verdict] : []),
      ...Object.values(latency).flatMap((l) => (l.budget === undefined ? [] : [l.verdict])),
    ];
    return {
      ...result,
      verdict,
      ...unconfirmedIf(verdict),
      ...(open.includes('inconclusive') ? { openFigures: true } : {}),
      ...(benchmark.latency ? { latency } : {}),
      ...(cpu ? { cpu } : {}),
      ...sizedFirst(),
      ...note(cpu?.verdict),
    };
  });
}

/**
 * Which throughput figure of a load test its verdict is read from: the one whose rounds spread less (so the
 * narrower interval for the same rounds), requests per CPU-second when requests/s does not compare the servers'
 * cost (`requestsNotCost`: a fixed rate, an unsaturated duet).
 */
export function gatedFigure(requests: readonly number[], cpu: readonly number[], requestsNotCost?: string): 'requests' | 'cpu' {
  if (requestsNotCost !== undefined) return 'cpu';
  return roundSpread(cpu) <= roundSpread(requests) ? 'cpu' : 'requests';
}

/** The budgeted figures of the compared benchmarks: throughput of each, plus a load test's requests per CPU-second and each latency budget. */
export function budgetedFigures(
  benchmarks: readonly BenchmarkSamples[],
  latencyBudgetFor?: (id: string) => Partial<Record<LatencyStat, number>>,
): number {
  const compared = benchmarks.filter((b) => !b.error && b.base && b.head && b.logRatios.length > 0);
  return compared.reduce(
    (sum, b) => sum + 1 + (cpuRatios(b) ? 1 : 0) + (b.latency ? Object.keys(latencyBudgetFor?.(b.id) ?? {}).length : 0),
    0,
  );
}

/** What an early decision says of itself. */
function decidedEarlyNote(change: Change, whose: string, rounds: number): string {
  const interval = `${pct(change.estimate)} [${pct(change.low)}, ${pct(change.high)}]`;
  return (
    `decided at the early look: ${whose} first ${rounds} rounds put the whole interval ` +
    `(${interval}, a t interval at ${(100 * change.confidence).toFixed(2)}%) on one side of the budget: the verdict is safe at that level, ` +
    'the estimate is coarse (3 rounds: marked "(coarse)" in the table, "coarse" in the JSON): ' +
    'quote it with its interval, or compare again with more rounds for a precise one'
  );
}

/** Why a benchmark short of its first look has no verdict, and what would give it one. */
function tooFewRounds(rounds: number, first: { rounds: number; hint: string }): string {
  return (
    `measured in ${rounds} of the ${first.rounds} rounds its first look needs: too ` +
    `few for a verdict, and an unmeasured benchmark is never a pass: ${first.hint}`
  );
}

/** A log ratio as a change with no width: to ask which side of the budget a point estimate lies on. */
function pointChange(logRatio: number): Change {
  const estimate = Math.expm1(logRatio);
  return { estimate, low: estimate, high: estimate, confidence: 1, achievedConfidence: 1 };
}

const CONFIRM_HINT = 'raise time-limit to confirm it';

/** A regression whose first rounds bound it beyond the budget, and whose confirmation the time limit cut. */
function notConfirmed(what: string, rounds: number, first: Change, why: string): string {
  return (
    `${what} in the first ${rounds} rounds (${pct(first.estimate)} [${pct(first.low)}, ${pct(first.high)}]) could not be confirmed: ${why}: ` +
    'a loss as measured, not shown again in fresh rounds (a transient of the first rounds would look the same): it fails the run, unconfirmed'
  );
}

/** "a regression in the first 10 rounds (-7.1%) did not reproduce in 10 fresh rounds (-0.4% [-2.0%, +1.1%]): …" */
function unconfirmed(what: string, rounds: number, first: Change, again: Change, freshRounds: number, cut: string | undefined): string {
  if (cut !== undefined) {
    return (
      `${what} in the first ${rounds} rounds (${pct(first.estimate)}) could not be confirmed: ` +
      `only ${freshRounds} fresh rounds fit in the time limit, ${cut}: unmeasured, which fails the run (raise time-limit)`
    );
  }
  return (
    `${what} in the first ${rounds} rounds (${pct(first.estimate)}) did not reproduce in ${freshRounds} fresh ` +
    `rounds (${pct(again.estimate)} [${pct(again.low)}, ${pct(again.high)}]): not failing the build on it`
  );
}

const pct = formatPercent;

/**
 * The verdict of a benchmark judged on several figures: any regression wins, then anything unmeasured, then any doubt,
 * then a pass that reaches past +budget, then an improvement; unchanged when every figure is.
 */
function combine(verdicts: Verdict[]): Verdict {
  for (const verdict of ['regression', 'unmeasured', 'inconclusive', 'within-budget', 'improvement'] as const)
    if (verdicts.includes(verdict)) return verdict;
  return 'unchanged';
}

function summarize(values: number[] | undefined): SideSummary | undefined {
  if (!values || values.length === 0) return undefined;
  return { opsPerSec: median(values), samples: values.length };
}

/**
 * What a run resolves, as the reader checks it against the interval beside it: the figure from the rounds' robust
 * spread (power.ts, a normal approximation), raised to what the printed interval itself needs (resolvableFromInterval:
 * a loss its half-width beyond the budget clears it half the time; 95% power needs more). A mixture of groups, a few
 * wild rounds or an early look's 3 rounds widen the interval far beyond what the spread of the bulk says.
 */
export function honestResolvable(fromSpread: number, shown: { low: number; high: number }, alpha: number): number {
  const fromInterval = resolvableFromInterval(shown, alpha);
  if (!Number.isFinite(fromInterval)) return fromSpread;
  return Number.isFinite(fromSpread) ? Math.max(fromSpread, fromInterval) : fromInterval;
}
