import os from 'node:os';
import path from 'node:path';
import { median } from 'simple-statistics';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { changeShown, numbersIn, printedAs, printedDurations, printedNumbers, showsValue, terminalRow } from '../report-text.js';
import { fixtureRepo, inlineRepo, leftoverProcesses, leftovers, readJson, removeFixtureRepos, runCli } from './helpers.js';
import { decisionRule } from '../../src/stats/decision.js';
import { httpConfig, OK_SERVER, SERVER } from './http-fixtures.js';
import { splitCpus } from '../../src/measure/http/pinning.js';

afterAll(removeFixtureRepos);

let repo = '';
afterEach(async () => {
  // Every server and benchmark process the run started is gone, whatever happened (found by pid and path, never by name).
  expect(await leftoverProcesses()).toEqual([]);
  if (repo) expect(leftovers(repo)).toEqual({ worktrees: [], tempDirs: [] });
});

describe('HTTP load tests, through the real CLI', () => {
  it('flags the etag middleware that adds a listener per request, with the probe showing the blocked event loop', async () => {
    // Up to 16 rounds: on a loaded machine one odd round can leave the first look undecided, as in a user's run.
    const config = httpConfig('todo lists', '    budget: 10%\n    latency-budget: { p99: 25% }\n').replace(
      'max-rounds: 6',
      'max-rounds: 16',
    );
    repo = fixtureRepo('http-etag', { config });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json', '--markdown', 'report.md'], repo);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const report = readJson(path.join(repo, 'report.json'));
    const [bench] = report.benchmarks;
    expect(bench).toMatchObject({ id: 'http > todo lists', kind: 'http', verdict: 'regression', budget: 0.1 });
    expect(bench.change.high).toBeLessThan(-0.1);
    // Three budgeted figures (requests/s, requests per CPU-second, p99): the rounds stop at a look of the plan
    // (6, 11, 16), at least the first look the rule allows for them.
    const plan = decisionRule({ confidence: 0.95, rounds: 6, maxRounds: 16, lookEvery: 5 });
    expect([6, 11, 16]).toContain(report.run.httpRounds);
    expect(report.run.figures).toBe(3);
    expect(report.run.httpRounds).toBeGreaterThanOrEqual(plan.minimumRounds(3));
    expect(bench.rounds).toHaveLength(report.run.httpRounds);
    // Before failing the build, the regression reproduced in fresh rounds, on servers started anew: a loss of about 75%.
    expect(bench.confirmation).toHaveLength(report.run.httpConfirmRounds);
    expect(report.run.httpConfirmRounds).toBeGreaterThanOrEqual(6);
    expect(median(bench.confirmation)).toBeLessThan(-0.5);
    // Throughput's loss (over 50%) reproduces every time; p99's fivefold growth nearly always does, but on a
    // loaded machine one slow round at base can keep its confirmation short of the budget: then it says so.
    if (bench.note) expect(bench.note).toMatch(/^a p99 latency regression in the first .* did not reproduce/);
    // Latency in milliseconds with its fractional digits (hrtime, not autocannon's whole milliseconds).
    const { p50, p99 } = bench.http.latency;
    expect(p50.base).toBeGreaterThan(0.01);
    expect(Number.isInteger(p50.base)).toBe(false);
    // In a duet (the default) latency is measured under a shared core: head's blocking handlers delay base's requests
    // too, so p99's ratio is far smaller than either server alone would show (+7% in one run on a machine at load 19,
    // over +25% when quieter; docs/http.md). Head's own blocked event loop is the probe's figure, asserted below. What
    // holds whatever the load: head's p99 is the higher, and p99's verdict is what its interval says at its budget
    // (the rounds stop once throughput's loss decides the benchmark, which can leave p99 undecided).
    expect(p99.change.estimate).toBeGreaterThan(0);
    if (bench.note) expect(p99.verdict).toBe('inconclusive');
    if (p99.verdict === 'regression') expect(p99.change.low).toBeGreaterThan(0.25);
    // A p99 regression the fresh rounds did not reproduce (the note) keeps the first group's interval, above the
    // budget, and is inconclusive (a Node 24 CI run: low +51%, note, inconclusive); otherwise no regression has it.
    else if (!bench.note) expect(p99.change.low).toBeLessThanOrEqual(0.25 + 1e-9);
    if (p99.verdict === 'unchanged') expect(p99.change.high).toBeLessThan(0.25);
    // The latency table shows those figures, whatever their size: "+784.7%" and "+1065%" alike.
    const p99Row = terminalRow(run.stdout, 'p99');
    expect(printedAs(p99Row[1]!, p99.base), p99Row[1]).toBe(true);
    expect(printedAs(p99Row[2]!, p99.head), p99Row[2]).toBe(true);
    expect(changeShown(p99Row[3]!, p99.change), p99Row[3]).toBe(true);
    expect(p99Row[4]).toBe(`25% ${p99.verdict}`);
    const p50Row = terminalRow(run.stdout, 'p50');
    expect(printedAs(p50Row[1]!, p50.base), p50Row[1]).toBe(true);
    expect(p50Row).toHaveLength(4); // no budget on p50: no verdict either
    // The probe ran in both servers, for the measured window, and saw the event loop blocked at head.
    const serverRow = (label: string) => terminalRow(run.stdout, label).slice(1);
    for (const [i, side] of (['base', 'head'] as const).entries()) {
      const server = bench.http.server[side];
      // A share of the measured window: above 0 (it served thousands of requests) and at most all of it. How much is the
      // machine's: in a duet each server gets part of one shared core, and beside two busy loops one read 0.19.
      expect(server.eventLoopUtilization).toBeGreaterThan(0);
      expect(server.eventLoopUtilization).toBeLessThanOrEqual(1);
      // A Node server holds tens of MB, its heap a part of that: megabytes, not bytes or gigabytes.
      expect(server.peakRssMb).toBeGreaterThan(10);
      expect(server.peakHeapUsedMb).toBeGreaterThan(0);
      expect(server.peakHeapUsedMb).toBeLessThan(server.peakRssMb);
      // Thousands of requests in the window leave garbage: the probe saw collections, and their time.
      expect(server.gc.count).toBeGreaterThan(0);
      expect(server.gc.totalMs).toBeGreaterThan(0);
      expect(server.eventLoopDelayMs.max).toBeGreaterThanOrEqual(server.eventLoopDelayMs.p99);
      expect(server.eventLoopDelayMs.p99).toBeGreaterThanOrEqual(server.eventLoopDelayMs.p50);
      // The server table shows the same figures.
      const delays = printedNumbers(serverRow('event-loop delay p50/p99/max (ms)')[i]!);
      expect(
        [server.eventLoopDelayMs.p50, server.eventLoopDelayMs.p99, server.eventLoopDelayMs.max].every((ms, k) =>
          showsValue(delays[k]!, ms),
        ),
      ).toBe(true);
      expect(printedAs(serverRow('event-loop utilisation')[i]!, server.eventLoopUtilization)).toBe(true);
      const gc = printedNumbers(serverRow('GC time (share of window)')[i]!);
      expect([server.gc.totalMs, server.gc.share, server.gc.count].every((x, k) => showsValue(gc[k]!, x))).toBe(true);
      const memory = printedNumbers(serverRow('peak RSS / heap used (MB)')[i]!);
      expect([server.peakRssMb, server.peakHeapUsedMb].every((mb, k) => showsValue(memory[k]!, mb))).toBe(true);
    }
    // Head's loop is blocked by the hashing, and the probe sees it: head's p99 delay is the higher. How far above base
    // depends on the machine's load and the monitor (1 ms: p99 3× and more when quiet; the 10 ms monitor, which does not
    // cost the servers CPU: p99 1.2-1.4×, p50 up to 5×, each server's p99 holding the other's time slices on the shared
    // core; on Node 24 in CI neither reached the 1.5× the diagnosis needs). When the diagnosis reads it, it says so below.
    expect(bench.http.server.head.eventLoopDelayMs.p99).toBeGreaterThan(bench.http.server.base.eventLoopDelayMs.p99);
    const delayMoved = bench.http.moved.find((line: string) => /^event-loop delay p(99|50) /.test(line));
    expect(bench.http.traffic.base.non2xx + bench.http.traffic.head.non2xx).toBe(0);
    // The servers' CPU per request, read from /proc/<pid>/task/<tid>/schedstat around each block: the hashing of a
    // growing list of listeners costs head far more CPU per request (the profile below sees over twice; so does this).
    const { cpu } = bench.http;
    for (const [i, side] of (['base', 'head'] as const).entries()) {
      expect(cpu[side].mainUs).toBeGreaterThan(0);
      expect(cpu[side].processUs).toBeGreaterThanOrEqual(cpu[side].mainUs);
      const [main, all] = printedNumbers(serverRow('CPU per request: main thread / all threads (µs)')[i]!);
      expect(showsValue(main!, cpu[side].mainUs) && showsValue(all!, cpu[side].processUs)).toBe(true);
    }
    expect(cpu.head.mainUs).toBeGreaterThan(2 * cpu.base.mainUs);
    expect(cpu.change.high).toBeLessThan(-0.5);
    const cpuLine = run.stdout.split('\n').find((line) => line.includes("requests per CPU-second of the server's main thread: "))!;
    expect(changeShown(cpuLine.slice(cpuLine.indexOf(': ') + 2, cpuLine.indexOf(' (')), cpu.change), cpuLine).toBe(true);
    // What a moved delay means, in words, in the report and the printed table alike.
    if (delayMoved) {
      expect(run.stdout).toMatch(/moved: event-loop delay p(99|50) /);
      expect(delayMoved).toMatch(/: something blocks the event loop: synchronous work on the request path/);
    }
    const { profile } = bench;
    expect(profile.unit).toBe('request');
    expect(profile.ops.base).toBeGreaterThan(profile.ops.head);
    // Head's cost per request grows with the listeners its earlier requests left, so the ratio depends on how many
    // requests the profiled server had answered (5× on a loaded machine, over 10× on a quiet one): twice is certain.
    expect(profile.perOpUs.head).toBeGreaterThan(2 * profile.perOpUs.base);
    const title = run.stdout.split('\n').find((line) => line.startsWith('http > todo lists: CPU per request '))!;
    const [perRequestBase, perRequestHead] = printedDurations(title.slice(0, title.indexOf(' (profiled')));
    expect(showsValue(perRequestBase!, profile.perOpUs.base), title).toBe(true);
    expect(showsValue(perRequestHead!, profile.perOpUs.head), title).toBe(true);
    const hashing = profile.top
      .slice(0, 3)
      .filter(
        (row: { function: string; location: string; via?: { function: string } }) =>
          row.via?.function === 'sha512' || /hash/i.test(row.location),
      );
    expect(hashing.length, JSON.stringify(profile.top, null, 1)).toBeGreaterThan(0);
    expect(profile.ownCode.map((row: { function: string }) => row.function)).toContain('sha512');
    // The head's server was profiled through its second of load (less a tick of the load generator's clock; V8 times are in µs).
    const headProfile = readJson(profile.files.head);
    expect(headProfile.endTime - headProfile.startTime).toBeGreaterThan(900_000);
    expect(headProfile.samples.length).toBe(headProfile.timeDeltas.length);
  });

  it('passes a change that does not touch the server', async () => {
    // A budget wide enough that identical servers' whole interval sits inside it, even on a loaded machine (16% off
    // once with two suites running beside it): unchanged. How narrow it gets is npm run evaluate:http's question.
    repo = fixtureRepo('http-untouched', { config: httpConfig('todo lists', '    budget: 50%\n') });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    expect(run.code, run.stdout).toBe(0);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    // Never a regression or an improvement; on a heavily loaded machine one odd round of 6 can leave it undecided.
    expect(['unchanged', 'inconclusive']).toContain(bench.verdict);
    expect(bench.change.low).toBeLessThanOrEqual(bench.change.estimate);
    expect(bench.change.estimate).toBeLessThanOrEqual(bench.change.high);
  });
});

