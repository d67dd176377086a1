import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareFunctions, withCounted, type CountsProfileExplanation } from '../../src/explain/counts.js';
import { CYCLE_WEIGHTS, functionCosts, nameCosts, PerfMap, shortName } from '../../src/measure/counts/functions.js';
import { readDump } from '../../src/measure/counts/task.js';
import { INLINED } from '../../src/measure/micro/protocol.js';
import { regressionAnnotations } from '../../src/report/github.js';
import type { Report } from '../../src/report/model.js';
import { profileSections } from '../../src/report/profile-sections.js';

// A dump as callgrind writes it with --dump-instr=no --dump-line=no --compress-strings=no: a cost line under fn= is the
// function's own; the line after calls= is the call's inclusive cost (the callee's, already in its own fn= block).
const DUMP = `# callgrind format
version: 1
positions: line
events: Ir Dr

ob=/usr/bin/node
fl=???
fn=Builtins_StringAdd_CheckNone
0 100 7
cob=/usr/lib/x86_64-linux-gnu/libc.so.6
cfn=malloc
calls=2 0
0 900 40
0 20 1
cfn=Builtins_JSEntry
calls=0 0
0 6340 52

ob=/usr/lib/x86_64-linux-gnu/libc.so.6
fl=./malloc/malloc.c
fn=malloc
0 600 30
fn=malloc'2
0 300 10

ob=???
fl=???
fn=0x000000000d045e00
0 5000 3
fn=0x000000000d0460a0
0 40 0
fn=0x000000000d048010
0 2 0
fn=0x000000000d047000
0 10 0
cfn=0x000000000d045e00
calls=1 0
0 5000 3
fn=0x00000000deadbeef
0 7 0
fn=0x000000000d046230
0 3 0

ob=/usr/bin/node
fl=???
fn=v8::internal::JsonStringifier::Result v8::internal::JsonStringifier::Serialize_<true>(v8::internal::Handle<v8::internal::Object>, bool)
0 250 1
fn=v8::internal::compiler::(anonymous namespace)::Reducer::Reduce(v8::internal::compiler::Node*)
0 8 0
fn=operator new(unsigned long)
0 12 0
ob=/usr/lib/x86_64-linux-gnu/libc.so.6
fn=pthread_rwlock_unlock@@GLIBC_2.34
0 3 0

totals: 6355 52
`;

const MAP = `d045b80 214 JS:*slowThing /repo/src/thing.js:2:19
d045e00 25c JS:~makeId /repo/src/ids.js:4:20
d045e00 25c JS:*makeId file:///repo/src/ids.js:4:20
d047000 40 JS:^makeId file:///repo/src/ids.js:4:20
d048000 40 JS:+'parseThing file:///repo/src/parse.js:9:3
d046000 100 JS:*benchgateLoop :3:10
d046200 100 JS:*make request id file:///repo/bench/ids%20x.bench.js?benchgate-graph=1:4:3
`;

describe('functionCosts: a callgrind dump, function by function', () => {
  it("adds each function's own cost, leaves a call's inclusive cost to the callee, and sums to the dump's total", () => {
    const costs = functionCosts(DUMP);
    const self = (fn: string) => [...costs.values()].filter((c) => c.function === fn).reduce((s, c) => s + c.self, 0);
    // 100 + 20: the 900 after calls= is malloc's (its own block holds it), not StringAdd's.
    expect(self('Builtins_StringAdd_CheckNone')).toBe(120);
    // A recursion level (malloc'2) is the same function.
    expect(self('malloc')).toBe(900);
    expect([...costs.values()].reduce((s, c) => s + c.self, 0)).toBe(6355);
    // The other event's column, when asked for.
    expect([...functionCosts(DUMP, { Dr: 1 }).values()].filter((c) => c.function === 'malloc').reduce((s, c) => s + c.self, 0)).toBe(40);
    // Code in no object file (V8's) keeps its address and no object.
    expect(costs.get('\u00000x000000000d045e00')).toEqual({ function: '0x000000000d045e00', object: '', self: 5000, inclusive: 5000 });
  });

  it("weighs the cache model's events as the cycle estimate does, where the figure is cycles", () => {
    const dump = 'positions: line\nevents: Ir I1mr D1mr DLmr\nob=/usr/bin/node\nfn=f\n0 100 1 2 1\nfn=g\n0 50\n';
    const cost = (fn: string, weights?: Record<string, number>) =>
      [...functionCosts(dump, weights).values()].find((c) => c.function === fn)!.self;
    expect(cost('f')).toBe(100);
    // 100 instructions, 3 first-level misses (10 each), 1 last-level miss (100).
    expect(cost('f', CYCLE_WEIGHTS)).toBe(230);
    // Trailing zero events are left out of a cost line.
    expect(cost('g', CYCLE_WEIGHTS)).toBe(50);
  });

  it("keeps each function's cost with what it calls: its own and its calls', a deeper recursion level's in the outer one's", () => {
    const costs = [...functionCosts(DUMP).values()];
    const inclusive = (fn: string) => costs.find((c) => c.function === fn)!.inclusive;
    // 100 + 900 + 20: the calls=0 line is a call running since before the dump (the whole segment's cost), not a callee's.
    expect(inclusive('Builtins_StringAdd_CheckNone')).toBe(1020);
    // malloc'2's 300 is its own cost (in self), and would be in the call cost of the level above it, not added again.
    expect(inclusive('malloc')).toBe(600);
  });
});

