import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { decisionRule } from '../../src/stats/decision.js';
import { resolvableChange } from '../../src/stats/power.js';
import {
  changeShown,
  idsInTerminalTable,
  markdownRow,
  numbersIn,
  printedAs,
  printedDurations,
  printedNumbers,
  showsValue,
  squash,
  terminalRow,
} from '../report-text.js';
import { fixtureRepo, inlineRepo, leftoverProcesses, leftovers, readJson, removeFixtureRepos, runCli } from './helpers.js';

// Short tasks and one look keep the suite quick; the statistics still need (and get) the rounds that look needs.
// One process a round: how many a round takes is the scheduler's choice, tested on fakes (test/unit/allocate, micro-schedule).
const FAST = 'budget: 5%\nrounds: 5\nmax-rounds: 5\nmicro:\n  task-time: 50ms\n  processes: 1\n';
// Identical code at both sides: a budget wide enough that an interval of a few rounds on a loaded machine
// sits inside it, so the verdict is `unchanged` (how narrow an A/A interval gets is npm run evaluate's question).
const AA = 'budget: 50%\nrounds: 8\nmax-rounds: 8\nmicro:\n  task-time: 50ms\n  processes: 1\n';

afterAll(removeFixtureRepos);

let repo = '';
afterEach(async () => {
  // Whatever a test did, nothing its runs started may outlive it (found by pid and path, never by name).
  expect(await leftoverProcesses()).toEqual([]);
  if (repo) expect(leftovers(repo)).toEqual({ worktrees: [], tempDirs: [] });
});

/** FAST's plan: 5 rounds, one look, at 95%. */
const ONE_LOOK = decisionRule({ confidence: 0.95, rounds: 5, maxRounds: 5, lookEvery: 5 });

