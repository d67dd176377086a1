// Isolates of their own (src/measure/micro/isolates.ts): a head that changes what a whole V8 isolate shares.
// fixtures/isolate-state: head sets an array's own `constructor` (V8's species fast path off for every map
// and filter of its isolate, ~15x slower) in a scenario that benchmark/bench.mjs runs in a worker thread of
// its own, and wraps JSON.stringify for every caller (bench/report.bench.mjs). Run natively, each is a loss
// far beyond the 25% budget (−93% and −52%); measured with both revisions in one isolate, base carries
// head's state and both read as unchanged (the runner before isolates: PASS, 2 unchanged).
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturesWithCache, readJson, runCli } from './helpers.js';

interface Report {
  verdict: string;
  benchmarks: { id: string; verdict: string; change: { estimate: number } | null }[];
}

describe('isolates of their own', () => {
  const { cache, fixture } = fixturesWithCache('benchgate-isolates-cache-');

  const compare = async (config: string | undefined, extra: string[] = []) => {
    const repo = fixture('isolate-state', config === undefined ? {} : { config });
    const run = await runCli(
      [
        ...['compare', '--base', 'main', '--head', 'feature', '--profile', 'never', '--json', 'out/report.json', '--install-cache', cache],
        ...extra,
      ],
      repo,
    );
    const report = readJson<Report>(path.join(repo, 'out/report.json'));
    return { run, report, byId: new Map(report.benchmarks.map((b) => [b.id, b])) };
  };

  it('measures each worker scenario in its own isolate per revision, and every file once one changed the builtins', async () => {
    const { run, report, byId } = await compare(undefined);
    expect(run.code, run.stderr).toBe(1);
    expect([...byId.keys()].sort()).toEqual([
      'bench/lists.bench.mjs > tag and count',
      'bench/report.bench.mjs > render report',
      'benchmark/bench.mjs > count',
      'benchmark/bench.mjs > tag and count',
    ]);
    // The scenario that turns the species fast path off, in its own isolate at each revision: head's loss is its own.
    const scenario = byId.get('benchmark/bench.mjs > tag and count')!;
    expect(scenario.verdict).toBe('regression');
    expect(scenario.change!.estimate).toBeLessThan(-0.5);
    // The next scenario, in a worker of its own natively, is untouched by it here too.
    expect(['unchanged', 'inconclusive', 'improvement']).toContain(byId.get('benchmark/bench.mjs > count')!.verdict);
    // head's JSON.stringify wrapper, seen as the file loaded: every file went to isolates, so base kept the builtin.
    expect(run.stderr).toContain(
      "every file, because head's bench/report.bench.mjs changed builtins that both revisions share in one process (JSON.stringify replaced)",
    );
    const report_ = byId.get('bench/report.bench.mjs > render report')!;
    expect(report_.verdict).toBe('regression');
    expect(report_.change!.estimate).toBeLessThan(-0.25);
    // The plain file with the species change is isolated with the others here (the builtins changed).
    expect(byId.get('bench/lists.bench.mjs > tag and count')!.verdict).toBe('regression');
    expect(report.verdict).toBe('fail');
  });

  it('isolates every file in thread isolation, where no builtin changed as a file loaded', async () => {
    const { run, byId } = await compare('budget: 25%\nmicro:\n  files: bench/lists.bench.mjs\n', ['--isolation', 'thread']);
    expect(run.stderr).toMatch(/bench\/lists\.bench\.mjs: measured in isolates of their own .*taking turns on one CPU$/m);
    expect(run.stderr).not.toContain('changed builtins');
    const lost = byId.get('bench/lists.bench.mjs > tag and count')!;
    expect(lost.verdict).toBe('regression');
    expect(lost.change!.estimate).toBeLessThan(-0.5);
    expect(run.code, run.stderr).toBe(1);
  });
});
