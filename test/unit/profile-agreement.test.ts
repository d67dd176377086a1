import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { agreement, type MeasuredCost } from '../../src/explain/agreement.js';
import { FunctionShapes, functionsOf } from '../../src/explain/functions.js';
import { transformTypeScript, transformWithMap } from '../../src/measure/micro/harness/typescript.js';
import { diffProfiles, summarizeProfile, type FunctionCost, type ProfileSummary } from '../../src/explain/profile.js';
import type { ProfileExplanation } from '../../src/explain/run.js';
import { splitProfile, type CpuProfile } from '../../src/measure/profiler.js';
import { profileSections } from '../../src/report/profile-sections.js';

const execFileAsync = promisify(execFile);

/** What the rounds measured, from calls per second and the throughput change, as the gate turns them into cost. */
function measured(opsPerSec: { base: number; head: number }, change: [number, number, number], spread = 0.01): MeasuredCost {
  const cost = (c: number) => 1 / (1 + c) - 1;
  const [estimate, low, high] = change;
  // Ten rounds around the estimate, `spread` apart (on the cost's scale).
  const rounds = Array.from({ length: 10 }, (_, i) => Math.expm1(Math.log1p(cost(estimate)) + (i % 2 ? spread : -spread)));
  return {
    baseUs: 1e6 / opsPerSec.base,
    headUs: 1e6 / opsPerSec.head,
    change: { estimate: cost(estimate), low: cost(high), high: cost(low) },
    rounds,
  };
}

function explanation(over: Partial<ProfileExplanation>): ProfileExplanation {
  return {
    files: { base: '/tmp/p/x.base.cpuprofile', head: '/tmp/p/x.head.cpuprofile' },
    unit: 'call',
    ops: { base: 1000, head: 1000 },
    process: 'alone',
    samples: { base: 8000, head: 8000 },
    gcPerOpUs: { base: 0, head: 0 },
    perOpUs: { base: 100, head: 100 },
    top: [],
    ownCode: [],
    durationMs: 2300,
    ...over,
  };
}

const judged = (profile: ProfileExplanation, m: MeasuredCost) => {
  const agreed = agreement(profile, m)!;
  return { agreed, line: profileSections('bench > task', { ...profile, agreement: agreed }).disagreement };
};

