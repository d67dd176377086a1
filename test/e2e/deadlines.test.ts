import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatDuration } from '../../src/util/format.js';
import { inlineRepo, readJson, removeFixtureRepos, runCli } from './helpers.js';
import { parseDuration } from '../report-text.js';

afterAll(removeFixtureRepos);

const CONFIG = `rounds: 4
max-rounds: 4
http:
  - name: list
    start: node server.js
    ready: /health
    ready-timeout: 3s
    requests:
      - path: /list
    connections: 4
    duration: 600ms
    warmup: 200ms
`;
const SERVER = (handler: string) => `import http from 'node:http';
let n = 0;
const server = http.createServer((req, res) => { ${handler} });
server.listen(Number(process.env.PORT), process.env.HOST);
`;

describe('every wait has a deadline', () => {
  it('reports a head server that stops answering under load as an error, not as 0 requests/s', async () => {
    const repo = inlineRepo(
      { 'benchgate.yml': CONFIG, 'server.js': SERVER("res.end(req.url === '/health' ? 'ok' : '[]');") },
      // Answers the readiness check and the first requests, then holds every request open forever.
      { 'server.js': SERVER("if (req.url === '/health' || ++n <= 20) return res.end('[]'); console.log('stuck waiting for a lock');") },
    );
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json', '--profile', 'never'], repo);
    expect(run.code, run.stderr).toBe(2);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    expect(bench.verdict).toBe('error');
    expect(bench.error).toMatch(
      /^head \(working tree @ [0-9a-f]{7}\)'s server answered no request with an expected status in (a|\d+) 0\.\ds loads?/,
    );
    expect(bench.error).toContain('a hung server, not a measurement.');
    expect(bench.error).toContain('stuck waiting for a lock');
  });

  it('refuses a --base that git would read as an option, before running git', async () => {
    const repo = inlineRepo({ 'bench/a.bench.js': "export default { 'sum': () => 1 + 1 };\n" });
    const run = await runCli(['compare', '--base=--upload-pack=touch pwned'], repo);
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toContain("--base '--upload-pack=touch pwned' is not a git revision: give a branch, tag or commit sha");
  });
});

/** A load test whose head server answers twenty times slower (2 ms of spinning a request), under a time limit. */
function slowServerRepo(options: { limit: string; duration: string; warmup: string }): string {
  const slow = "const t = Date.now(); while (Date.now() - t < 2) {} res.end('[]');";
  const config =
    `time-limit: ${options.limit}\nhttp:\n  - name: list\n    start: node server.js\n    ready: /health\n    requests:\n` +
    `      - path: /list\n    duration: ${options.duration}\n    warmup: ${options.warmup}\n`;
  return inlineRepo(
    { 'benchgate.yml': config, 'server.js': SERVER("res.end(req.url === '/health' ? 'ok' : '[]');") },
    { 'server.js': SERVER(`if (req.url === '/health') return res.end('ok'); ${slow}`) },
  );
}

