import { describe, expect, it } from 'vitest';
import type { Revision } from '../../src/checkout/revisions.js';
import type { MeasureRule } from '../../src/config/types.js';
import { splitByMeasure } from '../../src/gate/measures.js';
import type { RevisionInventory } from '../../src/measure/micro/inventory.js';

const side = (label: 'base' | 'head', files: Record<string, string[] | undefined>): RevisionInventory => ({
  revision: { label } as Revision,
  files: Object.entries(files).map(([file, tasks]) =>
    tasks ? { revision: label, file, tasks } : { revision: label, file, tasks: [], error: 'SyntaxError: Unexpected token' },
  ),
});

describe('which micro-benchmarks are timed and which counted (micro.measure, micro.measures)', () => {
  const files = {
    base: ['bench/a.bench.js', 'bench/ids.bench.js'],
    head: ['bench/a.bench.js', 'bench/ids.bench.js', 'bench/new.bench.js'],
  };
  const inventory = [
    side('base', { 'bench/a.bench.js': ['parse', 'format'], 'bench/ids.bench.js': ['uuid', 'counter'] }),
    side('head', {
      'bench/a.bench.js': ['parse', 'format', 'render'],
      'bench/ids.bench.js': ['uuid', 'counter'],
      'bench/new.bench.js': ['x'],
    }),
  ];
  const split = (measure: 'time' | 'counts' | 'both', measures: MeasureRule[]) => splitByMeasure({ measure, measures }, inventory, files);

  it('gives each stage every file where one measure applies to all (micro.measure alone)', () => {
    expect(split('time', [])).toEqual({ timed: { files, skip: [], only: 6 }, counted: undefined });
    expect(split('counts', [])).toEqual({ timed: undefined, counted: { files, skip: [], only: 6 } });
    // both: every task in each stage, none measured by one alone.
    expect(split('both', [])).toEqual({ timed: { files, skip: [], only: 0 }, counted: { files, skip: [], only: 0 } });
  });

  it("sends each task where its pattern says: the other stage skips it, and a file with none of a stage's tasks is not loaded there", () => {
    const { timed, counted } = split('time', [
      { pattern: 'bench/ids.bench.js > *', measure: 'counts' },
      { pattern: 'bench/a.bench.js > render', measure: 'both' },
    ]);
    expect(timed).toEqual({
      files: { base: ['bench/a.bench.js'], head: ['bench/a.bench.js', 'bench/new.bench.js'] },
      skip: ['bench/ids.bench.js > uuid', 'bench/ids.bench.js > counter'],
      // parse, format, x: timed only (render is both): figures the counts' family shares its error with.
      only: 3,
    });
    expect(counted).toEqual({
      files: { base: ['bench/a.bench.js', 'bench/ids.bench.js'], head: ['bench/a.bench.js', 'bench/ids.bench.js'] },
      skip: ['bench/a.bench.js > parse', 'bench/a.bench.js > format', 'bench/new.bench.js > x'],
      only: 2,
    });
  });

  it("sends a worker's file where its owner goes, never to a stage of its own", () => {
    const owned = [
      {
        revision: { label: 'base' } as Revision,
        files: [
          { revision: 'base' as const, file: 'benchmark/bench.js', tasks: ['short static', 'root'] },
          { revision: 'base' as const, file: 'benchmark/bench-thread.js', tasks: [], workerOf: 'benchmark/bench.js' },
          { revision: 'base' as const, file: 'bench/serialize.bench.mjs', tasks: ['strings'] },
        ],
      },
    ];
    const all = ['benchmark/bench.js', 'benchmark/bench-thread.js', 'bench/serialize.bench.mjs'];
    const { timed, counted } = splitByMeasure(
      { measure: 'counts', measures: [{ pattern: 'benchmark/bench.js > *', measure: 'time' }] },
      owned,
      { base: all, head: all },
    );
    expect(timed!.files.base).toEqual(['benchmark/bench.js', 'benchmark/bench-thread.js']);
    expect(counted!.files.base).toEqual(['bench/serialize.bench.mjs']);
  });

  it('leaves a file that failed to load (no task known) to the stage micro.measure names, where its error becomes the row', () => {
    const broken = [side('base', { 'bench/a.bench.js': undefined }), side('head', { 'bench/a.bench.js': ['parse'] })];
    const one = { base: ['bench/a.bench.js'], head: ['bench/a.bench.js'] };
    const { timed, counted } = splitByMeasure({ measure: 'time', measures: [{ pattern: '*', measure: 'counts' }] }, broken, one);
    // Its one known task is counted; the file still loads in the counted stage, where the base's error shows.
    expect(counted).toEqual({ files: one, skip: [], only: 1 });
    expect(timed).toBeUndefined();
    expect(splitByMeasure({ measure: 'time', measures: [] }, broken, undefined)).toEqual({ timed: undefined, counted: undefined });
  });
});

describe('the family of a run whose micro-benchmarks are partly counted', () => {
  it('judges the timed rows at a level that counts the counted-only tasks, as the looks did', async () => {
    const { parseConfig } = await import('../../src/config/load.js');
    const { planRun } = await import('../../src/gate/plan.js');
    const { judge } = await import('../../src/gate/judge.js');
    const config = parseConfig('budget: 5%\n', '/repo/benchgate.yml');
    const samples = {
      id: 'bench/a.bench.js > a',
      kind: 'micro' as const,
      file: 'bench/a.bench.js',
      logRatios: Array.from({ length: 15 }, (_, i) => (i % 2 ? 0.01 : -0.01) + i * 1e-4),
      base: { opsPerSec: Array.from({ length: 15 }, () => 1e6) },
      head: { opsPerSec: Array.from({ length: 15 }, () => 1e6) },
    };
    const micro = { benchmarks: [samples], rounds: 15, plannedRounds: 15, limited: false, durationMs: 1, isolation: 'alternate' };
    const levelWith = (countedOnly: number) => {
      const plan = planRun(config, undefined, true, countedOnly);
      expect(plan.otherFigures).toBe(countedOnly);
      const run = { config, plan, firstLook: { rounds: 15, tasks: 1, files: 1, microRoundMs: 1, httpRoundMs: 0 } } as never;
      return judge(run, micro as never, undefined);
    };
    const alone = levelWith(0);
    const beside = levelWith(3);
    expect([alone.figures, beside.figures]).toEqual([1, 4]);
    // Four figures share the error: each interval is read at a higher level, wider.
    expect(beside.intervalLevel).toBeGreaterThan(alone.intervalLevel);
    const width = (j: typeof alone) => j.benchmarks[0]!.change!.high - j.benchmarks[0]!.change!.low;
    expect(width(beside)).toBeGreaterThan(width(alone));
  });
});

describe('--measure (and the action input) in place of micro.measure and micro.measures', () => {
  it('measures every micro-benchmark as it says, the patterns aside; without it the patterns stand', async () => {
    const { parseConfig } = await import('../../src/config/load.js');
    const { withOverrides } = await import('../../src/gate/options.js');
    const config = parseConfig("micro:\n  measures:\n    'bench/ids.bench.js > *': counts\n", '/repo/benchgate.yml');
    expect(withOverrides(config, { measure: 'time' }).micro).toMatchObject({ measure: 'time', measures: [] });
    expect(withOverrides(config, { rounds: 5 }).micro.measures).toEqual([{ pattern: 'bench/ids.bench.js > *', measure: 'counts' }]);
  });
});
