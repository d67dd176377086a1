import { describe, expect, it } from 'vitest';
import { configHash } from '../../src/config/hash.js';
import { loadConfig } from '../../src/config/load.js';
import type { HttpBenchmarkConfig } from '../../src/config/types.js';
import { assignShards, parseShardSpec, planSuite, type FileCensus, type ShardUnit } from '../../src/measure/shard.js';
import { plannedFigures } from '../../src/measure/http/schedule.js';

const units = (costs: Record<string, number>): ShardUnit[] => Object.entries(costs).map(([key, cost]) => ({ key, cost }));
const costOf = (all: ShardUnit[], keys: string[]) => keys.reduce((sum, key) => sum + all.find((u) => u.key === key)!.cost, 0);

/** A suite of many files of uneven cost, in no particular order. */
const suite = units({
  'bench/a.bench.js': 7,
  'bench/b.bench.js': 3,
  'bench/c.bench.js': 3,
  'bench/d.bench.js': 12,
  'bench/e.bench.js': 1,
  'bench/f.bench.js': 5,
  'bench/g.bench.js': 5,
  'http > api': 9,
  'bench/h.bench.js': 2,
});

describe('splitting a suite into shards', () => {
  it('puts every file and load test in exactly one shard', () => {
    for (const count of [1, 2, 3, 4, 9, 12]) {
      const shards = assignShards(suite, count);
      expect(shards).toHaveLength(count);
      expect(shards.flat().sort().join('\n')).toBe(
        suite
          .map((u) => u.key)
          .sort()
          .join('\n'),
      );
    }
  });

  it('gives one shard the whole suite', () => {
    expect(assignShards(suite, 1)).toEqual([suite.map((u) => u.key).sort()]);
  });

  it('splits the same suite the same way whatever order the files were found in', () => {
    const reversed = [...suite].reverse();
    const shuffled = [suite[4]!, suite[0]!, suite[8]!, suite[2]!, suite[6]!, suite[1]!, suite[7]!, suite[3]!, suite[5]!];
    for (const count of [2, 3, 4]) {
      expect(assignShards(reversed, count)).toEqual(assignShards(suite, count));
      expect(assignShards(shuffled, count)).toEqual(assignShards(suite, count));
    }
  });

  it('ties between equal costs go the same way every time (by name)', () => {
    const even = units({ 'bench/x.bench.js': 1, 'bench/y.bench.js': 1, 'bench/w.bench.js': 1, 'bench/z.bench.js': 1 });
    expect(assignShards(even, 2)).toEqual([
      ['bench/w.bench.js', 'bench/y.bench.js'],
      ['bench/x.bench.js', 'bench/z.bench.js'],
    ]);
  });

  it('balances by cost, not by count: the busiest shard is within 4/3 of the best split', () => {
    const total = suite.reduce((sum, u) => sum + u.cost, 0);
    for (const count of [2, 3, 4]) {
      const loads = assignShards(suite, count).map((keys) => costOf(suite, keys));
      const best = Math.max(total / count, ...suite.map((u) => u.cost));
      expect(Math.max(...loads)).toBeLessThanOrEqual((4 / 3) * best);
    }
    // A file as costly as all the others together gets a shard to itself.
    const lopsided = units({ 'bench/big.bench.js': 10, 'bench/s1.bench.js': 2, 'bench/s2.bench.js': 3, 'bench/s3.bench.js': 5 });
    expect(assignShards(lopsided, 2)).toEqual([['bench/big.bench.js'], ['bench/s1.bench.js', 'bench/s2.bench.js', 'bench/s3.bench.js']]);
  });

  it('leaves the extra shards empty when there are more shards than files', () => {
    const shards = assignShards(units({ 'bench/a.bench.js': 1, 'bench/b.bench.js': 2 }), 4);
    expect(shards.filter((s) => s.length === 0)).toHaveLength(2);
  });
});

describe('the suite every shard plans alike', () => {
  const census: FileCensus[] = [
    { file: 'bench/ids.bench.js', base: ['uuid', 'counter'], head: ['uuid', 'counter', 'nanoid'] },
    { file: 'bench/parse.bench.js', base: ['json'], head: ['json'] },
    { file: 'bench/new.bench.js', base: undefined, head: ['fresh'] },
    { file: 'bench/broken.bench.js', base: ['x'], head: undefined },
  ];
  const http = [{ id: 'http > todos', latencyBudget: { p99: 0.25 } } as unknown as HttpBenchmarkConfig];
  const plan = (count: number) =>
    planSuite(census, http, { taskTimeMs: 100, httpRoundMs: () => 250, httpFigures: (tests) => plannedFigures(tests, true) }, count);

  it('keeps each bench file whole: the tasks of one file are in one shard', () => {
    for (const count of [2, 3]) {
      const shards = plan(count).shards;
      for (const file of census.map((c) => c.file)) expect(shards.filter((s) => s.includes(file))).toHaveLength(1);
    }
  });

  it('counts the whole suite as the family: tasks both revisions declare, and every budgeted HTTP figure', () => {
    // uuid, counter and json compare; nanoid and fresh are new, x has no head; the load test has requests/s,
    // requests per CPU-second and p99.
    for (const count of [1, 2, 4]) expect(plan(count).familySize).toBe(3 + 3);
    expect(plannedFigures(http, false)).toBe(2);
  });

  it('costs a file by its tasks and a load test by its round', () => {
    // ids (3 tasks × 100) and the load test (250) are the costliest: they go to different shards.
    const [first, second] = plan(2).shards;
    expect(first).toContain('bench/ids.bench.js');
    expect(second).toContain('http > todos');
  });

  it('names every unit of the suite once, sorted', () => {
    expect(plan(3).units).toEqual([
      'bench/broken.bench.js',
      'bench/ids.bench.js',
      'bench/new.bench.js',
      'bench/parse.bench.js',
      'http > todos',
    ]);
  });
});

describe('--shard', () => {
  it('reads i/n', () => {
    expect(parseShardSpec('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShardSpec('1/1')).toEqual({ index: 1, count: 1 });
  });

  it.each(['0/4', '5/4', '2', '2/0', '-1/4', 'a/b', '1/2/3'])('refuses %s, saying what it wants', (text) => {
    expect(() => parseShardSpec(text)).toThrow(`--shard '${text}' is not i/n with 1 ≤ i ≤ n`);
  });
});

describe('the config fingerprint shards are checked by', () => {
  const config = (budget = 0.05) => ({ ...loadConfig({ root: '/nonexistent-project' }), budget });

  it('is the same for the same settings, wherever the file is', () => {
    expect(configHash({ ...config(), file: '/a/benchgate.yml' })).toBe(configHash({ ...config(), file: '/b/benchgate.yml' }));
  });

  it('differs when a setting differs', () => {
    expect(configHash(config(0.05))).not.toBe(configHash(config(0.1)));
  });
});
