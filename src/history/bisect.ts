import picomatch from 'picomatch';
import { probit } from 'simple-statistics';
import { compareFailed, confirmedRegression, type Report, type ReportBenchmark } from '../report/model.js';
import { certainPass } from '../stats/compare.js';
import { UserError } from '../util/errors.js';
import type { Interval } from './chain.js';

export interface BisectCommit {
  sha: string;
  subject: string;
}

export interface BisectStep {
  /** The commit compared with `good`. */
  commit: string;
  /**
   * good: no target lost its budget since `good`; bad: one did; undecided: still inconclusive (or unmeasured) after
   * extending; skipped: the commit cannot be tested (its install, build or a target's run failed, or a target is not
   * there), like `git bisect skip`: the search goes on around it.
   */
  outcome: 'good' | 'bad' | 'undecided' | 'skipped';
  /** Why a step was skipped. */
  reason?: string;
  /** The compare was run again with more rounds because its first run was inconclusive. */
  extended: boolean;
  changes: { id: string; verdict: string; change: ReportBenchmark['change'] }[];
}

export interface BisectResult {
  good: string;
  bad: string;
  /** The benchmarks bisected: those matching the pattern that lost their budget from good to bad. */
  targets: string[];
  /** Commits from good (excluded) to bad, oldest first. */
  commits: BisectCommit[];
  steps: BisectStep[];
  compares: number;
  /** The first commit whose compare with good loses a target's budget, and what its own step changed. */
  firstBad?: {
    commit: BisectCommit;
    /** Per target: the change since good at this commit, and the step from the commit before (the difference of two compares). */
    changes: { id: string; sinceGood: Interval; step: Interval }[];
    /** True when a target's step alone loses more than its budget: the commit caused the loss; false: it only tipped a spread loss over. */
    alone: boolean;
  };
  /** When the loss is spread: the largest steps seen between the compared commits, worst first. */
  largestSteps?: { from: string; to: string; id: string; step: Interval }[];
  /**
   * Set when a compare stayed inconclusive after being extended, or only skipped commits are left between the last
   * good and the first bad one: the range the first bad commit is in (`skipped`: the commits in it that could not
   * be tested; the first bad commit is one of them or `upTo`).
   */
  undecided?: { after: string; upTo: string; skipped?: string[] };
  /** The commits skipped as untestable, with why, oldest first. */
  skipped?: { commit: string; reason: string }[];
  /** Nothing to bisect: no benchmark matching lost its budget from good to bad. */
  noLoss?: boolean;
  /** The compare of good with bad failed (install, build, a crash): nothing to search. */
  error?: string;
}

/** What a bisect step measures: the targets' bench files and load tests, nothing else of the suite. */
export interface BisectScope {
  /** Bench files (paths relative to the project root) holding a micro target. */
  files: string[];
  /** Ids of the HTTP load tests that are targets. */
  http: string[];
}

/**
 * Run a compare of `base` and `head` (installed and built as compare does); `extend` asks for more rounds,
 * for a compare whose first run was inconclusive; `only`, when given, is all the compare needs to measure.
 */
export type CompareFn = (base: string, head: string, extend: boolean, only?: BisectScope) => Promise<Report>;

/**
 * Find the first commit after `good` whose benchmark lost more than its budget against `good`, by side-by-side
 * compares with good: first good against bad (which benchmarks lost), then a binary search, about
 * log2(n) compares. Every compare judges against the same side (good), so each decision is one compare at the
 * budget's power, with the gate's own confirmation; an inconclusive compare is run again with more rounds, and
 * if it stays inconclusive the search stops and says between which commits the first bad one is, never guessing.
 */
