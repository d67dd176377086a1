import picomatch from 'picomatch';
import { probit } from 'simple-statistics';
import type { HistoryRecord } from './record.js';

/** A change on the log scale with its standard error: steps add up there, and their variances too. */
interface LogChange {
  log: number;
  se: number;
}

export interface Interval {
  estimate: number;
  low: number;
  high: number;
}

/** A change as one compare measured it, at its own confidence: a record's step, or a pull request's change. */
export interface MeasuredChange extends Interval {
  confidence: number;
}

export interface TrendPoint {
  commit: string;
  parent: string;
  date: string;
  subject: string;
  tags: string[];
  /** This record's own change (parent → commit), as measured. */
  step: Interval | null;
  /** The change from the benchmark's start of series to this commit: the steps chained. */
  cumulative: Interval | null;
}

export interface BenchmarkTrend {
  id: string;
  budget: number;
  /** Where its cumulative series starts: the anchor, or the first record after a gap (a compare without a figure). */
  from: string;
  points: TrendPoint[];
  /** The chained change from `from` to the newest commit. */
  cumulative: Interval | null;
}

export interface Trend {
  gate: string;
  /** The commit the trend starts at, and how people call it (a tag, or a short sha). */
  anchor: { commit: string; label: string };
  head: string;
  /** Records chained from the anchor to the head (pushes; a push may hold several commits). */
  records: HistoryRecord[];
  benchmarks: BenchmarkTrend[];
  /** Set when the records do not reach back to the anchor: the commit where the chain ends. */
  brokenAt?: string;
}

/** Confidence of the chained interval: 95% two-sided, as people read a band. */
const TREND_CONFIDENCE = 0.95;

/**
 * The records that lead from `anchor` to `head`, oldest first, following each record's parent: records of
 * other branches or of commits no longer on the chain are left out. Without an anchor, back to the oldest
 * record; with `anchorTag`, back to the newest record whose commit carries a tag it accepts.
 */
export function chainOf(
  records: readonly HistoryRecord[],
  gate: string,
  options: { head?: string; anchor?: string; anchorTag?: (tag: string) => boolean } = {},
): { chain: HistoryRecord[]; anchor: string | undefined; reached: boolean } {
  const own = records.filter((r) => r.gate === gate);
  const byCommit = new Map<string, HistoryRecord[]>();
  for (const r of own) byCommit.set(r.commit, [...(byCommit.get(r.commit) ?? []), r]);
  /** A commit's record that leads on: one whose parent is recorded (or is the anchor), else the newest. */
  const recordOf = (commit: string) => {
    const candidates = byCommit.get(commit) ?? [];
    return candidates.filter((r) => r.parent === options.anchor || byCommit.has(r.parent)).at(-1) ?? candidates.at(-1);
  };
  let commit = options.head ?? newestTip(own);
  const chain: HistoryRecord[] = [];
  const seen = new Set<string>();
  while (commit && !seen.has(commit)) {
    if (commit === options.anchor) return { chain: chain.reverse(), anchor: commit, reached: true };
    const record = recordOf(commit);
    if (!record) break;
    if (options.anchorTag && chain.length > 0 && record.tags.some(options.anchorTag))
      return { chain: chain.reverse(), anchor: commit, reached: true };
    seen.add(commit);
    chain.push(record);
    if (options.anchorTag && record.parentTags.some(options.anchorTag))
      return { chain: chain.reverse(), anchor: record.parent, reached: true };
    commit = record.parent;
  }
  chain.reverse();
  return { chain, anchor: chain[0]?.parent, reached: !options.anchor && !options.anchorTag };
}

/**
 * The newest commit of the history: among the records whose commit no other record builds on (the tips), the
 * latest by commit date. File order is the order jobs finished in, which need not be the order of the pushes.
 */
export function newestTip(records: readonly HistoryRecord[]): string | undefined {
  const parents = new Set(records.map((r) => r.parent));
  const tips = records.filter((r) => !parents.has(r.commit));
  const time = (r: HistoryRecord) => Date.parse(r.date) || 0;
  return (tips.length ? tips : records).reduce<HistoryRecord | undefined>(
    (newest, r) => (!newest || time(r) >= time(newest) ? r : newest),
    undefined,
  )?.commit;
}

