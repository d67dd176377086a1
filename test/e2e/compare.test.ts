import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fixtureRepo, inlineRepo, leftoverProcesses, leftovers, readJson, removeFixtureRepos, runCli } from './helpers.js';

// Short rounds keep the suite quick; the statistics still need (and get) enough rounds.
const FAST = 'budget: 5%\nmicro:\n  task-time: 150ms\n';

afterAll(removeFixtureRepos);

let repo = '';
afterEach(async () => {
  // Whatever a test did, nothing its runs started may outlive it (found by pid and path, never by name).
  expect(await leftoverProcesses()).toEqual([]);
  if (repo) expect(leftovers(repo)).toEqual({ worktrees: [], tempDirs: [] });
});

describe('benchgate compare, through the real CLI', () => {
  it('flags a much slower id generator as a regression and exits 1', async () => {
    repo = fixtureRepo('ids', { config: FAST });
    const run = await runCli(['compare', '--base', 'main', '--json', 'out/report.json', '--markdown', 'out/report.md'], repo);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/✗ regression\s+bench\/ids\.bench\.js > make request id/);
    expect(run.stdout).toContain('FAIL: 1 regression');
    const report = readJson(path.join(repo, 'out/report.json'));
    expect(report).toMatchObject({ version: 1, verdict: 'fail', base: { ref: 'main' }, head: { ref: 'working tree', dirty: false } });
    expect(report.base.sha).toMatch(/^[0-9a-f]{40}$/);
    const [bench] = report.benchmarks;
    expect(bench).toMatchObject({ id: 'bench/ids.bench.js > make request id', kind: 'micro', verdict: 'regression', budget: 0.05, file: 'bench/ids.bench.js' });
    // The counter is many times faster than 16 random bytes per id: head loses most of its throughput.
    expect(bench.change.estimate).toBeLessThan(-0.5);
    expect(bench.change.high).toBeLessThan(-0.05);
    expect(bench.change.low).toBeLessThanOrEqual(bench.change.estimate);
    expect(bench.base.opsPerSec).toBeGreaterThan(bench.head.opsPerSec);
    expect(bench.base.samples).toBe(report.run.rounds);
    expect(report.run.rounds).toBeGreaterThanOrEqual(6);
    // Before failing the build, a fresh group of processes reproduced it.
    expect(report.run.confirmRounds).toBeGreaterThanOrEqual(report.run.plannedRounds);
    expect(bench.confirmation).toHaveLength(report.run.confirmRounds);
    for (const change of bench.confirmation) expect(change).toBeLessThan(-0.5);
    expect(report.environment.cpus.count).toBeGreaterThan(0);
    const markdown = readFileSync(path.join(repo, 'out/report.md'), 'utf8');
    expect(markdown).toContain('### ❌ benchgate: regression');
    expect(markdown).toContain('| 🔴 regression | bench/ids.bench.js &gt; make request id |');
    // The change chart: the interval is far past the axis' left end.
    expect(markdown).toMatch(/```text\nbench\/ids\.bench\.js > make request id  «[·│¦]+ +-9\d\.\d%\n/);

    // The regression is explained by a CPU profile of each revision, taken after the verdict.
    expect(report.run.profile).toMatchObject({ dir: path.join(repo, '.benchgate/profiles'), benchmarks: 1 });
    expect(report.run.profile.durationMs).toBeGreaterThan(1000);
    const { profile } = bench;
    expect(profile.unit).toBe('call');
    for (const side of ['base', 'head'] as const) {
      const cpuprofile = readJson(profile.files[side]);
      expect(cpuprofile.nodes.length).toBeGreaterThan(3);
      expect(cpuprofile.samples.length).toBeGreaterThan(1000);
    }
    expect(profile.ops.base).toBeGreaterThan(10 * profile.ops.head);
    // 16 random bytes per id cost more than the counter did: the top function, called from the new makeId.
    expect(profile.top[0]).toMatchObject({ via: { function: 'makeId', location: expect.stringMatching(/^src\/ids\.js:\d+$/) } });
    expect(profile.top[0].headPerOpUs).toBeGreaterThan(0.5);
    expect(profile.ownCode[0]).toMatchObject({ function: 'makeId' });
    expect(run.stdout).toMatch(/make request id: CPU per call [\d.]+ ns → [\d.]+ µs/);
    expect(run.stdout).toMatch(/in the project's code: makeId \(src\/ids\.js:\d+\)/);
    expect(markdown).toContain('make request id: where the time went</summary>');
  });

  it('reports dropping a sha512 per cache lookup as an improvement and exits 0', async () => {
    repo = fixtureRepo('hashing', { config: FAST });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    expect(run.code, run.stderr).toBe(0);
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.verdict).toBe('pass');
    expect(report.benchmarks[0]).toMatchObject({ id: 'bench/cache.bench.mjs > cached response lookup', verdict: 'improvement' });
    expect(report.benchmarks[0].change.low).toBeGreaterThan(0.05);
  });

  it('flags a defensive clone in serialization, declared with the Bench function form and tinybench hooks', async () => {
    repo = fixtureRepo('serialization', { config: FAST });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    expect(run.code, run.stderr).toBe(1);
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.benchmarks.map((b: { id: string; verdict: string }) => [b.id, b.verdict])).toEqual([
      ['bench/serialize.bench.js > serialize a fresh list', 'regression'],
      ['bench/serialize.bench.js > serialize todo list', 'regression'],
    ]);
  });

  it('passes a change that touches nothing measured', async () => {
    repo = fixtureRepo('untouched', { config: FAST });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json', '--profile', 'always', '--profile-dir', 'out/profiles'], repo);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.verdict).toBe('pass');
    expect(report.benchmarks).toHaveLength(2);
    // On demand, passing benchmarks are profiled too, after the verdicts, into the folder asked for.
    expect(report.run.profile).toMatchObject({ dir: path.join(repo, 'out/profiles'), benchmarks: 2 });
    expect(readdirSync(path.join(repo, 'out/profiles'))).toHaveLength(4);
    for (const bench of report.benchmarks) expect(bench.profile.ops.base).toBeGreaterThan(0);
    for (const bench of report.benchmarks) {
      // Identical code is never a regression or an improvement, and the estimate sits near zero.
      expect(bench.verdict).toMatch(/^(unchanged|inconclusive)$/);
      expect(Math.abs(bench.change.estimate)).toBeLessThan(0.05);
    }
    // The counter task's per-process spread is well under 1%: its interval fits inside ±5%.
    expect(report.benchmarks.find((b: { id: string }) => b.id.endsWith('make request id')).verdict).toBe('unchanged');
    // Two benchmarks, each looked at up to 7 times (rounds 10, 15, … 40): a family of 14.
    expect(report.run.intervalConfidence).toBeCloseTo(1 - 0.05 / 14, 6);
    expect(report.run.looks).toBe(7);
  });

  it('gives a task that throws at head an error, still judges the others, and marks a head-only file new', async () => {
    repo = fixtureRepo('mixed', { config: FAST });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    expect(run.code, run.stderr).toBe(2);
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.verdict).toBe('error');
    const byId = Object.fromEntries(report.benchmarks.map((b: { id: string }) => [b.id, b]));
    expect(byId['bench/parse.bench.js > parse query']).toMatchObject({ verdict: 'error' });
    expect(byId['bench/parse.bench.js > parse query'].error).toMatch(/^at head: TypeError: query parser not configured\n +at .*bench\/parse\.bench\.js:6:\d+/);
    expect(byId['bench/parse.bench.js > parse body'].verdict).toMatch(/^(unchanged|inconclusive)$/);
    expect(byId['bench/parse.bench.js > parse body'].change).not.toBeNull();
    // An async task is awaited call by call and compared like any other.
    expect(byId['bench/parse.bench.js > read and parse body'].verdict).toMatch(/^(unchanged|inconclusive)$/);
    expect(byId['bench/parse.bench.js > read and parse body'].head.opsPerSec).toBeGreaterThan(0);
    expect(byId['bench/format.bench.js > format date']).toMatchObject({ verdict: 'new', base: null, change: null });
    expect(byId['bench/format.bench.js > format date'].head.opsPerSec).toBeGreaterThan(0);
    expect(run.stdout).toContain('! bench/parse.bench.js > parse query');
  });

  it('compares two named revisions, and measures uncommitted changes of the working tree', async () => {
    repo = fixtureRepo('ids', { config: FAST, commitHead: false });
    const dirty = await runCli(['compare', '--base', 'main', '--json', 'dirty.json'], repo);
    expect(dirty.code, dirty.stderr).toBe(1);
    expect(readJson(path.join(repo, 'dirty.json')).head).toMatchObject({ ref: 'working tree', dirty: true });
    expect(dirty.stdout).toContain('(with uncommitted changes)');
    // main against itself, both from worktrees: nothing changed.
    const same = await runCli(['compare', '--base', 'main', '--head', 'main', '--json', 'same.json'], repo);
    expect(same.code, same.stderr).toBe(0);
    const report = readJson(path.join(repo, 'same.json'));
    expect(report.head.ref).toBe('main');
    expect(report.verdict).toBe('pass');
    expect(report.benchmarks[0].verdict).toMatch(/^(unchanged|inconclusive)$/);
    expect(Math.abs(report.benchmarks[0].change.estimate)).toBeLessThan(0.05);
  });

  it('stops starting rounds at the time limit and says so', async () => {
    repo = fixtureRepo('ids', { config: `${FAST}rounds: 40\n` });
    const run = await runCli(['compare', '--base', 'main', '--time-limit', '3s', '--json', 'report.json'], repo);
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.run.limited).toBe(true);
    expect(report.run.rounds).toBeLessThan(40);
    expect(run.stdout).toMatch(/\d+ of 40 rounds .*the time limit \(3\.0s\) cut rounds short/);
  });

  it('measures one revision per process with --isolation process', async () => {
    repo = fixtureRepo('ids', { config: FAST });
    const run = await runCli(['compare', '--base', 'main', '--isolation', 'process', '--json', 'report.json'], repo);
    expect(run.code, run.stderr).toBe(1);
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.run.isolation).toBe('process');
    expect(report.benchmarks[0].verdict).toBe('regression');
  });
});

describe('benchgate calibrate, and what a compare can resolve', () => {
  it('measures a revision against itself and suggests budgets', async () => {
    repo = fixtureRepo('untouched', { config: 'budget: 1%\nmicro:\n  task-time: 150ms\n' });
    const run = await runCli(['calibrate', '--base', 'main', '--time-limit', '8s', '--json', 'calibration.json'], repo);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^benchgate calibrate: main @ [0-9a-f]{7} against itself, \d+ rounds in/);
    const calibration = readJson(path.join(repo, 'calibration.json'));
    expect(calibration).toMatchObject({ version: 1, kind: 'calibration', ref: 'main', compareRounds: 10 });
    expect(calibration.benchmarks).toHaveLength(2);
    for (const b of calibration.benchmarks) {
      expect(b.rounds).toBeGreaterThan(6);
      expect(b.spread).toBeGreaterThan(0);
      expect(b.spread).toBeLessThan(0.2);
      expect(b.suggestedBudget).toBeGreaterThanOrEqual(Math.max(0.01, b.resolvable) - 1e-9);
      expect(b.warning).toBeUndefined();
    }
  });

  it('warns when a budget is below what the run resolves', async () => {
    // 0.1%: below what ten rounds resolve for any task on a shared machine.
    repo = fixtureRepo('untouched', { config: 'budget: 0.1%\nmicro:\n  task-time: 150ms\n' });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json', '--markdown', 'report.md'], repo);
    const report = readJson(path.join(repo, 'report.json'));
    const warned = report.benchmarks.filter((b: { warning?: string }) => b.warning);
    expect(warned.length).toBeGreaterThan(0);
    // Undecided benchmarks got more rounds than the first look's.
    expect(report.run.rounds).toBeGreaterThan(report.run.plannedRounds);
    expect(warned[0].warning).toMatch(/^budget 0\.1% is below what this run resolves \(≈[\d.]+% with \d+ rounds\): a regression between 0\.1% and [\d.]+% would likely pass unnoticed/);
    expect(run.stdout).toContain('note: bench/ids.bench.js >');
    expect(readFileSync(path.join(repo, 'report.md'), 'utf8')).toContain('> [!NOTE]');
    // The machine's conditions are recorded with the run.
    expect(report.environment.loadAverage.before).toHaveLength(3);
    expect(report.run.conditions.busy).toHaveLength(report.run.rounds);
    for (const busy of report.run.conditions.busy) expect(busy).toBeGreaterThan(0);
  });
});

describe('a regression must reproduce before it fails the build', () => {
  it('does not fail on a slowdown that a fresh group of processes does not show', async () => {
    // Head's task is slow only in the first 10 benchmark processes (a transient host offset, staged):
    // each process that loads head's bench file counts itself in a file next to it.
    const transient = `import { readFileSync, writeFileSync, existsSync } from 'node:fs';
const counter = new URL('./.processes', import.meta.url);
const seen = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0;
writeFileSync(counter, String(seen + 1));
const slow = seen < 10;
export default {
  'sum': () => { let s = 0; for (let i = 0; i < (slow ? 400 : 100); i++) s += i; return s; },
};
`;
    repo = inlineRepo(
      { 'benchgate.yml': 'micro:\n  task-time: 150ms\n', 'bench/a.bench.js': "export default {\n  'sum': () => { let s = 0; for (let i = 0; i < 100; i++) s += i; return s; },\n};\n", '.gitignore': '.processes\n' },
      { 'bench/a.bench.js': transient },
    );
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    const report = readJson(path.join(repo, 'report.json'));
    const [sum] = report.benchmarks;
    expect(run.code, run.stdout).toBe(0);
    expect(sum.verdict).toBe('inconclusive');
    expect(sum.change.high).toBeLessThan(-0.05); // the first rounds alone said "regression"…
    expect(sum.confirmation.length).toBeGreaterThanOrEqual(report.run.plannedRounds);
    expect(sum.note).toMatch(/^a regression in the first \d+ rounds \(-\d+\.\d%\) did not reproduce in \d+ fresh rounds/);
    expect(run.stdout).toContain('not failing the build on it');
  });
});