describe('benchgate compare, through the real CLI', () => {
  it('flags a much slower id generator as a regression and exits 1', async () => {
    repo = fixtureRepo('ids', { config: FAST });
    const run = await runCli(['compare', '--base', 'main', '--json', 'out/report.json', '--markdown', 'out/report.md'], repo);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain('FAIL: 1 regression');
    const report = readJson(path.join(repo, 'out/report.json'));
    expect(report).toMatchObject({ version: 1, verdict: 'fail', base: { ref: 'main' }, head: { ref: 'working tree', dirty: false } });
    expect(report.base.sha).toMatch(/^[0-9a-f]{40}$/);
    const [bench] = report.benchmarks;
    expect(bench).toMatchObject({
      id: 'bench/ids.bench.js > make request id',
      kind: 'micro',
      verdict: 'regression',
      budget: 0.05,
      file: 'bench/ids.bench.js',
    });
    // The counter is many times faster than 16 random bytes per id: head loses most of its throughput.
    expect(bench.change.estimate).toBeLessThan(-0.5);
    expect(bench.change.high).toBeLessThan(-0.05);
    expect(bench.change.low).toBeLessThanOrEqual(bench.change.estimate);
    expect(bench.base.opsPerSec).toBeGreaterThan(bench.head.opsPerSec);
    // Five rounds asked for, one look: one figure's share is spent there, which 5 rounds reach (2^-5 < 5%). A loss the
    // early look's 3 rounds already put far beyond the budget (nearly always, for this one) ends the first group there.
    expect(report.run.plannedRounds).toBe(Math.max(5, ONE_LOOK.minimumRounds(1)));
    expect([3, report.run.plannedRounds]).toContain(report.run.rounds);
    if (report.run.rounds === 3) expect(bench.note).toMatch(/^decided at the early look: its first 3 rounds/);
    expect(report.run.looks).toBe(1);
    expect(report.run.figures).toBe(1);
    expect(report.run.intervalConfidence).toBeCloseTo(ONE_LOOK.intervalLevel(1), 12);
    expect(bench.base.samples).toBe(report.run.rounds);
    expect(bench.rounds).toHaveLength(report.run.rounds);
    // Before failing the build, a fresh group of as many processes reproduced it (an early step's 3, going on to the
    // first look's size only where those did not show it).
    expect([report.run.rounds, report.run.plannedRounds]).toContain(report.run.confirmRounds);
    expect(bench.confirmation).toHaveLength(report.run.confirmRounds);
    for (const change of bench.confirmation) expect(change).toBeLessThan(-0.5);
    expect(report.environment.cpus).toEqual({ model: os.cpus()[0]!.model.trim(), count: os.cpus().length });
    // The terminal table shows the report's figures and verdict.
    const row = terminalRow(run.stdout, '✗ regression');
    // Its name may wrap at a separator (the change column holds "(coarse)" after an early look; where it wraps follows the
    // other columns' widths): read as a person would.
    expect(idsInTerminalTable(run.stdout)).toEqual([squash('bench/ids.bench.js > make request id')]);
    expect(printedAs(row[2]!, bench.base.opsPerSec), row[2]).toBe(true);
    expect(printedAs(row[3]!, bench.head.opsPerSec), row[3]).toBe(true);
    expect(changeShown(row[4]!, bench.change), row[4]).toBe(true);
    expect(row[5]).toBe('5%');
    const markdown = readFileSync(path.join(repo, 'out/report.md'), 'utf8');
    expect(markdown).toContain('### ❌ benchgate: regression');
    // …and so does the markdown table.
    const cells = markdownRow(markdown, '🔴 regression');
    expect(cells[1]).toBe('bench/ids.bench.js > make request id');
    expect(printedAs(cells[2]!, bench.base.opsPerSec), cells[2]).toBe(true);
    expect(printedAs(cells[3]!, bench.head.opsPerSec), cells[3]).toBe(true);
    expect(changeShown(cells[4]!, bench.change), cells[4]).toBe(true);
    expect(cells[5]).toBe('5%');
    // The change chart: the interval and its estimate lie far past the axis' left end, and the figure is the estimate.
    const chartLine = markdown.split('\n').find((line) => line.startsWith('bench/ids.bench.js > make request id  '))!;
    const [, bar, shown] = /^bench\/ids\.bench\.js > make request id {2}(\S+) +(\S+)$/.exec(chartLine)!;
    expect(bar![0]).toBe('«');
    expect(bar).not.toContain('●');
    expect(printedAs(shown!, bench.change.estimate), shown).toBe(true);
    // The machine's cores, as recorded, in the run line.
    expect(markdown).toContain(`, ${os.cpus().length} × `);

    // The regression is explained by a CPU profile of each revision, taken after the verdict.
    expect(report.run.profile).toMatchObject({ dir: path.join(repo, '.benchgate/profiles'), benchmarks: 1 });
    // In the working tree, yet nothing for git to show: the folder ignores itself.
    expect(readdirSync(path.join(repo, '.benchgate/profiles')).length).toBeGreaterThan(1);
    expect(
      execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--', '.benchgate'], { cwd: repo, encoding: 'utf8' }),
    ).toBe('');
    expect(report.run.profile.durationMs).toBeGreaterThan(1000);
    const { profile } = bench;
    expect(profile.unit).toBe('call');
    // Both revisions in one process, alternating, as the rounds measured them; one profile split by revision.
    expect(profile.process).toBe('shared');
    for (const side of ['base', 'head'] as const) {
      const cpuprofile = readJson(profile.files[side]);
      expect(cpuprofile.nodes.length).toBeGreaterThan(3);
      // Each side ran about a second of the two under the profiler, its own samples only (V8 times are in µs): a
      // profile not split would hold both seconds, a split that gave one side the other's samples would not be even.
      const sampledUs = cpuprofile.endTime - cpuprofile.startTime;
      expect(sampledUs).toBeGreaterThan(600_000);
      expect(sampledUs).toBeLessThan(1_400_000);
      expect(cpuprofile.samples.length).toBe(cpuprofile.timeDeltas.length);
      // Samples of work: about 10,000 a side at 100 µs on a quiet machine; the sampler thread competes for the cores on a
      // loaded one (846 in a clean-clone CI run beside other jobs), so the count asserts a real profile, not the pace.
      expect(profile.samples[side]).toBeGreaterThan(100);
      expect(profile.samples[side]).toBeLessThanOrEqual(cpuprofile.samples.length);
    }
    // The profile reads what the rounds read (over 50× the time a call), so no line says otherwise.
    expect(profile.agreement).toMatchObject({ agrees: true });
    expect(profile.agreement.profileChange).toBeGreaterThan(10);
    expect(run.stdout).not.toContain('the profile disagrees');
    expect(profile.ops.base).toBeGreaterThan(10 * profile.ops.head);
    // 16 random bytes per id cost more than the counter did: the top function, called from the new makeId.
    expect(profile.top[0]).toMatchObject({ via: { function: 'makeId', location: expect.stringMatching(/^src\/ids\.js:\d+$/) } });
    expect(profile.top[0].headPerOpUs).toBeGreaterThan(profile.top[0].basePerOpUs);
    // No one function costs more per call than the whole call does.
    expect(profile.top[0].headPerOpUs).toBeLessThanOrEqual(profile.perOpUs.head);
    expect(profile.ownCode[0]).toMatchObject({ function: 'makeId' });
    expect(profile.perOpUs.head).toBeGreaterThan(10 * profile.perOpUs.base);
    // The title line shows the JSON's CPU per call, whatever unit each figure needed.
    const title = run.stdout.split('\n').find((line) => line.startsWith('bench/ids.bench.js > make request id: CPU per call '))!;
    const [perCallBase, perCallHead] = printedDurations(title.slice(0, title.indexOf(' (profiled')));
    expect(showsValue(perCallBase!, profile.perOpUs.base), title).toBe(true);
    expect(showsValue(perCallHead!, profile.perOpUs.head), title).toBe(true);
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
    // (The name may be shortened in the middle to fit 100 columns: the row is the only improvement.)
    const row = terminalRow(run.stdout, '↑ improvement');
    expect(changeShown(row[4]!, report.benchmarks[0].change), row[4]).toBe(true);
    expect(numbersIn(row[4]!).every((x) => x > 0)).toBe(true);
  });

  it('flags a defensive clone in serialization, declared with the Bench function form and tinybench hooks', async () => {
    repo = fixtureRepo('serialization', { config: FAST });
    const run = await runCli(
      ['compare', '--base', 'main', '--profile', 'never', '--solo-check', '--solo-processes', '6', '--json', 'report.json'],
      repo,
    );
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.benchmarks.map((b: { id: string }) => b.id)).toEqual([
      'bench/serialize.bench.js > serialize a fresh list',
      'bench/serialize.bench.js > serialize todo list',
    ]);
    // Both regressed in the shared process. The solo check may take a verdict back to inconclusive, and only where it
    // read the benchmark from both intervals together (kept as solo.shared): on a busy machine, 6 processes a side can
    // read an interval reaching past zero, and a revision's processes can sit on speed levels.
    for (const bench of report.benchmarks) {
      const shared = bench.solo.shared ?? bench.change;
      expect(shared.high, JSON.stringify(bench.change)).toBeLessThan(-bench.budget);
      expect(bench.solo.shared ? ['regression', 'inconclusive'] : ['regression']).toContain(bench.verdict);
    }
    const regressed = report.benchmarks.some((b: { verdict: string }) => b.verdict === 'regression');
    expect(run.code, run.stderr).toBe(regressed ? 1 : 0);
    // The solo check: each revision alone in 6 fresh processes, its change beside the verdict's (about -80% in both).
    expect(report.soloCheck).toMatchObject({ processes: 6 });
    expect(run.stdout).toContain('solo check: 2 compared, ');
    for (const bench of report.benchmarks) {
      expect(bench.solo.base.processes).toBe(6);
      expect(bench.solo.head.processes).toBe(6);
      // Alone, base answers more calls a second than head does, as in the shared process.
      expect(bench.solo.base.opsPerSec).toBeGreaterThan(2 * bench.solo.head.opsPerSec);
      // A 5× loss: the median difference of the processes is beyond -50%. Its interval's upper end is not asserted:
      // from 6 processes a side it is set by the few whose minute was the machine's worst (CI, with two more test files
      // on both cores, read an upper end of +44%: base processes slowed to about head's speed), and saying so is the
      // interval's job.
      expect(bench.solo.change.estimate).toBeLessThan(-0.5);
      expect(bench.solo.change.low).toBeLessThanOrEqual(bench.solo.change.estimate);
      expect(bench.solo.change.high).toBeGreaterThanOrEqual(bench.solo.change.estimate);
      // The agreement is what the two intervals say; where they lie apart, or where a revision's solo processes sat on
      // speed levels and the solo estimate lies outside the shared interval, the benchmark's interval is the span of
      // both (the shared one kept beside the solo figures), else the shared one.
      const sharedChange = bench.solo.shared ?? bench.change;
      const apart = bench.solo.change.high < sharedChange.low || bench.solo.change.low > sharedChange.high;
      const levels = Boolean(bench.solo.base.levels || bench.solo.head.levels);
      const outside = bench.solo.change.estimate < sharedChange.low || bench.solo.change.estimate > sharedChange.high;
      const widened = apart || (levels && outside);
      expect(bench.solo.agreement).toBe(apart ? 'disagrees' : 'agrees');
      expect(bench.solo.shared !== undefined).toBe(widened);
      expect(bench.change.low).toBeCloseTo(Math.min(sharedChange.low, widened ? bench.solo.change.low : Infinity), 9);
      expect(bench.change.high).toBeCloseTo(Math.max(sharedChange.high, widened ? bench.solo.change.high : -Infinity), 9);
      // The row shows both intervals as the JSON holds them, and says "levels" where they were read on speed levels.
      const mark = widened && !apart ? 'levels' : bench.solo.agreement;
      const row = run.stdout.split('\n').find((line) => line.includes(bench.id.slice(-12)) && line.trimEnd().endsWith(mark))!;
      const [shared, solo] = row.split(/\s{2,}/).slice(-3, -1);
      expect(changeShown(shared!, sharedChange), row).toBe(true);
      expect(changeShown(solo!, bench.solo.change), row).toBe(true);
    }
  });

  it('passes a change that touches nothing measured', async () => {
    repo = fixtureRepo('untouched', { config: AA });
    const run = await runCli(
      ['compare', '--base', 'main', '--json', 'report.json', '--profile', 'always', '--profile-dir', 'out/profiles'],
      repo,
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.verdict).toBe('pass');
    expect(report.benchmarks).toHaveLength(2);
    // On demand, passing benchmarks are profiled too, after the verdicts, into the folder asked for.
    expect(report.run.profile).toMatchObject({ dir: path.join(repo, 'out/profiles'), benchmarks: 2 });
    expect(readdirSync(path.join(repo, 'out/profiles'))).toHaveLength(4);
    for (const bench of report.benchmarks) expect(bench.profile.ops.base).toBeGreaterThan(0);
    for (const bench of report.benchmarks) {
      // Identical code: never a verdict either way. Its interval is inside the (wide) budget, so unchanged, unless a
      // heavily loaded machine stalled one side in several of the 8 rounds: then it is honestly undecided, and passes.
      expectNoVerdictEitherWay(bench, 0.5);
    }
    // (How narrow an A/A interval gets, and that identical code is never flagged at a tight budget, is a question of
    // power and of rates over many runs, which depend on the machine's load: npm run evaluate measures both.)
    // Two benchmarks, one look (at 8 rounds): each bound at 0.05/2.
    expect(report.run.intervalConfidence).toBeCloseTo(
      decisionRule({ confidence: 0.95, rounds: 8, maxRounds: 8, lookEvery: 5 }).intervalLevel(2),
      6,
    );
    expect(report.run.looks).toBe(1);
  });

  it('reads a config kept outside the repository as the same file at both revisions: no policy change', async () => {
    // bisect's recipe: a bench setup kept beside the repository, passed with --config.
    repo = fixtureRepo('untouched', { config: AA });
    const outside = mkdtempSync(path.join(os.tmpdir(), 'benchgate-outside-'));
    try {
      writeFileSync(path.join(outside, 'gate.yml'), AA.replace('budget: 50%', 'budget: 40%'));
      const run = await runCli(['compare', '--base', 'main', '--config', path.join(outside, 'gate.yml'), '--json', 'report.json'], repo);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stderr).not.toContain('policy changes at head');
      const report = readJson(path.join(repo, 'report.json'));
      expect(report.benchmarks.map((b: { budget: number }) => b.budget)).toEqual([0.4, 0.4]);
      expect(report.policy).toBeUndefined();
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('gives a task that throws at head an error, still judges the others, and compares a head-only file against base where base can run it', async () => {
    // The tasks that are the same at both revisions never get a verdict either way: a budget their rounds stay inside
    // on a heavily loaded machine (their neighbours differ at head: at 5%, 'read and parse body' read 8-18% slower at
    // head in 3 of 6 rounds of one loaded run).
    repo = fixtureRepo('mixed', { config: FAST.replace('budget: 5%', 'budget: 50%') });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    expect(run.code, run.stderr).toBe(2);
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.verdict).toBe('error');
    const byId = Object.fromEntries(report.benchmarks.map((b: { id: string }) => [b.id, b]));
    // The side that failed is a field of the row too (base ran it), not only the message's first words.
    expect(byId['bench/parse.bench.js > parse query']).toMatchObject({ verdict: 'error', errorAt: 'head' });
    expect(byId['bench/parse.bench.js > parse query'].error).toMatch(
      /^at head: TypeError: query parser not configured\n +at .*bench\/parse\.bench\.js:6:\d+/,
    );
    expect(byId['bench/parse.bench.js > parse body'].verdict).toMatch(/^(unchanged|within-budget|inconclusive)$/);
    expect(byId['bench/parse.bench.js > parse body'].change).not.toBeNull();
    // An async task is awaited call by call and compared like any other.
    expect(byId['bench/parse.bench.js > read and parse body'].verdict).toMatch(/^(unchanged|within-budget|inconclusive)$/);
    expect(byId['bench/parse.bench.js > read and parse body'].head.opsPerSec).toBeGreaterThan(0);
    // Head's new bench files: base runs head's copy against its own code where it can (format date: the same code at
    // both, compared); where base cannot load it (it imports a module only head has) or its task fails at base alone
    // (it calls a function only head has), the rows read new, never an error.
    const format = byId['bench/format.bench.js > format date'];
    expect(format.verdict).toMatch(/^(unchanged|within-budget|inconclusive)$/);
    expect(format.base.opsPerSec).toBeGreaterThan(0);
    expect(format.change).not.toBeNull();
    expect(format.note).toContain("new at head: base ran head's copy of its bench file");
    expect(byId['bench/render.bench.js > render']).toMatchObject({ verdict: 'new', base: null, change: null });
    expect(byId['bench/render.bench.js > render'].head.opsPerSec).toBeGreaterThan(0);
    expect(run.stderr).toContain("bench files: base cannot load head's copy of bench/render.bench.js");
    const slug = byId['bench/slug.bench.js > slugify'];
    expect(slug).toMatchObject({ verdict: 'new', change: null, base: null });
    expect(slug.error).toBeUndefined();
    // Measured at head alone once base's copy threw: the row has head's figure, as a new row does.
    expect(slug.head.opsPerSec).toBeGreaterThan(0);
    expect(slug.note).toMatch(
      /^new at head: base could not run head's copy of its bench file \(at base: TypeError: text\.slugify is not a function/,
    );
    expect(report.summary).not.toMatch(/2 errors/);
    expect(run.stdout).toContain('! bench/parse.bench.js > parse query');
  });

  it('compares two named revisions, and measures uncommitted changes of the working tree', async () => {
    repo = fixtureRepo('ids', { config: AA, commitHead: false });
    const dirty = await runCli(['compare', '--base', 'main', '--profile', 'never', '--json', 'dirty.json'], repo);
    expect(dirty.code, `${dirty.stderr}\n${dirty.stdout}`).toBe(1);
    expect(readJson(path.join(repo, 'dirty.json')).head).toMatchObject({ ref: 'working tree', dirty: true });
    expect(dirty.stdout).toContain('(with uncommitted changes)');
    // main against itself, both from worktrees: nothing changed.
    const same = await runCli(['compare', '--base', 'main', '--head', 'main', '--json', 'same.json'], repo);
    expect(same.code, `${same.stderr}\n${same.stdout}`).toBe(0);
    const report = readJson(path.join(repo, 'same.json'));
    expect(report.head.ref).toBe('main');
    expect(report.verdict).toBe('pass');
    // Never a verdict either way: its whole interval inside the (wide) budget, unless a heavily loaded machine stalled one
    // side in several of the 8 rounds: then it is honestly undecided (an interval reaching past the budget), and passes.
    expectNoVerdictEitherWay(report.benchmarks[0], 0.5);
  });

  it('finds a root benchmark.js that the default pattern misses, as fast-uri keeps it, and says where it found it', async () => {
    const sum = (extra: string) =>
      `export default {\n  'sum': () => { let s = 0; for (let i = 0; i < 100${extra}; i++) s += i; return s; },\n};\n`;
    repo = inlineRepo({ 'benchmark.js': sum(''), 'benchgate.yml': FAST }, { 'benchmark.js': sum('00') });
    const run = await runCli(['compare', '--base', 'main', '--profile', 'never', '--json', 'report.json'], repo);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout + run.stderr).toContain("bench files: none matches micro.files' default pattern");
    expect(run.stdout + run.stderr).toContain('found at the project root: benchmark.js');
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.benchmarks.map((b: { id: string; verdict: string }) => [b.id, b.verdict])).toEqual([
      ['benchmark.js > sum', 'regression'],
    ]);
  });

  it('leaves out a script of bench/ that declares no task (a helper found by convention), and measures the others', async () => {
    const sum = (extra: string) =>
      `export default {\n  'sum': () => { let s = 0; for (let i = 0; i < 100${extra}; i++) s += i; return s; },\n};\n`;
    // A helper: it names the benchmark it drives, but declares nothing benchgate can time.
    const helper = "// runs the benchmark of another branch\nexport const branches = ['main'];\n";
    repo = inlineRepo({ 'bench/sum.js': sum(''), 'bench/run-branch.js': helper, 'benchgate.yml': FAST }, { 'bench/sum.js': sum('00') });
    const run = await runCli(['compare', '--base', 'main', '--profile', 'never', '--json', 'report.json'], repo);
    const output = run.stdout + run.stderr;
    expect(run.code, output).toBe(1);
    expect(output).toContain('found in bench/: bench/run-branch.js, bench/sum.js');
    expect(output).toContain('bench files: left out bench/run-branch.js: found by convention, they declare no task benchgate can time');
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.benchmarks.map((b: { id: string; verdict: string }) => [b.id, b.verdict])).toEqual([
      ['bench/sum.js > sum', 'regression'],
    ]);
    // list leaves it out as compare does: named, not a file that did not load (exit 0, not 2).
    const list = await runCli(['list'], repo);
    expect(list.code, list.stdout + list.stderr).toBe(0);
    expect(list.stdout).toMatch(/: 1 bench file, 1 task\n/);
    expect(list.stdout).toContain('  left out: bench/run-branch.js (found by convention, it declares no task benchgate can time)');
    expect(list.stdout).not.toContain('did not load');
  });

  it("installs a bench file's own package after the build, as uuid's examples/benchmark depends on the built project", async () => {
    // The root build writes .build/lib (a package); examples/bench is a package of its own that depends on it by path.
    const build = (loops: string) =>
      `import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync('.build/lib', { recursive: true });\n` +
      `writeFileSync('.build/lib/package.json', JSON.stringify({ name: 'lib', version: '1.0.0', type: 'module', main: 'index.js' }));\n` +
      `writeFileSync('.build/lib/index.js', 'export const sum = () => { let s = 0; for (let i = 0; i < ${loops}; i++) s += i; return s; };');\n`;
    repo = inlineRepo(
      {
        'build.mjs': build('100'),
        'examples/bench/package.json': JSON.stringify({
          name: 'bench',
          private: true,
          type: 'module',
          dependencies: { lib: 'file:../../.build/lib' },
        }),
        'examples/bench/node.js': "import { sum } from 'lib';\nexport default { sum };\n",
        'benchgate.yml': `${FAST}  files: examples/bench/node.js\nbuild: node build.mjs\n`,
      },
      { 'build.mjs': build('10000') },
    );
    const run = await runCli(['compare', '--base', 'main', '--head', 'feature', '--profile', 'never', '--json', 'report.json'], repo);
    const output = run.stdout + run.stderr;
    expect(run.code, output).toBe(1);
    for (const side of ['base', 'head'])
      expect(output).toContain(
        `install ${side}: examples/bench/, the package its bench files are in: npm install --no-audit --no-fund --no-package-lock`,
      );
    // After the build it depends on: the build's line comes first.
    expect(output.indexOf('build base: node build.mjs')).toBeLessThan(output.indexOf('install base: examples/bench/'));
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.benchmarks.map((b: { id: string; verdict: string }) => [b.id, b.verdict])).toEqual([
      ['examples/bench/node.js > sum', 'regression'],
    ]);
  });

  it('measures one revision per process with --isolation process', async () => {
    repo = fixtureRepo('ids', { config: FAST });
    const run = await runCli(['compare', '--base', 'main', '--isolation', 'process', '--profile', 'never', '--json', 'report.json'], repo);
    expect(run.code, run.stderr).toBe(1);
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.run.isolation).toBe('process');
    expect(report.benchmarks[0].verdict).toBe('regression');
  });

  it("matches a TypeScript file's anonymous function across revisions in the profile, where lines above it moved it", async () => {
    // total()'s reduce callback, four lines lower at head, and slower (8 rounds a loop for 5). Sixty loops: too big for
    // V8 to inline into its caller, so it is a frame of its own at both revisions. Head also declares an enum, which
    // only a transform (not type stripping) runs: its frames come back at their .ts places through the source map.
    const loops = (rounds: number) =>
      Array.from({ length: 60 }, (_, k) => `    for (let i: number = 0; i < ${rounds}; i++) x += (item * i + ${k}) % ${k + 7};`).join('\n');
    const lib = (above: string, rounds: number) =>
      `${above}export function total(items: readonly number[]): number {\n  return items.reduce(function (sum: number, item: number): number {\n    let x: number = 0;\n${loops(rounds)}\n    return sum + x;\n  }, 0);\n}\n`;
    repo = inlineRepo(
      {
        'benchgate.yml': 'budget: 5%\n',
        'src/lib.ts': lib('', 5),
        'bench/total.bench.ts':
          "import { total } from '../src/lib.ts';\nconst items: number[] = Array.from({ length: 20 }, (_, i) => i);\nexport default {\n  'total of 20 items': () => total(items),\n};\n",
      },
      { 'src/lib.ts': lib('// the units\nexport enum Unit { Call, Request }\ntype Items = number[];\n\n', 8) },
    );
    const run = await runCli(['compare', '--base', 'main', '--profile', 'always', '--json', 'report.json'], repo);
    expect(run.code, run.stderr).toBe(1);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    expect(bench.verdict).toBe('regression');
    const rows = bench.profile.top.filter(
      (row: { function: string; location: string }) => row.function === '(anonymous)' && row.location.startsWith('src/lib.ts:'),
    );
    // The profile is one process, the verdict many rounds: where its change strays from the rounds' (a collection or a
    // speed level on one side; once in a full Node 24 CI run this test's rows were not the one below), the report says
    // so, and no row is asserted. In 28 runs on Node 24 beside two busy loops (12 of them two at a time) it agreed and
    // showed the one row every time.
    const { agreement } = bench.profile;
    expect(agreement).toBeDefined();
    if (!agreement.agrees) {
      expect(agreement.disagrees, JSON.stringify(agreement)).toMatch(/^(direction|size)$/);
      return;
    }
    // One row for the callback, with its cost at both revisions (by line, base's would read 0 there and head's be another row).
    expect(rows, JSON.stringify(bench.profile.top)).toHaveLength(1);
    expect(rows[0].location).toBe('src/lib.ts:6'); // head's line in the .ts file (2 at base)
    expect(rows[0].basePerOpUs).toBeGreaterThan(0);
    expect(rows[0].headPerOpUs).toBeGreaterThan(rows[0].basePerOpUs);
  });
});

