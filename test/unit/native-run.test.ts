// compare --native-check's runs (src/measure/native/run.ts with dist/native.js preloaded): bench files run as their
// authors run them, in small projects whose node_modules link the real harness packages (benchgate's dev dependencies).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { nativeIds } from '../../src/measure/native/match.js';
import { runNative } from '../../src/measure/native/run.js';

const OBSERVER = fileURLToPath(new URL('../../dist/native.js', import.meta.url));
const MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'benchgate-native-test-'));
  dirs.push(root);
  mkdirSync(path.join(root, 'node_modules'));
  for (const name of ['benchmark', 'tinybench', 'mitata', 'lodash', 'platform', 'vitest'])
    if (existsSync(path.join(MODULES, name))) symlinkSync(path.join(MODULES, name), path.join(root, 'node_modules', name));
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'p', private: true }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const run = (root: string, file: string, harness?: string) =>
  runNative({ revision: 'head', root, file, observerPath: OBSERVER, tempDir: root, timeoutMs: 120_000, ...(harness ? { harness } : {}) });

/** Whether a process still runs (a zombie waiting for its reaper does not). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

describe("a bench file's own run with its author's flags", () => {
  it('passes them to node before the file: a file that needs gc() runs only with --expose-gc', async () => {
    const root = project({
      'bench/gc.mjs': `import { Bench } from 'tinybench'
if (typeof globalThis.gc !== 'function') throw new Error('run without --expose-gc')
const bench = new Bench({ time: 20 })
bench.add('after gc', () => { globalThis.gc; return 1 })
await bench.run()
`,
    });
    const without = await run(root, 'bench/gc.mjs');
    expect(without.problem).toMatch(/exited with code 1/);
    expect(without.records).toEqual([]);
    const withFlags = await runNative({
      revision: 'head',
      root,
      file: 'bench/gc.mjs',
      observerPath: OBSERVER,
      tempDir: root,
      timeoutMs: 120_000,
      nodeFlags: ['--expose-gc'],
    });
    expect(withFlags.problem).toBeUndefined();
    expect(withFlags.records.map((r) => r.name)).toEqual(['after gc']);
  });
});

describe("a bench file's own run, its harness's figures read", () => {
  it('reads benchmark.js, with each worker thread’s scenario named as benchgate names it', async () => {
    const root = project({
      'bench/suite.js': `const Benchmark = require('benchmark')
new Benchmark.Suite('router').add('lookup', () => Math.sqrt(2), { maxTime: 0.05, minSamples: 5 }).on('cycle', (e) => console.log(String(e.target))).run()
`,
      'bench/workers.js': `const { Worker } = require('node:worker_threads')
const names = ['static route', 'param', 'wild']
const longest = Math.max(...names.map((n) => n.length))
;(async () => {
  for (const name of names) {
    const worker = new Worker(__dirname + '/thread.js', { workerData: name.padEnd(longest, '.') })
    await new Promise((resolve) => worker.on('exit', resolve))
  }
})()
`,
      'bench/thread.js': `const { workerData } = require('node:worker_threads')
const Benchmark = require('benchmark')
Benchmark.Suite().add(workerData, () => Math.sqrt(3), { maxTime: 0.05, minSamples: 5 }).run()
`,
    });
    const suite = await run(root, 'bench/suite.js');
    expect(suite.problem).toBeUndefined();
    expect(nativeIds('bench/suite.js', suite.records).map((r) => r.id)).toEqual(['bench/suite.js > router > lookup']);
    expect(suite.records[0]).toMatchObject({ harness: 'benchmark.js', thread: 0 });
    expect(suite.records[0]!.opsPerSec).toBeGreaterThan(0);
    expect(suite.records[0]!.rme).toBeGreaterThan(0);
    const workers = await run(root, 'bench/workers.js');
    expect(workers.problem).toBeUndefined();
    expect(nativeIds('bench/workers.js', workers.records).map((r) => r.id)).toEqual([
      'bench/workers.js > static route',
      'bench/workers.js > param',
      'bench/workers.js > wild',
    ]);
    // Each from its own worker thread.
    expect(new Set(workers.records.map((r) => r.thread)).size).toBe(3);
    expect(workers.records.every((r) => r.thread > 0 && r.opsPerSec! > 0)).toBe(true);
  });

  it('reads tinybench (a named Bench) and mitata (a group), both ES modules', async () => {
    const root = project({
      'bench/ids.mjs': `import { Bench } from 'tinybench'
const bench = new Bench({ name: 'ids', time: 20 })
bench.add('counter', () => {})
await bench.run()
console.table(bench.table())
`,
      'bench/escape.mjs': `import { bench, group, run, do_not_optimize } from 'mitata'
group('escaping', () => { bench('escape', () => do_not_optimize('a&b'.replace('&', '&amp;'))) })
await run()
`,
    });
    const tiny = await run(root, 'bench/ids.mjs');
    expect(tiny.problem).toBeUndefined();
    expect(nativeIds('bench/ids.mjs', tiny.records).map((r) => r.id)).toEqual(['bench/ids.mjs > ids > counter']);
    expect(tiny.records[0]).toMatchObject({ harness: 'tinybench' });
    expect(tiny.records[0]!.opsPerSec).toBeGreaterThan(0);
    expect(tiny.records[0]!.samples).toBeGreaterThan(0);
    const mitata = await run(root, 'bench/escape.mjs');
    expect(mitata.problem).toBeUndefined();
    expect(nativeIds('bench/escape.mjs', mitata.records).map((r) => r.id)).toEqual(['bench/escape.mjs > escaping > escape']);
    expect(mitata.records[0]!.opsPerSec).toBeGreaterThan(0);
    expect(mitata.records[0]!.rme).toBeGreaterThan(0);
  });

  it('runs a vitest bench file under the revision’s vitest, its report read, only the file asked for', async () => {
    const bench = `import { bench, describe } from 'vitest'
bench('top', () => { Math.sqrt(2) }, { time: 20 })
describe('url > parse', () => {
  describe('deep', () => { bench('inner', () => { JSON.stringify({ a: 1 }) }, { time: 20 }) })
})
`;
    // vitest filters files by substring: other/bench/url.bench.mjs runs too, and is not this file's figures.
    const root = project({ 'bench/url.bench.mjs': bench, 'other/bench/url.bench.mjs': bench.replace("'top'", "'elsewhere'") });
    const outcome = await run(root, 'bench/url.bench.mjs', 'vitest');
    expect(outcome.problem).toBeUndefined();
    expect(nativeIds('bench/url.bench.mjs', outcome.records).map((r) => r.id)).toEqual([
      'bench/url.bench.mjs > top',
      'bench/url.bench.mjs > url > parse > deep > inner',
    ]);
    for (const record of outcome.records) {
      expect(record).toMatchObject({ harness: 'vitest', thread: 0 });
      expect(record.opsPerSec).toBeGreaterThan(0);
      expect(record.rme).toBeGreaterThan(0);
      expect(record.samples).toBeGreaterThan(0);
    }
    // A benchmark that throws: vitest 4 keeps it in its report without figures and exits 0; the record says so.
    const throws = project({
      'bench/boom.bench.mjs': "import { bench } from 'vitest'\nbench('boom', () => { throw new Error('kaput') }, { time: 20 })\n",
    });
    const boom = await run(throws, 'bench/boom.bench.mjs', 'vitest');
    expect(boom.records.map((r) => [r.name, r.opsPerSec, r.error])).toEqual([
      ['boom', undefined, 'vitest reported no figure for it (a benchmark that throws reads so)'],
    ]);
    // Killed at its timeout: the kill is the run's problem, not a missing report (which only a clean exit owes).
    const hangs = project({ 'bench/hang.bench.mjs': "import { bench } from 'vitest'\nbench('hang', () => { for (;;); }, { time: 20 })\n" });
    let pid = 0;
    const hung = await runNative({
      revision: 'base',
      root: hangs,
      file: 'bench/hang.bench.mjs',
      harness: 'vitest',
      observerPath: OBSERVER,
      tempDir: hangs,
      timeoutMs: 3000,
      onStart: (started) => (pid = started),
    });
    expect(hung.records).toEqual([]);
    expect(hung.problem).toBe(`did not finish within --native-timeout (3.0s): killed with its process group (pid ${pid})`);
    // Where the bench file resolves no vitest, nothing runs and the run says why.
    const bare = project({ 'bench/x.bench.mjs': bench });
    rmSync(path.join(bare, 'node_modules', 'vitest'));
    const missing = await run(bare, 'bench/x.bench.mjs', 'vitest');
    expect(missing.records).toEqual([]);
    expect(missing.problem).toBe('vitest is not installed where bench/x.bench.mjs resolves it: nothing to run it with');
  });

  it('keeps the figures of a run that then crashed, and says how it ended', async () => {
    const root = project({
      'bench/late.mjs': `import { Bench } from 'tinybench'
const bench = new Bench({ time: 10 })
bench.add('noop', () => {})
await bench.run()
throw new Error('printing failed')
`,
    });
    const outcome = await run(root, 'bench/late.mjs');
    expect(outcome.records.map((r) => r.name)).toEqual(['noop']);
    expect(outcome.problem).toMatch(/^exited with code 1; its last lines:\n[\s\S]*printing failed/);
  });
});

describe('a native run that never ends', () => {
  it('is killed at its timeout, with the processes it started, by its process group', async () => {
    const root = project({
      'bench/forever.js': `const { spawn } = require('node:child_process')
const { writeFileSync } = require('node:fs')
const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
writeFileSync(__dirname + '/grandchild.pid', String(child.pid))
setInterval(() => {}, 1000)
`,
    });
    let pid = 0;
    const outcome = await runNative({
      revision: 'base',
      root,
      file: 'bench/forever.js',
      observerPath: OBSERVER,
      tempDir: root,
      timeoutMs: 5000,
      onStart: (started) => (pid = started),
    });
    expect(outcome.problem).toBe(`did not finish within --native-timeout (5.0s): killed with its process group (pid ${pid})`);
    expect(pid).toBeGreaterThan(0);
    // The run itself is reaped before runNative resolves: its pid is gone.
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    // Its child died with its group (reaped by init, which may take a moment: a safety net, not a timing).
    const grandchild = Number(readFileSync(path.join(root, 'bench/grandchild.pid'), 'utf8'));
    for (let waited = 0; running(grandchild) && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
    expect(running(grandchild)).toBe(false);
  });
});