describe('nameCosts: names for JIT code from V8 perf map, short names for native code', () => {
  const named = nameCosts(functionCosts(DUMP).values(), new PerfMap(MAP), '/repo');
  const find = (fn: string) => named.find((n) => n.function === fn);

  it("names V8's compiled functions by the latest map entry that holds the address, at the project's file and line", () => {
    // Its baseline code (^) enters the optimized code (*), which callgrind sees as a call: their own costs add up, and
    // its cost with what it calls is the outer tier's (10 + 5000), not the two added (10,010).
    expect(find('makeId')).toEqual({ function: 'makeId', where: 'src/ids.js:4', self: 5010, inclusive: 5010 });
    // benchgate's loop is the task's code inlined into it; an address no entry holds is said to be unnamed JIT code.
    expect(find(INLINED)).toEqual({ function: INLINED, where: 'JIT', self: 40, inclusive: 40 });
    expect(find('(JIT code, unnamed)')).toMatchObject({ where: 'JIT', self: 7 });
    expect(find('slowThing')).toBeUndefined();
    // Node 24's V8 marks Maglev code `+'`: the mark is not part of the name.
    expect(find('parseThing')).toMatchObject({ where: 'src/parse.js:9', self: 2 });
    // A name with spaces (a task's method named by its key), its place without benchgate's query, its path decoded.
    expect(find('make request id')).toMatchObject({ where: 'bench/ids x.bench.js:4', self: 3 });
  });

  it('names builtins and V8 functions as V8, other code by its object file, without return types, parameters or versions', () => {
    expect(find('StringAdd_CheckNone')).toMatchObject({ where: 'V8', self: 120 });
    expect(find('JsonStringifier::Serialize_<true>')).toMatchObject({ where: 'V8', self: 250 });
    expect(find('compiler::{anonymous}::Reducer::Reduce')).toMatchObject({ where: 'V8' });
    expect(find('operator new')).toMatchObject({ where: 'node', self: 12 });
    expect(find('pthread_rwlock_unlock')).toMatchObject({ where: 'libc.so.6' });
    expect(shortName('(below main)')).toBe('(below main)');
  });
});

/** The ids fixture's profile (316 → 24.9k instructions a call) with the given rows. */
function countsProfile(rows: Pick<CountsProfileExplanation, 'top' | 'fell' | 'ownCode'>): CountsProfileExplanation {
  return {
    measure: 'counts',
    figure: 'instructions',
    unit: 'call',
    seed: 1,
    perOp: { base: 316, head: 24_900 },
    ...rows,
    durationMs: 30_000,
  };
}

