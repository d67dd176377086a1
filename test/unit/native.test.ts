// compare --native-check: a bench file's own runs beside benchgate's figures (src/measure/native, src/report/native*.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRecords, relativeMargin, tQuantile95, type NativeRecord } from '../../src/measure/native/figures.js';
import { matchRun, nativeIds } from '../../src/measure/native/match.js';
import { vitestRecords } from '../../src/measure/native/vitest.js';
import { nativeRunLimits, runNativeCheck, type NativeTarget } from '../../src/measure/native/check.js';
import type { NativeRun, NativeRunOptions } from '../../src/measure/native/run.js';
import {
  agreementOf,
  combineRuns,
  impossibleFigure,
  nativeChange,
  nativeEntries,
  ONE_RUN,
  ownNoise,
  runNoise,
} from '../../src/report/native.js';
import { formatSide } from '../../src/report/native-sections.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { Report, ReportBenchmark } from '../../src/report/model.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { injectionProblems } from '../inert.js';
// @ts-expect-error -- a plain .mjs script (npm run evaluate:fidelity)
import { bootstrapChange } from '../../scripts/evaluate-fidelity.mjs';

const record = (name: string, over: Partial<NativeRecord> = {}): NativeRecord => ({
  harness: 'benchmark.js',
  thread: 0,
  suites: [],
  name,
  opsPerSec: 1000,
  rme: 1,
  ...over,
});

describe('native task names, matched to benchmark ids as benchgate names captured tasks', () => {
  it("names find-my-way's dot-padded worker scenarios, suites and a repeated name as the capture does", () => {
    const records = [
      record('lookup static route....', { thread: 2 }),
      record('lookup two params......', { thread: 4 }),
      record('lookup parametric route', { thread: 6 }),
      record('escape', { harness: 'mitata', suites: ['escaping'] }),
      record('noop'),
      record('noop'),
    ];
    expect(nativeIds('benchmark/workers.js', records).map((r) => r.id)).toEqual([
      'benchmark/workers.js > lookup static route',
      'benchmark/workers.js > lookup two params',
      'benchmark/workers.js > lookup parametric route',
      'benchmark/workers.js > escaping > escape',
      'benchmark/workers.js > noop',
      'benchmark/workers.js > noop (2)',
    ]);
  });

  it('lists a native task that matches no compared benchmark instead of dropping it', () => {
    const ids = new Set(['bench/a.mjs > makeId', 'bench/a.mjs > slugify']);
    const { matched, unmatched } = matchRun('bench/a.mjs', [record('makeId'), record('only natively', { suites: ['extra'] })], ids);
    expect([...matched.keys()]).toEqual(['bench/a.mjs > makeId']);
    expect(unmatched).toEqual(['extra > only natively']);
    // In the report: the file lists it, and the benchmark no run reported says why it has no figure.
    const runs: NativeRun[] = (['base', 'head'] as const).map((revision) => ({
      revision,
      durationMs: 10,
      records: [record('makeId'), record('only natively', { suites: ['extra'] })],
    }));
    const { byId, files } = nativeEntries([{ file: 'bench/a.mjs', runs }], benchmarks(['makeId', 'slugify']));
    expect(files[0]!.unmatched).toEqual(['extra > only natively']);
    expect(byId.get('bench/a.mjs > slugify')).toMatchObject({ base: null, head: null, agreement: 'unknown' });
    expect(byId.get('bench/a.mjs > slugify')!.note).toContain('reported no figure for it');
  });
});

