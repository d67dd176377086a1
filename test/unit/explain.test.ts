import { buildSync } from 'esbuild';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { diffProfiles, SourceMaps, summarizeProfile } from '../../src/explain/profile.js';
import { explain } from '../../src/explain/run.js';
import { diagnose, MEANINGS } from '../../src/explain/rules.js';
import { startProfiler, type CpuProfile } from '../../src/measure/profiler.js';
import type { ServerSummary } from '../../src/measure/http/types.js';

const ROOT = '/work/project';
const url = (file: string) => pathToFileURL(path.join(ROOT, file)).href;

/**
 * A profile from a call tree: each node is [name, url, line, self µs, children]. Samples are
 * spread 100 µs apart, so self time is exact to 100 µs.
 */
type Tree = [string, string, number, number, Tree[]?];
function profileOf(tree: Tree): CpuProfile {
  const nodes: CpuProfile['nodes'] = [];
  const samples: number[] = [];
  const add = ([name, scriptUrl, line, selfUs, children = []]: Tree): number => {
    const id = nodes.length + 1;
    const node: CpuProfile['nodes'][number] = {
      id,
      callFrame: { functionName: name, url: scriptUrl, lineNumber: line, columnNumber: 0 },
      children: [],
    };
    nodes.push(node);
    for (let i = 0; i < selfUs / 100; i++) samples.push(id);
    node.children = children.map(add);
    return id;
  };
  add(tree);
  return { nodes, startTime: 0, endTime: samples.length * 100, samples, timeDeltas: samples.map(() => 100) };
}

const profiles = {
  base: profileOf([
    '(root)',
    '',
    -1,
    0,
    [
      ['benchgateLoop', '', 0, 1000, [['makeId', url('src/ids.js'), 3, 8000]]],
      ['(garbage collector)', '', -1, 1000],
      ['(idle)', '', -1, 50_000],
    ],
  ]),
  head: profileOf([
    '(root)',
    '',
    -1,
    0,
    [
      [
        'benchgateLoop',
        '',
        0,
        1000,
        [['makeId', url('src/ids.js'), 5, 1000, [['randomBytes', 'node:internal/crypto/random', 96, 2000, [['run', '', -1, 15_000]]]]]],
      ],
      ['(garbage collector)', '', -1, 2000],
    ],
  ]),
};

describe('CPU profile summaries', () => {
  it('gives each function its self time, idle left out, and names the project function above native code', () => {
    const summary = summarizeProfile(profiles.head, ROOT);
    expect(summary.totalMs).toBeCloseTo(21, 6);
    const byName = Object.fromEntries(summary.functions.map((f) => [f.function, f]));
    expect(byName.run).toMatchObject({ location: '', selfMs: 15, via: { function: 'makeId', location: 'src/ids.js:6' } });
    expect(byName.randomBytes).toMatchObject({ location: 'node:internal/crypto/random:97', via: { function: 'makeId' } });
    expect(byName.makeId).toMatchObject({ location: 'src/ids.js:6', selfMs: 1 });
    expect(byName.makeId!.via).toBeUndefined();
    // The project's own functions with everything they call.
    expect(summary.ownTotals).toEqual([expect.objectContaining({ function: 'makeId', selfMs: 18 })]);
  });

  it("shows the benchmark loop's own time as task code the JIT inlined into it, not as native code", () => {
    const summary = summarizeProfile(profiles.head, ROOT, { loops: ['benchgateLoop'] });
    expect(summary.functions.find((f) => f.selfMs === 1 && f.location === 'JIT-inlined')).toMatchObject({
      function: '(task code inlined into the loop)',
    });
    expect(summary.functions.some((f) => f.function === 'benchgateLoop')).toBe(false);
  });

  it('hides benchgate frames from the rows and keeps a bench file out of the own code, without losing their time', () => {
    const profile = profileOf([
      '(root)',
      '',
      -1,
      0,
      [
        [
          'runTaskFor',
          'file:///opt/benchgate/dist/runner.js',
          10,
          3000,
          [['task', url('bench/a.bench.js'), 1, 1000, [['work', url('src/a.js'), 1, 6000]]]],
        ],
      ],
    ]);
    const summary = summarizeProfile(profile, ROOT, {
      hidden: (file) => file.startsWith('/opt/benchgate/'),
      notOwn: (file) => file === 'bench/a.bench.js',
    });
    expect(summary.totalMs).toBeCloseTo(10, 6);
    expect(summary.functions.map((f) => f.function)).toEqual(['work', 'task']);
    expect(summary.ownTotals.map((f) => f.function)).toEqual(['work']);
  });

  it('ranks functions by how much more they cost per operation, not by share', () => {
    const base = { summary: summarizeProfile(profiles.base, ROOT), ops: 1000 };
    const head = { summary: summarizeProfile(profiles.head, ROOT), ops: 100 };
    const rows = diffProfiles(base, head);
    // run: 0 → 150 µs per op; randomBytes and GC: 0 and 1 → 20; benchgateLoop: 1 → 10; makeId's self time: 8 → 10.
    expect(rows.map((r) => r.function)).toEqual(['run', 'randomBytes', '(garbage collector)', 'benchgateLoop', 'makeId']);
    expect(rows[0]).toMatchObject({ basePerOpUs: 0, headPerOpUs: 150, baseShare: 0 });
    expect(rows[0]!.headShare).toBeCloseTo(15 / 21, 9);
    // makeId moved down two lines at head and is still the same function.
    expect(rows[4]).toMatchObject({ basePerOpUs: 8, headPerOpUs: 10, location: 'src/ids.js:6' });
    expect(diffProfiles(base, head, 3, 'ownTotals')).toEqual([
      expect.objectContaining({ function: 'makeId', basePerOpUs: 8, headPerOpUs: 180 }),
    ]);
    // Nothing grew from head to base: an empty list, not the smallest losses.
    expect(diffProfiles(head, { ...head })).toEqual([]);
  });

  it('reads a real profile of this process, where a hot function dominates', async () => {
    // Burns CPU time, not wall time: on a loaded machine a wall-clock burn got a fraction of a core, and the
    // profiler's own calls (inspector 'post') outweighed it (Node 24, beside another CI run).
    function burnCpu(ms: number): number {
      let x = 0;
      const cpu = () => process.cpuUsage().user / 1000;
      const end = cpu() + ms;
      while (cpu() < end) for (let i = 0; i < 10_000; i++) x = (x + i * 31) % 1000003;
      return x;
    }
    const profiler = await startProfiler(200);
    burnCpu(300);
    const profile = await profiler.stop();
    const summary = summarizeProfile(profile, path.resolve(import.meta.dirname, '../..'));
    // The profile spans the whole burn (V8 times are in µs), one time delta per sample.
    expect(profile.endTime - profile.startTime).toBeGreaterThanOrEqual(300_000);
    expect(profile.samples!.length).toBeGreaterThan(0);
    expect(profile.timeDeltas).toHaveLength(profile.samples!.length);
    expect(summary.functions[0]!.function).toBe('burnCpu');
    expect(summary.functions[0]!.location).toMatch(/^test\/unit\/explain\.test\.ts:\d+$/);
  });
});