describe('benchgate calibrate, and what a compare can resolve', () => {
  it('measures a revision against itself and suggests budgets', async () => {
    repo = fixtureRepo('untouched', { config: 'budget: 1%\nmicro:\n  task-time: 150ms\n' });
    // Long enough for several rounds (a spread needs 3) even on a loaded machine: calibrate uses all of it.
    const run = await runCli(['calibrate', '--base', 'main', '--time-limit', '8s', '--json', 'calibration.json'], repo);
    const calibration = readJson(path.join(repo, 'calibration.json'));
    // Identical code measured as a change is what calibrate warns of (exit 1). At a 1% budget in a few rounds that is
    // also the test's 5% false-alarm rate (once beside two busy loops): whether it warns is the machine's; that a warning
    // goes with exit 1, names the verdict and its estimate, and is printed is the code's.
    const warned = calibration.benchmarks.filter((b: { warning?: string }) => b.warning);
    expect(run.code, run.stderr).toBe(warned.length > 0 ? 1 : 0);
    for (const b of warned) {
      expect(b.warning).toMatch(
        /^identical code measured as a (regression|improvement) \([+-][\d.]+%\): this benchmark's measurement is biased on this machine$/,
      );
      expect(run.stdout).toContain(b.warning);
    }
    expect(run.stdout).toMatch(/^benchgate calibrate: main @ [0-9a-f]{7} against itself, \d+ rounds in/);
    expect(calibration).toMatchObject({ version: 1, kind: 'calibration', ref: 'main', compareRounds: 10 });
    expect(calibration.benchmarks).toHaveLength(2);
    // What a compare resolves is for its 10 rounds at each regression bound's share of 5% over 2 benchmarks (one-sided
    // 0.05/2 less what the early look keeps of it: an interval of 1 - 2 × 0.05/2 × 0.95), not for the calibration's own round count.
    const level = decisionRule({ confidence: 0.95, rounds: 10, maxRounds: 10, lookEvery: 1 }).intervalLevel(2);
    expect(level).toBeCloseTo(1 - 2 * (0.05 / 2) * 0.95, 12);
    const rounds = numbersIn(run.stdout.split('\n')[0]!.split('against itself, ')[1]!.split(' rounds in')[0]!);
    for (const b of calibration.benchmarks) {
      // Both benchmarks ran in every round of the calibration.
      expect([b.rounds]).toEqual(rounds);
      expect(b.spread).toBeGreaterThan(0);
      const row = terminalRow(run.stdout, b.id);
      expect(printedAs(row[1]!, b.spread), row[1]).toBe(true);
      expect(printedAs(row[2]!, b.resolvable), row[2]).toBe(true);
      expect(printedAs(row[3]!, b.suggestedBudget), row[3]).toBe(true);
      expect(row[4]).toBe('1%');
      expect(b.resolvable).toBeCloseTo(resolvableChange(b.spread, 10, level), 12);
      // The smallest whole percent at or above what it resolves, 1% at least.
      expect(b.suggestedBudget).toBeGreaterThanOrEqual(Math.max(0.01, b.resolvable) - 1e-9);
      expect(b.suggestedBudget - 0.01).toBeLessThan(Math.max(0.01, b.resolvable) - 1e-9);
      expect(Math.round(b.suggestedBudget * 100)).toBeCloseTo(b.suggestedBudget * 100, 9);
    }
  });

  it('warns when a budget is below what the run resolves', async () => {
    // 0.1%: below what 15 rounds resolve for any task on a shared machine. One process a round: such a budget would
    // have the allocation add processes while the time allows, and a time limit bounding that (20 s) left a heavily
    // loaded machine no time past the first look's 10 rounds (the confirmation's rounds are kept in reserve).
    repo = fixtureRepo('untouched', { config: 'budget: 0.1%\nrounds: 5\nmax-rounds: 15\nmicro:\n  task-time: 50ms\n  processes: 1\n' });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json', '--markdown', 'report.md'], repo);
    const report = readJson(path.join(repo, 'report.json'));
    const warned = report.benchmarks.filter((b: { warning?: string }) => b.warning);
    expect(warned.length).toBeGreaterThan(0);
    // Undecided benchmarks got more rounds than the first look's. (Identical code may yet be decided at 0.1%, by an offset
    // a loaded machine gave one side for a whole run: such a benchmark keeps the rounds of the look that decided it, and
    // a regression so decided that a fresh group does not reproduce ends inconclusive with those rounds, saying so.)
    type Row = { id: string; verdict: string; rounds: number[]; confirmation?: number[]; note?: string };
    const inconclusive = report.benchmarks.filter((b: Row) => b.verdict === 'inconclusive');
    const unconfirmed = inconclusive.filter((b: Row) => b.confirmation);
    for (const b of unconfirmed)
      expect(b.note, b.id).toMatch(/^a regression in the first \d+ rounds .* did not reproduce in \d+ fresh rounds/);
    const undecided = inconclusive.filter((b: Row) => !b.confirmation);
    for (const b of undecided) expect(b.rounds.length, b.id).toBeGreaterThan(report.run.plannedRounds);
    if (undecided.length > 0) expect(report.run.rounds).toBeGreaterThan(report.run.plannedRounds);
    expect(warned[0].warning).toMatch(
      /^budget .* is below what this run resolves beyond it \(≈.* with .* rounds\): a regression between .* and .* would likely pass unnoticed/,
    );
    // The figures in it are the benchmark's: its budget, what its rounds resolve, and how many there were.
    // (what resolves is the distance beyond the budget, so the losses likely to pass end at their sum).
    const [budget, resolves, rounds, budgetAgain, upTo] = printedNumbers(warned[0].warning);
    expect([budget!.value, budgetAgain!.value]).toEqual([0.001, 0.001]);
    expect(warned[0].resolvable).toBeGreaterThan(0.001);
    expect(showsValue(resolves!, warned[0].resolvable) && showsValue(upTo!, 0.001 + warned[0].resolvable), warned[0].warning).toBe(true);
    expect(rounds!.value).toBe(warned[0].rounds.length);
    expect(run.stdout).toContain('note: bench/ids.bench.js >');
    expect(readFileSync(path.join(repo, 'report.md'), 'utf8')).toContain('> [!NOTE]');
    // The machine's conditions are recorded with the run, one figure per round (a confirmation's rounds too: identical
    // copies can differ by more than a 0.1% budget, and then a fresh group runs), and shown in the report.
    expect(report.run.conditions.busy).toHaveLength(report.run.rounds + report.run.confirmRounds);
    for (const busy of report.run.conditions.busy) expect(busy).toBeGreaterThan(0);
    const { before, after } = report.environment.loadAverage;
    const loadLine = readFileSync(path.join(repo, 'report.md'), 'utf8')
      .split('\n')
      .find((line) => line.includes(', load average '))!;
    const [shownBefore, shownAfter] = printedNumbers(loadLine.slice(loadLine.indexOf(', load average ')));
    expect(showsValue(shownBefore!, before[0]), loadLine).toBe(true);
    expect(showsValue(shownAfter!, after[0]), loadLine).toBe(true);
  });
});

