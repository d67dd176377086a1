import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { inlineRepo, leftoverProcesses, leftovers, readJson, removeFixtureRepos, runCli, type CliRun } from './helpers.js';
import { rowsInTerminalTable, squash } from '../report-text.js';

/**
 * A suite split over two jobs (compare --shard 1/2 and 2/2) and joined again (merge): one table
 * with every benchmark and the verdict an unsharded compare gives; shards that do not add up to
 * one suite are an error that names the file and the problem.
 */

// Three bench files: one where head does twenty times the work (a loss no noise hides), two untouched. A budget
// that the untouched tasks' intervals sit inside, whatever the machine's load: each shard's verdict is known.
const BASE = {
  'benchgate.yml': 'budget: 30%\nrounds: 5\nmax-rounds: 5\nmicro:\n  task-time: 50ms\n  processes: 1\n',
  'src/sum.js': 'export const sum = (n) => { let s = 0; for (let i = 0; i < n; i++) s += i; return s; };\n',
  'bench/sum.bench.js': "import { sum } from '../src/sum.js';\nexport default { 'sum of 100': () => sum(100) };\n",
  'bench/strings.bench.js': "export default { join: () => ['a', 'b', 'c'].join('-'), upper: () => 'abc'.toUpperCase() };\n",
  'bench/numbers.bench.js': "export default { 'to fixed': () => (1234.5678).toFixed(2) };\n",
};
const HEAD = { 'src/sum.js': 'export const sum = (n) => { let s = 0; for (let i = 0; i < n * 20; i++) s += i; return s; };\n' };
const IDS = [
  'bench/numbers.bench.js > to fixed',
  'bench/strings.bench.js > join',
  'bench/strings.bench.js > upper',
  'bench/sum.bench.js > sum of 100',
];

let repo = '';
let out = '';
let whole: CliRun;
const shardRuns: CliRun[] = [];
const shardFile = (i: number) => path.join(out, `shard-${i}.json`);

beforeAll(async () => {
  repo = inlineRepo(BASE, HEAD);
  // Outside the repository: a report written into the working tree would make the next shard's head dirty.
  out = mkdtempSync(path.join(os.tmpdir(), 'benchgate-shards-'));
  const compare = (extra: string[]) => runCli(['compare', '--base', 'main', '--head', 'feature', '--profile', 'never', ...extra], repo);
  for (const i of [1, 2]) shardRuns.push(await compare(['--shard', `${i}/2`, '--json', shardFile(i)]));
  whole = await compare(['--json', path.join(out, 'whole.json')]);
}, 600_000);

afterAll(() => {
  removeFixtureRepos();
  rmSync(out, { recursive: true, force: true });
});

afterEach(async () => {
  expect(await leftoverProcesses()).toEqual([]);
  expect(leftovers(repo)).toEqual({ worktrees: [], tempDirs: [] });
});

const merge = (files: string[], extra: string[] = []) => runCli(['merge', ...files, ...extra], out);

/** A shard report with some of its fields changed, written next to the others. */
function altered(i: number, name: string, change: (report: any) => void): string {
  const report = readJson(shardFile(i));
  change(report);
  const file = path.join(out, name);
  writeFileSync(file, JSON.stringify(report));
  return file;
}

describe('a suite measured in two shards and merged', () => {
  it('measures each bench file in one shard, judged at the whole suite’s level', () => {
    const [one, two] = [1, 2].map((i) => readJson(shardFile(i)));
    for (const [run, report, code] of [
      [shardRuns[0]!, one, 0],
      [shardRuns[1]!, two, 1],
    ] as const) {
      // The untouched file's shard passes; the one with the twentyfold loss fails.
      expect(run.code, run.stdout + run.stderr).toBe(code);
      expect(report.shard.suite).toEqual(['bench/numbers.bench.js', 'bench/strings.bench.js', 'bench/sum.bench.js']);
      // The whole suite's four tasks are the family, though each shard measured only some of them.
      expect(report.shard.familySize).toBe(4);
      expect(report.benchmarks.length).toBeLessThan(IDS.length);
      expect(report.run.intervalConfidence).toBeCloseTo(readJson(path.join(out, 'whole.json')).run.intervalConfidence, 12);
    }
    expect([...one.shard.assigned, ...two.shard.assigned].sort()).toEqual(one.shard.suite);
    expect(one.shard.assigned.filter((file: string) => two.shard.assigned.includes(file))).toEqual([]);
    // The costliest file (two tasks) alone in one shard, the two one-task files in the other.
    expect([one.shard.assigned, two.shard.assigned]).toEqual([
      ['bench/strings.bench.js'],
      ['bench/numbers.bench.js', 'bench/sum.bench.js'],
    ]);
  });

  it('merges into one table holding every benchmark, and fails as the unsharded compare does', async () => {
    const run = await merge(['shard-*.json'], ['--json', 'merged.json', '--markdown', 'merged.md']);
    expect(whole.code, whole.stderr).toBe(1);
    expect(run.code, run.stdout + run.stderr).toBe(whole.code);
    // Every benchmark on exactly one row of the table (grouped under its file), the regression marked.
    const rows = rowsInTerminalTable(run.stdout);
    expect(rows.map((row) => row.id).sort()).toEqual(IDS.map(squash).sort());
    expect(rows.find((row) => row.id === squash(IDS[3]!))!.line).toMatch(/^✗ regression/);
    expect(run.stdout).toContain('FAIL: 1 regression');
    expect(run.stdout).toContain('on 2 shards');
    const merged = readJson(path.join(out, 'merged.json'));
    expect(merged.verdict).toBe('fail');
    expect(merged.shard).toBeUndefined();
    expect(merged.benchmarks.map((b: { id: string }) => b.id).sort()).toEqual(IDS);
    expect(merged.benchmarks.find((b: { id: string }) => b.id === IDS[3]).verdict).toBe('regression');
    expect(merged.run.shards).toBe(2);
    expect(merged.head.sha).toBe(readJson(path.join(out, 'whole.json')).head.sha);
  });
});