describe('the agreement rule: the native interval against benchgate’s', () => {
  const bg = (estimate: number, low: number, high: number) => ({ estimate, low, high });

  it('shows and does not judge a change between two major versions of the harness', () => {
    const runs: NativeRun[] = (['base', 'head', 'head', 'base'] as const).map((revision) => ({
      revision,
      durationMs: 10,
      records: [record('makeId', { opsPerSec: revision === 'head' ? 2000 : 1000 })],
    }));
    const entry = (versions: { base: string; head: string }) =>
      nativeEntries([{ file: 'bench/a.mjs', runs, versions }], benchmarks(['makeId'])).byId.get('bench/a.mjs > makeId')!;
    // tinybench 2.9.0 against 6.2.3: an unchanged task read +100% natively (2.x's hz is not 6.x's throughput.mean).
    const majors = entry({ base: '2.9.0', head: '6.2.3' });
    expect(majors.change!.estimate).toBeCloseTo(1, 12);
    expect(majors).toMatchObject({ agreement: 'unknown' });
    expect(majors.note).toContain('major versions 2 and 6');
    // A patch release apart: judged (+100% natively against benchgate's -2% [-4%, 0%]).
    expect(entry({ base: '2.1.3', head: '2.1.4' }).agreement).toBe('disagrees');
  });

  it("names a native figure faster than a call can be (the harness's loop optimized away) and does not judge it", () => {
    // mitata without do_not_optimize on a Map lookup: 6.1G ops/s at base; benchgate read 55M.
    const runs: NativeRun[] = (['base', 'head', 'head', 'base'] as const).map((revision) => ({
      revision,
      durationMs: 10,
      records: [record('lookup', { opsPerSec: revision === 'base' ? 6.1e9 : 55e6 }), record('parse', { opsPerSec: 1e6 })],
    }));
    const { byId } = nativeEntries([{ file: 'bench/a.mjs', runs }], benchmarks(['lookup', 'parse']));
    const lookup = byId.get('bench/a.mjs > lookup')!;
    expect(lookup.change!.estimate).toBeLessThan(-0.99);
    expect(lookup.agreement).toBe('unknown');
    expect(lookup.note).toBe(
      "the harness's loop was optimized away (base 6.1G ops/s, 0.16 ns a call: faster than a call can be, 1 ns): its figure is not the code's cost, not judged",
    );
    // The file's other task is judged as before.
    expect(byId.get('bench/a.mjs > parse')!.agreement).not.toBe('unknown');
    // 1G ops/s is the bound: just under it is a figure like any other.
    expect(impossibleFigure({ base: { opsPerSec: 0.99e9, rme: 1, runs: [0.99e9] }, head: null })).toBeUndefined();
    expect(formatSide({ opsPerSec: 6.1e9, rme: 0.5, runs: [6.1e9] })).toMatch(/ \(optimized away\)$/);
    expect(formatSide({ opsPerSec: 55e6, rme: 0.5, runs: [55e6] })).not.toContain('optimized');
  });

  it('takes the larger of both runs’ margins, sqrt(rme base² + rme head²), and the noise between runs', () => {
    const quiet = { sd: 0.001, df: 10 };
    const change = nativeChange({ opsPerSec: 100, rme: 3, runs: [100, 100] }, { opsPerSec: 90, rme: 4, runs: [90, 90] }, quiet);
    expect(change.estimate).toBeCloseTo(-0.1, 12);
    // 0.9 · e^(±0.05) − 1: the margins decide while runs barely move apart.
    expect(change.low).toBeCloseTo(0.9 * Math.exp(-0.05) - 1, 12);
    expect(change.high).toBeCloseTo(0.9 * Math.exp(0.05) - 1, 12);
    // Runs 10% apart (log SD 0.1, 10 df): t(10) · 0.1 · √(1/2 + 1/2) = 0.2228 decides.
    const noisy = nativeChange(
      { opsPerSec: 100, rme: 3, runs: [100, 100] },
      { opsPerSec: 90, rme: 4, runs: [90, 90] },
      { sd: 0.1, df: 10 },
    );
    expect(noisy.low).toBeCloseTo(0.9 * Math.exp(-2.228 * 0.1) - 1, 3);
    expect(noisy.high).toBeCloseTo(0.9 * Math.exp(2.228 * 0.1) - 1, 3);
  });

  it('claims no agreement either way when each revision ran once (nothing measures the noise between runs)', () => {
    expect(runNoise([[record('a')], [record('a', { opsPerSec: 700 })]])).toBeNull();
    expect(nativeChange({ opsPerSec: 100, rme: 1, runs: [100] }, { opsPerSec: 130, rme: 1, runs: [130] }, null)).toMatchObject({
      low: null,
      high: null,
    });
    // Unchanged code, whole runs 30% apart with ±1% margins each (seen on a loaded machine): not a disagreement.
    const runs: NativeRun[] = [
      { revision: 'base', durationMs: 10, records: [record('makeId', { opsPerSec: 1000, rme: 1 })] },
      { revision: 'head', durationMs: 10, records: [record('makeId', { opsPerSec: 700, rme: 1 })] },
    ];
    const entry = nativeEntries([{ file: 'bench/a.mjs', runs }], benchmarks(['makeId'])).byId.get('bench/a.mjs > makeId')!;
    expect(entry).toMatchObject({ agreement: 'unknown', note: ONE_RUN });
  });

  it('pools the noise between runs over every task and revision, and a run 30% off makes unchanged code agree', () => {
    // Two tasks, two runs each per revision; the second base run of the check was 30% slow for both tasks.
    const runs: NativeRun[] = [
      { revision: 'base', durationMs: 10, records: [record('makeId', { opsPerSec: 1000 }), record('slugify', { opsPerSec: 500 })] },
      { revision: 'head', durationMs: 10, records: [record('makeId', { opsPerSec: 1000 }), record('slugify', { opsPerSec: 500 })] },
      { revision: 'head', durationMs: 10, records: [record('makeId', { opsPerSec: 1000 }), record('slugify', { opsPerSec: 500 })] },
      { revision: 'base', durationMs: 10, records: [record('makeId', { opsPerSec: 700 }), record('slugify', { opsPerSec: 350 })] },
    ];
    const { byId } = nativeEntries([{ file: 'bench/a.mjs', runs }], benchmarks(['makeId', 'slugify']));
    // Pooled: each base group has SD log(1000/700)/√2, each head group 0; 4 df.
    const sd = Math.sqrt((2 * Math.log(1000 / 700) ** 2) / 2 / 4);
    const pooled = runNoise([
      [record('a', { opsPerSec: 1000 }), record('a', { opsPerSec: 700 })],
      [record('b'), record('b')],
    ])!;
    expect(pooled.df).toBe(2);
    expect(pooled.sd).toBeCloseTo(Math.sqrt(Math.log(1000 / 700) ** 2 / 2 / 2), 12);
    for (const id of ['bench/a.mjs > makeId', 'bench/a.mjs > slugify']) {
      const entry = byId.get(id)!;
      expect(entry.change!.estimate).toBeCloseTo(1000 / 850 - 1, 12);
      expect(entry.change!.low).toBeCloseTo((1000 / 850) * Math.exp(-2.776 * sd) - 1, 3);
      // benchgate: -2% [-4%, 0%]; the native +17.6% is wide enough to hold it, and so wide (over 20 points, more than
      // twice benchgate's) that holding it says nothing: too noisy to judge, never "agrees".
      expect(entry.agreement).toBe('too-noisy');
      expect(entry.note).toMatch(
        /^native too noisy to judge: its interval \[[-+][\d.]+%, \+[\d.]+%\] meets benchgate's, but is \d+ points wide/,
      );
    }
  });

  it('widens a task’s interval by its own noise between runs, from three runs per revision, when it moves more than the file’s other tasks', () => {
    // Nine quiet tasks (the same figure in every run) and one that moves 15% between runs, as one scenario of a
    // suite can with what runs before it in the author's process; benchgate says -2% [-4%, 0%] for all ten.
    const quiet = Array.from({ length: 9 }, (_, i) => `quiet ${i}`);
    const noisy = { base: [1000, 850, 1150], head: [1200, 1000, 1400] };
    const check = (perRevision: number) => {
      const order = (['base', 'head', 'head', 'base', 'base', 'head'] as const).slice(0, 2 * perRevision);
      const seen = { base: 0, head: 0 };
      const runs: NativeRun[] = order.map((revision) => ({
        revision,
        durationMs: 10,
        records: [...quiet.map((name) => record(name)), record('noisy', { opsPerSec: noisy[revision][seen[revision]++] })],
      }));
      return nativeEntries([{ file: 'bench/a.mjs', runs }], benchmarks([...quiet, 'noisy'])).byId;
    };
    const logs = (xs: number[]) => xs.map(Math.log);
    const squares = (xs: number[]) => {
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      return xs.reduce((a, x) => a + (x - mean) ** 2, 0);
    };
    const ss = squares(logs(noisy.base)) + squares(logs(noisy.head));
    const ratio = 1200 / 1000;
    // Three runs: the pooled noise (40 df: ten tasks, two revisions, two df each) would give t(40) · √(ss/40) · √(2/3)
    // = 0.081, an interval from +10% up, apart from benchgate's; the task's own (4 df) gives t(4) · √(ss/4) · √(2/3).
    const pooledHalf = tQuantile95(40) * Math.sqrt(ss / 40) * Math.sqrt(2 / 3);
    expect(ratio * Math.exp(-pooledHalf) - 1).toBeGreaterThan(0.1);
    const three = check(3).get('bench/a.mjs > noisy')!;
    expect(three.change!.estimate).toBeCloseTo(ratio - 1, 12);
    expect(three.change!.low).toBeCloseTo(ratio * Math.exp(-2.776 * Math.sqrt(ss / 4) * Math.sqrt(2 / 3)) - 1, 3);
    // It holds benchgate's -2% [-4%, 0%], but is far too wide to judge by.
    expect(three.agreement).toBe('too-noisy');
    // The quiet tasks keep the pooled interval: their own spread is nil, and the wider of the two counts.
    const still = check(3).get('bench/a.mjs > quiet 0')!;
    expect(still.change!.high).toBeCloseTo(Math.exp(pooledHalf) - 1, 3);
    // Two runs per revision are too few for a task's own figure (2 df): the pooled noise decides, and the task disagrees.
    expect(ownNoise([1000, 850], [1200, 1000])).toBeNull();
    expect(check(2).get('bench/a.mjs > noisy')).toMatchObject({ agreement: 'disagrees' });
  });

  it('agrees when the intervals overlap', () => {
    expect(agreementOf({ estimate: -0.1, low: -0.145, high: -0.055 }, bg(-0.03, -0.06, 0))).toEqual({ agreement: 'agrees' });
    // Opposite signs, but within each other's noise: agrees.
    expect(agreementOf({ estimate: 0.01, low: -0.04, high: 0.06 }, bg(-0.01, -0.02, 0))).toEqual({ agreement: 'agrees' });
  });

  it("is too noisy to judge when the native interval holds benchgate's only by being over 20 points and twice as wide", () => {
    // cookie's native check: intervals about 30 points wide beside benchgate's 10, read "agrees" before.
    const wide = { estimate: 0.003, low: -0.306, high: 0.449 };
    expect(agreementOf(wide, bg(0.099, 0.051, 0.167)).agreement).toBe('too-noisy');
    // As wide, beside an interval as wide: they can tell each other apart no better, so agreeing means what it says.
    expect(agreementOf(wide, bg(0.1, -0.3, 0.5)).agreement).toBe('agrees');
    // Narrow enough (under 20 points): agrees.
    expect(agreementOf({ estimate: 0.05, low: -0.04, high: 0.14 }, bg(0.02, 0.01, 0.03)).agreement).toBe('agrees');
    // Wide and apart is still a disagreement.
    expect(agreementOf({ estimate: 0.8, low: 0.5, high: 1.2 }, bg(0.02, 0.01, 0.03)).agreement).toBe('disagrees');
  });

  it("is too coarse to judge by when benchgate's own interval holds the native one only by being that wide (an early look)", () => {
    // fast-uri's `parse domain`: benchgate +81.2% [+7.4%, +205.8%] from 3 rounds, natively +62% within a few points.
    const coarse = agreementOf({ estimate: 0.62, low: 0.58, high: 0.66 }, bg(0.812, 0.074, 2.058));
    expect(coarse.agreement).toBe('too-noisy');
    expect(coarse.note).toMatch(
      /^benchgate too coarse to judge by: its interval \[\+7\.4%, \+205\.8%\] meets the native one, but is 198 points wide/,
    );
    // As wide on both sides: agreeing means what it says.
    expect(agreementOf({ estimate: 0.62, low: 0.1, high: 1.9 }, bg(0.812, 0.074, 2.058)).agreement).toBe('agrees');
  });

  it('disagrees when they do not overlap, with both estimates', () => {
    expect(agreementOf({ estimate: -0.1, low: -0.12, high: -0.08 }, bg(-0.3, -0.35, -0.25))).toEqual({
      agreement: 'disagrees',
      note: 'disagrees: native -10.0%, benchgate -30.0%',
    });
  });

  it('says so when they point in opposite directions beyond both runs’ noise', () => {
    expect(agreementOf({ estimate: 0.05, low: 0.02, high: 0.08 }, bg(-0.12, -0.15, -0.09))).toEqual({
      agreement: 'disagrees',
      note: 'disagrees: native +5.0%, benchgate -12.0% (opposite directions)',
    });
  });

  it('is unknown without an interval on either side', () => {
    expect(agreementOf({ estimate: 0.05, low: null, high: null }, bg(-0.1, -0.2, 0)).agreement).toBe('unknown');
    expect(agreementOf({ estimate: 0.05, low: 0, high: 0.1 }, null).agreement).toBe('unknown');
  });

  it('averages a revision’s runs, their margins as independent errors', () => {
    expect(combineRuns([{ opsPerSec: 100, rme: 1 }])).toEqual({ opsPerSec: 100, rme: 1, runs: [100] });
    const two = combineRuns([
      { opsPerSec: 100, rme: 3 },
      { opsPerSec: 120, rme: 4 },
    ])!;
    expect(two.opsPerSec).toBe(110);
    expect(two.rme).toBeCloseTo(5 / 2, 12);
    expect(combineRuns([{ opsPerSec: 100 }])!.rme).toBeNull();
  });

  it('reads a harness figure without a margin from its samples (mitata): t · sd / √n / mean', () => {
    expect(relativeMargin([9, 10, 11])).toBeCloseTo(((4.303 * 1) / Math.sqrt(3) / 10) * 100, 6);
    expect(relativeMargin([10])).toBeUndefined();
  });
});

