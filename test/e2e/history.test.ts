import { readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script shared with npm run evaluate
import { makeChainRepo } from '../../scripts/chain-repo.mjs';
import { mermaidBlocks, parseXyChart } from '../mermaid.js';
import { numbersIn } from '../report-text.js';
import { leftoverProcesses, leftovers, readJson, runCli } from './helpers.js';

/**
 * History through the real CLI, on repositories whose main is a chain of commits of known cost: record each
 * push, draw the trend, catch the drift no single push shows, and bisect to the commit that caused a loss.
 */

// One look at 5 rounds of short tasks, one process a round: these tests are about what history does with compares.
const QUICK = (budget: string) =>
  `budget: ${budget}\nrounds: 5\nmax-rounds: 5\nconfirm: false\nmicro:\n  task-time: 30ms\n  processes: 1\n`;

const repos: string[] = [];
afterAll(() => repos.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
afterEach(async () => {
  expect(await leftoverProcesses()).toEqual([]);
  for (const repo of repos) expect(leftovers(repo)).toEqual({ worktrees: [], tempDirs: [] });
});

function chain(losses: number[], budget: string, tags: Record<number, string> = {}): { dir: string; commits: string[] } {
  const made = makeChainRepo({ losses, tags, config: QUICK(budget) });
  repos.push(made.dir);
  return made;
}

interface Point {
  id: string;
  verdict: string;
  change: { estimate: number; low: number; high: number } | null;
}

describe('history of main, from the CLI', () => {
  it('records each push side by side, chains them into a trend, and catches the drift that every push passed', async () => {
    // Three pushes, each doubling the work of 'work' (50% fewer ops/s): every one passes a 75% budget (a loss of 4×),
    // together they lose 87.5% (8×). Losses no noise hides either way, even on a heavily loaded machine, where the
    // first look's every round must show them: a push is never judged past its budget, and the drift is never missed.
    const { dir, commits } = chain([0.5, 0.5, 0.5], '75%', { 0: 'v1.0.0' });
    const measured: Point[] = [];
    for (const [i, commit] of commits.slice(1).entries()) {
      const run = await runCli(['record', '--head', commit, '--history', 'history.jsonl', '--json', `record-${i}.json`], dir);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stderr).toContain(`recorded 2 benchmark(s) of ${commit.slice(0, 7)}`);
      measured.push(readJson(path.join(dir, `record-${i}.json`)).benchmarks.find((b: Point) => b.id === 'bench/work.bench.js > work'));
    }
    const records = readFileSync(path.join(dir, 'history.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { commit: string; parent: string; tags: string[]; benchmarks: Point[] });
    // One record per push, each compared with the commit before it.
    expect(records.map((r) => [r.parent, r.commit])).toEqual(commits.slice(1).map((c, i) => [commits[i], c]));
    const work = records.map((r) => r.benchmarks.find((b) => b.id === 'bench/work.bench.js > work')!);
    // Each record holds what its compare measured: the verdict, and the change rounded to 0.001%.
    expect(work.map((p) => p.verdict)).toEqual(measured.map((p) => p.verdict));
    expect(work.map((p) => p.change!.estimate)).toEqual(measured.map((p) => Number(p.change!.estimate.toFixed(5))));
    for (const point of work) expect(point.verdict).not.toBe('regression'); // 2× is well inside the 75% budget (4×)

    // The trend: the steps multiplied, since the release.
    const trend = await runCli(['trend', '--history', 'history.jsonl'], dir);
    expect(trend.code, trend.stderr).toBe(0);
    const lines = trend.stdout.split('\n');
    const title = lines.find((line) => line.startsWith('bench/work.bench.js > work  since v1.0.0: '))!;
    expect(title, trend.stdout).toBeDefined();
    const [estimate] = numbersIn(title.slice(title.indexOf(': ') + 2));
    const chained = work.reduce((product, p) => product * (1 + p.change!.estimate), 1) - 1;
    expect(Math.abs(estimate! - chained)).toBeLessThan(0.0006);
    expect(title).toMatch(/over 3 pushes$/);
    // The release is marked under the first column, its name under the mark.
    const marks = lines.findIndex((line, i) => i > lines.indexOf(title) && line.includes('└'));
    expect(lines[marks]).toMatch(/└▲/);
    expect(lines[marks + 1]!.indexOf('v1.0.0')).toBe(lines[marks]!.indexOf('▲'));
    // Another config is another gate: nothing of it recorded, and the log says which gates the file holds.
    const other = await runCli(['trend', '--history', 'history.jsonl', '--config', 'other.yml'], dir);
    expect(other.code).toBe(0);
    expect(other.stdout).toContain("main's trend: no history recorded yet");
    expect(other.stderr).toContain(
      "history.jsonl holds no record of this gate ('other.yml', from this directory and config) but 1 other(s)",
    );

    // Drift: HEAD against v1.0.0, side by side, at a 10% cumulative budget: 8× the work, far past it in every round of the first look.
    const drift = await runCli(
      [
        'drift',
        '--anchor',
        'tag:v*',
        '--drift-budget',
        '10%',
        '--history',
        'history.jsonl',
        '--json',
        'drift.json',
        '--markdown',
        'drift.md',
      ],
      dir,
    );
    expect(drift.code, drift.stdout + drift.stderr).toBe(1);
    const report = readJson(path.join(dir, 'drift.json'));
    expect(report.base.sha).toBe(commits[0]);
    expect(report.head.sha).toBe(commits[3]);
    const [driftWork, steady] = ['work', 'steady'].map((id) =>
      report.benchmarks.find((b: Point) => b.id === `bench/work.bench.js > ${id}`),
    );
    expect(driftWork).toMatchObject({ verdict: 'regression', budget: 0.1 });
    expect(driftWork.change.high).toBeLessThan(-0.1);
    expect(steady.verdict).not.toBe('regression');
    const markdown = readFileSync(path.join(dir, 'drift.md'), 'utf8');
    expect(markdown).toContain('### ❌ benchgate drift: 1 benchmark(s) lost more than 10% since v1.0.0');
    // The history's suspects are the pushes in between, named by sha and subject.
    const row = markdown.split('\n').find((line) => line.startsWith('| bench/work.bench.js &gt; work |'))!;
    expect(row, markdown).toBeDefined();
    expect(commits.slice(1).some((c) => row.includes(`<code>${c.slice(0, 7)}</code> step `))).toBe(true);
    expect(markdown).toContain("### Main's trend since v1.0.0");
    // The trend under it as a chart Mermaid parses: the release and the three pushes, the drift budget flat at -10%.
    const chart = await parseXyChart(mermaidBlocks(markdown)[0]!);
    expect(chart.xLabels).toEqual(['v1.0.0', ...commits.slice(1).map((c) => c.slice(0, 7))]);
    expect(chart.lines.at(-1)!.values).toEqual([-10, -10, -10, -10]);

    // The drift is kept beside the history, and publish shows it with the three pushes.
    const kept = readFileSync(path.join(dir, 'history.drift.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(kept.map((d) => [d.commit, d.state, d.anchor.label])).toEqual([[commits[3], 'broken', 'v1.0.0']]);
    const published = await runCli(['publish', '--out', 'site', '--history', 'history.jsonl'], dir);
    expect(published.code, published.stderr).toBe(0);
    const overview = JSON.parse(
      /^benchgateSite\("overview", (.*)\);\n$/s.exec(readFileSync(path.join(dir, 'site', 'data', 'overview.js'), 'utf8'))![1]!,
    );
    expect(overview.gates).toHaveLength(1);
    expect(overview.gates[0]).toMatchObject({ pushes: 3, head: commits[3], drift: { state: 'broken', commit: commits[3] } });
    expect(overview.gates[0].anchors.map((a: { label: string }) => a.label)).toEqual(['v1.0.0']);
    // A folder that is not a site is never cleared.
    const refused = await runCli(['publish', '--out', 'bench', '--history', 'history.jsonl'], dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('bench is not empty and was not written by benchgate publish');
  });

  it('bisects to the commit that made a benchmark ten times slower, skipping a commit that does not install and one without the bench file', async () => {
    // A tenfold step at a 50% budget: every round of a compare past the step shows far more than the budget lost, and
    // every round of one before it (identical work) far less, even on a heavily loaded machine: each compare decides at
    // its first look, and what is tested is the search. (How small a step bisect finds is npm run evaluate's question.)
    // Commit 4 does not install (its postinstall fails), commit 3 has no bench/work.bench.js: the first two commits
    // the search would test, so both are skipped, never "good", and the search goes on around them.
    // Every other commit has the same package-lock.json: installed once, then reused at every step (head and base).
    const made = makeChainRepo({ losses: [0, 0.9, 0, 0, 0, 0, 0], config: QUICK('50%'), broken: [4], missing: [3], lockfile: true });
    repos.push(made.dir);
    const { dir, commits } = made;
    const folders = () => readdirSync(os.tmpdir()).filter((name) => name.startsWith('benchgate-installs-'));
    const before = folders();
    const run = await runCli(['bisect', '--good', commits[0]!, '--json', 'bisect.json'], dir);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const installs = run.stderr.split('\n').filter((line) => /^benchgate: install (base|head): (npm|reused)/.test(line));
    // One npm ci (the first compare's base), the broken commit's own npm install, every other side reused.
    expect(installs.filter((line) => line.includes(': npm ci '))).toHaveLength(1);
    expect(installs.filter((line) => line.includes(': npm install '))).toHaveLength(1);
    expect(installs.filter((line) => line.includes(': reused the install of ')).length).toBeGreaterThanOrEqual(2 * 4 - 1);
    // The plan said so before it started: one dependency set among the commits, and the broken one installing each time.
    expect(run.stderr).toContain(
      `bisect: 7 commit(s) after ${commits[0]!.slice(0, 7)} up to ${commits[7]!.slice(0, 7)}, about 4 compares; 1 dependency set(s), so 1 install(s) reused by every step with the same set; 1 commit(s) install each time they are compared (its own postinstall script)`,
    );
    expect(run.stderr).toMatch(/^benchgate: bisect: 1 compare\(s\) in \S+; at most 3 more, up to ~\S+$/m);
    // The run's folder of installs is gone with it.
    expect(folders().filter((name) => !before.includes(name))).toEqual([]);
    const lines = run.stdout.trim().split('\n');
    const named = lines.findIndex((line) => line.startsWith('first bad commit: '));
    expect(lines[named]).toBe(`first bad commit: ${commits[2]} step 2: work costs 90% more`);
    // The change it made, alone: about 90% fewer ops/s (the difference of two compares against good), between 4× and 33×.
    const change = lines.slice(named + 1).find((line) => line.includes('bench/work.bench.js > work: '))!;
    const [step] = numbersIn(change.slice(change.indexOf(': ') + 2));
    expect(step).toBeLessThan(-0.75);
    expect(step).toBeGreaterThan(-0.97);
    const result = readJson(path.join(dir, 'bisect.json'));
    expect(result.firstBad.commit.sha).toBe(commits[2]);
    expect(result.firstBad.alone).toBe(true);
    expect(result.targets).toEqual(['bench/work.bench.js > work']);
    // Both untestable commits skipped, each for its reason (the install's own words, the missing benchmark), said in the output.
    expect(result.skipped.map((s: { commit: string }) => s.commit)).toEqual([commits[3], commits[4]]);
    expect(result.skipped[0].reason).toBe('bench/work.bench.js > work not at this commit');
    expect(result.skipped[1].reason).toMatch(/^the compare failed: .*install/);
    expect(lines).toContain(`  ${commits[3]!.slice(0, 7)} skipped: bench/work.bench.js > work not at this commit`);
    // 8 commits: good against bad, then ⌈log2 8⌉ halvings at most, plus one compare per skip (and per extension, never a guess).
    const extended = result.steps.filter((s: { extended: boolean }) => s.extended).length;
    expect(result.compares - extended - result.skipped.length).toBeLessThanOrEqual(1 + 3);
  });

  it('bisects a load test by its id, each step measuring only that load test', async () => {
    // The server's every request loops the commit's length ×200 (about 0.3 ms of work, a few times what HTTP costs):
    // commit 2 makes it ten times longer, about 90% fewer requests, at a 50% budget, over 8 rounds. The test is
    // about the search and what each step measures: every compare must decide the right way even on a loaded machine
    // (a loss of 90% or none, against 50%), and whether the step is also shown to lose the budget alone (the
    // difference of two compares, a question of power under load: a loaded run once read it "spread") is not asserted.
    const http = `http:\n  - name: todos\n    start: node server.js\n    ready: /health\n    ready-timeout: 15s\n    requests:\n      - path: /todos\n    connections: 8\n    duration: 300ms\n    warmup: 100ms\n`;
    const config = `budget: 50%\nrounds: 8\nmax-rounds: 8\nconfirm: false\nmicro:\n  task-time: 30ms\n  processes: 1\n${http}`;
    const made = makeChainRepo({ losses: [0, 0.9, 0, 0], config, server: 200 });
    repos.push(made.dir);
    const { dir, commits } = made;
    const run = await runCli(['bisect', '--good', commits[0]!, '--benchmark', 'http > *', '--json', 'bisect.json'], dir);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const result = readJson(path.join(dir, 'bisect.json'));
    expect(result.targets).toEqual(['http > todos']);
    expect(result.firstBad.commit.sha, run.stdout).toBe(commits[2]);
    const [change] = result.firstBad.changes;
    expect(change.id).toBe('http > todos');
    // Its own step: about 90% fewer requests (the difference of the two compares around it), far past the budget.
    expect(change.step.estimate).toBeLessThan(-0.5);
    expect(run.stdout).toContain(commits[2]!.slice(0, 7));
    // Only the first compare (good against bad: which benchmarks lost) loaded the bench files; every step after it
    // measured the load test alone, the micro suite beside it (whose 'work' lost as much) left out.
    expect(run.stderr).toContain('each step measures only what holds the targets: http > todos');
    expect(run.stderr.split('\n').filter((line) => line.includes('bench files: '))).toHaveLength(1);
    expect(result.compares).toBeGreaterThanOrEqual(3);
  });
});