describe('a fixed-rate load test', () => {
  it("asks both servers half the slower one's capacity, checks each block reached it, and gates identical servers as unchanged", async () => {
    repo = inlineRepo(
      {
        'benchgate.yml': httpConfig('list', '    budget: 50%\n    rate: auto\n    latency-budget: { p50: 90% }\n', 300),
        'server.js': OK_SERVER,
      },
      { 'server.js': OK_SERVER.replace("'[]'", "'[ ]'") },
    );
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json', '--profile', 'never'], repo);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = readJson(path.join(repo, 'report.json'));
    const [bench] = report.benchmarks;
    expect(['unchanged', 'inconclusive']).toContain(bench.verdict);
    const { rate } = bench.http;
    expect(rate.auto).toBe(true);
    expect(Number.isInteger(rate.asked) && rate.asked > 0).toBe(true);
    expect(rate.rounds).toBe(bench.rounds.length);
    // A fixed-rate load sends no more than the schedule: what each side reached is at most what was asked.
    for (const side of [rate.base, rate.head]) {
      expect(side.reached).toBeGreaterThan(0);
      expect(side.reached).toBeLessThanOrEqual(rate.asked);
    }
    // The log names the rate and the capacities it came from; the report's line shows the same figures.
    const chosen = run.stderr.split('\n').find((line) => line.includes('rate auto: '))!;
    expect(numbersIn(chosen.slice(chosen.indexOf('rate auto: ')))[0]).toBe(rate.asked);
    // The rate's own line ("fixed rate 425 requests/s …"), not the CPU line that names the fixed rate as its reason.
    const line = run.stdout.split('\n').find((l) => /fixed rate \d/.test(l))!;
    expect(numbersIn(line.slice(line.indexOf('fixed rate ')))[0]).toBe(rate.asked);
    // Both figures of throughput were gated: requests/s (reached) and requests per CPU-second.
    expect(bench.http.cpu.verdict).toMatch(/^(unchanged|inconclusive)$/);
    // The run line says how the CPUs were split: a duet (the default) on one shared core.
    const { server, load } = splitCpus(os.availableParallelism(), true);
    expect(report.run.httpCpus).toBe(
      `servers on CPU ${server} (base and head at once, sharing it), load generator on CPU${load.includes('-') ? 's' : ''} ${load}`,
    );
    expect(run.stdout).toContain(`(duet servers; ${report.run.httpCpus})`);
    // A fixed rate leaves the shared core idle by design: measured, said, and not taken for an unsaturated duet.
    expect(bench.http.duet.rounds).toBe(bench.rounds.length);
    expect(bench.http.duet.unsaturated).toBe(0);
    expect(bench.warning ?? '').not.toContain('not saturated');
    expect(run.stdout).toContain('duet: both servers loaded at once on one shared CPU, busy ');
  });
});