describe('a native run that failed, in the report', () => {
  it('keeps the verdicts and says why the revision has no figure', () => {
    const runs: NativeRun[] = [
      { revision: 'base', durationMs: 900, records: [record('makeId', { opsPerSec: 2000, rme: 1 })] },
      {
        revision: 'head',
        durationMs: 120_000,
        records: [],
        problem: 'did not finish within --native-timeout (2m): killed with its process group (pid 42)',
      },
    ];
    const { byId, files } = nativeEntries([{ file: 'bench/a.mjs', runs }], benchmarks(['makeId']));
    expect(byId.get('bench/a.mjs > makeId')).toMatchObject({ base: { opsPerSec: 2000 }, head: null, change: null, agreement: 'unknown' });
    expect(byId.get('bench/a.mjs > makeId')!.note).toBe(
      'the run at head did not finish within --native-timeout (2m): killed with its process group (pid 42)',
    );
    expect(files[0]!.runs[1]!.problem).toContain('did not finish');
  });

  it('reads only well-formed figure lines of the run’s file', () => {
    const text = [
      JSON.stringify(record('ok')),
      '{"harness":"tinybench","name":5,"suites":[]}',
      'not json',
      JSON.stringify({ ...record('nan'), opsPerSec: 'fast', rme: -1 }),
    ].join('\n');
    const { records, rejected } = parseRecords(text);
    expect(records.map((r) => r.name)).toEqual(['ok', 'nan']);
    expect(records[1]).not.toHaveProperty('opsPerSec');
    expect(rejected).toBe(2);
  });

  it('reads only well-formed benchmarks of the bench file’s own groups in a vitest report', () => {
    const bench = (name: unknown, hz: unknown = 1000) => ({ id: 'x', name, hz, rme: 2, sampleCount: 50, samples: [] });
    const report = {
      files: [
        {
          filepath: '/repo/bench/url.bench.ts',
          groups: [
            { fullName: 'bench/url.bench.ts', benchmarks: [bench('top')] },
            { fullName: 'bench/url.bench.ts > parse', benchmarks: [bench('parseURL'), bench({ toString: 1 }), bench('slow', 'fast')] },
            { fullName: 42, benchmarks: [bench('no group name')] },
          ],
        },
        {
          filepath: '/repo/other/bench/url.bench.ts',
          groups: [{ fullName: 'other/bench/url.bench.ts', benchmarks: [bench('other file')] }],
        },
        { filepath: 7 },
      ],
    };
    const { records, problem } = vitestRecords(JSON.stringify(report), '/repo', 'bench/url.bench.ts');
    expect(nativeIds('bench/url.bench.ts', records).map((r) => r.id)).toEqual([
      'bench/url.bench.ts > top',
      'bench/url.bench.ts > parse > parseURL',
      'bench/url.bench.ts > parse > slow',
    ]);
    expect(records[0]).toEqual({ harness: 'vitest', thread: 0, suites: [], name: 'top', opsPerSec: 1000, rme: 2, samples: 50 });
    expect(records[2]).not.toHaveProperty('opsPerSec');
    expect(records[2]!.error).toBe('vitest reported no figure for it (a benchmark that throws reads so)');
    expect(problem).toBe('2 benchmark(s) of its vitest report were not figures and were left out');
    expect(vitestRecords('<html>', '/repo', 'bench/url.bench.ts')).toEqual({ records: [], problem: 'its vitest report is not JSON' });
    expect(vitestRecords('null', '/repo', 'bench/url.bench.ts')).toEqual({ records: [] });
  });
});

