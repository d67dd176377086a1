import type { Report } from '../report/model.js';
import type { Verdict } from '../stats/compare.js';
import { UserError } from '../util/errors.js';

/** Version of a history line's shape; a line of another version is refused with its file and line. */
export const HISTORY_VERSION = 1;

/** Records kept per gate when nothing else is said: 1,000 pushes of 20 benchmarks are about 4.6 MB (230 bytes a benchmark). */
export const DEFAULT_HISTORY_LIMIT = 1000;

/**
 * One benchmark in one record: the change from the record's parent to its commit, measured side by side in
 * one job (the figure history is built on), and the absolute figures of that job, for context only: absolute
 * figures of two jobs on two runners are not comparable, the change measured within one job is.
 */
export interface HistoryPoint {
  id: string;
  verdict: Verdict;
  /** The budget the compare judged it against, as a fraction. */
  budget: number;
  /** Relative change of throughput (head against base) with its interval; null when the compare had none. */
  change: { estimate: number; low: number; high: number; confidence: number } | null;
  /** ops/s (requests/s for HTTP) at parent and commit, in this job: context, never chained. */
  base: number | null;
  head: number | null;
}

/** One push (or scheduled run) of the default branch: its commit compared with the commit before it. */
export interface HistoryRecord {
  v: typeof HISTORY_VERSION;
  /** Which gate measured it (the action's comment key: working directory and config), so gates sharing a history stay apart. */
  gate: string;
  /** @pattern ^[0-9a-f]{40}$ */
  commit: string;
  /** The revision it was compared with: the commit before the push, which may be several commits back. */
  parent: string;
  /** Commit date (ISO 8601), and when the record was made. */
  date: string;
  recorded: string;
  /** The commit's subject line: text of the repository, escaped wherever it is shown. */
  subject: string;
  /** Tags pointing at the commit and at the parent (releases, marked on the trend; the first record's parent is often one). */
  tags: string[];
  parentTags: string[];
  runner: { os: string; arch: string; cpus: number; node: string };
  benchmarks: HistoryPoint[];
}

export interface CommitInfo {
  date: string;
  subject: string;
  tags: string[];
  parentTags: string[];
}

/**
 * The record a compare of `report.base` → `report.head` makes. A compare that failed still makes one, with no
 * figure for what it did not measure, so the chain goes on past it and those benchmarks' series restart after
 * it (the trend never guesses a step); undefined only when it got no commits to compare (or a dirty head).
 */
export function recordOf(report: Report, gate: string, commit: CommitInfo, recorded: Date): HistoryRecord | undefined {
  if (!report.base || !report.head || report.head.dirty) return undefined;
  return {
    v: HISTORY_VERSION,
    gate,
    commit: report.head.sha,
    parent: report.base.sha,
    date: commit.date,
    recorded: recorded.toISOString(),
    subject: commit.subject.slice(0, 200),
    tags: commit.tags.slice(0, 20),
    parentTags: commit.parentTags.slice(0, 20),
    runner: {
      os: report.environment.os,
      arch: report.environment.arch,
      cpus: report.environment.cpus.count,
      node: report.environment.node,
    },
    benchmarks: report.benchmarks.map((b) => ({
      id: b.id,
      verdict: b.verdict,
      budget: b.budget,
      // Rounded to what the figures mean (0.001% of change, 4 significant digits of ops/s): a third of the bytes.
      change:
        // What the gate did not count as measured is no step either.
        b.change && b.verdict !== 'error' && b.verdict !== 'unmeasured'
          ? {
              estimate: round(b.change.estimate, 5),
              low: round(b.change.low, 5),
              high: round(b.change.high, 5),
              confidence: round(b.change.confidence, 6),
            }
          : null,
      base: b.base ? Number(b.base.opsPerSec.toPrecision(4)) : null,
      head: b.head ? Number((b.head.measured ?? b.head.opsPerSec).toPrecision(4)) : null,
    })),
  };
}

function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}

/**
 * The history as text: one JSON line per record, oldest first. A record of a commit already recorded for
 * the same gate replaces it (a re-run of the job), and only the newest `limit` records per gate are kept.
 */