describe('an HTTP regression must reproduce before it fails the build', () => {
  it('does not fail on a server that is slow only in its first starts', async () => {
    // The rounds the first group runs: two figures (requests/s and requests per CPU-second), one look, at the 6 rounds
    // asked for (more only if the rule needed them).
    const first = Math.max(6, decisionRule({ confidence: 0.95, rounds: 6, maxRounds: 6, lookEvery: 5 }).minimumRounds(2));
    // Head's server is slow only in the first group's starts (a transient host offset, staged): each start counts itself.
    // Slow there by 3 ms of spinning per request, ten times and more what a request costs base even on a heavily loaded
    // machine (0.3 ms lost only 18-31% a round there): every round of the first look shows a loss far past the 30%
    // budget, in both figures. The fresh rounds are identical servers, whose pairs differ by up to ~20% on such a
    // machine: a budget they stay inside, so they never reproduce it.
    const transient = SERVER(`import { existsSync, readFileSync, writeFileSync } from 'node:fs';
const counter = new URL('./.starts', import.meta.url);
const starts = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0;
writeFileSync(counter, String(starts + 1));
const spin = (ms) => { const end = performance.now() + ms; while (performance.now() < end); };
const server = http.createServer((req, res) => { if (starts < ${first} && req.url !== '/health') spin(3); res.end(req.url === '/health' ? 'ok' : '[]'); });`);
    repo = inlineRepo(
      {
        'benchgate.yml': httpConfig('list', '    budget: 30%\n', 300),
        'server.js': OK_SERVER,
        '.gitignore': '.starts\n',
      },
      { 'server.js': transient },
    );
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json', '--profile', 'never'], repo);
    const report = readJson(path.join(repo, 'report.json'));
    const [bench] = report.benchmarks;
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(report.run.httpRounds).toBe(first);
    expect(bench.rounds).toHaveLength(first);
    expect(bench.change.high).toBeLessThan(-0.3); // the first rounds alone said "regression" (past the 30% budget)…
    expect(bench.verdict).toBe('inconclusive');
    // As many fresh rounds as the first group ran, on servers started anew, and they did not show it.
    expect(report.run.httpConfirmRounds).toBe(first);
    expect(bench.confirmation).toHaveLength(first);
    expect(bench.note).toMatch(/^a regression in the first .* rounds \(.*\) did not reproduce in .* fresh rounds/);
    const [firstRounds, firstEstimate] = printedNumbers(bench.note.slice(0, bench.note.indexOf(' did not reproduce')));
    expect(firstRounds!.value).toBe(first);
    expect(showsValue(firstEstimate!, bench.change.estimate), bench.note).toBe(true);
    expect(numbersIn(bench.note.slice(bench.note.indexOf(' did not reproduce')))[0]).toBe(first);
  });
});