describe('the native check’s runs', () => {
  const target = (file: string, harness = 'tinybench'): NativeTarget => ({
    file,
    base: { root: '/base', harness },
    head: { root: '/head', harness },
  });

  it('runs base, head, head, base, then one more pair while the time allows, up to the most runs per revision', async () => {
    const calls: string[] = [];
    let clock = 0;
    const harnesses = new Map<string, string | undefined>();
    const run = async (options: NativeRunOptions): Promise<NativeRun> => {
      calls.push(`${options.file}@${options.revision}`);
      harnesses.set(options.file, options.harness);
      clock += 10;
      return { revision: options.revision, durationMs: 10, records: [] };
    };
    /** One check on the fake clock, from 0 ms; the calls it made. */
    const check = async (targets: NativeTarget[], limits: { maxRuns: number; extraUntilMs: number }) => {
      calls.length = 0;
      clock = 0;
      const results = await runNativeCheck(targets, {
        observerPath: '/dist/native.js',
        tempDir: '/tmp',
        runTimeoutMs: 1000,
        ...limits,
        log: () => undefined,
        now: () => clock,
        run,
      });
      return { results, calls: [...calls] };
    };
    const files = [target('a.mjs'), target('url.bench.ts', 'vitest'), target('tasks.mjs', 'default export')];
    const first = await check(files, { maxRuns: 3, extraUntilMs: 95 });
    // Two pairs always (80 ms for both files), a third would end at 100 > 95 ms; a file that only exports its tasks is not run.
    expect(first.calls).toEqual(
      ['a.mjs@base', 'a.mjs@head', 'url.bench.ts@base', 'url.bench.ts@head'].concat([
        'a.mjs@head',
        'a.mjs@base',
        'url.bench.ts@head',
        'url.bench.ts@base',
      ]),
    );
    expect(first.results[2]!.skipped).toContain('exports its tasks');
    // Each run is told its harness: a vitest file runs under vitest bench, the others under node.
    expect(Object.fromEntries(harnesses)).toEqual({ 'a.mjs': 'tinybench', 'url.bench.ts': 'vitest' });
    // With time for it, a third pair, base first again.
    expect((await check([target('a.mjs')], { maxRuns: 3, extraUntilMs: 65 })).calls).toEqual(
      ['base', 'head', 'head', 'base', 'base', 'head'].map((r) => `a.mjs@${r}`),
    );
    // --native-runs 5: five runs per revision whatever the time has been, alternating which revision goes first.
    expect((await check([target('a.mjs')], nativeRunLimits(5))).calls).toEqual(
      ['base', 'head', 'head', 'base', 'base', 'head', 'head', 'base', 'base', 'head'].map((r) => `a.mjs@${r}`),
    );
    // Without it, the defaults: at most 3 runs per revision, the third pair only within the first minute.
    expect(nativeRunLimits(undefined)).toEqual({ maxRuns: 3, extraUntilMs: 60_000 });
  });
});