describe('time-limit bounds measuring, and nothing unmeasured passes', () => {
  // Head does twenty times the work: a loss no noise hides, decided at the first look.
  const SUM = (n: string) => `export default { 'sum': () => { let s = 0; for (let i = 0; i < ${n}; i++) s += i; return s; } };\n`;
  const QUICK = 'budget: 5%\nrounds: 5\nmax-rounds: 5\nconfirm: false\nmicro:\n  task-time: 50ms\n  processes: 1\n';
  // A build that takes longer than the whole time limit, at each revision.
  const SLOW_BUILD = 'build: node -e "setTimeout(() => {}, 6000)"\n';

  it('catches a regression when the builds alone take longer than time-limit: install and build are not measuring', async () => {
    const repo = inlineRepo(
      { 'benchgate.yml': `${QUICK}${SLOW_BUILD}`, 'bench/a.bench.js': SUM('100') },
      { 'bench/a.bench.js': SUM('2000') },
    );
    const run = await runCli(
      ['compare', '--base', 'main', '--head', 'feature', '--time-limit', '5s', '--profile', 'never', '--json', 'report.json'],
      repo,
    );
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.benchmarks[0].verdict).toBe('regression');
    // Each build took its 6 s, more than the 5 s limit, and measuring still had its own 5 s.
    const builds = [...run.stderr.matchAll(/build (base|head): done in ([\d.]+)s/g)].map((m) => Number(m[2]));
    expect(builds).toHaveLength(2);
    for (const seconds of builds) expect(seconds).toBeGreaterThanOrEqual(6);
    expect(report.run.totalMs).toBeGreaterThan(report.run.measureMs + 12_000);
    expect(report.run.limited).toBe(false);
  });

  it('stops a build at install-timeout, naming the revision, the command and the limit', async () => {
    const repo = inlineRepo({ 'benchgate.yml': `${QUICK}build: node -e "setTimeout(() => {}, 60000)"\n`, 'bench/a.bench.js': SUM('100') });
    const run = await runCli(['compare', '--base', 'main', '--install-timeout', '1s', '--json', 'report.json'], repo);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.verdict).toBe('error');
    expect(report.error).toMatch(
      /^The build of base \(main @ [0-9a-f]{7}\) failed: `node -e "setTimeout\(\(\) => \{\}, 60000\)"` did not finish within install-timeout \(1\.0s\) and was killed in /,
    );
  });

  it('fails a run the time limit cut before the first look, saying so before the first round and naming the time that would fit', async () => {
    // Rounds far apart by construction, never by chance: each revision counts the times its file was loaded (one load
    // per process) and sums 100 or 160 numbers by the count's parity, head a load out of phase with base, so the rounds
    // read head +60%, -37.5%, +60%, ... The early look (3 rounds) cannot put that inside or outside the budget, so what
    // the time limit leaves is unmeasured. (Work drawn at random per process once lined 7 rounds up on one side, a
    // regression, about 1 run in 1,000.)
    const SUM_BY_LOAD = (phase: number) =>
      "import { appendFileSync, statSync } from 'node:fs';\n" +
      "const loads = new URL('./loads.txt', import.meta.url);\n" +
      "appendFileSync(loads, '.');\n" +
      `const n = (statSync(loads).size + ${phase}) % 2 ? 160 : 100;\n` +
      "export default {\n  'sum': () => { let s = 0; for (let i = 0; i < n; i++) s += i; return s; },\n};\n";
    const repo = inlineRepo(
      { 'benchgate.yml': 'budget: 10%\nrounds: 40\nmax-rounds: 40\nmicro:\n  task-time: 150ms\n', 'bench/a.bench.js': SUM_BY_LOAD(0) },
      { 'bench/a.bench.js': SUM_BY_LOAD(1) },
    );
    const run = await runCli(['compare', '--base', 'main', '--time-limit', '3s', '--profile', 'never', '--json', 'report.json'], repo);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.verdict).toBe('error');
    expect(report.run.limited).toBe(true);
    const [bench] = report.benchmarks;
    expect(bench.verdict).toBe('unmeasured');
    expect(bench.rounds.length).toBeLessThan(40);
    // The construction holds: head is slower and faster by turns.
    for (let i = 1; i < bench.rounds.length; i++)
      expect(Math.sign(bench.rounds[i]), JSON.stringify(bench.rounds)).toBe(-Math.sign(bench.rounds[i - 1]));
    // Before the first round: 40 rounds of even the shortest task cannot fit in 3 s.
    const warning = run.stderr.split('\n').findIndex((line) => line.includes('warning: the first look needs 40 rounds of every benchmark'));
    const firstRound = run.stderr.split('\n').findIndex((line) => /round 1 of/.test(line));
    expect(warning).toBeGreaterThanOrEqual(0);
    expect(warning).toBeLessThan(firstRound);
    // The note names the rounds measured and what the first look needs: at least the plan's shortest rounds (one task of
    // 40 ms of blocks and a process start, 190 ms a round), or this run's slower pace.
    const note = new RegExp(
      `^measured in ${bench.rounds.length} of the 40 rounds its first look needs: too few for a verdict, and an unmeasured benchmark is never a pass: the first look needs 40 rounds, about (\\S+) of measuring \\((at this run's pace of (\\S+) a round|from the configured durations)\\), and time-limit gave 3\\.0s \\(checkout, install and build not counted\\): raise time-limit to at least (\\S+)(; its rounds fell in 2 groups, .*)?$`,
    ).exec(bench.note);
    expect(note, bench.note).not.toBeNull();
    const needs = parseDuration(note![1]!);
    const paced = (report.run.measureMs / bench.rounds.length) * 40;
    expect(needs).toBeGreaterThanOrEqual(7600 * 0.95);
    if (note![3]) expect(note![1]).toBe(formatDuration(paced));
    else expect(paced).toBeLessThanOrEqual(7600);
    // One bench file cannot be split into shards: more time is the only fix said.
    expect(note![4]).toBe(note![1]);
    expect(run.stdout).toContain('ERROR: 1 unmeasured');
    expect(run.stdout).toContain('… unmeasured');
  });

  it('fails a load test the time limit cuts short of its first look as a regression, from the early look', async () => {
    // Head answers twenty times slower, and the time limit leaves a few rounds of the 15 its first look needs: the early
    // look's 3 rounds bound the loss far beyond the budget and end the first group. Its fresh group of 3 confirms it where
    // the time limit leaves them, and where not, the regression stands unconfirmed: either way the user is told the
    // loss the rounds show (exit 1), not "not measured".
    const repo = slowServerRepo({ limit: '12s', duration: '300ms', warmup: '100ms' });
    const run = await runCli(['compare', '--base', 'main', '--head', 'feature', '--profile', 'never', '--json', 'report.json'], repo);
    const report = readJson(path.join(repo, 'report.json'));
    const [bench] = report.benchmarks;
    if (run.code === 2 && bench.change && (bench.change.high > -0.05 || bench.change.achieved !== undefined)) {
      // A machine so loaded (two busy loops beside a CI suite) that the early look could not decide and the few rounds
      // the limit left reach past the budget (-52.6% [-67.8%, +5.9%] once), or lie beyond it at less than the level a
      // verdict needs (5 rounds: their range, at 93.75%): not shown, so unmeasured and failing, never a pass, and the
      // row says why its interval is no verdict.
      expect(bench.verdict).toBe('unmeasured');
      expect(report.verdict).toBe('error');
      expect(run.stdout).toContain('ERROR: 1 unmeasured');
      if (bench.change.high <= -0.05) {
        expect(bench.change.achieved).toBeLessThan(bench.change.confidence);
        expect(bench.warning).toMatch(/^its interval is at \S+ confidence, the most \d+ rounds give, short of the \S+ a verdict needs/);
      }
      return;
    }
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(report.verdict).toBe('fail');
    expect(bench.verdict).toBe('regression');
    expect(bench.change.high).toBeLessThan(-0.05);
    expect(run.stdout).toContain('FAIL: 1 regression');
    const cut = /the time limit cut the first group at (\d+) of the (\d+) rounds its first look needs/.exec(bench.note ?? '');
    if (bench.rounds.length === 3) {
      // The early look ended the first group (both throughput figures decided there).
      expect(bench.note).toMatch(/decided at the early look: /);
      if (bench.unconfirmed) {
        // The time limit left the fresh group fewer than 3 rounds: said, with what would confirm it.
        expect(bench.note).toMatch(/could not be confirmed: (no fresh round fit|only [12] fresh rounds fit) in the time limit/);
        expect(bench.note).toMatch(/raise time-limit to confirm it$/);
        expect(run.stdout).toMatch(/✗ regression \(unconfirmed\)/);
      } else {
        expect(bench.confirmation).toHaveLength(3);
        for (const round of bench.confirmation) expect(round).toBeLessThan(-0.05);
      }
    } else {
      // One figure stayed open at the early look (a loaded machine): the group went on until the time limit cut it,
      // short of its first look; the loss its rounds read stands, unconfirmed, with the time limit that would fit.
      expect(cut, bench.note).not.toBeNull();
      expect(Number(cut![1])).toBe(bench.rounds.length);
      expect(bench.rounds.length).toBeLessThan(Number(cut![2]));
      expect(bench.unconfirmed).toBe(true);
      expect(bench.note).toMatch(/raise time-limit to at least \S+$/);
    }
  });

  it('fails a load test the time limit left without a single round: unmeasured, exit 2, with the time its first look needs', async () => {
    // Head answers twenty times slower: were 0 rounds a pass, this regression would ship.
    const repo = slowServerRepo({ limit: '4s', duration: '2s', warmup: '1s' });
    const run = await runCli(['compare', '--base', 'main', '--head', 'feature', '--profile', 'never', '--json', 'report.json'], repo);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    const report = readJson(path.join(repo, 'report.json'));
    expect(report.verdict).toBe('error');
    const [bench] = report.benchmarks;
    expect(bench.verdict).toBe('unmeasured');
    expect(bench.rounds).toEqual([]);
    expect(bench.change).toBeNull();
    // The time the first look needs comes from the plan (rounds × both revisions' warm-up and load, plus server
    // start and stop: 7.5 s a round), not from a pace of no rounds.
    const note = /the first look needs (\d+) rounds, about (\S+) of measuring \(from the configured durations\)/.exec(bench.note);
    expect(note, bench.note).not.toBeNull();
    const rounds = Number(note![1]);
    expect(rounds).toBeGreaterThanOrEqual(5);
    expect(parseDuration(note![2]!)).toBe(parseDuration(formatDuration(rounds * 7500)));
    expect(bench.note).toMatch(/^measured in 0 of the \d+ rounds its first look needs: too few for a verdict/);
    // One load test cannot be split into shards: more time is the fix said.
    expect(bench.note).toMatch(new RegExp(`raise time-limit to at least ${note![2]}$`));
    expect(run.stdout).toContain('ERROR: 1 unmeasured');
    expect(run.stdout).not.toMatch(/\bPASS\b/);
  });
});