describe('broken servers are errors, never fast servers', () => {
  it('reports a head that answers 500 where base answered 200', async () => {
    repo = inlineRepo(
      { 'benchgate.yml': httpConfig('list'), 'server.js': OK_SERVER },
      {
        'server.js': SERVER(
          "const server = http.createServer((req, res) => { res.statusCode = req.url === '/health' ? 200 : 500; res.end(); });",
        ),
      },
    );
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    expect(run.code).toBe(2);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    expect(bench.verdict).toBe('error');
    expect(bench.error).toMatch(
      /head is broken: GET \/todo-lists\?filter=\S+ \(benchgate\.yml: http\[0\] \(list\)\.requests\[0\]\) answered 500 at head \(working tree\) but 200 at base/,
    );
  });

  it('reports a head that answers an empty 200 fast as an error naming both sizes, not as a faster server', async () => {
    const LIST = SERVER(
      "const list = JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ id: i, title: 'todo ' + i, done: i % 2 === 0 })));\nconst server = http.createServer((req, res) => res.end(req.url === '/health' ? 'ok' : list));",
    );
    const EMPTY = SERVER("const server = http.createServer((req, res) => res.end(req.url === '/health' ? 'ok' : ''));");
    repo = inlineRepo({ 'benchgate.yml': httpConfig('list'), 'server.js': LIST }, { 'server.js': EMPTY });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json', '--profile', 'never'], repo);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    expect(bench.verdict).toBe('error');
    const size = JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ id: i, title: `todo ${i}`, done: i % 2 === 0 }))).length;
    expect(bench.error).toContain(
      `head answered 0 B per response where base answered ${(size / 1000).toFixed(1)} kB: different answers, not a faster or slower server`,
    );
  });

  it('reports a head that starts failing under load, with the counts', async () => {
    repo = inlineRepo(
      { 'benchgate.yml': httpConfig('list'), 'server.js': OK_SERVER },
      {
        'server.js': SERVER(
          "let n = 0;\nconst server = http.createServer((req, res) => { if (req.url !== '/health' && ++n > 50) res.statusCode = 503; res.end('[]'); });",
        ),
      },
    );
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    expect(run.code).toBe(2);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    const counts =
      /^head is broken under load: (\d+) unexpected responses to GET \/todo-lists\?\S+ \(503 ×(\d+); expected 2xx\) out of (\d+) requests \(base: none\)\.$/.exec(
        bench.error,
      );
    expect(counts, bench.error).not.toBeNull();
    const [failed, with503, requests] = counts!.slice(1).map(Number);
    expect(with503).toBe(failed);
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThanOrEqual(requests!);
  });

  it('reports a server that never becomes ready, with its last lines of output', async () => {
    repo = inlineRepo(
      { 'benchgate.yml': httpConfig('list').replace('ready-timeout: 15s', 'ready-timeout: 1s'), 'server.js': OK_SERVER },
      { 'server.js': "console.log('connecting to the database at db:5432...');\nsetInterval(() => {}, 1000);\n" },
    );
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    expect(run.code).toBe(2);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    expect(bench.error).toMatch(
      /^head \(working tree @ [0-9a-f]{7}\)'s server was not ready after 1s: GET \/health did not answer 2xx\.\nLast lines of its output:\n {2}connecting to the database at db:5432\.\.\.$/,
    );
  });

  it('reports a server that crashes mid-run, with its exit code and output', async () => {
    repo = inlineRepo(
      { 'benchgate.yml': httpConfig('list'), 'server.js': OK_SERVER },
      {
        'server.js': SERVER(
          "let n = 0;\nconst server = http.createServer((req, res) => { if (req.url !== '/health' && ++n > 300) { console.error('FATAL: out of file handles'); process.exit(3); } res.end('[]'); });",
        ),
      },
    );
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    expect(run.code).toBe(2);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    expect(bench.error).toMatch(
      /^head \(working tree @ [0-9a-f]{7}\)'s server crashed (during the warm-up|under load) \(exit code 3\)\.\nLast lines of its output:\n {2}FATAL: out of file handles/,
    );
  });

  it('treats a path that 404s on both sides as a config error naming the request', async () => {
    repo = inlineRepo({
      'benchgate.yml': httpConfig('list'),
      'server.js': SERVER(
        "const server = http.createServer((req, res) => { res.statusCode = req.url === '/health' ? 200 : 404; res.end(); });",
      ),
    });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    expect(run.code).toBe(2);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    expect(bench.error).toMatch(
      /^config error: GET \/todo-lists\?\S+ \(benchgate\.yml: http\[0\] \(list\)\.requests\[0\]\) answered 404 at base and 404 at head, where 2xx is expected: check the request's path in benchgate\.yml, or set its status: 404 if that is the answer to load-test\.$/,
    );
  });

  it('reports a request that answers 200 at both revisions where 404 is expected, naming the expected status', async () => {
    repo = inlineRepo({
      'benchgate.yml': httpConfig('not found', '', 300).replace('%5D%7D\n', '%5D%7D\n        status: 404\n'),
      'server.js': OK_SERVER,
    });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    expect(run.code).toBe(2);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    expect(bench.error).toMatch(/\.requests\[0\]\) answered 200 at base and 200 at head, where 404 is expected: .* set its status: 200 /);
  });

  it('retries on another port when the first is taken, and skips the probe for a server not started with node', async () => {
    // The first start of each revision's server fails with EADDRINUSE, as if something took its port.
    const flaky = SERVER(`import { existsSync, writeFileSync } from 'node:fs';
const marker = new URL('./.started', import.meta.url);
if (!existsSync(marker)) {
  writeFileSync(marker, '');
  console.error('Error: listen EADDRINUSE: address already in use 127.0.0.1:' + process.env.PORT);
  process.exit(1);
}
const server = http.createServer((req, res) => res.end(req.url === '/health' ? 'ok' : '[]'));`);
    repo = inlineRepo({
      // Identical servers, a budget their interval sits inside: a pass, once both have started on a free port.
      'benchgate.yml': httpConfig('list', '    budget: 50%\n').replace('start: node server.js', "start: sh -c 'node server.js'"),
      'server.js': flaky,
      '.gitignore': '.started\n',
    });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json'], repo);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    expect(['unchanged', 'inconclusive']).toContain(bench.verdict);
    expect(bench.http.server).toEqual({ base: null, head: null, note: expect.stringContaining('the probe was skipped') });
    expect(run.stdout).toContain('the probe was skipped');
  });
});