describe('a regression must reproduce before it fails the build', () => {
  it('does not fail on a slowdown that a fresh group of processes does not show', async () => {
    // Head's task is slow only in the first 3 measuring processes (a transient host offset, staged):
    // each process that loads head's bench file counts itself in a file next to it, the one load
    // before measuring (the check that every revision is installed) included. A hundred times slower there: a loss the
    // early look's 3 rounds put far past the 50% budget, so they end the first group. The task waits on the clock
    // (20 µs a call, 2 ms while slow) rather than computing: its time a call is the clock's whatever the load and
    // whichever tier the JIT runs it in, so the three rounds agree as the early look's t interval needs (a loop of
    // additions once read one of them far off under a loaded CI run, and the early look rightly did not decide).
    const wait = (us: number) => `{ const end = performance.now() + ${us / 1000}; while (performance.now() < end); }`;
    const transient = `import { readFileSync, writeFileSync, existsSync } from 'node:fs';
const counter = new URL('./.processes', import.meta.url);
const seen = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0;
writeFileSync(counter, String(seen + 1));
const slow = seen < 4;
export default {
  'sum': slow ? () => ${wait(2000)} : () => ${wait(20)},
};
`;
    repo = inlineRepo(
      {
        // One process a round, always: the staging counts processes. And one look, at 10 rounds, with the whole 5%: its
        // bound is read past the few rounds an odd process could spoil. (Free to add processes, and looking first at 10 of
        // 40 rounds, where one round decides the bound, a run under a load of 13 once left the first look undecided.)
        'benchgate.yml': 'budget: 50%\nrounds: 10\nmax-rounds: 10\nmicro:\n  task-time: 150ms\n  processes: 1\n',
        'bench/a.bench.js': `export default {\n  'sum': () => ${wait(20)},\n};\n`,
        '.gitignore': '.processes\n',
      },
      { 'bench/a.bench.js': transient },
    );
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    const report = readJson(path.join(repo, 'report.json'));
    const [sum] = report.benchmarks;
    expect(run.code, run.stdout).toBe(0);
    expect(sum.verdict).toBe('inconclusive');
    // The first rounds alone said "regression" (past the 50% budget); the row shows the span of both groups' intervals,
    // so its interval agrees with its verdict: from the first group's loss up to the fresh group's none.
    expect(sum.change.low, `${run.stderr}\n${JSON.stringify(sum.rounds)}`).toBeLessThan(-0.5);
    expect(sum.change.high, `${run.stderr}\n${JSON.stringify(sum.confirmation)}`).toBeGreaterThan(-0.5);
    const slow = sum.rounds.filter((round: number) => round < -0.5);
    if (sum.rounds.length === 3) {
      // The early look ended the first group at its 3 rounds…
      expect(slow).toHaveLength(3);
      // …so a fresh group as large ran; it did not show the loss, so it went on to the first look's rounds, and did not either.
      expect(run.stderr).toContain('1 regression(s) from the early look not shown again in 3 fresh rounds: the fresh group goes on to 10');
      expect(sum.confirmation).toHaveLength(report.run.plannedRounds);
      expect(sum.note).toMatch(
        /^a regression in the first .* rounds \(.*\) did not reproduce in .* fresh rounds \(.*\): not failing the build on it/,
      );
      // The early decision did not stand: the note never calls it safe.
      expect(sum.note).not.toContain('decided at the early look');
      const [firstRounds, firstEstimate] = printedNumbers(sum.note.slice(0, sum.note.indexOf(' did not reproduce')));
      expect(firstRounds!.value).toBe(sum.rounds.length);
      expect(showsValue(firstEstimate!, sum.change.estimate), sum.note).toBe(true);
      expect(numbersIn(sum.note.slice(sum.note.indexOf(' did not reproduce')))[0]).toBe(sum.confirmation.length);
    } else {
      // A loaded machine (a CI run beside other jobs at load 9-12) can spread the 3 slow rounds too far for the early
      // look's t interval: the first look then reads all 10, the 3 slow rounds a group of their own, bounded over both.
      expect(sum.rounds).toHaveLength(report.run.plannedRounds);
      expect(slow).toHaveLength(3);
      expect(sum.note).toMatch(/its rounds fell in 2 groups, in 3 of 10 rounds /);
    }
    expect(run.stdout).toContain(`note: bench/a.bench.js > sum: ${sum.note}`);
  });
});

