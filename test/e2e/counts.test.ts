import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fixtureRepo, leftoverProcesses, leftovers, readJson, removeFixtureRepos, runCli } from './helpers.js';

// Two seeds a revision keep the file quick (4 callgrind processes a compare); the default is 3.
const COUNTS = 'budget: 5%\nmicro:\n  measure: counts\n  seeds: 2\n';

afterAll(removeFixtureRepos);

let repo = '';
afterEach(async () => {
  expect(await leftoverProcesses()).toEqual([]);
  if (repo) expect(leftovers(repo)).toEqual({ worktrees: [], tempDirs: [] });
});

interface CountsProfile {
  measure: string;
  perOp: { base: number; head: number };
  top: { function: string; base: number; head: number }[];
  ownCode: { function: string; where: string; base: number; head: number }[];
}

interface CountedRow {
  id: string;
  verdict: string;
  change: { estimate: number; low: number; high: number };
  counts: { base: { instructions: number; seeds: number[] }; head: { instructions: number; seeds: number[] }; seeds: number[] };
  base: unknown;
  rounds: number[];
}

describe('benchgate compare --measure counts (micro.measure: counts), under callgrind', () => {
  it('counts the uuid-per-request story as a regression in instructions per call, says what the columns are, and profiles it in instructions', async () => {
    repo = fixtureRepo('ids', { config: COUNTS });
    const run = await runCli(['compare', '--base', 'main', '--json', 'out/report.json', '--markdown', 'out/report.md'], repo);
    expect(run.code, run.stderr).toBe(1);
    const report = readJson(path.join(repo, 'out/report.json'));
    expect(report.verdict).toBe('fail');
    const [bench] = report.benchmarks as CountedRow[];
    expect(bench!.id).toBe('bench/ids.bench.js > make request id');
    expect(bench!.verdict).toBe('regression');
    // A counter against 16 random bytes a call: head runs many times the instructions.
    expect(bench!.counts.head.instructions).toBeGreaterThan(5 * bench!.counts.base.instructions);
    expect(bench!.change.high).toBeLessThan(-0.5);
    expect(bench!.change.estimate).toBeCloseTo(bench!.counts.base.instructions / bench!.counts.head.instructions - 1, 2);
    expect(bench!.counts.seeds).toEqual([1, 2]);
    expect(bench!.counts.base.seeds).toHaveLength(2);
    expect(bench!.rounds).toHaveLength(2);
    // Nothing was timed: no operations per second to show.
    expect(bench!.base).toBeNull();
    expect(report.run.counts).toMatchObject({ seeds: [1, 2], processes: 4 });
    expect(run.stdout).toMatch(/instr/);
    expect(run.stdout).toContain('instructions per call');
    expect(run.stdout).toContain('FAIL: 1 regression');
    // The regression profiled in instructions (not a CPU profile): the task counted again under seed 1, function by
    // function, the project's makeId named from V8's perf map with what it calls.
    const profile = (bench as unknown as { profile: CountsProfile }).profile;
    expect(profile.measure).toBe('counts');
    // Seed 1's process again, so seed 1's count: base's to the instruction; head's (randomUUID through crypto) within 3%
    // (0.13% apart with the module hooks off the thread, 0.54% in it on Node 24, 1.1% on Node 20 in a clean-clone CI run
    // beside two counted compares: something the profile's process does otherwise, not yet found which, moves head's
    // count a little, more on a loaded machine; docs/counts.md). Another task's table is 50x off, a level 33%.
    expect(profile.perOp.base / bench!.counts.base.seeds[0]! - 1).toBeCloseTo(0, 2);
    expect(Math.abs(profile.perOp.head / bench!.counts.head.seeds[0]! - 1)).toBeLessThan(0.03);
    expect(profile.top.length).toBeGreaterThan(0);
    for (const row of profile.top) expect(row.head).toBeGreaterThan(row.base);
    const own = profile.ownCode[0]!;
    expect(own).toMatchObject({ function: 'makeId', where: 'src/ids.js:4' });
    // makeId with what it calls is most of the task's count at head (the task's own call and loop are the rest).
    expect(own.head / profile.perOp.head).toBeGreaterThan(0.9);
    expect(own.head / profile.perOp.head).toBeLessThanOrEqual(1.001);
    expect(run.stdout).toContain("in the project's code: makeId (src/ids.js:4)");
    expect(readFileSync(path.join(repo, 'out/report.md'), 'utf8')).toContain('instructions per call');
    // V8's code log, which its perf map turns on, went beside the dumps, not into the project's folder.
    expect(readdirSync(repo).filter((name) => name.endsWith('.log'))).toEqual([]);
  });

  it('measures both with --measure both: the verdict from time, the count (in cycles) beside it, and whether the two agree', async () => {
    // micro.count: cycles: counted under callgrind's cache model, estimated cycles a call.
    repo = fixtureRepo('ids', { config: 'budget: 5%\nmicro:\n  seeds: 2\n  count: cycles\n' });
    const run = await runCli(['compare', '--base', 'main', '--measure', 'both', '--profile', 'never', '--json', 'out/report.json'], repo);
    expect(run.code, run.stderr).toBe(1);
    const report = readJson(path.join(repo, 'out/report.json'));
    const [bench] = report.benchmarks as (CountedRow & { beside: Record<string, unknown> & { change: { high: number } } })[];
    // The row is time's: operations per second, paired rounds; the counts are beside it, deciding nothing.
    expect(bench!.verdict).toBe('regression');
    expect(bench!.base).toMatchObject({ opsPerSec: expect.any(Number) });
    expect(bench!.counts).toBeUndefined();
    expect(bench!.beside).toMatchObject({ measure: 'counts', figure: 'cycles', verdict: 'regression', agrees: true });
    expect(bench!.beside.head as number).toBeGreaterThan(5 * (bench!.beside.base as number));
    expect(bench!.beside.change.high).toBeLessThan(-0.5);
    expect(report.run.counts).toMatchObject({ seeds: [1, 2], processes: 4 });
    expect(run.stdout).toContain("counts beside time (measure: both; the verdicts are time's): 1 agree, 0 part, 0 open");
    expect(run.stdout).toMatch(/\d cycles /);
    expect(run.stdout).toContain("cycles: estimated from callgrind's cache model");
    expect(run.stdout).toContain('FAIL: 1 regression');
  });

  it('reads the same code under the same seed as the same count (A/A): unchanged after 2 of the 3 default seeds, and the same figures in a rerun', async () => {
    // The default seeds (3): the first look, after seeds 1 and 2, settles the row (the same count at both revisions),
    // so no third seed is counted: 4 processes, not 6.
    repo = fixtureRepo('ids', { config: 'budget: 5%\nmicro:\n  measure: counts\n' });
    const run = await runCli(['compare', '--base', 'main', '--head', 'main', '--profile', 'never', '--json', 'out/report.json'], repo);
    expect(run.code, run.stderr).toBe(0);
    const report = readJson(path.join(repo, 'out/report.json'));
    const [bench] = report.benchmarks as CountedRow[];
    expect(bench!.verdict).toBe('unchanged');
    expect(bench!.counts.seeds).toEqual([1, 2]);
    expect(report.run.counts).toMatchObject({ seeds: [1, 2], processes: 4 });
    expect(run.stderr + run.stdout).toContain('counts: every row settled after seed(s) 1, 2');
    // Each seed's base and head processes ran the same code: their counts agree to 0.01% (the target), the change with them.
    bench!.counts.base.seeds.forEach((count, i) => {
      expect(Math.abs(count / bench!.counts.head.seeds[i]! - 1), `seed ${i + 1}`).toBeLessThan(1e-4);
    });
    expect(Math.abs(bench!.change.estimate)).toBeLessThan(1e-4);
    // A rerun checks out at the same paths (checkout/folder.ts), so it reads the same figures within 0.01% (issue 49's
    // target), as a rule to the instruction. Not always exactly: V8 formats each collection's times (the clock) into its
    // trace ring buffer, so a block holding one costs a few instructions more or less from run to run, and a CI run read
    // this task 8 instructions apart in a block of 1.29M (0.0006%; which cause, not found: docs/counts.md). A rerun on
    // another warm-up, seed order or plateau reads 0.1% to 55% off.
    const rerun = await runCli(['compare', '--base', 'main', '--head', 'main', '--profile', 'never', '--json', 'out/rerun.json'], repo);
    expect(rerun.code, rerun.stderr).toBe(0);
    const [again] = readJson(path.join(repo, 'out/rerun.json')).benchmarks as CountedRow[];
    const figures = (row: CountedRow) => [...row.counts.base.seeds, ...row.counts.head.seeds];
    expect(figures(again!)).toHaveLength(4);
    figures(again!).forEach((count, i) => {
      expect(Math.abs(count / figures(bench!)[i]! - 1), `figure ${i + 1}`).toBeLessThan(1e-4);
    });
  });

  it('measures each micro-benchmark as its pattern in micro.measures says: one task counted, the other timed, in one run', async () => {
    repo = fixtureRepo('serialization', {
      config: "budget: 5%\nmicro:\n  seeds: 2\n  measures:\n    '* > serialize todo list': counts\n",
    });
    const run = await runCli(['compare', '--base', 'main', '--profile', 'never', '--json', 'out/report.json'], repo);
    expect(run.code, run.stderr).toBe(1);
    const report = readJson(path.join(repo, 'out/report.json'));
    const rows = new Map((report.benchmarks as CountedRow[]).map((b) => [b.id.split(' > ')[1], b]));
    expect([...rows.keys()].sort()).toEqual(['serialize a fresh list', 'serialize todo list']);
    // Counted: instructions per call under each seed, no operations per second (the timed rounds skipped it).
    const counted = rows.get('serialize todo list')!;
    expect(counted.counts.seeds).toEqual([1, 2]);
    expect(counted.counts.head.instructions).toBeGreaterThan(counted.counts.base.instructions);
    expect(counted.base).toBeNull();
    // Timed: operations per second from paired rounds, nothing counted (the counting processes skipped it).
    const timed = rows.get('serialize a fresh list')! as CountedRow & { counts?: unknown; base: { opsPerSec: number } | null };
    expect(timed.counts).toBeUndefined();
    expect(timed.base!.opsPerSec).toBeGreaterThan(0);
    expect(timed.rounds.length).toBeGreaterThanOrEqual(3);
    // structuredClone with a replacer in place of JSON.stringify: a loss far beyond 5% in both figures.
    expect([counted.verdict, timed.verdict]).toEqual(['regression', 'regression']);
    expect(report.run.counts).toMatchObject({ seeds: [1, 2], processes: 4 });
    expect(run.stdout).toContain('instructions per call');
    expect(run.stdout).toContain('operations per second');
  });

  it('fails loudly, never passes, when the time limit leaves no seed counted', async () => {
    repo = fixtureRepo('ids', { config: `${COUNTS}time-limit: 1ms\n` });
    const run = await runCli(['compare', '--base', 'main', '--profile', 'never', '--json', 'out/report.json'], repo);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/seed\(s\) 1, 2 not started within the time limit/);
    const report = readJson(path.join(repo, 'out/report.json'));
    expect(report.verdict).toBe('error');
    expect(report.benchmarks[0].verdict).toBe('error');
    expect(report.benchmarks[0].error).toMatch(/started no seed at both revisions/);
  });

  it("counts a load test's server in instructions per request (http[].measure: counts): every hook awaited, a regression", async () => {
    repo = fixtureRepo('http-lifecycle', {
      config: [
        // Four servers of 1-2 minutes each under the simulator, three test files beside them: the default 5 minutes
        // would leave a seed unstarted on a loaded machine, and what this test asserts is the verdict, not the pace.
        'time-limit: 20m',
        'micro:',
        '  seeds: 2',
        'http:',
        '  - name: todo list',
        '    start: node server.js',
        '    ready: /health',
        '    measure: counts',
        '    requests:',
        '      - path: /todo-lists/1',
        '    budget: 5%',
        '',
      ].join('\n'),
    });
    const run = await runCli(
      ['compare', '--base', 'main', '--profile', 'never', '--json', 'out/report.json', '--markdown', 'out/report.md'],
      repo,
    );
    expect(run.code, run.stderr).toBe(1);
    const report = readJson(path.join(repo, 'out/report.json'));
    const [bench] = report.benchmarks as (CountedRow & { kind: string })[];
    expect(bench).toMatchObject({ id: 'http > todo list', kind: 'http', verdict: 'regression', base: null });
    // 201 hooks a request, each awaited at head (a promise and a microtask each) where base awaits none of them: about
    // twice the instructions a request (2026-11-30: Node 20 99.6k → 232k; Node 24 94.5k → 230k), far beyond the 5% budget.
    expect(bench!.counts.head.instructions).toBeGreaterThan(1.5 * bench!.counts.base.instructions);
    expect(bench!.change.high).toBeLessThan(-0.25);
    expect(bench!.change.estimate).toBeCloseTo(bench!.counts.base.instructions / bench!.counts.head.instructions - 1, 2);
    expect(bench!.counts.seeds).toEqual([1, 2]);
    expect(report.run.counts).toMatchObject({ seeds: [1, 2], processes: 4 });
    // Each server's log line says what its time went to: its start, the uncounted requests and the blocks, which
    // make most of the server's whole time (the rest is its stop) and never more (each rounded as shown); a server whose
    // kept-alive connection closed under a request says so after them (send).
    const servers = [
      ...run.stderr.matchAll(
        /in (\S+) \(its start (\S+), the uncounted requests (\S+), the blocks (\S+)\)(?:; \d+ request\(s\) sent again .*)?$/gm,
      ),
    ];
    expect(servers).toHaveLength(4);
    for (const [line, ...figures] of servers) {
      const [total, ...phases] = figures.map(duration);
      const sum = phases.reduce((a, b) => a + b.ms, 0);
      // Each figure is rounded to the digits it shows ("9.1s", "13s", "1m44s"): the sum may exceed the whole by
      // those roundings together, and by nothing more.
      const rounding = [total!, ...phases].reduce((a, b) => a + b.rounding, 0);
      expect(Math.min(...phases.map((p) => p.ms)), line).toBeGreaterThan(0);
      expect(sum, line).toBeLessThanOrEqual(total!.ms + rounding);
      expect(sum, line).toBeGreaterThan(total!.ms / 2);
    }
    // The heading states the level the row was read at (one budgeted figure: 90% two-sided, 95% one-sided).
    expect(report.run.intervalConfidence).toBeCloseTo((bench!.change as unknown as { confidence: number }).confidence, 9);
    expect(run.stdout).toContain(`change [${Math.round(report.run.intervalConfidence * 100)}% CI]`);
    // Nothing was timed: no HTTP rounds, no requests/s.
    expect(report.run.httpRounds).toBeUndefined();
    expect(run.stdout).toContain('instructions per request');
    expect(run.stdout).toContain('FAIL: 1 regression');
    expect(readFileSync(path.join(repo, 'out/report.md'), 'utf8')).toContain("a counted load test's call is a request");
  });
});

/** A duration as formatDuration shows it ("2m05s", "9.1s", "13s", "840ms"), and half the unit of its last digit. */
function duration(text: string): { ms: number; rounding: number } {
  const parts = /^(?:(\d+)m)?(?:(\d+)(?:\.(\d+))?s)?(?:(\d+)ms)?$/.exec(text);
  if (!parts || text === '') throw new Error(`not a duration: ${text}`);
  const [, minutes, seconds, decimals, millis] = parts;
  const ms = Number(minutes ?? 0) * 60_000 + Number(`${seconds ?? 0}.${decimals ?? 0}`) * 1000 + Number(millis ?? 0);
  // formatDuration shows milliseconds under a second, tenths under 10 s, and whole seconds beyond ("2m" is 120 s).
  const unit = millis !== undefined ? 1 : 1000 / 10 ** (decimals?.length ?? 0);
  return { ms, rounding: unit / 2 };
}