describe('requests that are meant to answer something other than 2xx', () => {
  it("load-tests a router's not-found path answering 404 at both revisions: a verdict, not a config error", async () => {
    const NOT_FOUND = SERVER(
      "const server = http.createServer((req, res) => { res.statusCode = req.url === '/health' ? 200 : 404; res.end('not found'); });",
    );
    const config = httpConfig('not found', '    budget: 50%\n', 300).replace('%5D%7D\n', '%5D%7D\n        status: [404]\n');
    repo = inlineRepo({ 'benchgate.yml': config, 'server.js': NOT_FOUND });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json', '--profile', 'never'], repo);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    expect(bench.error, bench.error).toBeUndefined();
    // Identical servers inside a 50% budget: a verdict like any load test's (undecided at most, on a loaded machine), and a pass.
    expect(['unchanged', 'inconclusive'], bench.note).toContain(bench.verdict);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(bench.http.expected).toEqual(['404']);
    // Every answer was a 404 and counted as a success, at both revisions.
    for (const side of ['base', 'head'] as const) {
      const traffic = bench.http.traffic[side];
      expect(traffic.ok).toBeGreaterThan(0);
      expect(traffic.ok).toBe(traffic.responses);
      expect(traffic.byClass['4xx']).toBe(traffic.responses);
    }
    expect(bench.base.opsPerSec).toBeGreaterThan(0);
    const title = run.stdout.split('\n').find((line) => line.startsWith('http > not found · '))!;
    expect(title).toContain('(expects 404)');
    const failures = run.stdout.split('\n').find((line) => line.includes('failed requests: none'))!;
    expect(numbersIn(failures.split('(')[1]!)).toEqual([bench.http.traffic.base.ok, bench.http.traffic.head.ok, 404]);
  });
});