describe('shards that do not add up to one suite', () => {
  const refused = async (files: string[], ...names: string[]) => {
    const run = await merge(files, ['--json', 'refused.json']);
    expect(run.code, run.stdout).toBe(2);
    for (const name of names) expect(run.stdout).toContain(name);
    expect(readJson(path.join(out, 'refused.json')).verdict).toBe('error');
    return run;
  };

  it('refuses a missing shard, naming it', async () => {
    await refused([shardFile(1)], 'Shard 2/2 is missing', 'shard-1.json');
  });

  it('refuses a shard given twice, naming both files', async () => {
    copyFileSync(shardFile(2), path.join(out, 'again.json'));
    await refused([shardFile(1), shardFile(2), path.join(out, 'again.json')], 'Shard 2/2 appears twice', 'shard-2.json', 'again.json');
  });

  it('refuses a shard of another head commit', async () => {
    const other = altered(2, 'other-head.json', (r) => (r.head.sha = 'f'.repeat(40)));
    await refused([shardFile(1), other], 'other-head.json has head commit ffffffff', 'shard-1.json');
  });

  it('refuses a shard of another base commit', async () => {
    const other = altered(1, 'other-base.json', (r) => (r.base.sha = 'e'.repeat(40)));
    await refused([other, shardFile(2)], 'base commit', `other-base.json has ${'e'.repeat(40)}`);
  });

  it('refuses a shard of another benchgate version', async () => {
    const other = altered(2, 'other-version.json', (r) => (r.tool.version = '0.0.9'));
    await refused([shardFile(1), other], 'other-version.json has benchgate version 0.0.9');
  });

  it('refuses a shard of another config', async () => {
    const other = altered(2, 'other-config.json', (r) => (r.shard.configHash = '0'.repeat(64)));
    await refused([shardFile(1), other], 'other-config.json has config (hash) 0000');
  });

  it('refuses two shards claiming the same benchmark', async () => {
    const stolen = readJson(shardFile(2)).benchmarks[0];
    const other = altered(1, 'greedy.json', (r) => {
      r.benchmarks.push(stolen);
      r.shard.assigned.push(stolen.file);
      r.shard.assigned.sort();
    });
    await refused([other, shardFile(2)], `${stolen.file} is claimed by two shards`, 'greedy.json', 'shard-2.json');
  });

  it('refuses a shard that reports a benchmark outside its own part of the suite', async () => {
    const stolen = readJson(shardFile(2)).benchmarks[0];
    const other = altered(1, 'stray.json', (r) => r.benchmarks.push(stolen));
    await refused(
      [other, altered(2, 'robbed.json', (r) => r.benchmarks.shift())],
      `stray.json reports ${stolen.id}, which is not in its own part`,
    );
  });

  it('refuses shards that leave part of the suite unmeasured', async () => {
    const other = altered(2, 'shrunk.json', (r) => (r.shard.assigned = r.shard.assigned.slice(1)));
    await refused([shardFile(1), other], 'No shard measured');
  });

  it('fails the merge with an unmeasured benchmark where a shard measured no round of it, whatever verdict it claims', async () => {
    let emptied = '';
    const cut = altered(2, 'no-rounds.json', (r) => {
      const bench = r.benchmarks[0];
      emptied = bench.id;
      Object.assign(bench, { verdict: 'unchanged', rounds: [], change: null });
    });
    const run = await merge([shardFile(1), cut], ['--json', 'no-rounds-merged.json']);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    const merged = readJson(path.join(out, 'no-rounds-merged.json'));
    expect(merged.verdict).toBe('error');
    const bench = merged.benchmarks.find((b: { id: string }) => b.id === emptied);
    expect(bench.verdict).toBe('unmeasured');
    expect(bench.note).toContain('no-rounds.json measured no round of it');
    // The other benchmarks keep their verdicts.
    expect(merged.benchmarks.filter((b: { verdict: string }) => b.verdict === 'unmeasured')).toHaveLength(1);
  });

  it('refuses a shard whose run failed, with its error', async () => {
    const failed = altered(2, 'failed.json', (r) => {
      Object.assign(r, {
        verdict: 'error',
        error: 'Installing head failed: npm ci exited with 1',
        benchmarks: [],
        run: null,
        base: null,
        head: null,
      });
      delete r.shard;
    });
    await refused([shardFile(1), failed], "failed.json: that shard's run failed", 'Installing head failed');
  });

  it('refuses a file that is not a benchgate report', async () => {
    writeFileSync(path.join(out, 'junk.json'), JSON.stringify({ hello: 'world' }));
    await refused([shardFile(1), shardFile(2), path.join(out, 'junk.json')], 'junk.json is not a benchgate report');
  });

  it('refuses a report without a shard block', async () => {
    await refused([shardFile(1), path.join(out, 'whole.json')], "whole.json is not a shard's report");
  });
});