describe('the author’s node flags in the native check', () => {
  it("runs each revision's file with the flags of its own npm script, and says so", async () => {
    const roots = {
      base: mkdtempSync(path.join(os.tmpdir(), 'benchgate-flags-base-')),
      head: mkdtempSync(path.join(os.tmpdir(), 'benchgate-flags-head-')),
    };
    try {
      writeFileSync(path.join(roots.base, 'package.json'), JSON.stringify({ scripts: { bench: 'node bench/a.mjs' } }));
      writeFileSync(path.join(roots.head, 'package.json'), JSON.stringify({ scripts: { bench: 'node --expose-gc ./bench/a.mjs' } }));
      const flags: Record<string, string[] | undefined> = {};
      const lines: string[] = [];
      await runNativeCheck(
        [{ file: 'bench/a.mjs', base: { root: roots.base, harness: 'tinybench' }, head: { root: roots.head, harness: 'tinybench' } }],
        {
          observerPath: '/dist/native.js',
          tempDir: '/tmp',
          runTimeoutMs: 1000,
          maxRuns: 1,
          extraUntilMs: 0,
          log: (line) => lines.push(line),
          run: async (options) => {
            flags[options.revision] = options.nodeFlags;
            return { revision: options.revision, durationMs: 1, records: [] };
          },
        },
      );
      expect(flags).toEqual({ base: undefined, head: ['--expose-gc'] });
      expect(lines).toEqual([
        'native check: node bench/a.mjs at base',
        "native check: node --expose-gc bench/a.mjs at head (the flags of npm script 'bench')",
      ]);
    } finally {
      for (const root of Object.values(roots)) rmSync(root, { recursive: true, force: true });
    }
  });
});

