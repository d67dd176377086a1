import type { Report } from '../report/model.js';
import { UserError } from '../util/errors.js';
import { driftState } from './render.js';
import type { SiteDrift } from './site-data.js';
import type { Codec } from './store.js';

/**
 * What a drift run found, kept beside the history (its own file: a history line of another kind would be read by
 * older benchgates as a push), so the published site can show the latest drift of each gate.
 */
export interface DriftRecord extends SiteDrift {
  v: 1;
  gate: string;
}

/** Drift verdicts kept per gate: the site shows the newest; the rest are its story. */
export const DRIFT_LIMIT = 100;

/** The drift history beside a CLI history file: history.jsonl → history.drift.jsonl. */
export function driftFileOf(historyFile: string): string {
  return `${historyFile.replace(/\.jsonl$/, '')}.drift.jsonl`;
}

export function driftRecordOf(
  report: Report,
  gate: string,
  anchor: { commit: string; label: string },
  driftBudget: number,
  recorded: Date,
): DriftRecord | undefined {
  if (!report.head || report.head.dirty) return undefined;
  return {
    v: 1,
    gate,
    commit: report.head.sha,
    anchor: { commit: anchor.commit, label: anchor.label.slice(0, 200) },
    recorded: recorded.toISOString(),
    driftBudget,
    state: driftState(report),
    benchmarks: report.benchmarks.map((b) => ({
      id: b.id,
      verdict: b.verdict,
      change:
        b.change && b.verdict !== 'error' && b.verdict !== 'unmeasured'
          ? { estimate: round(b.change.estimate), low: round(b.change.low), high: round(b.change.high) }
          : null,
    })),
  };
}

const round = (x: number) => Number(x.toFixed(5));
const STATES: readonly string[] = ['broken', 'holds', 'undecided', 'failed'];
const SHA = /^[0-9a-f]{40}$/;

function problemOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'not an object';
  const r = value as Record<string, unknown>;
  if (r.v !== 1) return `version ${JSON.stringify(r.v)}, this benchgate reads version 1`;
  if (typeof r.gate !== 'string' || typeof r.recorded !== 'string') return 'gate or recorded is not a string';
  if (typeof r.commit !== 'string' || !SHA.test(r.commit)) return 'commit is not a 40-character commit sha';
  const anchor = r.anchor as Record<string, unknown> | null;
  if (
    typeof anchor !== 'object' ||
    anchor === null ||
    typeof anchor.commit !== 'string' ||
    !SHA.test(anchor.commit) ||
    typeof anchor.label !== 'string'
  )
    return 'anchor is not { commit, label }';
  if (typeof r.driftBudget !== 'number' || !Number.isFinite(r.driftBudget)) return 'driftBudget is not a number';
  if (typeof r.state !== 'string' || !STATES.includes(r.state)) return `state ${JSON.stringify(r.state)} is not one drift gives`;
  if (!Array.isArray(r.benchmarks)) return 'benchmarks is not a list';
  for (const [k, b] of (r.benchmarks as unknown[]).entries()) {
    const p = b as Record<string, unknown> | null;
    if (typeof p !== 'object' || p === null || typeof p.id !== 'string' || typeof p.verdict !== 'string')
      return `benchmarks[${k}] is not { id, verdict, change }`;
    const c = p.change as Record<string, unknown> | null;
    if (c !== null && (typeof c !== 'object' || ![c.estimate, c.low, c.high].every((x) => typeof x === 'number' && Number.isFinite(x))))
      return `benchmarks[${k}].change is not { estimate, low, high }`;
  }
  return undefined;
}

export const DRIFT_CODEC: Codec<DriftRecord> = {
  parse(text, source) {
    return text.split('\n').flatMap((line, i) => {
      if (!line.trim()) return [];
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new UserError(`${source}:${i + 1}: not a drift record (${(error as Error).message}).`);
      }
      const problem = problemOf(value);
      if (problem) throw new UserError(`${source}:${i + 1}: not a drift record: ${problem}.`);
      return [value as DriftRecord];
    });
  },
  serialize: (records) => records.map((r) => `${JSON.stringify(r)}\n`).join(''),
  append(existing, added, limit) {
    const all = [...existing, ...added];
    const kept = new Map<string, number>();
    return all
      .reverse()
      .filter((r) => {
        const count = (kept.get(r.gate) ?? 0) + 1;
        kept.set(r.gate, count);
        return count <= limit;
      })
      .reverse();
  },
  commits: (records) => records.map((r) => r.commit),
};
