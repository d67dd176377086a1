/**
 * Sharding: one suite split over several jobs. Which benchmarks exist is known once the bench files
 * are loaded, so the units dealt out are whole bench files (a file's tasks share one import, and a
 * file loaded by two shards would cost both) and whole HTTP load tests. Every shard plans the same
 * split from the same census, so no shard needs to hear from another.
 */
import type { HttpBenchmarkConfig } from '../config/types.js';
import { UserError } from '../util/errors.js';

/** Which part of a split suite a run measures: shard `index` (1-based) of `count`. */
export interface ShardSpec {
  index: number;
  count: number;
}

/** One piece of the suite that goes to one shard whole: a bench file, or an HTTP load test (by id). */
export interface ShardUnit {
  key: string;
  /** Estimated measuring time per round, in ms: what the split balances. */
  cost: number;
}

/** What loading a bench file at each revision showed: its task names there (undefined when the revision lacks the file or it failed to load). */
export interface FileCensus {
  file: string;
  base: readonly string[] | undefined;
  head: readonly string[] | undefined;
}

/** The whole suite as every shard sees it, and this shard's part. */
export interface SuitePlan {
  /** Every unit of the suite, sorted. */
  units: string[];
  /** The units of each shard, index 0 for shard 1; each sorted. */
  shards: string[][];
  /** Budgeted figures of the whole suite (every shard's): the family whose error rate the decision rule holds. */
  familySize: number;
}

/** "2/4" → { index: 2, count: 4 }. */
export function parseShardSpec(text: string): ShardSpec {
  const match = /^(\d{1,3})\/(\d{1,3})$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count)
    throw new UserError(`--shard '${text}' is not i/n with 1 ≤ i ≤ n, e.g. --shard 2/4 for the second of four shards.`);
  return { index, count };
}

/**
 * Deal the units to `count` shards: costliest first, each to the shard with the least cost so far
 * (ties to the lowest index). Graham's LPT rule (1969): the busiest shard is within 4/3 of the best
 * possible. Units are ordered by cost, then key, so the same suite always gives the same shards.
 */
export function assignShards(units: readonly ShardUnit[], count: number): string[][] {
  const shards = Array.from({ length: count }, () => ({ cost: 0, keys: [] as string[] }));
  const ordered = [...units].sort((a, b) => b.cost - a.cost || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const unit of ordered) {
    const lightest = shards.reduce((best, shard) => (shard.cost < best.cost ? shard : best), shards[0]!);
    lightest.cost += unit.cost;
    lightest.keys.push(unit.key);
  }
  return shards.map((shard) => shard.keys.sort());
}

/**
 * The split of a suite: a bench file costs its task count (the larger of the two revisions', at
 * least one) times the measuring time per task; a load test its estimated round. The family is
 * every task both revisions declare plus every budgeted HTTP figure (`httpFigures`), as an unsharded run counts it.
 */
export function planSuite(
  census: readonly FileCensus[],
  http: readonly HttpBenchmarkConfig[],
  costs: {
    taskTimeMs: number;
    httpRoundMs: (benchmark: HttpBenchmarkConfig) => number;
    httpFigures: (benchmarks: readonly HttpBenchmarkConfig[]) => number;
  },
  count: number,
): SuitePlan {
  const units: ShardUnit[] = [
    ...census.map((f) => ({ key: f.file, cost: Math.max(1, f.base?.length ?? 0, f.head?.length ?? 0) * costs.taskTimeMs })),
    ...http.map((b) => ({ key: b.id, cost: costs.httpRoundMs(b) })),
  ];
  const compared = census.reduce((sum, f) => sum + (f.base && f.head ? f.base.filter((task) => f.head!.includes(task)).length : 0), 0);
  return {
    units: units.map((u) => u.key).sort(),
    shards: assignShards(units, count),
    familySize: compared + costs.httpFigures(http),
  };
}