export async function bisect(options: {
  good: string;
  bad: string;
  commits: readonly BisectCommit[];
  compare: CompareFn;
  select: (id: string) => boolean;
  log: (line: string) => void;
}): Promise<BisectResult> {
  const { good, commits, select, log } = options;
  const result: BisectResult = { good, bad: options.bad, targets: [], commits: [...commits], steps: [], compares: 0 };
  if (commits.length === 0)
    throw new UserError(`no commits after ${good.slice(0, 12)} up to ${options.bad.slice(0, 12)}: is --good an ancestor of --bad?`);
  const measured = new Map<number, Report>();
  const outcomes = new Map<number, BisectStep['outcome']>();
  /** One step: `only` is what it measures (the targets' files and tests), every benchmark when undefined. */
  const run = async (index: number, targets: readonly string[] | undefined, only?: BisectScope): Promise<BisectStep> => {
    const commit = commits[index]!;
    let extended = false;
    let report = await compareOnce(commit.sha, false, only);
    const reason = targets ? untestable(report, targets) : undefined;
    if (reason) {
      log(`${commit.sha.slice(0, 7)} skipped: ${reason}`);
      (result.skipped ??= []).push({ commit: commit.sha, reason });
      const step: BisectStep = { commit: commit.sha, outcome: 'skipped', reason, extended: false, changes: [] };
      outcomes.set(index, 'skipped');
      result.steps.push(step);
      return step;
    }
    let outcome = outcomeOf(report, targets);
    // A failed compare is not run again: more rounds do not mend a build that failed. An unmeasured one (the time
    // limit left a target without its first look, or without a round) is: the extended compare has twice the time.
    if (outcome === 'undecided' && !compareFailed(report)) {
      log(`${commit.sha.slice(0, 7)} is inconclusive against ${good.slice(0, 7)}: comparing again with more rounds`);
      extended = true;
      report = await compareOnce(commit.sha, true, only);
      outcome = outcomeOf(report, targets);
    }
    measured.set(index, report);
    outcomes.set(index, outcome);
    const step: BisectStep = {
      commit: commit.sha,
      outcome,
      extended,
      changes: report.benchmarks.filter((b) => select(b.id)).map((b) => ({ id: b.id, verdict: b.verdict, change: b.change })),
    };
    result.steps.push(step);
    log(`${commit.sha.slice(0, 7)} ${outcome} (${result.compares} compare${result.compares === 1 ? '' : 's'} so far)`);
    return step;
  };
  const compareOnce = async (head: string, extend: boolean, only: BisectScope | undefined) => {
    result.compares++;
    const report = await options.compare(good, head, extend, only);
    if (head === commits[commits.length - 1]!.sha && compareFailed(report)) {
      result.error = `the compare of ${good.slice(0, 12)} and ${head.slice(0, 12)} failed: ${firstLine(report.error ?? report.summary)}`;
      log(result.error);
    }
    return report;
  };
  /**
   * bad: a target lost its budget, confirmed; good: every target was measured and did not; anything else (not
   * measured, a regression the time limit kept from its confirmation, missing, failed) is undecided.
   */
  const outcomeOf = (report: Report, targets: readonly string[] | undefined): BisectStep['outcome'] => {
    const chosen = report.benchmarks.filter((b) => (targets ? targets.includes(b.id) : select(b.id)));
    if (chosen.some(confirmedRegression)) return 'bad';
    if (report.error || chosen.some((b) => b.verdict === 'error') || (targets && chosen.length < targets.length)) return 'undecided';
    // A benchmark only one side has (new, removed) has no change to judge: it neither blocks nor decides.
    const compared = chosen.filter((b) => b.verdict !== 'new' && b.verdict !== 'removed');
    if (compared.every((b) => certainPass(b.verdict))) return 'good';
    return 'undecided';
  };

  /** A target's change since good at a compared commit (-1: good itself), with its standard error on the log scale. */
  const sinceGood = (index: number, id: string): Interval & { se: number } => {
    if (index < 0) return { estimate: 0, low: 0, high: 0, se: 0 };
    const b = measured.get(index)?.benchmarks.find((x) => x.id === id);
    const decided = outcomes.get(index) === 'good' || outcomes.get(index) === 'bad';
    return b?.change && decided ? withSe(b.change) : { estimate: 0, low: 0, high: 0, se: Infinity };
  };
  /** The steps between every two commits compared (in order), worst first. */
  const largest = () => {
    const indices = [
      -1,
      ...[...measured.keys()].filter((i) => outcomes.get(i) === 'good' || outcomes.get(i) === 'bad').sort((a, b) => a - b),
    ];
    return result.targets
      .flatMap((id) =>
        indices.slice(1).map((to, k) => ({
          from: indices[k]! < 0 ? good : commits[indices[k]!]!.sha,
          to: commits[to]!.sha,
          id,
          step: difference(sinceGood(to, id), sinceGood(indices[k]!, id)),
        })),
      )
      .sort((a, b) => a.step.estimate - b.step.estimate)
      .slice(0, 5);
  };

  // The whole range first: which benchmarks lost their budget from good to bad.
  const last = commits.length - 1;
  const whole = await run(last, undefined);
  if (whole.changes.length === 0 && measured.get(last)!.verdict !== 'error')
    throw new UserError(
      `no benchmark matches the pattern at ${commits[last]!.sha.slice(0, 12)}; its ids: ` +
        `${idList(measured.get(last)!.benchmarks.map((b) => b.id))} (benchgate list shows them all).`,
    );
  // A benchmark only bad has (its bench file came after good, as a project's own benchmarks often did) has no change to
  // bisect: every step is judged against good. Said plainly, never "no loss".
  const newAtBad = whole.changes.filter((c) => c.verdict === 'new').map((c) => c.id);
  if (whole.outcome === 'good' && newAtBad.length === whole.changes.length)
    throw new UserError(
      `no benchmark matching the pattern is at both ${good.slice(0, 12)} and ${commits[last]!.sha.slice(0, 12)}: ` +
        `${idList(newAtBad)} ${newAtBad.length === 1 ? 'is' : 'are'} new at ${commits[last]!.sha.slice(0, 12)} (the bench ` +
        `file came later, and ${good.slice(0, 12)} cannot run it). Every step is compared with --good: choose a later --good, or keep ` +
        `the bench file outside the history and copy it into each revision from a build step (docs/history.md, bisect).`,
    );
  result.targets = whole.changes.filter((c) => c.verdict === 'regression').map((c) => c.id);
  // After the first compare, each step measures only the targets' bench files and load tests: a step's question is
  // about them alone, and the rest of the suite (a micro suite beside the load test bisected) would only cost time.
  const scope = scopeOf(measured.get(last)!, result.targets);
  if (result.targets.length) log(`each step measures only what holds the targets: ${[...scope.files, ...scope.http].join(', ')}`);
  if (whole.outcome !== 'bad') {
    if (whole.outcome === 'undecided') return { ...result, undecided: { after: good, upTo: commits[last]!.sha } };
    return { ...result, noLoss: true };
  }
  let lo = -1;
  let hi = last;
  const skipped = new Set<number>();
  const between = () => Array.from({ length: Math.max(0, hi - lo - 1) }, (_, k) => lo + 1 + k);
  for (;;) {
    // The untested commit nearest the middle (git bisect's choice around a skipped one).
    const candidates = between().filter((i) => !skipped.has(i));
    if (candidates.length === 0) break;
    const middle = (lo + hi) / 2;
    const mid = candidates.reduce((best, i) => (Math.abs(i - middle) < Math.abs(best - middle) ? i : best));
    const step = await run(mid, result.targets, scope);
    if (step.outcome === 'skipped') {
      skipped.add(mid);
      continue;
    }
    if (step.outcome === 'undecided') {
      result.undecided = { after: lo < 0 ? good : commits[lo]!.sha, upTo: commits[hi]!.sha };
      result.largestSteps = largest();
      return result;
    }
    if (step.outcome === 'bad') hi = mid;
    else lo = mid;
  }
  // Only skipped commits between the last good and the first bad: the first bad commit is one of them or hi.
  const untested = between();
  if (untested.length > 0) {
    result.undecided = { after: lo < 0 ? good : commits[lo]!.sha, upTo: commits[hi]!.sha, skipped: untested.map((i) => commits[i]!.sha) };
    result.largestSteps = largest();
    return result;
  }

  const budgets = new Map(measured.get(last)!.benchmarks.map((b) => [b.id, b.budget]));
  const changes = result.targets.map((id) => {
    const at = sinceGood(hi, id);
    const before = sinceGood(lo, id);
    return { id, sinceGood: strip(at), step: difference(at, before) };
  });
  // The step alone loses the budget (its whole interval below -budget, at 95%): this commit is the cause.
  const alone = changes.some((c) => c.step.high < -(budgets.get(c.id) ?? 0));
  result.firstBad = { commit: commits[hi]!, changes, alone };
  // A spread loss: none of the steps loses the budget alone; the largest are what to look at.
  if (!alone) result.largestSteps = largest();
  return result;
}

