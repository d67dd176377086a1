// Counts mode's processes (measure/counts/schedule.ts) where callgrind is not what answers: nothing uncounted passes.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Revision } from '../../src/checkout/revisions.js';
import { collect, measureCounts, seedOrder, type Job, type Outcome } from '../../src/measure/counts/schedule.js';
import { unrandomized } from '../../src/measure/counts/callgrind.js';

const RUNNER = fileURLToPath(new URL('../../dist/runner.js', import.meta.url));
const root = mkdtempSync(path.join(os.tmpdir(), 'benchgate-counts-test-'));
writeFileSync(path.join(root, 'a.bench.mjs'), 'export default { add: () => 1 + 1 };\n');
// A "valgrind" that drops its own options and runs node plainly: the marker then makes no dump.
const fake = path.join(root, 'fake-valgrind');
writeFileSync(fake, '#!/bin/sh\nwhile [ "${1#--}" != "$1" ]; do shift; done\nexec "$@"\n');
chmodSync(fake, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const revision = (label: 'base' | 'head'): Revision => ({
  label,
  ref: label,
  sha: '0'.repeat(40),
  root,
  worktree: undefined,
  dirty: false,
});
const plan = {
  base: revision('base'),
  head: revision('head'),
  baseFiles: ['a.bench.mjs'],
  headFiles: ['a.bench.mjs'],
  runnerPath: RUNNER,
  seeds: [1, 2],
  stallTimeoutMs: 60_000,
  log: () => undefined,
};

describe('measureCounts without callgrind answering', () => {
  it('fails every process whose marker makes no dump, naming why, with no figure', async () => {
    const log: string[] = [];
    // No vgdb beside this valgrind: the first process, started late, is started again with callgrind on from its
    // start, and so is every one after it (one at a time here, so exactly one of them tried).
    const measured = await measureCounts({ ...plan, valgrind: fake, parallel: 1, log: (line) => log.push(line) });
    const fallbacks = log.filter((line) => line.includes("could not turn callgrind's instrumentation on"));
    expect(fallbacks).toHaveLength(1);
    expect(fallbacks[0]).toMatch(/vgdb.* in pid \d+: .*every process from now on runs instrumented from its start/);
    expect(measured.processes).toBe(4);
    expect(measured.failures).toHaveLength(4);
    for (const failure of measured.failures) expect(failure).toMatch(/callgrind wrote no dump at the marker/);
    // No task was counted anywhere: the bench file still gets a row, an error, never no row.
    expect(measured.benchmarks).toHaveLength(1);
    expect(measured.benchmarks[0]).toMatchObject({ id: 'a.bench.mjs', file: 'a.bench.mjs' });
    expect(measured.benchmarks[0]!.error).toMatch(/callgrind wrote no dump at the marker/);
  });

  it("turns instrumentation on through valgrind's vgdb once the files are loaded, and the process waits for it", async () => {
    // A vgdb beside the fake valgrind that writes down what it was asked and says yes a second later: the process
    // goes on only after it answered (its marker then makes no dump, since nothing here is callgrind), so both answers
    // are written by the time the processes have failed.
    const folder = mkdtempSync(path.join(root, 'vgdb-'));
    const asked = path.join(folder, 'asked');
    writeFileSync(path.join(folder, 'valgrind'), `#!/bin/sh\nexec ${fake} "$@"\n`);
    writeFileSync(path.join(folder, 'vgdb'), `#!/bin/sh\necho "$@" >> ${asked}\nsleep 1\necho answered >> ${asked}\n`);
    chmodSync(path.join(folder, 'valgrind'), 0o755);
    chmodSync(path.join(folder, 'vgdb'), 0o755);
    const log: string[] = [];
    const measured = await measureCounts({ ...plan, seeds: [1], valgrind: path.join(folder, 'valgrind'), log: (line) => log.push(line) });
    const lines = readFileSync(asked, 'utf8').trim().split('\n');
    expect(lines.filter((line) => line === 'answered')).toHaveLength(2);
    const requests = lines.filter((line) => line !== 'answered');
    expect(requests).toHaveLength(2);
    for (const request of requests) expect(request).toMatch(/^--vgdb-prefix=\S+\.vgdb --pid=\d+ instrumentation on$/);
    expect(log.filter((line) => line.includes('instrumentation'))).toEqual([]);
    expect(measured.failures).toHaveLength(2);
    for (const failure of measured.failures) expect(failure).toMatch(/callgrind wrote no dump at the marker/);
  });

  it("runs every counted process with libuv's pool of one thread (COUNTED_ENV) and the kernel's address randomization off", async () => {
    // A valgrind that writes down the pool size it was started with and its personality: the module graph's reads
    // finish in the order asked only with one thread (callgrind.ts COUNTED_ENV), so a pool of four here must not reach
    // the process; and setarch -R (callgrind.ts unrandomized) sets ADDR_NO_RANDOMIZE (0x0040000) where it works.
    const folder = mkdtempSync(path.join(root, 'env-'));
    const seen = path.join(folder, 'seen');
    writeFileSync(
      path.join(folder, 'valgrind'),
      `#!/bin/sh\necho "pool=$UV_THREADPOOL_SIZE personality=$(cat /proc/$$/personality)" >> ${seen}\nexec ${fake} "$@"\n`,
    );
    chmodSync(path.join(folder, 'valgrind'), 0o755);
    const before = process.env.UV_THREADPOOL_SIZE;
    process.env.UV_THREADPOOL_SIZE = '4';
    try {
      await measureCounts({ ...plan, valgrind: path.join(folder, 'valgrind'), parallel: 1 });
    } finally {
      if (before === undefined) delete process.env.UV_THREADPOOL_SIZE;
      else process.env.UV_THREADPOOL_SIZE = before;
    }
    const pools = readFileSync(seen, 'utf8').trim().split('\n');
    // Two seeds a revision, and the first process started again from its start (no vgdb beside this valgrind).
    expect(pools).toHaveLength(5);
    // Where setarch works (this machine, GitHub's runners) the personality is ADDR_NO_RANDOMIZE; where it is refused (a
    // container's seccomp profile) valgrind starts as it is, and the log says so (unrandomized).
    const prefix = unrandomized();
    expect([[], ['setarch', os.machine(), '-R']]).toContainEqual(prefix);
    expect(new Set(pools)).toEqual(new Set([`pool=1 personality=${prefix.length ? '00040000' : '00000000'}`]));
  });

  it('starts no process after the deadline, and leaves those seeds out of every figure', async () => {
    const measured = await measureCounts({ ...plan, valgrind: fake, deadline: 0, now: () => 1 });
    expect(measured.skipped).toEqual([1, 2]);
    expect(measured.seeds).toEqual([]);
    expect(measured.processes).toBe(0);
    expect(measured.benchmarks).toEqual([]);
  });
});

describe('seedOrder', () => {
  it("keeps the first seed's order as declared and gives other seeds a fixed shuffle of their own", () => {
    const files = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    expect(seedOrder(files, 1)).toEqual(files);
    expect(seedOrder(files, 2)).toEqual(seedOrder(files, 2));
    expect([...seedOrder(files, 2)].sort()).toEqual(files);
    const orders = new Set([2, 3, 4, 5].map((seed) => seedOrder(files, seed).join('')));
    expect(orders.size).toBe(4);
    expect(orders.has(files.join(''))).toBe(false);
  });
});

describe('collect: every bench file gets a row, and no uncounted task reads as new or removed', () => {
  const job = (label: 'base' | 'head', seed: number, files: string[]): Job => ({ revision: revision(label), files, seed });
  const count = (id: string, instructions = 100) => ({ id, instructions, floor: instructions, calls: 10, steady: true });

  it('gives a file that failed at the only revision that has it an error row', () => {
    const jobs = [
      job('base', 1, ['a.js']),
      job('head', 1, ['a.js', 'new.js']),
      job('base', 2, ['a.js']),
      job('head', 2, ['a.js', 'new.js']),
    ];
    const results = new Map<Job, Outcome>([
      [jobs[0]!, { counts: [count('a.js > x')] }],
      [jobs[1]!, { counts: [count('a.js > x')], fileErrors: { 'new.js': 'new.js did not load: boom' } }],
      [jobs[2]!, { counts: [count('a.js > x')] }],
      [jobs[3]!, { counts: [count('a.js > x')], fileErrors: { 'new.js': 'new.js did not load: boom' } }],
    ]);
    const rows = collect(jobs, results);
    expect(rows.find((r) => r.id === 'a.js > x')).toMatchObject({ base: { instructions: [100, 100] }, head: { instructions: [100, 100] } });
    expect(rows.find((r) => r.id === 'a.js > x')!.error).toBeUndefined();
    expect(rows.find((r) => r.id === 'new.js')).toMatchObject({ file: 'new.js', error: 'head under seed 1: new.js did not load: boom' });
  });

  it("gives each bench file that did not load its own error, and leaves the others' rows theirs", () => {
    // A real project's three files of a harness benchgate does not run (fast-querystring's cronometro): each row read
    // all three files' errors joined, and a task removed at head read as the error of a file beside it.
    const loads = (files: string[]): Outcome => ({
      counts: [],
      fileErrors: Object.fromEntries(files.map((file) => [file, `${file} did not load: ${file} boom`])),
    });
    const jobs = [job('base', 1, ['a.js', 'b.js', 'c.js']), job('head', 1, ['a.js', 'b.js', 'c.js'])];
    const results = new Map<Job, Outcome>([
      [jobs[0]!, { ...loads(['b.js', 'c.js']), counts: [count('a.js > kept'), count('a.js > removed')] }],
      [jobs[1]!, { ...loads(['b.js', 'c.js']), counts: [count('a.js > kept')] }],
    ]);
    const rows = collect(jobs, results);
    expect(rows.find((r) => r.id === 'b.js')).toMatchObject({ error: 'base under seed 1: b.js did not load: b.js boom' });
    expect(rows.find((r) => r.id === 'c.js')).toMatchObject({ error: 'base under seed 1: c.js did not load: c.js boom' });
    expect(rows.find((r) => r.id === 'a.js > kept')!.error).toBeUndefined();
    const removed = rows.find((r) => r.id === 'a.js > removed')!;
    expect(removed.error).toBeUndefined();
    expect(removed).toMatchObject({ base: { instructions: [100] }, head: undefined });
  });

  it('makes a task declared under some seeds only an error, not new', () => {
    const jobs = [job('base', 1, ['a.js']), job('head', 1, ['a.js']), job('base', 2, ['a.js']), job('head', 2, ['a.js'])];
    const results = new Map<Job, Outcome>([
      [jobs[0]!, { counts: [count('a.js > x')] }],
      [jobs[1]!, { counts: [count('a.js > x'), count('a.js > y')] }],
      [jobs[2]!, { counts: [count('a.js > x')] }],
      [jobs[3]!, { counts: [count('a.js > x')] }],
    ]);
    const y = collect(jobs, results).find((r) => r.id === 'a.js > y')!;
    expect(y.error).toBe('head declared it under seed(s) 1 only, not 2');
  });

  it('names the revision a task failed at where the other counted it under every seed (errorAt), and none where both failed', () => {
    const jobs = [job('base', 1, ['a.js']), job('head', 1, ['a.js']), job('base', 2, ['a.js']), job('head', 2, ['a.js'])];
    const failing = (label: 'base' | 'head') => (j: Job) => ({
      counts: [
        j.revision.label === label && j.seed === 2
          ? { ...count('a.js > x'), instructions: undefined, error: 'TypeError: boom' }
          : count('a.js > x'),
      ],
    });
    const atBase = collect(jobs, new Map<Job, Outcome>(jobs.map((j) => [j, failing('base')(j)])))[0]!;
    expect(atBase).toMatchObject({ error: 'base under seed 2: TypeError: boom', errorAt: 'base', head: { instructions: [100, 100] } });
    const atHead = collect(jobs, new Map<Job, Outcome>(jobs.map((j) => [j, failing('head')(j)])))[0]!;
    expect(atHead).toMatchObject({ error: 'head under seed 2: TypeError: boom', errorAt: 'head' });
    const both = collect(
      jobs,
      new Map<Job, Outcome>(jobs.map((j) => [j, { counts: [{ ...count('a.js > x'), instructions: undefined, error: 'boom' }] }])),
    )[0]!;
    expect(both.error).toBe('base under seed 1: boom');
    expect(both.errorAt).toBeUndefined();
  });

  it('keeps a task every seed declared at head only as new (no base side), counted', () => {
    const jobs = [job('base', 1, ['a.js']), job('head', 1, ['a.js']), job('base', 2, ['a.js']), job('head', 2, ['a.js'])];
    const results = new Map<Job, Outcome>(jobs.map((j) => [j, { counts: j.revision.label === 'head' ? [count('a.js > z', 50)] : [] }]));
    const z = collect(jobs, results).find((r) => r.id === 'a.js > z')!;
    expect(z.error).toBeUndefined();
    expect(z.base).toBeUndefined();
    expect(z.head?.instructions).toEqual([50, 50]);
  });
});