describe('source maps', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-maps-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('maps a compiled location back to its source, through a linked map file, an inline map or a map beside the script', () => {
    mkdirSync(path.join(dir, 'src'));
    writeFileSync(
      path.join(dir, 'src/ids.ts'),
      "import { randomUUID } from 'node:crypto';\n\ninterface Id { value: string }\n\nexport function makeId(): Id {\n  return { value: randomUUID() };\n}\n",
    );
    const maps = new SourceMaps();
    for (const sourcemap of ['linked', 'inline', 'external'] as const) {
      const outfile = path.join(dir, `dist-${sourcemap}/ids.js`);
      buildSync({ entryPoints: [path.join(dir, 'src/ids.ts')], outfile, sourcemap, format: 'esm', platform: 'node', logLevel: 'silent' });
      const compiled = readFileSync(outfile, 'utf8').split('\n');
      const line = compiled.findIndex((text) => text.includes('randomUUID()'));
      const column = compiled[line]!.indexOf('randomUUID()');
      // The source's line and column (`randomUUID()` at 5:18, 0-based), and the source file on disk to read it from.
      expect(maps.locate(pathToFileURL(outfile).href, line, column, dir)).toEqual({
        file: 'src/ids.ts',
        line: 5,
        column: 18,
        path: path.join(dir, 'src/ids.ts'),
      });
    }
    // No map: the compiled place, relative to the root; dependencies from node_modules/ on.
    writeFileSync(path.join(dir, 'plain.js'), 'export const a = 1;\n');
    expect(maps.locate(pathToFileURL(path.join(dir, 'plain.js')).href, 0, 0, dir)).toEqual({
      file: 'plain.js',
      line: 0,
      column: 0,
      path: path.join(dir, 'plain.js'),
    });
    expect(maps.locate('file:///elsewhere/node_modules/uuid/dist/v4.js', 4, 0, dir)).toEqual({
      file: 'node_modules/uuid/dist/v4.js',
      line: 4,
      column: 0,
      path: '/elsewhere/node_modules/uuid/dist/v4.js',
    });
    // Not a file: nothing to read.
    expect(maps.locate('node:internal/crypto/hash', 100, 7, dir)).toEqual({ file: 'node:internal/crypto/hash', line: 100, column: 7 });
  });
});

const server = (over: Partial<ServerSummary> = {}): ServerSummary => ({
  eventLoopDelayMs: { p50: 1, p99: 2, max: 5 },
  eventLoopUtilization: 0.95,
  gc: { count: 100, totalMs: 150, share: 0.05, byKindMs: {} },
  peakRssMb: 70,
  peakHeapUsedMb: 12,
  ...over,
});