describe('a duet whose duration is not set: the schedule the run chooses', () => {
  it('runs a pilot, then the warm-up and blocks per pair it chose, and says which and why in the log and the report', async () => {
    // No `duration:`: the default. Rounds kept few (a pilot of 2 long pairs, then 4 of the chosen schedule).
    const config = httpConfig('todo lists', '    budget: 50%\n').replace('    duration: 300ms\n', '');
    repo = inlineRepo({ 'benchgate.yml': config, 'server.js': OK_SERVER });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json', '--profile', 'never'], repo);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    // Six rounds planned; identical servers far inside the budget may be decided at the early look, after 3 (the pilot's
    // 2 and one of the chosen schedule).
    expect(
      bench.rounds.length === 6 || (bench.rounds.length === 3 && /decided at the early look/.test(bench.note ?? '')),
      JSON.stringify({ rounds: bench.rounds.length, note: bench.note, verdict: bench.verdict, gated: bench.http.gatedOn }),
    ).toBe(true);
    const schedule = bench.http.schedule;
    // What the run chose, within the planner's bounds, from what it measured: the pilot's warm-up on top of the configured
    // 100 ms, costs read from the clock (a pair costs its start and warm-up, a block about its second).
    expect(schedule.blocks).toBeGreaterThanOrEqual(2);
    expect(schedule.blocks).toBeLessThanOrEqual(6);
    expect(schedule.warmupMs).toBe(100 + schedule.learnedWarmupMs);
    expect(schedule.learnedWarmupMs % 1000).toBe(0);
    expect(schedule.blockCostMs).toBeGreaterThanOrEqual(1000);
    expect(schedule.pairCostMs).toBeGreaterThan(schedule.warmupMs);
    expect(schedule.pairs).toBe(bench.rounds.length);
    // The log says the warm-up found and the schedule chosen; the report's details say the schedule it ended with.
    expect(run.stderr).toMatch(/http > todo lists: warm-up: the pilot's 2 pairs /);
    expect(run.stderr).toMatch(/http > todo lists: schedule: \d blocks of 1\.0s per pair of servers after a /);
    const line = run.stdout.split('\n').find((l) => l.trim().startsWith('schedule: '))!;
    expect(line).toContain(`${schedule.blocks} blocks of 1.0s per pair`);
    expect(line).toContain("Kalibera & Jones' optimum");
    // The verdict's figure is one of the two throughput figures, and the CPU line says which role it had.
    expect(['requests', 'cpu']).toContain(bench.http.gatedOn);
    const cpuLine = run.stdout.split('\n').find((l) => l.includes('requests per CPU-second of the server'))!;
    expect(cpuLine).toContain(bench.http.gatedOn === 'cpu' ? "the verdict's figure" : 'a guard');
  });
});