/** The trend of each benchmark along a chain of records: each step as measured, and the steps chained since the anchor. */
export function trendOf(chain: readonly HistoryRecord[], gate: string, anchor: { commit: string; label: string }, reached: boolean): Trend {
  const ids = [...new Set(chain.flatMap((r) => r.benchmarks.map((b) => b.id)))].sort();
  // Each record's points by id, once: a published history of thousands of pushes × hundreds of benchmarks reads them all.
  const byId = chain.map((record) => new Map(record.benchmarks.map((b) => [b.id, b])));
  const benchmarks = ids.map((id): BenchmarkTrend => {
    let sum: LogChange | null = { log: 0, se: 0 };
    let from = anchor.commit;
    let budget = 0;
    const points = chain.map((record, i): TrendPoint => {
      const b = byId[i]!.get(id);
      if (b) budget = b.budget;
      const step = b?.change ? toLog(b.change) : null;
      if (!step) {
        // A push without this benchmark's figure: what changed there is unknown, so its series starts again after it.
        sum = null;
        from = record.commit;
      } else {
        sum = sum ? { log: sum.log + step.log, se: Math.hypot(sum.se, step.se) } : step;
      }
      return {
        commit: record.commit,
        parent: record.parent,
        date: record.date,
        subject: record.subject,
        tags: record.tags,
        step: step ? fromLog(step) : null,
        cumulative: sum && from !== record.commit ? fromLog(sum) : null,
      };
    });
    return { id, budget, from, points, cumulative: points.at(-1)?.cumulative ?? null };
  });
  return {
    gate,
    anchor,
    head: chain.at(-1)?.commit ?? anchor.commit,
    records: [...chain],
    benchmarks,
    ...(reached ? {} : { brokenAt: chain[0]?.parent ?? anchor.commit }),
  };
}

/**
 * The commits of a chain that the history suspects for a benchmark's loss: the steps that lost the most,
 * those whose own interval is all below zero first. Suspects, not verdicts: each step was judged against
 * its own budget when it was pushed; the anchored compare (drift) or bisect decides.
 */
export function suspects(trend: BenchmarkTrend, count = 3): TrendPoint[] {
  const measured = trend.points.filter((p) => p.step && p.step.estimate < 0);
  const sure = (p: TrendPoint) => (p.step!.high < 0 ? 0 : 1);
  return measured.sort((a, b) => sure(a) - sure(b) || a.step!.estimate - b.step!.estimate).slice(0, count);
}

/**
 * A chained change followed by one more measured step, as a pull request's change on top of main's trend at
 * its base: the chained interval's standard error comes back from its 95% width, as `toLog` reads a record's.
 */
export function chainedWith(cumulative: Interval, step: MeasuredChange): Interval {
  const before = toLog({ ...cumulative, confidence: TREND_CONFIDENCE });
  const after = toLog(step);
  return fromLog({ log: before.log + after.log, se: Math.hypot(before.se, after.se) });
}

/** Steps chained: each a 95% interval (a trend point's step or cumulative), the result at 95%. */
export function chainSteps(steps: readonly Interval[]): Interval {
  const sum = steps
    .map((s) => toLog({ ...s, confidence: TREND_CONFIDENCE }))
    .reduce((a, b) => ({ log: a.log + b.log, se: Math.hypot(a.se, b.se) }), { log: 0, se: 0 });
  return fromLog(sum);
}

/** A record's interval on the log scale: its standard error from its width at its own confidence. */
function toLog(change: MeasuredChange): LogChange {
  const z = probit(0.5 + change.confidence / 2);
  return { log: Math.log1p(change.estimate), se: (Math.log1p(change.high) - Math.log1p(change.low)) / (2 * z) };
}

function fromLog(change: LogChange): Interval {
  const z = probit(0.5 + TREND_CONFIDENCE / 2);
  return { estimate: Math.expm1(change.log), low: Math.expm1(change.log - z * change.se), high: Math.expm1(change.log + z * change.se) };
}

/**
 * The trend of `gate` up to `head` (default: its newest record) since an anchor: a resolved commit (drift's),
 * or the newest record tagged like a release pattern (default v*); with no such record, since the oldest one.
 */
export function trendSince(
  records: readonly HistoryRecord[],
  gate: string,
  options: { head?: string | undefined; anchor?: { commit: string; label: string } | { kind: 'tag'; pattern: string } | undefined },
): Trend {
  const head = options.head ?? newestTip(records.filter((r) => r.gate === gate));
  const anchor = options.anchor;
  if (anchor && 'commit' in anchor) {
    const { chain, reached } = chainOf(records, gate, { ...(head ? { head } : {}), anchor: anchor.commit });
    return trendOf(chain, gate, anchor, reached);
  }
  const isRelease = picomatch(anchor?.pattern ?? 'v*', { dot: true });
  const tagged = chainOf(records, gate, { ...(head ? { head } : {}), anchorTag: isRelease });
  if (tagged.reached) {
    const tags = [
      ...records.filter((r) => r.commit === tagged.anchor).flatMap((r) => r.tags),
      ...records.filter((r) => r.parent === tagged.anchor).flatMap((r) => r.parentTags),
    ];
    const tag = tags.find((t) => isRelease(t)) ?? tagged.anchor!.slice(0, 7);
    return trendOf(tagged.chain, gate, { commit: tagged.anchor!, label: tag }, true);
  }
  // No release in the history yet: since the oldest record's parent.
  const { chain } = chainOf(records, gate, head ? { head } : {});
  const start = chain[0]?.parent ?? head ?? '';
  return trendOf(chain, gate, { commit: start, label: start.slice(0, 7) }, true);
}