export function appendRecords(existing: readonly HistoryRecord[], added: readonly HistoryRecord[], limit: number): HistoryRecord[] {
  let records = [...existing];
  for (const record of added) {
    records = records.filter((r) => !(r.gate === record.gate && r.commit === record.commit && r.parent === record.parent));
    records.push(record);
  }
  const kept = new Map<string, number>();
  const newestFirst = records.reverse().filter((r) => {
    const count = (kept.get(r.gate) ?? 0) + 1;
    kept.set(r.gate, count);
    return count <= limit;
  });
  return newestFirst.reverse();
}

export function serializeHistory(records: readonly HistoryRecord[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join('');
}

const SHA = /^[0-9a-f]{40}$/;
const VERDICTS: readonly string[] = [
  'regression',
  'improvement',
  'unchanged',
  'within-budget',
  'inconclusive',
  'unmeasured',
  'error',
  'new',
  'removed',
];

/**
 * Parse a history file strictly (it may have been edited by hand, or come from a branch anyone with write
 * access can push to): a line that is not a record is an error naming the file and the line.
 */
export function parseHistory(text: string, source: string): HistoryRecord[] {
  const records: HistoryRecord[] = [];
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (!line.trim()) continue;
    const at = `${source}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new UserError(`${at}: not a history record (${(error as Error).message}).`);
    }
    const problem = recordProblem(value);
    if (problem) throw new UserError(`${at}: not a history record: ${problem}.`);
    records.push(value as HistoryRecord);
  }
  return records;
}

function recordProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'not an object';
  if (value.v !== HISTORY_VERSION) return `version ${JSON.stringify(value.v)}, this benchgate reads version ${HISTORY_VERSION}`;
  for (const field of ['commit', 'parent'] as const)
    if (typeof value[field] !== 'string' || !SHA.test(value[field])) return `${field} is not a 40-character commit sha`;
  for (const field of ['gate', 'date', 'recorded', 'subject'] as const)
    if (typeof value[field] !== 'string') return `${field} is not a string`;
  for (const field of ['tags', 'parentTags'] as const) {
    const list = value[field];
    if (!Array.isArray(list) || !list.every((t) => typeof t === 'string')) return `${field} is not a list of strings`;
  }
  const runner = value.runner;
  if (!isObject(runner) || typeof runner.os !== 'string' || typeof runner.node !== 'string' || typeof runner.cpus !== 'number')
    return 'runner is not { os, arch, cpus, node }';
  if (!Array.isArray(value.benchmarks)) return 'benchmarks is not a list';
  for (const [k, b] of value.benchmarks.entries()) {
    const problem = pointProblem(b);
    if (problem) return `benchmarks[${k}]: ${problem}`;
  }
  return undefined;
}

function pointProblem(b: unknown): string | undefined {
  if (!isObject(b)) return 'not an object';
  if (typeof b.id !== 'string') return 'id is not a string';
  if (typeof b.verdict !== 'string' || !VERDICTS.includes(b.verdict))
    return `verdict ${JSON.stringify(b.verdict)} is not one benchgate gives`;
  if (!finite(b.budget)) return 'budget is not a number';
  if (b.change !== null) {
    const c = b.change;
    if (!isObject(c) || ![c.estimate, c.low, c.high, c.confidence].every(finite))
      return 'change is not { estimate, low, high, confidence }';
    if (!((c.low as number) <= (c.estimate as number) && (c.estimate as number) <= (c.high as number)))
      return 'change is not ordered low ≤ estimate ≤ high';
    if ((c.low as number) <= -1) return 'change.low is a loss of 100% or more';
    if (!((c.confidence as number) > 0 && (c.confidence as number) < 1)) return 'change.confidence is not between 0 and 1';
  }
  if (!(b.base === null || finite(b.base)) || !(b.head === null || finite(b.head))) return 'base/head is not a number or null';
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finite(x: unknown): boolean {
  return typeof x === 'number' && Number.isFinite(x);
}