describe("a profile against the rounds' verdict", () => {
  it("names the issue's cheerio contradiction: a regression the profile read as 44% cheaper, base profiled at twice its measured time", () => {
    // html(): ✗ regression -8.5% [-9.8%, -8.0%], 420 → 383 ops/s; each revision profiled alone: 5.26 ms → 2.95 ms a call.
    const { agreed, line } = judged(
      explanation({ perOpUs: { base: 5260, head: 2950 } }),
      measured({ base: 420, head: 383 }, [-0.085, -0.098, -0.08]),
    );
    expect(agreed).toMatchObject({ agrees: false, disagrees: 'direction', reason: 'level' });
    expect(agreed.profileChange).toBeCloseTo(2950 / 5260 - 1, 6);
    expect(agreed.factor.base).toBeCloseTo(5260 / (1e6 / 420), 6);
    expect(line).toMatch(
      /^the profile disagrees with the measurement in direction: it reads -43\.9% CPU a call where the rounds read \+9\.3% \[\+8\.7%, \+10\.9%\] time a call/,
    );
    expect(line).toContain("base's profiled call cost 2.21× its measured cost, head's 1.13×");
    expect(line).toContain('each revision was profiled alone in a fresh process');
    // The title says how the profiles ran.
    expect(profileSections('bench > task', explanation({})).title).toContain(', each revision alone)');
  });

  it("names the issue's mocha and request figures: the right direction, several times the size", () => {
    // mocha: -7.2% regression, CPU per call 3.73 ms → 6.92 ms (+86%); request: -7.4%, 663 µs → 983 µs (+48%).
    for (const [ops, change, perOpUs] of [
      [{ base: 300, head: 278.4 }, [-0.072, -0.085, -0.06], { base: 3730, head: 6920 }],
      [{ base: 1600, head: 1481.6 }, [-0.074, -0.083, -0.065], { base: 663, head: 983 }],
    ] as const) {
      const { agreed, line } = judged(explanation({ perOpUs }), measured(ops, [...change]));
      expect(agreed).toMatchObject({ agrees: false, disagrees: 'size', reason: 'level' });
      expect(line).toMatch(/^the profile disagrees with the measurement in size: it reads \+(85|48)\.\d% CPU a call/);
    }
  });

  it('agrees within the noise and the method: an unchanged task read +7% by its profile, a 100× loss read 92×', () => {
    // The fixtures' figures: parse body -0.1% measured, +7.4% profiled; make request id +9953% measured, +9118% profiled.
    expect(
      agreement(explanation({ perOpUs: { base: 100, head: 107.4 } }), measured({ base: 1e4, head: 1e4 }, [0.001, -0.01, 0.012])),
    ).toMatchObject({
      agrees: true,
    });
    const huge = measured({ base: 4e7, head: 4e5 }, [-0.99, -0.9904, -0.9898]);
    expect(agreement(explanation({ perOpUs: { base: 0.0274, head: 2.53 } }), huge)).toMatchObject({ agrees: true });
    // What it would not let pass: the unchanged task profiled 25% dearer at head.
    const off = agreement(explanation({ perOpUs: { base: 100, head: 125 } }), measured({ base: 1e4, head: 1e4 }, [0.001, -0.01, 0.012]))!;
    expect(off).toMatchObject({ agrees: false, disagrees: 'size' });
    // Rounds that spread widely from process to process leave one profiled process more room.
    const spread = agreement(
      explanation({ perOpUs: { base: 100, head: 125 } }),
      measured({ base: 1e4, head: 1e4 }, [0.001, -0.05, 0.05], 0.08),
    )!;
    expect(spread.agrees).toBe(true);
    expect(spread.allowance).toBeGreaterThan(off.allowance);
  });

  it("says when a collection on one side explains the difference, and shows the profile's figure without it", () => {
    // Measured +10% time a call; profiled +50%, of which 40 µs a call is the garbage collector at head only.
    const profile = explanation({ perOpUs: { base: 100, head: 150 }, gcPerOpUs: { base: 0, head: 40 } });
    const { agreed, line } = judged(profile, measured({ base: 1e4, head: 1e4 / 1.1 }, [-0.0909, -0.1, -0.08]));
    expect(agreed).toMatchObject({ agrees: false, disagrees: 'size', reason: 'gc' });
    expect(agreed.profileChangeWithoutGc).toBeCloseTo(0.1, 6);
    expect(line).toContain('the garbage collector explains it: the profile spent 0 ns → 40 µs a call in it, and without it reads +10.0%');
  });

  it('in one shared process, names that process, not fresh ones', () => {
    const { agreed, line } = judged(
      explanation({ process: 'shared', perOpUs: { base: 100, head: 60 } }),
      measured({ base: 1e4, head: 9e3 }, [-0.1, -0.12, -0.08]),
    );
    expect(agreed).toMatchObject({ disagrees: 'direction', reason: 'level' });
    expect(line).toContain('the profiled process ran the two revisions at another ratio than the measured rounds did');
    expect(line).not.toContain('fresh process');
  });

  it('in a duet, names the pair of servers profiled at once, and says so in the title', () => {
    const profile = explanation({ process: 'duet', unit: 'request', perOpUs: { base: 100, head: 60 } });
    const { agreed, line } = judged(profile, measured({ base: 1e4, head: 9e3 }, [-0.1, -0.12, -0.08]));
    expect(agreed).toMatchObject({ disagrees: 'direction', reason: 'level' });
    expect(line).toContain('the profiled pair of servers ran at another ratio than the measured rounds did');
    expect(line).not.toContain('alone in a fresh process');
    expect(profileSections('http > x', profile).title).toBe(
      'http > x: CPU per request 100 µs → 60 µs (profiled in 2.3s, both servers at once on one shared core as measured: a ' +
        'sample counts the time a server waited for the core too, so read the change, not the size)',
    );
  });

  it('has nothing to say without figures on both sides', () => {
    expect(
      agreement(explanation({ perOpUs: { base: 0, head: 10 } }), measured({ base: 1e4, head: 1e4 }, [0, -0.01, 0.01])),
    ).toBeUndefined();
    expect(
      agreement(explanation({ samples: { base: 0, head: 10 } }), measured({ base: 1e4, head: 1e4 }, [0, -0.01, 0.01])),
    ).toBeUndefined();
  });
});