/**
 * Why a commit cannot be tested for the targets, if it cannot: its compare failed as a whole (install, build), a
 * target failed to run there, or a target is not there (its bench file or load test not written yet, or renamed).
 * A commit that cannot be tested is skipped, never good: no figure is no pass.
 */
function untestable(report: Report, targets: readonly string[]): string | undefined {
  if (report.error) return `the compare failed: ${firstLine(report.error)}`;
  const missing = targets.filter((id) => {
    const b = report.benchmarks.find((x) => x.id === id);
    return !b || b.verdict === 'removed';
  });
  if (missing.length) return `${missing.join(', ')} not at this commit`;
  const failed = report.benchmarks.find((b) => targets.includes(b.id) && b.verdict === 'error');
  if (failed) return `${failed.id} failed: ${firstLine(failed.error ?? 'error')}`;
  return undefined;
}

/** The bench files and load tests the targets come from, read from the first compare's report. */
function scopeOf(report: Report, targets: readonly string[]): BisectScope {
  const chosen = report.benchmarks.filter((b) => targets.includes(b.id));
  return {
    files: [...new Set(chosen.filter((b) => b.kind === 'micro' && b.file).map((b) => b.file!))].sort(),
    http: chosen.filter((b) => b.kind === 'http').map((b) => b.id),
  };
}