/** Compared micro benchmarks of bench/a.mjs, each benchgate's change -2% [-4%, 0%]. */
function benchmarks(names: string[]): ReportBenchmark[] {
  return names.map((name) => ({
    id: `bench/a.mjs > ${name}`,
    kind: 'micro',
    file: 'bench/a.mjs',
    verdict: 'unchanged',
    budget: 0.05,
    base: { opsPerSec: 1000, samples: 10 },
    head: { opsPerSec: 980, samples: 10 },
    change: { estimate: -0.02, low: -0.04, high: 0, confidence: 0.95 },
    rounds: [],
    resolvable: null,
  }));
}

describe('a hostile bench name in the native section', () => {
  const hostile = '</details><img src=x onerror=alert(1)> | `x` \u001b[2J';
  const report = (): Report => {
    const [benchmark] = benchmarks([hostile]);
    const runs: NativeRun[] = (['base', 'head', 'head', 'base'] as const).map((revision) => ({
      revision,
      durationMs: 10,
      records: [record(hostile, { opsPerSec: revision === 'head' ? 1300 : 1000 }), record(`${hostile} (only natively)`)],
    }));
    const { byId, files } = nativeEntries([{ file: 'bench/a.mjs', runs }], [benchmark!]);
    return {
      version: 1,
      tool: { name: 'benchgate', version: '0.0.0' },
      verdict: 'pass',
      summary: 'pass',
      base: { ref: 'main', sha: 'a'.repeat(40) },
      head: { ref: 'feature', sha: 'b'.repeat(40) },
      benchmarks: [{ ...benchmark!, native: byId.get(benchmark!.id)! }],
      run: null,
      environment: { node: 'v20', os: 'Linux', arch: 'x64', cpus: { model: 'cpu', count: 2 } },
      nativeCheck: { runTimeoutMs: 120_000, files },
    };
  };

  it('is escaped in the markdown: no tag, no closed section, no extra table cell', () => {
    const markdown = renderMarkdown(report());
    expect(injectionProblems(markdown)).toEqual([]);
    const section = markdown.slice(markdown.indexOf('<details open><summary>Native runs'));
    expect(section).toContain('&lt;/details&gt;&lt;img src=x onerror=alert(1)&gt; &#124; &#96;x&#96;');
    expect(section).not.toContain('<img');
    // It disagrees (+30% against -2%): the row says so, and the section is open.
    expect(section).toMatch(/\| <b>disagrees<\/b> \|/);
    expect(section).toContain('only natively');
  });

  it('cannot drive the terminal', () => {
    const text = renderTerminal(report(), { color: false });
    expect(text).toContain('native runs (--native-check): 1 compared, 1 disagrees');
    expect(text).not.toContain('\u001b');
    expect(text).toContain('?[2J');
  });
});