/**
 * Identical code at a wide budget: unchanged (its interval inside ±budget), within budget (above -budget, reaching past
 * +budget), or honestly undecided (its interval reaching below -budget), never a regression or an improvement; the
 * estimate inside its interval.
 */
function expectNoVerdictEitherWay(
  bench: {
    verdict: string;
    change: { low: number; estimate: number; high: number; confidence: number; achieved?: number; unsure?: { low?: boolean } };
    note?: string;
    warning?: string;
  },
  budget: number,
): void {
  // The whole row in every message: a failure on a loaded machine must say what was read.
  const seen = JSON.stringify({ verdict: bench.verdict, change: bench.change, note: bench.note, warning: bench.warning });
  expect(['unchanged', 'within-budget', 'inconclusive'], seen).toContain(bench.verdict);
  if (bench.verdict === 'unchanged') {
    expect(bench.change.low, seen).toBeGreaterThan(-budget);
    expect(bench.change.high, seen).toBeLessThan(budget);
  } else if (bench.verdict === 'within-budget') {
    // A certain pass whose interval reaches past +budget (never wholly beyond it: that would be an improvement).
    expect(bench.change.low, seen).toBeGreaterThanOrEqual(-budget);
    expect(bench.change.low, seen).toBeLessThanOrEqual(budget);
    expect(bench.change.high, seen).toBeGreaterThan(budget);
  } else if (bench.change.low >= -budget) {
    // inconclusive beside an interval above -budget (once beside two busy loops, [-44.9%, +55.9%] at a 50% budget):
    // only where its lower bound is not a verdict's, short of its level or set by a group of rounds too small, which
    // the JSON and the row's warning say.
    expect(bench.change.achieved !== undefined || bench.change.unsure?.low === true, seen).toBe(true);
    expect(bench.warning, seen).toMatch(/^its (interval is at \S+ confidence|lower bound rests on a group of rounds too small)/);
  }
  expect(bench.change.low, seen).toBeLessThanOrEqual(bench.change.estimate);
  expect(bench.change.estimate, seen).toBeLessThanOrEqual(bench.change.high);
}