describe('compareFunctions and the profile section in instructions', () => {
  const base = [
    { function: 'makeId', where: 'src/ids.js:4', perCall: 30 },
    { function: 'StringAdd', where: 'V8', perCall: 190 },
    { function: 'tiny', where: 'V8', perCall: 2 },
  ];
  const head = [
    { function: 'makeId', where: 'src/ids.js:4', perCall: 40 },
    { function: 'randomBytes', where: 'node', perCall: 1800 },
    { function: 'tiny', where: 'V8', perCall: 2.3 },
  ];

  it('lists what grew most, then what fell most, matched by name and place; moves under half an instruction are not shown', () => {
    const { top, fell } = compareFunctions(base, head);
    expect(top.map((r) => r.function)).toEqual(['randomBytes', 'makeId']);
    expect(top[0]).toEqual({ function: 'randomBytes', where: 'node', base: 0, head: 1800 });
    expect(fell).toEqual([{ function: 'StringAdd', where: 'V8', base: 190, head: 0 }]);
  });

  it('matches a function whose line moved between revisions as one row, at its head line', () => {
    const { top, fell } = compareFunctions(
      [{ function: 'serializePathEncoding', where: 'lib/utils.js:478', perCall: 4250 }],
      [{ function: 'serializePathEncoding', where: 'lib/utils.js:519', perCall: 4300 }],
    );
    expect(top).toEqual([{ function: 'serializePathEncoding', where: 'lib/utils.js:519', base: 4250, head: 4300 }]);
    expect(fell).toEqual([]);
  });

  it("lists the project's own functions by their count with what they call, not its dependencies', node's or the bench file's", () => {
    const withCallees = (fs: { function: string; where: string; perCall: number }[], makeId: number) =>
      fs.map((f) => ({ ...f, inclusive: f.function === 'makeId' ? makeId : f.perCall + 1000 }));
    const extra = [
      { function: 'run', where: 'bench/ids.bench.js:9', perCall: 5 },
      { function: 'v4', where: 'node_modules/uuid/dist/v4.js:3', perCall: 5 },
      { function: 'randomUUID', where: 'node:internal/crypto/random:100', perCall: 5 },
    ];
    const { ownCode } = compareFunctions(
      withCallees([...base, ...extra], 330),
      withCallees([...head, ...extra.map((f) => ({ ...f, perCall: f.perCall * 9 }))], 24_000),
      'bench/ids.bench.js',
    );
    expect(ownCode).toEqual([{ function: 'makeId', where: 'src/ids.js:4', base: 330, head: 24_000 }]);
  });

  it('renders the title in the figure counted, each row in it, and a function absent at a revision as 0', () => {
    const profile = countsProfile(compareFunctions(base, head));
    const sections = profileSections('bench/ids.bench.js > make request id', profile);
    expect(sections.ownCode).toHaveLength(1);
    const own = profileSections('x', { ...profile, ownCode: [{ function: 'makeId', where: 'src/ids.js:4', base: 330, head: 24_000 }] });
    expect(own.ownCode).toEqual(['makeId (src/ids.js:4): 330 instr → 24.0k instr per call, with what it calls']);
    expect(sections.title).toContain('instructions per call 316 instr → 24.9k instr (callgrind, seed 1');
    expect(sections.rows[0]).toEqual(['randomBytes', 'node', '0 instr', '1.80k instr', '+1.80k instr']);
    expect(sections.fell?.[0]).toEqual(['StringAdd', 'V8', '190 instr', '0 instr', '−190 instr']);
    expect(sections.disagreement).toBeUndefined();
    // Within 2% of the verdict's counts under the same seed: nothing to say; beyond, one line with both, and the verdict is the seeds'.
    expect(withCounted(profile, { base: 320, head: 24_500 }).disagrees).toBeUndefined();
    const apart = withCounted(profile, { base: 133_000, head: 150_000 });
    expect(apart.disagrees).toEqual({ base: 133_000, head: 150_000 });
    expect(profileSections('x', apart).disagreement).toMatch(
      /^the profiled process counted 316 instr → 24\.9k instr a call where the verdict's seed 1 counted 133k instr → 150k instr: .* The verdict is the seeds'/,
    );
    const cycles = profileSections('x', { ...profile, figure: 'cycles' });
    expect(cycles.title).toContain('estimated cycles per call 316 cycles');
  });
});

describe("a counted regression's annotations", () => {
  it('put a notice on the project function a profile in instructions found, in the figure counted', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-annotations-'));
    try {
      mkdirSync(path.join(dir, 'src'));
      mkdirSync(path.join(dir, 'bench'));
      writeFileSync(path.join(dir, 'src/ids.js'), 'export function makeId() {}\n');
      writeFileSync(path.join(dir, 'bench/ids.bench.js'), "export default { 'make request id': () => makeId() };\n");
      const profile = countsProfile({
        top: [],
        fell: [],
        ownCode: [{ function: 'makeId', where: 'src/ids.js:1', base: 0, head: 24_600 }],
      });
      const report = {
        benchmarks: [
          {
            id: 'bench/ids.bench.js > make request id',
            kind: 'micro',
            file: 'bench/ids.bench.js',
            verdict: 'regression',
            budget: 0.05,
            change: { estimate: -0.987, low: -0.987, high: -0.987, confidence: 0.95 },
            profile,
          },
        ],
      } as unknown as Report;
      const [error, notice] = regressionAnnotations(report, dir, dir, 'benchgate.yml');
      expect(error).toMatchObject({ level: 'error', file: 'bench/ids.bench.js', line: 1 });
      expect(notice).toEqual({
        level: 'notice',
        title: 'benchgate: makeId runs more instructions',
        message:
          'bench/ids.bench.js > make request id: makeId runs 24.6k instructions per call at head, 0 at base (callgrind, with what it calls)',
        file: 'src/ids.js',
        line: 1,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('readDump', () => {
  it("reads a block's figure from the dump's header (its body not read), and keeps the dump a profile reads later", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-dump-'));
    try {
      const file = path.join(dir, 'callgrind.1');
      // A body larger than the header buffer whose totals line disagrees: only the header's summary is read.
      const body = 'fn=x\n0 1\n'.repeat(5_000);
      writeFileSync(file, `version: 1\npositions: line\nevents: Ir\nsummary: 1234\n\n${body}totals: 999\n`);
      expect(readDump(file, 'instructions', true)).toBe(1234);
      expect(existsSync(file)).toBe(true);
      expect(readDump(file)).toBe(1234);
      expect(existsSync(file)).toBe(false);
      // No summary in its head: the dump is read whole, its totals line taken.
      writeFileSync(file, `events: Ir\n${body}totals: 999\n`);
      expect(readDump(file)).toBe(999);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