describe('one profile of both revisions, split by revision', () => {
  // Samples every 100 µs from t = 1000 µs; nodes 2 and 3 are base's and head's functions, node 4 one they share.
  const profile: CpuProfile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 }, children: [2, 3, 4] },
      {
        id: 2,
        callFrame: { functionName: 'f', url: 'file:///base/f.js', lineNumber: 0, columnNumber: 0 },
        positionTicks: [{ line: 2, ticks: 4 }],
      },
      {
        id: 3,
        callFrame: { functionName: 'f', url: 'file:///head/f.js', lineNumber: 0, columnNumber: 0 },
        positionTicks: [{ line: 2, ticks: 3 }],
      },
      {
        id: 4,
        callFrame: { functionName: 'hash', url: 'node:crypto', lineNumber: 0, columnNumber: 0 },
        positionTicks: [{ line: 9, ticks: 2 }],
      },
    ],
    startTime: 1000,
    endTime: 2000,
    // t = 1000, 1100, ..., 1900
    samples: [2, 2, 4, 2, 2, 3, 3, 4, 3, 1],
    timeDeltas: [0, 100, 100, 100, 100, 100, 100, 100, 100, 100],
  };

  it('gives each revision the samples of its own spans, with their durations, and none of the switch between them', () => {
    const parts = splitProfile(profile, [
      { label: 'base', startUs: 1000, endUs: 1450 },
      { label: 'head', startUs: 1500, endUs: 1850 },
    ]);
    const base = parts.get('base')!;
    const head = parts.get('head')!;
    // 1000-1400 are base's (5 samples); 1500-1800 head's (4); 1900 lies in no span.
    expect(base.samples).toEqual([2, 2, 4, 2, 2]);
    expect(head.samples).toEqual([3, 3, 4, 3]);
    expect(base.endTime - base.startTime).toBe(500);
    expect(head.endTime - head.startTime).toBe(400);
    expect(base.timeDeltas).toEqual([0, 100, 100, 100, 100]);
    expect(base.nodes.find((n) => n.id === 2)!.hitCount).toBe(4);
    expect(head.nodes.find((n) => n.id === 2)!.hitCount).toBe(0);
    // A revision's own function keeps its line ticks; one both ran shares them; the other revision's has none.
    expect(base.nodes.find((n) => n.id === 2)!.positionTicks).toEqual([{ line: 2, ticks: 4 }]);
    expect(head.nodes.find((n) => n.id === 2)!.positionTicks).toBeUndefined();
    expect(base.nodes.find((n) => n.id === 4)!.positionTicks).toEqual([{ line: 9, ticks: 1 }]);
    expect(head.nodes.find((n) => n.id === 4)!.positionTicks).toEqual([{ line: 9, ticks: 1 }]);
  });

  it('splits alternating spans in any order', () => {
    const parts = splitProfile(profile, [
      { label: 'head', startUs: 1200, endUs: 1400 },
      { label: 'base', startUs: 1000, endUs: 1200 },
      { label: 'base', startUs: 1400, endUs: 2000 },
    ]);
    expect(parts.get('head')!.samples).toEqual([4, 2]);
    expect(parts.get('base')!.samples).toEqual([2, 2, 2, 3, 3, 4, 3, 1]);
  });
});