describe('the fidelity evaluation’s native change (scripts/evaluate-fidelity.mjs)', () => {
  it('is the ratio of the median runs, with a bootstrap interval that holds it and narrows with agreeing runs', () => {
    const same = bootstrapChange([100, 104, 98, 101, 99], [100, 104, 98, 101, 99]);
    expect(same.estimate).toBe(0);
    expect(same.low).toBeLessThan(0);
    expect(same.high).toBeGreaterThan(0);
    // Every head run exactly 20% below base's: nothing varies but the level.
    const slower = bootstrapChange([100, 100, 100, 100, 100], [80, 80, 80, 80, 80]);
    expect(slower.estimate).toBeCloseTo(-0.2, 10);
    expect(slower.low).toBeCloseTo(-0.2, 10);
    expect(slower.high).toBeCloseTo(-0.2, 10);
    // Runs that spread 12% (find-my-way's worst scenario) give a wide interval; the same median a narrow one.
    const wide = bootstrapChange([88, 100, 112, 95, 105], [79, 90, 101, 86, 94]);
    const narrow = bootstrapChange([99, 100, 101, 100, 100], [89, 90, 91, 90, 90]);
    expect(wide.estimate).toBeCloseTo(-0.1, 10);
    expect(narrow.estimate).toBeCloseTo(-0.1, 10);
    expect(wide.high - wide.low).toBeGreaterThan(3 * (narrow.high - narrow.low));
    expect(wide.low).toBeLessThan(-0.1);
    expect(wide.high).toBeGreaterThan(-0.1);
  });
});
