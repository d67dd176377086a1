import os from 'node:os';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { median } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { changeShown, numbersIn, printedAs, printedDurations, printedNumbers, showsValue, terminalRow } from '../report-text.js';
import { checkEachTest, fixtureRepo, inlineRepo, readJson, runCli } from './helpers.js';
import { decisionRule } from '../../src/stats/decision.js';
import { minimumRounds } from '../../src/stats/signed-rank.js';
import { httpConfig, OK_SERVER } from './http-fixtures.js';
import { splitCpus } from '../../src/measure/http/pinning.js';

let repo = '';
// Every server and benchmark process the run started is gone after each test, whatever happened, and the repo's worktrees.
checkEachTest(() => repo);

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
    // A regression is some budgeted figure's, beyond its budget: requests/s's interval, or requests per CPU-second's (the
    // note says so, with its interval), or p99's. Beside two busy loops (Node 20, 2026-11-29) requests/s's rounds read
    // an interval up to +10.8% and the verdict was another figure's.
    const p99Verdict = bench.http.latency.p99.verdict;
    const byCpu = /requests per CPU-second of the server's main thread lost more than the budget/.test(bench.note ?? '');
    expect(
      bench.change.high < -0.1 || byCpu || p99Verdict === 'regression',
      JSON.stringify({ ...bench.change, note: bench.note, p99Verdict }),
    ).toBe(true);
    // Three budgeted figures (requests/s, requests per CPU-second, p99): the rounds stop at the early look (3, where
    // its rounds put the loss far beyond the budget) or at a look of the plan (6, 11, 16), at least the first look the
    // rule allows for them.
    const plan = decisionRule({ confidence: 0.95, rounds: 6, maxRounds: 16, lookEvery: 5 });
    expect([3, 6, 11, 16]).toContain(report.run.httpRounds);
    expect(report.run.figures).toBe(3);
    if (report.run.httpRounds > 3) expect(report.run.httpRounds).toBeGreaterThanOrEqual(plan.minimumRounds(3));
    expect(bench.rounds).toHaveLength(report.run.httpRounds);
    // Before failing the build, the regression reproduced in fresh rounds, on servers started anew: a loss of about 75%.
    // As many as the first group ran, or fewer where its loss shows how few would do (at least the fewest the
    // confirmation's level allows), or an early step's 3, each going on to the first group's size only where they did not show it.
    expect(bench.confirmation).toHaveLength(report.run.httpConfirmRounds);
    expect(report.run.httpConfirmRounds).toBeGreaterThanOrEqual(Math.min(report.run.httpRounds, minimumRounds(plan.confirmationLevel)));
    expect(report.run.httpConfirmRounds).toBeLessThanOrEqual(Math.max(report.run.httpRounds, 6));
    // About -75% on a quiet machine; -40% once beside two busy loops (Node 24, both cores taken): where requests/s's
    // interval lies beyond the 10% budget, its fresh group shows a loss beyond it too (a confirmation that measured
    // nothing new reads about 0); its size is the machine's. Where the regression was another figure's (above), the
    // fresh group of requests/s proves nothing either way.
    if (bench.change.high < -0.1) expect(median(bench.confirmation), JSON.stringify(bench.confirmation)).toBeLessThan(-0.1);
    // Throughput's loss (over 50%) reproduces every time; p99's fivefold growth nearly always does, but on a
    // loaded machine one slow round at base can keep its confirmation short of the budget: then it says so.
    // (An early decision says so in the note too, and so do rounds that fell in groups: a loaded machine's rounds of
    // a loss this large can spread over -70% to -30%.)
    // The note's sentences are joined by "; ", the confirmations' first (a plain CI run's note led with requests per
    // CPU-second's before p99's): each must be one of these, whichever leads. Where requests/s stays open (beside two
    // busy loops on Node 24 its rounds fell in groups, 8 of 11 at -67.6% and 3 at -36.8%, a group too small for its
    // level) and requests per CPU-second fails, the note says the regression is that figure's.
    const sentences: string[] = bench.note ? bench.note.split('; ') : [];
    const unreproduced = sentences.some((s) => /^a p99 latency regression in the first .* did not reproduce/.test(s));
    for (const sentence of sentences)
      expect(sentence, bench.note).toMatch(
        /^(decided at the early look: |(its|requests per CPU-second's) rounds fell in [23] groups, in \d+ of \d+ rounds |a (p99 latency regression|regression of requests per CPU-second) in the first .* did not reproduce|requests per CPU-second of the server's main thread lost more than the budget \()/,
      );
    // Latency in milliseconds with its fractional digits (hrtime, not autocannon's whole milliseconds).
    const { p50, p99 } = bench.http.latency;
    expect(p50.base).toBeGreaterThan(0.01);
    expect(Number.isInteger(p50.base)).toBe(false);
    // In a duet (the default) latency is measured under a shared core: head's blocking handlers delay base's requests
    // too, so p99's ratio is far smaller than either server alone would show (+7% in one run on a machine at load 19,
    // over +25% when quieter; docs/http.md). Head's own blocked event loop is the probe's figure, asserted below. What
    // holds whatever the load: head's p99 is the higher, and p99's verdict is what its interval says at its budget
    // (the rounds stop once throughput's loss decides the benchmark, which can leave p99 undecided).
    // Saturated: the machine's other work takes the cores (load 2× the cores or more, before or after: the one-minute
    // average lags the run's start). Both servers then wait for a CPU alike, and head's p99 and median delay can read
    // below base's: only no improvement is certain.
    const { before, after } = report.environment.loadAverage;
    const saturated = Math.max(before[0], after?.[0] ?? 0) >= 2 * os.cpus().length;
    if (!saturated) expect(p99.change.estimate).toBeGreaterThan(0);
    else expect(p99.verdict).not.toBe('improvement');
    if (unreproduced) expect(p99.verdict).toBe('inconclusive');
    if (p99.verdict === 'regression') expect(p99.change.low).toBeGreaterThan(0.25);
    // A p99 regression the fresh rounds did not reproduce (the note) keeps the first group's interval, above the
    // budget, and is inconclusive (a Node 24 CI run: low +51%, note, inconclusive). Any other open p99 beside an
    // interval above its budget has one of two reasons, and the table says which under it: the interval is short of
    // its level (the early look's 3 rounds, or too few for the family's share: a Node 24 CI run read [+83%, …] after
    // more than 3 rounds), or its lower bound rests on a group of rounds too small.
    else if (!unreproduced && p99.change.low > 0.25) {
      expect(p99.change.achieved !== undefined || p99.change.unsure?.low === true, JSON.stringify(p99.change)).toBe(true);
      expect(run.stdout.replace(/\s+/g, ' ')).toMatch(/p99: its (interval is at [\d.]+% confidence|lower bound rests on)/);
    }
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
    // Head's loop is blocked by the hashing, and the probe sees it: head's median delay is the higher. The median, not
    // p99: a timer's median lateness is about half a macrotask, and head's (a request hashing a growing list of
    // listeners) are far longer than base's (p50 4-12× base's, quiet or beside two busy loops, Node 20 and 24). p99 holds
    // the other server's time slices on the shared core (1.2-1.4× when quiet; equal at 32 ms in one Node 24 CI run).
    // When the diagnosis reads it, it says so below. On a machine whose cores other work takes (two busy loops beside a
    // Node 24 CI suite: load 2× the cores or more), both servers' timers wait for a CPU alike and head's median once
    // read below base's (1.41 vs 1.72 ms): the blocked loop is then shown by the CPU per request (below), and the
    // report must not say the loop is blocked from a median that did not rise.
    const [baseP50, headP50] = [bench.http.server.base.eventLoopDelayMs.p50, bench.http.server.head.eventLoopDelayMs.p50];
    if (!saturated) expect(headP50).toBeGreaterThan(baseP50);
    else if (!(headP50 > baseP50))
      expect(bench.http.moved.filter((line: string) => /^event-loop delay p50 .*something blocks/.test(line))).toEqual([]);
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
    // More than halved (about -75% when quiet); beyond its 10% budget with certainty when it is the verdict. The interval's
    // upper end is not asked below -50%: with few rounds it is about the worst round's.
    expect(cpu.change.estimate).toBeLessThan(-0.5);
    if (cpu.verdict === 'regression') expect(cpu.change.high).toBeLessThan(-0.1);
    const cpuLine = run.stdout.split('\n').find((line) => line.includes("requests per CPU-second of the server's main thread: "))!;
    expect(changeShown(cpuLine.slice(cpuLine.indexOf(': ') + 2, cpuLine.indexOf(' (')), cpu.change), cpuLine).toBe(true);
    // What a moved delay means, in words, in the report and the printed table alike.
    if (delayMoved) {
      expect(run.stdout).toMatch(/moved: event-loop delay p(99|50) /);
      expect(delayMoved).toMatch(/: something blocks the event loop: synchronous work on the request path/);
    }
    const { profile } = bench;
    expect(profile.unit).toBe('request');
    // Measured in a duet (where the servers can be pinned), profiled in one: both servers at once on the shared core.
    expect(profile.process).toBe(report.run.httpMode === 'duet' ? 'duet' : 'alone');
    expect(profile.ops.base).toBeGreaterThan(profile.ops.head);
    // Head's cost per request grows with the listeners its earlier requests left, so the ratio depends on how many
    // requests the profiled server had answered (5× on a loaded machine, over 10× on a quiet one): twice is certain.
    expect(profile.perOpUs.head).toBeGreaterThan(2 * profile.perOpUs.base);
    const title = run.stdout.split('\n').find((line) => line.startsWith('http > todo lists: CPU per request '))!;
    // How it was profiled, in the PR comment's title of the profile (the terminal wraps it).
    if (profile.process === 'duet')
      expect(readFileSync(path.join(repo, 'report.md'), 'utf8')).toContain('both servers at once on one shared core as measured');
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
    expect(['unchanged', 'within-budget', 'inconclusive']).toContain(bench.verdict);
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
    expect(['unchanged', 'within-budget', 'inconclusive']).toContain(bench.verdict);
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
    expect(bench.http.cpu.verdict).toMatch(/^(unchanged|within-budget|inconclusive)$/);
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