/** A text offset as V8 gives a position: its 0-based line and column. */
const position = (source: string, offset: number) => {
  const before = source.slice(0, offset).split('\n');
  return [before.length - 1, before.at(-1)!.length] as const;
};

describe('functions matched across revisions when lines move', () => {
  // A real edit: scripts/evaluate-http.mjs before and after 248e005 (86 lines added, 12 removed, functions moved).
  const fixture = (side: string) => readFileSync(path.join(import.meta.dirname, '../../fixtures/profile-match', `${side}.mjs`), 'utf8');
  const base = fixture('base');
  const head = fixture('head');

  it('names every function that exists unchanged at both revisions alike, wherever it moved', () => {
    const atBase = functionsOf(base);
    const atHead = functionsOf(head);
    let unchanged = 0;
    let moved = 0;
    for (const fn of atBase.functions) {
      const text = base.slice(fn.start, fn.end);
      const at = head.indexOf(text);
      // Unchanged: its text once in each file.
      if (at < 0 || head.indexOf(text, at + 1) >= 0 || base.indexOf(text, base.indexOf(text) + 1) >= 0) continue;
      const there = atHead.functions.find((f) => f.start === at);
      expect(there, text.slice(0, 60)).toBeDefined();
      expect(there!.identity).toEqual(fn.identity);
      unchanged++;
      const lineOf = (source: string, offset: number) => source.slice(0, offset).split('\n').length;
      if (lineOf(base, fn.start) !== lineOf(head, at)) moved++;
    }
    expect(unchanged).toBeGreaterThanOrEqual(15);
    expect(moved).toBeGreaterThanOrEqual(10);
  });

  it('reads a TypeScript file through its transform, and names its moved functions alike too', () => {
    // A real edit of a TypeScript file: src/report/merge.ts before and after 3fb10bc (22 lines added, 2 removed), read
    // through the transform its bench files load with, its functions placed in the .ts file through the transform's map.
    const ts = (side: string) => path.join(import.meta.dirname, '../../fixtures/profile-match', `${side}.ts`);
    const [baseTs, headTs] = [readFileSync(ts('base'), 'utf8'), readFileSync(ts('head'), 'utf8')];
    const shapes = new FunctionShapes({ typeScript: transformWithMap });
    let unchanged = 0;
    let moved = 0;
    let anonymous = 0;
    // Each function where the stripped JavaScript has it, which is where it is in the TypeScript source (a frame of
    // a stripped file points there): its text (with its types) once in each file is a function the edit left alone.
    const atHeadFunctions = functionsOf(transformTypeScript(headTs, 'head.ts').code).functions;
    for (const fn of functionsOf(transformTypeScript(baseTs, 'base.ts').code).functions) {
      const text = baseTs.slice(fn.start, fn.end);
      const at = headTs.indexOf(text);
      if (at < 0 || headTs.indexOf(text, at + 1) >= 0 || baseTs.indexOf(text, fn.start + 1) >= 0) continue;
      // The text a whole function at head too (not the start of a longer one).
      if (!atHeadFunctions.some((f) => f.start === at && f.end === at + text.length)) continue;
      const atBase = shapes.identify(ts('base'), ...position(baseTs, fn.start));
      const atHead = shapes.identify(ts('head'), ...position(headTs, at));
      expect(atBase?.nesting, text.slice(0, 60)).toBe(fn.identity.nesting);
      expect(atHead, text.slice(0, 60)).toEqual(atBase);
      unchanged++;
      if (position(baseTs, fn.start)[0] !== position(headTs, at)[0]) moved++;
      if (fn.identity.nesting.split(' > ').at(-1)!.startsWith('(anonymous')) anonymous++;
    }
    expect(unchanged).toBeGreaterThanOrEqual(25);
    expect(moved).toBeGreaterThanOrEqual(25);
    expect(anonymous).toBeGreaterThanOrEqual(20);
    // Without the transform a TypeScript file is not parsed (acorn reads JavaScript): its frames keep their line.
    expect(new FunctionShapes().identify(ts('base'), ...position(baseTs, baseTs.indexOf('export function mergeShards')))).toBeUndefined();
  });

  it('names a TypeScript function alike whether its file was stripped or rewritten for an enum, where the runner maps its frame', () => {
    // Base only strips types; head adds an enum, which the transform must rewrite: V8 runs the transform's code, and
    // the runner maps a frame's position there back to the .ts file through the same map (runner.ts, atSourceFiles).
    const f = 'export const f = (xs: number[]): number[] =>\n  (xs as number[]).map((x: number) => x + 1);\n';
    const sources = { base: f, head: `enum Side {\n  Base,\n  Head,\n}\n${f}` };
    const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-enum-'));
    try {
      const shapes = new FunctionShapes({ typeScript: transformWithMap });
      expect(() => transformTypeScript(sources.base, 'base.ts')).not.toThrow();
      expect(transformTypeScript(sources.head, 'head.ts').code).not.toContain('(x: number)'); // rewritten, not stripped
      const identities = (['base', 'head'] as const).map((side) => {
        const file = path.join(dir, `${side}.ts`);
        writeFileSync(file, sources[side]);
        const ran = side === 'base' ? transformTypeScript(sources[side], file) : transformWithMap(sources[side], file);
        // The callback's frame: its position in the code V8 ran, mapped back as the runner maps it.
        const [line, column] = position(ran.code, ran.code.search(/\(x\s*\)/));
        const map = 'map' in ran && ran.map ? new SourceMap(JSON.parse(ran.map) as SourceMapPayload) : undefined;
        const entry = map?.findEntry(line, column) as { originalLine: number; originalColumn: number } | undefined;
        return shapes.identify(file, entry?.originalLine ?? line, entry?.originalColumn ?? column);
      });
      expect(identities[0]?.nesting).toBe('f > (anonymous in xs.map)');
      expect(identities[1]).toEqual(identities[0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tells two functions apart that differ only in where they are nested or in their code', () => {
    const { functions } = functionsOf(
      [
        'export function a(xs) { return xs.map((x) => x + 1) }',
        'export function b(xs) { return xs.map((x) => x + 1) }',
        'const c = (xs) => xs.map((x) => x * 2)',
      ].join('\n'),
    );
    const callbacks = functions.filter((f) => f.identity.nesting.endsWith('(anonymous in xs.map)'));
    expect(callbacks.map((f) => f.identity.nesting)).toEqual([
      'a > (anonymous in xs.map)',
      'b > (anonymous in xs.map)',
      'c > (anonymous in xs.map)',
    ]);
    expect(callbacks[0]!.identity.shape).toBe(callbacks[1]!.identity.shape);
    expect(callbacks[2]!.identity.shape).not.toBe(callbacks[0]!.identity.shape);
  });

  it('pairs an anonymous function whose body was edited when its nesting singles it out, and only then', () => {
    const cost = (key: string, looseKey: string, selfMs: number): FunctionCost => ({
      function: '(anonymous)',
      location: 'lib/render.js:80',
      key,
      looseKey,
      selfMs,
    });
    const summary = (functions: FunctionCost[]): ProfileSummary => ({ functions, ownTotals: [], totalMs: 100, samples: 1000 });
    // render's callback changed its code (shape a1 → b2): one function of that nesting on each side.
    const rows = diffProfiles(
      {
        summary: summary([
          cost('(anonymous)|lib/render.js|render > (anonymous in each)|a1', '(anonymous)|lib/render.js|render > (anonymous in each)', 10),
        ]),
        ops: 1000,
      },
      {
        summary: summary([
          cost('(anonymous)|lib/render.js|render > (anonymous in each)|b2', '(anonymous)|lib/render.js|render > (anonymous in each)', 30),
        ]),
        ops: 1000,
      },
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ basePerOpUs: 10, headPerOpUs: 30 });
    // Two candidates at head for one at base: which one is base's is not known, so none is paired.
    const loose = '(anonymous)|lib/render.js|render > (anonymous in each)';
    const ambiguous = diffProfiles(
      { summary: summary([cost(`${loose}|a1`, loose, 10)]), ops: 1000 },
      { summary: summary([cost(`${loose}|b2`, loose, 30), cost(`${loose}|c3`, loose, 20)]), ops: 1000 },
    );
    expect(ambiguous.map((row) => row.basePerOpUs)).toEqual([0, 0]);
  });
});

describe('a real profile of a function that moved', () => {
  // Profiled in a plain node process (vitest runs modules through its own transform, which moves their lines).
  // `load`: how the script gets total() from its lib (a TypeScript lib through the hooks bench files load with).
  const PROFILE = (load = "const { total } = await import('./lib.mjs');") => `import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
${load}
const session = new Session();
session.connect();
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
const items = Array.from({ length: 100 }, (_, i) => i);
for (let i = 0; i < 200; i++) total(items);
await post('Profiler.enable');
await post('Profiler.setSamplingInterval', { interval: 100 });
await post('Profiler.start');
let calls = 0;
const until = performance.now() + 300;
// 300 ms and 500 calls at least: on a machine busy enough to leave a side a few slices in 300 ms, its samples still hold its calls.
while (performance.now() < until || calls < 500) (total(items), calls++);
const { profile } = await post('Profiler.stop');
writeFileSync('profile.json', JSON.stringify({ profile, calls }));
`;

  /**
   * Both revisions' scripts profiled at once, so they share whatever else the machine runs: a sample's time is wall
   * time, and one side profiled alone while the other shared its core with a CI suite can read several times slower
   * a call (a plain CI run: base's callback read above head's fourfold work; head's is now eightfold, and the row was filtered out).
   */
  const profileBoth = (roots: readonly string[]) =>
    Promise.all(
      roots.map((root) => execFileAsync(process.execPath, ['--no-turbo-inlining', '--no-maglev-inlining', 'profile.mjs'], { cwd: root })),
    );

  /**
   * The callback's row, read in whichever direction it grew: samples are wall time, and on a loaded machine a side
   * starved of the CPU read base's callback above head's eightfold work (1.08 ms a call at base, 0.57 ms at head,
   * beside two callgrind processes), so which side costs more is the machine's. What is tested is the pairing: one row
   * with both sides' figures (unpaired, the rows are one-sided and read 0 at a side).
   */
  const pairedRow = (sides: { summary: ProfileSummary; ops: number }[], file: string) => {
    const pick = (rows: ReturnType<typeof diffProfiles>) => rows.find((r) => r.function === '(anonymous)' && r.location.startsWith(file));
    return pick(diffProfiles(sides[0]!, sides[1]!, 50)) ?? pick(diffProfiles(sides[1]!, sides[0]!, 50));
  };

  it('matches an anonymous callback that lines added above it moved, and sees what it costs at both revisions', async () => {
    // Sixty loops: too big for V8 to inline into its caller, so the callback keeps a frame of its own at both revisions.
    const loops = (rounds: number) =>
      Array.from({ length: 60 }, (_, k) => `    for (let i = 0; i < ${rounds}; i++) x += (item * i + ${k}) % ${k + 7};`).join('\n');
    const lib = (above: string, rounds: number) =>
      `${above}export function total(items) {\n  return items.reduce(function (sum, item) {\n    let x = 0;\n${loops(rounds)}\n    return sum + x;\n  }, 0);\n}\n`;
    const roots = [lib('', 5), lib('// a comment\nconst unused = 1;\n\n\n\n// more lines above it\n', 40)].map((text) => {
      const root = mkdtempSync(path.join(os.tmpdir(), 'benchgate-moved-'));
      writeFileSync(path.join(root, 'lib.mjs'), text);
      writeFileSync(path.join(root, 'profile.mjs'), PROFILE());
      return root;
    });
    try {
      // Without inlining, the callback is always a frame of its own: what is tested is the matching, not the JIT's
      // choice to inline it into its caller at one revision (which moves its time to another row).
      await profileBoth(roots);
      const sides = roots.map((root) => {
        const { profile, calls } = JSON.parse(readFileSync(path.join(root, 'profile.json'), 'utf8')) as {
          profile: CpuProfile;
          calls: number;
        };
        return { summary: summarizeProfile(profile, root), ops: calls };
      });
      const callback = (summary: ProfileSummary) =>
        summary.functions.find((f) => f.function === '(anonymous)' && f.location.startsWith('lib.mjs:'));
      const [atBase, atHead] = sides.map((side) => callback(side.summary)!);
      // It moved 6 lines, and its own loop grew eightfold: one row with both figures.
      expect(atBase!.location).toBe('lib.mjs:2');
      expect(atHead!.location).toBe('lib.mjs:8');
      expect(atHead!.key).not.toBe(atBase!.key); // its code changed (5 → 40 rounds a loop)...
      expect(atHead!.looseKey).toBe(atBase!.looseKey); // ...in the same place: paired as the same function
      // The callback's row (the script's own anonymous functions, sampled by chance at one side, are other rows).
      const row = pairedRow(sides, 'lib.mjs:');
      // One row reads base's cost beside head's.
      const seen = JSON.stringify(sides.map((side, i) => ({ ops: side.ops, callback: [atBase, atHead][i] })));
      expect(row, seen).toBeDefined();
      expect(row!.basePerOpUs, seen).toBeGreaterThan(0);
      expect(row!.headPerOpUs, seen).toBeGreaterThan(0);
    } finally {
      for (const root of roots) rmSync(root, { recursive: true, force: true });
    }
  });
  it('matches it in a TypeScript file loaded as bench files load it (types stripped: the .ts positions)', async () => {
    const dist = path.join(import.meta.dirname, '../../dist');
    const load = `import { register } from 'node:module';
register(${JSON.stringify(pathToFileURL(path.join(dist, 'hooks.js')).href)}, { data: { transform: ${JSON.stringify(pathToFileURL(path.join(dist, 'typescript.js')).href)} } });
const { total } = await import('./lib.ts');`;
    const loops = (rounds: number) =>
      Array.from({ length: 60 }, (_, k) => `    for (let i: number = 0; i < ${rounds}; i++) x += (item * i + ${k}) % ${k + 7};`).join('\n');
    const lib = (above: string, rounds: number) =>
      `${above}export function total(items: readonly number[]): number {\n  return items.reduce(function (sum: number, item: number): number {\n    let x: number = 0;\n${loops(rounds)}\n    return sum + x;\n  }, 0);\n}\n`;
    // (A file the transform must rewrite, an enum's, has its frames mapped back by the runner: the compare e2e tests it.)
    const texts = [lib('', 5), lib('// a comment\ntype Items = number[];\nconst unused: Items = [];\n\n\n', 40)];
    const roots = texts.map((text) => {
      const root = mkdtempSync(path.join(os.tmpdir(), 'benchgate-moved-ts-'));
      writeFileSync(path.join(root, 'package.json'), '{ "type": "module" }\n');
      writeFileSync(path.join(root, 'lib.ts'), text);
      writeFileSync(path.join(root, 'profile.mjs'), PROFILE(load));
      return root;
    });
    try {
      const typeScript = transformWithMap;
      const read = (shapes: FunctionShapes) =>
        roots.map((root) => {
          const { profile, calls } = JSON.parse(readFileSync(path.join(root, 'profile.json'), 'utf8')) as {
            profile: CpuProfile;
            calls: number;
          };
          return { summary: summarizeProfile(profile, root, { shapes }), ops: calls };
        });
      await profileBoth(roots);
      const callback = (summary: ProfileSummary) =>
        summary.functions.find((f) => f.function === '(anonymous)' && f.location.startsWith('lib.ts:'));
      const sides = read(new FunctionShapes({ typeScript }));
      const [atBase, atHead] = sides.map((side) => callback(side.summary)!);
      expect(atBase!.location).toBe('lib.ts:2');
      expect(atHead!.location).toBe('lib.ts:7'); // moved five lines
      expect(atHead!.key).not.toBe(atBase!.key); // its code changed (5 → 40 rounds a loop)...
      expect(atHead!.looseKey).toBe(atBase!.looseKey); // ...in the same place: paired as the same function
      expect(atBase!.looseKey).toContain('total > (anonymous in items.reduce)');
      const row = pairedRow(sides, 'lib.ts:');
      const seen = JSON.stringify(sides.map((side, i) => ({ ops: side.ops, callback: [atBase, atHead][i] })));
      expect(row, seen).toBeDefined();
      expect(row!.basePerOpUs, seen).toBeGreaterThan(0);
      expect(row!.headPerOpUs, seen).toBeGreaterThan(0);
      // Without the transform, the TypeScript file's frames keep their lines: two rows, base's read 0 at head.
      const byLine = read(new FunctionShapes()).map((side) => callback(side.summary)!);
      expect(byLine[0]!.key).toMatch(/^\(anonymous\)\|lib.ts:\d+$/);
      expect(byLine[1]!.key).not.toBe(byLine[0]!.key);
    } finally {
      for (const root of roots) rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('large or unusual source files', () => {
  it('names a function called where it is written, and gives up on a file of over 20,000 functions', () => {
    const { functions } = functionsOf('(function () {\n  var f = function (a) { return [a].map((x) => x + 1); };\n})();\n');
    expect(functions.map((f) => f.identity.nesting)).toEqual([
      '(called where it is written)',
      '(called where it is written) > f',
      '(called where it is written) > f > (anonymous in [a].map)',
    ]);
    const huge = `(function () {\n${Array.from({ length: 20_001 }, (_, i) => `  var f${i} = function () { return ${i}; };`).join('\n')}\n})();\n`;
    expect(() => functionsOf(huge)).toThrow(/more than 20000 functions/);
  });

  it('counts lines as V8 does: a lone \\r and U+2028 end a line too', () => {
    const { functions, lineStarts } = functionsOf('var a = 1;\r\nvar b = 2;\rvar c = 3;\u2028var f = function (x) { return x; };\n');
    expect(lineStarts).toEqual([0, 12, 23, 34, 70]);
    expect(functions[0]!.start).toBe(lineStarts[3]! + 8);
  });
});

describe('a profile read from an older report', () => {
  it('renders without the fields it lacks, and a null factor as a dash', () => {
    const older = explanation({});
    delete older.process;
    delete older.samples;
    delete older.gcPerOpUs;
    const sections = profileSections('bench > task', older);
    expect(sections.title).toBe('bench > task: CPU per call 100 µs → 100 µs (profiled in 2.3s)');
    expect(sections.disagreement).toBeUndefined();
    expect(agreement(older, measured({ base: 1e4, head: 1e4 }, [0, -0.01, 0.01]))).toBeUndefined();
    const forged = { ...explanation({ perOpUs: { base: 100, head: 50 } }) };
    const judgedForged = agreement(forged, measured({ base: 1e4, head: 9e3 }, [-0.1, -0.12, -0.08]))!;
    const line = profileSections('bench > task', {
      ...forged,
      agreement: { ...judgedForged, factor: { base: null, head: null } as unknown as { base: number; head: number } },
    }).disagreement;
    expect(line).toContain("base's profiled call cost – its measured cost, head's –");
  });
});