function firstLine(text: string): string {
  return text.split('\n')[0]!;
}

const Z95 = probit(0.975);

function withSe(change: NonNullable<ReportBenchmark['change']>): Interval & { se: number } {
  const z = probit(0.5 + change.confidence / 2);
  return {
    estimate: change.estimate,
    low: change.low,
    high: change.high,
    se: (Math.log1p(change.high) - Math.log1p(change.low)) / (2 * z),
  };
}

/** The change from one compare's head to another's, both against the same good: the ratio of the two, its error from both. */
function difference(to: Interval & { se: number }, from: Interval & { se: number }): Interval {
  const log = Math.log1p(to.estimate) - Math.log1p(from.estimate);
  const se = Math.hypot(to.se, from.se);
  return { estimate: Math.expm1(log), low: Math.expm1(log - Z95 * se), high: Math.expm1(log + Z95 * se) };
}

function strip(x: Interval): Interval {
  return { estimate: x.estimate, low: x.low, high: x.high };
}

/** The first ids of a report, quoted, for an error: "'a', 'b' and 3 more". */
function idList(ids: readonly string[]): string {
  const shown = ids.slice(0, 5).map((id) => JSON.stringify(id));
  return ids.length === 0 ? 'none' : `${shown.join(', ')}${ids.length > 5 ? ` and ${ids.length - 5} more` : ''}`;
}

/**
 * bisect's --benchmark: ids are matched as budgets' patterns are (bash: true), so a '*' spans the '/' of a bench
 * file's path: '*invalid*' matches 'bench/x.mjs > valid, invalid input' (a path glob's '*' stops at '/': a real
 * history's first bisect matched nothing with it).
 */
export function benchmarkMatcher(pattern: string): (id: string) => boolean {
  return picomatch(pattern, { dot: true, bash: true });
}
