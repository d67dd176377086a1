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
    expect(['unchanged', 'within-budget', 'inconclusive', 'improvement']).toContain(byId.get('benchmark/bench.mjs > count')!.verdict);
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

  it('does not pass a template compiled on every call, the pre-fix cost one isolate was said to hide (issue 48)', async () => {
    // fixtures/template-compiler: base compiles a template's render function once; head (the pre-fix code) calls
    // new Function on every render, about 8% more a call (plain loops, fresh processes and isolates of their own
    // alike). Both revisions generate the same source, so in one isolate head's new Function hits the compilation
    // cache entry base's compile made: the cost it pays per call (the cache lookup, a new function) is its own all
    // the same, and the default compare reads it.
    const repo = fixture('template-compiler');
    const run = await runCli(
      ['compare', '--base', 'main', '--head', 'feature', '--profile', 'never', '--json', 'out/report.json', '--install-cache', cache],
      repo,
    );
    const report = readJson<Report>(path.join(repo, 'out/report.json'));
    const [render] = report.benchmarks;
    expect(render!.id).toBe('bench/render.bench.js > render a user card');
    // Never a certain pass at the 5% budget: a regression (as every run on this machine read it), or undecided.
    expect(['regression', 'inconclusive'], `${render!.verdict} ${JSON.stringify(render!.change)}`).toContain(render!.verdict);
    expect(render!.change!.estimate).toBeLessThan(-0.03);
    expect(run.code, run.stderr).toBe(render!.verdict === 'regression' ? 1 : 0);
  });
});