describe('what the server-side figures point to', () => {
  it('reads a blocked event loop and allocation pressure, as in the etag fixture', () => {
    const lines = diagnose(
      server(),
      server({ eventLoopDelayMs: { p50: 36, p99: 52, max: 52 }, gc: { count: 158, totalMs: 450, share: 0.143, byKindMs: {} } }),
      -0.99,
    );
    expect(lines).toEqual([
      `event-loop delay p99 2.0 ms → 52.0 ms: ${MEANINGS.blocked}`,
      `time in GC 5% → 14% of the window (150 → 450 ms): ${MEANINGS.allocation}`,
    ]);
  });

  it('tells a server that waits from one that works harder, only next to a loss of throughput', () => {
    expect(diagnose(server(), server({ eventLoopUtilization: 0.6 }), -0.3)).toEqual([
      `event-loop utilisation 95% → 60%: ${MEANINGS.waiting}`,
    ]);
    expect(diagnose(server({ eventLoopUtilization: 0.5 }), server({ eventLoopUtilization: 0.9 }), -0.2)).toEqual([
      `event-loop utilisation 50% → 90%: ${MEANINGS.busier}`,
    ]);
    expect(diagnose(server({ eventLoopUtilization: 0.5 }), server({ eventLoopUtilization: 0.9 }), 0.4)).toEqual([
      'event-loop utilisation 50% → 90%',
    ]);
  });

  it('reads growing memory, and gives improvements and noise no meaning', () => {
    expect(diagnose(server(), server({ peakHeapUsedMb: 400, peakRssMb: 500 }), -0.1)).toEqual([
      `peak heap used 12 MB → 400 MB: ${MEANINGS.memory}`,
    ]);
    expect(diagnose(server({ eventLoopDelayMs: { p50: 30, p99: 50, max: 60 } }), server(), 0.5)).toEqual([
      'event-loop delay p99 50.0 ms → 2.0 ms',
    ]);
    // A median that moved where p99 did not (a duet: each server's p99 holds the other's time slices) is said once, as p50.
    expect(
      diagnose(
        server({ eventLoopDelayMs: { p50: 2.1, p99: 14.9, max: 15 } }),
        server({ eventLoopDelayMs: { p50: 7.8, p99: 18.6, max: 19 } }),
        -0.5,
      ),
    ).toEqual([`event-loop delay p50 2.1 ms → 7.8 ms: ${MEANINGS.blocked}`]);
    // Below the floors, a doubling is noise: 1 → 2 ms of delay, 0.5% → 1% in GC.
    expect(
      diagnose(
        server({ eventLoopDelayMs: { p50: 1, p99: 1, max: 2 }, gc: { count: 1, totalMs: 5, share: 0.005, byKindMs: {} } }),
        server({ gc: { count: 2, totalMs: 10, share: 0.01, byKindMs: {} } }),
        -0.1,
      ),
    ).toEqual([]);
  });
});

describe('profiling after the verdicts', () => {
  it('costs only the profiles, never the report, when the profile folder cannot be made', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-explain-'));
    writeFileSync(path.join(dir, 'blocker'), '');
    const revision = { label: 'base', ref: 'main', sha: 'a'.repeat(40), root: dir, worktree: undefined, dirty: false } as const;
    const logged: string[] = [];
    const explanations = await explain({
      targets: [{ id: 'bench/a.bench.js > x', kind: 'micro', file: 'bench/a.bench.js' }],
      base: revision,
      head: { ...revision, label: 'head' },
      http: [],
      dir: path.join(dir, 'blocker', 'profiles'),
      runnerPath: '/nonexistent/runner.js',
      probePath: '/nonexistent/probe.cjs',
      socketDir: dir,
      stallTimeoutMs: 1000,
      log: (line) => logged.push(line),
    });
    rmSync(dir, { recursive: true, force: true });
    expect(explanations.get('bench/a.bench.js > x')).toEqual({
      error: expect.stringMatching(/^could not create the profile folder .*blocker\/profiles: .*ENOTDIR/),
      durationMs: 0,
    });
    expect(logged).toHaveLength(1);
  });
});

describe('profile file names', () => {
  it('never share a file between two benchmarks whose ids read alike once made safe for a path', async () => {
    const { profileSlug } = await import('../../src/explain/run.js');
    const ids = ['f > a b', 'f > a-b', 'f > a/b', 'f > a_b', `f > ${'x'.repeat(300)}`, `f > ${'x'.repeat(300)}y`];
    const slugs = ids.map(profileSlug);
    expect(new Set(slugs).size).toBe(ids.length);
    for (const slug of slugs) {
      expect(slug).toMatch(/^[\w.-]+$/);
      expect(slug.length).toBeLessThanOrEqual(109);
    }
  });
});
