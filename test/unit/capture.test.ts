// Harness capture in the benchmark process (dist/runner.js): bench files written for benchmark.js,
// tinybench, mitata, vitest and cronometro, each in a small project whose node_modules links the real
// packages (benchgate's own dev dependencies), loaded and measured as benchgate's runs do.
import { fork } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { FileLoad, IsolatedFiles, TaskOutcome } from '../../src/measure/micro/protocol.js';

const RUNNER = fileURLToPath(new URL('../../dist/runner.js', import.meta.url));
const MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A project with the given files and the real harness packages linked into its node_modules. */
function project(files: Record<string, string>, manifest: Record<string, unknown> = {}): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'benchgate-capture-'));
  dirs.push(root);
  mkdirSync(path.join(root, 'node_modules'));
  for (const name of ['benchmark', 'tinybench', 'mitata', 'vitest', 'lodash', 'platform'])
    if (existsSync(path.join(MODULES, name))) symlinkSync(path.join(MODULES, name), path.join(root, 'node_modules', name));
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'p', private: true, ...manifest }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

interface RunnerAnswer {
  files: FileLoad[];
  tasks: TaskOutcome[];
  output: string;
  fatal?: string;
  isolated?: IsolatedFiles;
}

/** One benchmark process: load (kind 'load'), measure briefly, or profile one task, as benchgate does. */
function runner(
  root: string,
  files: string[],
  measure: boolean | { task: string; outFile: string } | { decided?: string[]; isolates?: 'workers' | 'files'; reverse?: boolean } = false,
): Promise<RunnerAnswer> {
  return new Promise((resolve, reject) => {
    const child = fork(RUNNER, [], { cwd: root, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let answer: RunnerAnswer | undefined;
    const side = { revision: 'head', root, files };
    child.on(
      'message',
      (message: { type: string; files?: FileLoad[]; tasks?: TaskOutcome[]; message?: string; isolated?: IsolatedFiles }) => {
        if (message.type === 'ready')
          child.send(
            typeof measure === 'object' && 'task' in measure
              ? {
                  kind: 'profile',
                  sides: [side],
                  task: measure.task,
                  durationMs: 300,
                  intervalUs: 100,
                  outFiles: { [side.revision]: measure.outFile },
                }
              : measure
                ? {
                    sides: [side],
                    settings: { taskTimeMs: 20, blockMs: 1, warmupBlocks: 1, minSampleMs: 0.02, minBlocks: 2 },
                    batches: {},
                    skip: [],
                    ...(typeof measure === 'object' ? measure : {}),
                  }
                : { kind: 'load', sides: [side] },
          );
        if (message.type === 'profiled') answer = { files: [], tasks: [], output };
        if (message.type === 'result')
          answer = { files: message.files!, tasks: message.tasks!, output, ...(message.isolated ? { isolated: message.isolated } : {}) };
        if (message.type === 'fatal') answer = { files: [], tasks: [], output, fatal: message.message };
      },
    );
    child.once('error', reject);
    child.once('close', () => (answer ? resolve({ ...answer, output }) : reject(new Error(`no answer from the runner:\n${output}`))));
  });
}

const load = async (root: string, file: string) => (await runner(root, [file])).files[0]!;
const logOf = (root: string) => (existsSync(path.join(root, 'log')) ? readFileSync(path.join(root, 'log'), 'utf8').trim().split('\n') : []);
const LOG = `const log = (line) => require('node:fs').appendFileSync(require('node:path').join(__dirname, '..', 'log'), line + '\\n');`;
const LOG_ESM = `import { appendFileSync } from 'node:fs'; const log = (line) => appendFileSync(new URL('../log', import.meta.url), line + '\\n');`;

describe('benchmark.js', () => {
  it('collects a self-running suite with a deferred task and setup, and measures it', async () => {
    const root = project({
      'benchmark/bench.js': `'use strict'
${LOG}
const Benchmark = require('benchmark')
// How many deferred calls were ever waiting at once: 1 where each call waits for its resolve, as benchmark.js runs them.
let outstanding = 0
let most = 0
process.on('exit', () => log('most outstanding: ' + most))
new Benchmark.Suite('strings')
  .add('indexOf', function () { 'Hello World!'.indexOf('o') })
  .add('deferred', { defer: true, fn (deferred) { most = Math.max(most, ++outstanding); setImmediate(() => { outstanding--; deferred.resolve() }) } })
  .add('with setup', { setup () { log('setup') }, teardown () { log('teardown') }, fn () { return 1 + 1 } })
  .on('cycle', (event) => console.log(String(event.target)))
  .on('complete', function () { console.log('Fastest is ' + this.filter('fastest').map('name')) })
  .run({ async: true })
`,
    });
    const { files, tasks } = await runner(root, ['benchmark/bench.js'], true);
    expect(files[0]).toMatchObject({ harness: 'benchmark.js', tasks: ['strings > indexOf', 'strings > deferred', 'strings > with setup'] });
    expect(files[0]!.harnesses![0]!.path).toBe(realpathSync(path.join(root, 'node_modules/benchmark/benchmark.js')));
    for (const task of tasks) expect(task.error).toBeUndefined();
    // A deferred call is measured as one: each waits for its resolve (after a setImmediate) before the next begins, so
    // never more than one waits at once; a call timed as it returns would leave thousands waiting. (Counted, not timed:
    // a ratio of the two tasks' figures held quiet, but a loaded machine once measured indexOf 100× slower in its 20 ms.)
    const ops = Object.fromEntries(tasks.map((t) => [t.id, t.head!.opsPerSec]));
    expect(ops['benchmark/bench.js > strings > deferred']!).toBeGreaterThan(0);
    expect(logOf(root)).toEqual(['setup', 'teardown', 'most outstanding: 1']);
  });

  it('follows a chain of suites started from complete, and refuses code given as a string', async () => {
    const root = project({
      'chain.js': `const Benchmark = require('benchmark')
const second = new Benchmark.Suite().add('b', () => 2)
new Benchmark.Suite().add('a', () => 1).on('complete', () => second.run()).run()`,
      'string.js': `const Benchmark = require('benchmark')
new Benchmark.Suite().add('compiled', 'x = 1 + 1').run()`,
    });
    const { files } = await runner(root, ['chain.js', 'string.js']);
    expect(files[0]!.tasks).toEqual(['a', 'b']);
    expect(files[1]!.error).toContain("benchmark.js task 'compiled' gives its code as a string");
  });

  it('collects the tasks of one worker thread per scenario, with their workerData', async () => {
    const root = project({
      'benchmark/thread.js': `const { workerData, parentPort } = require('worker_threads')
const Benchmark = require('benchmark')
Benchmark.Suite().add(workerData.name, () => workerData.n * 2).on('cycle', (e) => parentPort.postMessage(String(e.target))).run()`,
      'benchmark/main.js': `const { Worker } = require('worker_threads')
const scenarios = [{ name: 'one', n: 1 }, { name: 'three', n: 3 }, { name: 'longer name', n: 5 }]
const longest = Math.max(...scenarios.map((s) => s.name.length))
async function main () {
  for (const s of scenarios) {
    await new Promise((resolve, reject) => {
      const worker = new Worker(require('path').join(__dirname, 'thread.js'), { workerData: { ...s, name: s.name.padEnd(longest, '.') } })
      worker.on('message', console.log)
      worker.on('error', reject)
      worker.on('exit', resolve)
    })
  }
}
main()`,
    });
    const { files } = await runner(root, ['benchmark/main.js', 'benchmark/thread.js']);
    // The padding dots of aligned names are not part of the names; the worker file is measured through main.js.
    expect(files[0]).toMatchObject({ file: 'benchmark/main.js', tasks: ['one', 'three', 'longer name'] });
    expect(files[1]).toMatchObject({ file: 'benchmark/thread.js', tasks: [], workerOf: 'benchmark/main.js' });
    expect(files[1]!.error).toBeUndefined();
  });

  it('gives a task that starts a worker when it is measured the real Worker', async () => {
    const root = project({
      'spawn.bench.mjs': `import { Worker, isMainThread } from 'node:worker_threads'
export default {
  'start a worker': () => new Promise((resolve, reject) => {
    const worker = new Worker('require("node:worker_threads").parentPort.postMessage(require("node:worker_threads").isMainThread)', { eval: true })
    worker.once('message', (inWorker) => (inWorker === false && isMainThread ? resolve() : reject(new Error('not a real worker'))))
    worker.once('error', reject)
  }),
}`,
    });
    const { tasks } = await runner(root, ['spawn.bench.mjs'], true);
    expect(tasks[0]!.error).toBeUndefined();
    expect(tasks[0]!.head!.calls).toBeGreaterThan(0);
  });

  it('says which worker failed to load, and refuses benchmarks in forked processes with the lines to write instead', async () => {
    const root = project({
      'broken.js': `const { Worker } = require('worker_threads')
new Worker(require('path').join(__dirname, 'thread.js'), { workerData: {} })`,
      'thread.js': `require('not-installed-anywhere')`,
      'forks.js': `require('child_process').fork(require('path').join(__dirname, 'child.js'))`,
    });
    const { files } = await runner(root, ['broken.js', 'forks.js']);
    expect(files[0]!.error).toContain("its worker thread.js failed to load: Error: Cannot find module 'not-installed-anywhere'");
    expect(files[1]!.error).toContain('it measures in child processes');
    expect(files[1]!.error).toContain('bench.add(scenario.name');
  });
});

describe('late errors', () => {
  it('names the file whose timer threw while another file loaded, not the file that was loading', async () => {
    const root = project({
      // Its timer throws once the next file is loading (its own tasks are collected by then), and b waits for it.
      'bench/a.mjs': `import { Bench } from 'tinybench'
const bench = new Bench({ time: 50 })
bench.add('a task', () => 1)
await bench.run()
// Throws only once b has begun to load, whatever the machine's pace: the order is made, not timed.
const timer = setInterval(function lateTimer() {
  if (!globalThis.bLoading) return
  clearInterval(timer)
  globalThis.aThrew = true
  throw new Error('a late timer of a')
}, 5)`,
      'bench/b.mjs': `import { Bench } from 'tinybench'
globalThis.bLoading = true
await new Promise((resolve) => {
  const wait = setInterval(() => globalThis.aThrew && (clearInterval(wait), resolve()), 5)
})
const bench = new Bench({ time: 50 })
bench.add('b task', () => 2)
await bench.run()`,
    });
    const { files } = await runner(root, ['bench/a.mjs', 'bench/b.mjs'], true);
    const notes = files.flatMap((f) => (f.notes ?? []).map((note) => `${f.file}: ${note}`));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(
      /^bench\/b\.mjs: while it loaded, bench\/a\.mjs threw \(set aside; a timer or callback of that file, not this one's code\): Error: a late timer of a$/,
    );
  });

  it('names the file whose timer crashed the process while another file ran, with its line', async () => {
    // Outside loading nothing is set aside: the process ends, and its message names where the throw came from.
    const root = project({
      'bench/a.mjs': `export default { 'a task': () => 1 }
const timer = setInterval(function lateTimer() {
  if (!globalThis.bRunning) return
  clearInterval(timer)
  throw new Error('a late timer of a')
}, 1)`,
      // Async: the event loop turns while it is measured, so timers fire then.
      'bench/b.mjs': `export default { 'b task': async () => { globalThis.bRunning = true; await new Promise((r) => setTimeout(r, 1)) } }`,
    });
    const { fatal } = await runner(root, ['bench/a.mjs', 'bench/b.mjs'], true);
    // (the frame's own name differs between Node versions: `Timeout.lateTimer [as _onTimeout]` on 20)
    expect(fatal).toMatch(
      /^uncaught exception while running 'bench\/b\.mjs > b task', from bench\/a\.mjs \(a timer or callback it left running\): Error: a late timer of a\n {4}at .*lateTimer.* \(bench\/a\.mjs:5:9\)$/,
    );
  });

  it("names the bench file whose timer called the project's code that threw, shown where it threw", async () => {
    const root = project({
      'lib/boom.mjs': `export function boom() {\n  throw new Error('thrown in the project')\n}\n`,
      'bench/a.mjs': `import { boom } from '../lib/boom.mjs'
export default { 'a task': () => 1 }
const timer = setInterval(function lateTimer() {
  if (!globalThis.bRunning) return
  clearInterval(timer)
  boom()
}, 1)`,
      'bench/b.mjs': `export default { 'b task': async () => { globalThis.bRunning = true; await new Promise((r) => setTimeout(r, 1)) } }`,
    });
    const { fatal } = await runner(root, ['bench/a.mjs', 'bench/b.mjs'], true);
    expect(fatal).toMatch(
      /^uncaught exception while running 'bench\/b\.mjs > b task', from bench\/a\.mjs \(a timer or callback it left running\): Error: thrown in the project\n {4}at boom \(lib\/boom\.mjs:2:9\)$/,
    );
  });

  it('names no other file when the file running threw it', async () => {
    const root = project({
      'bench/a.mjs': `export default { 'a task': () => 1 }`,
      'bench/b.mjs': `export default {
  'b task': async () => {
    globalThis.timer ??= setTimeout(function ownTimer() { throw new Error('its own timer') }, 1)
    await new Promise((r) => setTimeout(r, 1))
  },
}`,
    });
    const { fatal } = await runner(root, ['bench/a.mjs', 'bench/b.mjs'], true);
    expect(fatal).toMatch(
      /^uncaught exception while running 'bench\/b\.mjs > b task': Error: its own timer\n {4}at .*ownTimer.* \(bench\/b\.mjs:3:\d+\)$/,
    );
  });
});

describe('tinybench', () => {
  it('collects a self-running script, with the Bench name as its suite and Bench-level setup around each task', async () => {
    const root = project({
      'bench/ids.mjs': `import { Bench } from 'tinybench'
${LOG_ESM}
const bench = new Bench({ name: 'ids', time: 100, setup: (task, mode) => log('setup ' + task.name + ' ' + mode) })
bench.add('counter', () => 1).add('random', () => Math.random()).add('removed', () => 0)
bench.remove('removed')
await bench.run()
console.table(bench.table())
// Reading results benchgate never produces: set aside, not fatal.
console.log(bench.tasks[0].result.latency.mean.toFixed(2))`,
    });
    const { files, tasks } = await runner(root, ['bench/ids.mjs'], true);
    expect(files[0]).toMatchObject({ harness: 'tinybench', tasks: ['ids > counter', 'ids > random'] });
    expect(files[0]!.notes).toHaveLength(1);
    expect(files[0]!.notes![0]).toContain('after its tasks were collected it threw (set aside)');
    expect(tasks.map((t) => t.error)).toEqual([undefined, undefined]);
    expect(logOf(root)).toEqual(['setup counter run', 'setup random run']);
  });

  it('takes two tasks of one name as two benchmarks', async () => {
    const root = project({
      'dup.mjs': `import { Bench } from 'tinybench'
const a = new Bench(); a.add('noop', () => 1); await a.run()
const b = new Bench(); b.add('noop', () => 2); await b.run()`,
    });
    expect((await load(root, 'dup.mjs')).tasks).toEqual(['noop', 'noop (2)']);
  });
});

describe('mitata', () => {
  it('keeps groups, expands args, and runs a generator bench’s setup once and its teardown after', async () => {
    const root = project({
      'bench/m.mjs': `import { bench, group, summary, run, do_not_optimize } from 'mitata'
${LOG_ESM}
group('parse', () => {
  summary(() => {
    bench('JSON.parse', () => do_not_optimize(JSON.parse('{"a":1}')))
    bench('sum $size', function* (state) {
      const data = Array.from({ length: state.get('size') }, (_, i) => i)
      log('setup ' + data.length)
      yield () => data.reduce((a, b) => a + b, 0)
      log('teardown ' + data.length)
    }).args('size', [1, 8])
  })
})
bench('computed', function* () { yield { [0]() { return [3, 1, 2] }, bench(list) { return list.sort() } } })
await run()`,
    });
    const { files, tasks } = await runner(root, ['bench/m.mjs'], true);
    expect(files[0]).toMatchObject({ harness: 'mitata', tasks: ['parse > JSON.parse', 'parse > sum 1', 'parse > sum 8', 'computed'] });
    expect(tasks.map((t) => t.error)).toEqual([undefined, undefined, undefined, undefined]);
    expect(logOf(root)).toEqual(['setup 1', 'setup 8', 'teardown 1', 'teardown 8']);
  });

  it('answers require() as well as import', async () => {
    const root = project({ 'm.cjs': `const { bench, group } = require('mitata')\ngroup('g', () => bench('x', () => 1))` });
    // mitata is an ES module; require() of it needs Node's require(esm) (20.17+, 22.12+), else it is refused as Node refuses it.
    const loaded = await load(root, 'm.cjs');
    if (loaded.error) expect(loaded.error).toMatch(/ERR_REQUIRE_ESM|require\(\) of ES Module/);
    else expect(loaded.tasks).toEqual(['g > x']);
  });
});

/**
 * cronometro's shape (3.x to 6.x, an ES module: `export function cronometro`, `export default cronometro`, and
 * printResults beside it), written here as a package: benchgate does not depend on cronometro, whose later versions
 * need Node 22. Its cronometro throws: every call a bench file makes must reach benchgate's in its place.
 */
const CRONOMETRO = {
  'node_modules/cronometro/package.json': JSON.stringify({ name: 'cronometro', version: '3.0.2', type: 'module', exports: './index.js' }),
  'node_modules/cronometro/index.js':
    "export function cronometro() { throw new Error('the real cronometro ran') }\nexport function printResults() { return 'printed' }\nexport default cronometro\n",
};

describe('cronometro', () => {
  it("collects each call's tests in order, skips what it skips, and runs callbacks, promises and before/after", async () => {
    const root = project({
      ...CRONOMETRO,
      'benchmark/parse.mjs': `import benchmark, { printResults } from 'cronometro'
${LOG_ESM}
const input = 'a=1&b=2'
log('printResults ' + printResults())
const results = await benchmark(
  {
    plain() { return new URLSearchParams(input).get('a') },
    callback(cb) { setImmediate(() => { log('callback'); cb() }) },
    async promise() { await null; return input.split('&') },
    hooked: {
      before(cb) { log('before'); cb() },
      test() { return input.length },
      async after() { log('after') },
    },
    skipped: { test() { log('skipped ran') }, skip: true },
  },
  { iterations: 10, warmup: true },
)
log('results ' + JSON.stringify(results))
benchmark({ second() { return 2 } }, (error, results) => log('second done ' + error + ' ' + JSON.stringify(results)))
`,
    });
    const { files, tasks } = await runner(root, ['benchmark/parse.mjs'], true);
    expect(files[0]).toMatchObject({ harness: 'cronometro', tasks: ['plain', 'callback', 'promise', 'hooked', 'second'] });
    expect(tasks.map((t) => [t.id, t.error?.message, t.head!.opsPerSec > 0])).toEqual(
      ['plain', 'callback', 'promise', 'hooked', 'second'].map((name) => [`benchmark/parse.mjs > ${name}`, undefined, true]),
    );
    const log = logOf(root);
    // Loaded: its other exports are cronometro's own; each call answered as cronometro answers, with no results.
    expect(log.slice(0, 3)).toEqual(['printResults printed', 'results {}', 'second done null {}']);
    // Measured: the callback test's calls each waited for it, the hooks ran around the hooked test, the skipped one never.
    expect(log.filter((line) => line === 'callback').length).toBeGreaterThan(1);
    expect(log.indexOf('before')).toBeGreaterThan(2);
    expect(log.lastIndexOf('after')).toBeGreaterThan(log.indexOf('before'));
    expect(log).not.toContain('skipped ran');
  });

  it('answers require() as well as import, its named export too', async () => {
    const root = project({ ...CRONOMETRO, 'b.cjs': `const { cronometro } = require('cronometro')\ncronometro({ x() { return 1 } })\n` });
    // cronometro is an ES module; require() of it needs Node's require(esm) (20.19+, 22.12+), else it is refused as Node refuses it.
    const loaded = await load(root, 'b.cjs');
    if (loaded.error) expect(loaded.error).toMatch(/ERR_REQUIRE_ESM|require\(\) of ES Module/);
    else expect(loaded).toMatchObject({ harness: 'cronometro', tasks: ['x'] });
  });

  it('makes a test that calls back with an error, or rejects, an error row, not a figure', async () => {
    const root = project({
      ...CRONOMETRO,
      'b.mjs': `import cronometro from 'cronometro'
await cronometro({
  fine(cb) { setImmediate(cb) },
  calledBack(cb) { setImmediate(() => cb('no such key')) },
  async rejects() { throw new Error('parse failed') },
})
`,
    });
    const { tasks } = await runner(root, ['b.mjs'], true);
    expect(tasks.map((t) => [t.id, t.error?.message])).toEqual([
      ['b.mjs > fine', undefined],
      ['b.mjs > calledBack', expect.stringContaining("it called back with 'no such key'")],
      ['b.mjs > rejects', expect.stringContaining('parse failed')],
    ]);
  });

  it("answers 0.x's CommonJS require: the function itself, its other exports on it", async () => {
    const root = project({
      'node_modules/cronometro/package.json': JSON.stringify({ name: 'cronometro', version: '0.8.0', main: 'index.js' }),
      'node_modules/cronometro/index.js':
        "function cronometro() { throw new Error('the real cronometro ran') }\nmodule.exports = cronometro\nObject.assign(module.exports, { cronometro, default: cronometro, printResults: () => 'printed' })\n",
      'bench/c.js': `${LOG}\nconst cronometro = require('cronometro')\nlog(cronometro.printResults())\ncronometro({ a() { return 1 }, b: { test() { return 2 } } }, { print: false }, (error) => log('done ' + error))\n`,
    });
    expect(await load(root, 'bench/c.js')).toMatchObject({ harness: 'cronometro', tasks: ['a', 'b'] });
    expect(logOf(root)).toEqual(['printed', 'done null']);
  });

  it("makes a test it cannot run an error row naming it, and measures the call's other tests", async () => {
    const root = project({
      ...CRONOMETRO,
      'b.mjs': `import cronometro from 'cronometro'\nawait cronometro({ fine() {}, broken: 42, hooksOnly: { before(cb) { cb() } }, gone: null })\n`,
    });
    const { tasks } = await runner(root, ['b.mjs'], true);
    expect(tasks.map((t) => [t.id, t.error?.message])).toEqual([
      ['b.mjs > fine', undefined],
      ['b.mjs > broken', expect.stringContaining("cronometro test 'broken' is number, not a function or { test, before, after }")],
      ['b.mjs > hooksOnly', expect.stringContaining("cronometro test 'hooksOnly' has no test function (its test is undefined)")],
      ['b.mjs > gone', expect.stringContaining("cronometro test 'gone' is null")],
    ]);
  });

  it("runs the file's default export once, the setup cronometro's worker awaits before the tests; one that throws fails the file", async () => {
    const root = project({
      ...CRONOMETRO,
      'bench/setup.mjs': `import cronometro from 'cronometro'
${LOG_ESM}
let data
export default async function setup() { await null; data = JSON.stringify({ a: 1 }); log('setup') }
cronometro({ parse() { return JSON.parse(data).a } }, () => {})
`,
      'bench/broken.mjs': `import cronometro from 'cronometro'\nexport default () => { throw new Error('no fixtures') }\ncronometro({ x() {} })\n`,
    });
    const { tasks } = await runner(root, ['bench/setup.mjs'], true);
    expect(tasks.map((t) => [t.id, t.error?.message])).toEqual([['bench/setup.mjs > parse', undefined]]);
    expect(logOf(root)).toEqual(['setup']);
    expect((await load(root, 'bench/broken.mjs')).error).toMatch(
      /its default export, the setup cronometro runs before its tests, threw: Error: no fixtures/,
    );
  });
});

describe('vitest', () => {
  it('runs describe and bench without vitest: suites, hooks in vitest order, setup/teardown, skip and async describe', async () => {
    const root = project(
      {
        'test/url.bench.ts': `import { bench, describe, beforeAll, afterAll, beforeEach, afterEach } from 'vitest'
${LOG_ESM}
let input: string | undefined
beforeAll(() => { log('file beforeAll') })
describe('parse', () => {
  beforeAll(() => { input = 'a=1&b=2'; log('parse beforeAll'); return () => log('parse cleanup') })
  afterAll(() => log('parse afterAll'))
  beforeEach(() => log('parse beforeEach'))
  afterEach(() => log('parse afterEach'))
  bench('split', () => { input!.split('&') }, { setup: (_task: unknown, mode: string) => log('setup ' + mode), teardown: () => log('teardown') })
  bench('params', () => { new URLSearchParams(input) }, { time: 500 })
  bench.skip('skipped', () => {})
})
describe('later', async () => {
  await Promise.resolve()
  bench('after await', () => 1)
})`,
      },
      { type: 'module' },
    );
    const { files, tasks } = await runner(root, ['test/url.bench.ts'], true);
    expect(files[0]).toMatchObject({ harness: 'vitest', tasks: ['parse > split', 'parse > params', 'later > after await'] });
    expect(files[0]!.harnesses![0]!.path.startsWith(realpathSync(path.join(root, 'node_modules', 'vitest')))).toBe(true);
    expect(tasks.map((t) => t.error)).toEqual([undefined, undefined, undefined]);
    expect(logOf(root)).toEqual([
      'file beforeAll',
      'parse beforeAll',
      'parse beforeEach',
      'setup run',
      'teardown',
      'parse afterEach',
      'parse beforeEach',
      'parse afterEach',
      'parse cleanup',
      'parse afterAll',
    ]);
  });

  it("reads a bench file written for vitest's globals, without imports", async () => {
    const root = project({
      'g.bench.mjs': `describe('globals', () => { beforeAll(() => {}); bench('x', () => 1) })\nbench('top', () => 2)`,
    });
    const loaded = await load(root, 'g.bench.mjs');
    expect(loaded).toMatchObject({ harness: 'vitest', tasks: ['top', 'globals > x'] });
    expect(loaded.harnesses![0]!.path.startsWith(realpathSync(path.join(root, 'node_modules', 'vitest')))).toBe(true);
  });

  it('keeps only .only benches when a file has one, and vi is named as unavailable when used', async () => {
    const root = project({
      'a.bench.mjs': `import { bench, describe } from 'vitest'\ndescribe('s', () => { bench('a', () => 1); bench.only('b', () => 2) })`,
      'vi.bench.mjs': `import { bench, vi } from 'vitest'\nvi.fn()\nbench('x', () => 1)`,
    });
    const { files } = await runner(root, ['a.bench.mjs', 'vi.bench.mjs']);
    expect(files[0]!.tasks).toEqual(['s > b']);
    expect(files[1]!.error).toContain("'vi' is not available");
  });

  it('names a bench or suite given a function by its name, as vitest does (reselect), never by its source text', async () => {
    const root = project(
      {
        'fn.bench.mjs': `import { bench, describe } from 'vitest'
const weakMapMemoize = (a) => a
const renamed = Object.defineProperty(function memoized() { return 1 }, 'name', { value: 'lruMemoize' })
describe(function suiteByFunction() {}, () => {})
describe('selectors', () => {
  bench(weakMapMemoize, () => weakMapMemoize(1))
  bench(renamed, () => renamed())
  bench(Object.defineProperty(() => 2, 'name', { value: '' }), () => 2)
  bench(42, () => 3)
})
`,
      },
      { type: 'module' },
    );
    const { files } = await runner(root, ['fn.bench.mjs']);
    expect(files[0]!.error).toBeUndefined();
    expect(files[0]!.tasks).toEqual(['selectors > weakMapMemoize', 'selectors > lruMemoize', 'selectors > <anonymous>', 'selectors > 42']);
  });

  it('declares describe.each and describe.for suites as vitest names them, skips every skipped form, and imports a bare JSON file as vite does', async () => {
    const root = project(
      {
        'data/top.json': JSON.stringify({ cookies: ['a=1', 'b=2'], 'not-a-name': 1, default: 2 }),
        'src/each.bench.ts': `import { bench, describe, it, test } from 'vitest'
import top, { cookies } from '../data/top.json'
describe.each([[1, 'one'], [2, 'two']])('size %i (%s) #%#', (n: number, word: string) => { bench(word + n, () => n) })
describe.each([{ size: 10 }, { size: 100 }])('object $size', ({ size }: { size: number }) => { bench('x', () => size) })
describe.for([[3, 'three']])('for %s', ([n, word]: [number, string]) => { bench(word + n, () => n) })
describe.skip.each([1])('skipped %i', () => { bench('never', () => 0) })
describe.concurrent('flags', () => { bench.todo('todo'); bench.skip('skip', () => 0); bench('json', () => top.cookies.length + cookies.length) })
describe.skip('skipped plain', () => { bench('never', () => 0) })
describe.skip.concurrent('skipped chain', () => { bench('never', () => 0) })
describe.todo.skip('todo chain')
describe.skipIf(true).each([1])('skipped if %i', () => { bench('never', () => 0) })
describe.concurrent.sequential('chain', () => { bench('chained', () => 1) })
test.each([1, 2])('a test %i', () => {})
test.skipIf(false).concurrent('another test', () => {})
it.concurrent.only('a third', () => {})
`,
        'src/only.bench.ts': `import { bench, describe } from 'vitest'
describe('outside', () => { bench('not run', () => 0) })
describe.only.concurrent('inside', () => { bench('run', () => 1) })
`,
        // only wins over skip in vitest, in either order.
        'src/skip-only.bench.ts': `import { bench, describe } from 'vitest'
describe('outside', () => { bench('not run', () => 0) })
describe.skip.only('only wins', () => { bench('run', () => 1) })
describe.only.skip('either order', () => { bench('also run', () => 1) })
`,
        'src/bench-skip-only.bench.ts': `import { bench, describe } from 'vitest'
describe('s', () => { bench('a', () => 0); bench.skip.only('b', () => 1) })
`,
        'src/unsupported.bench.ts': `import { bench } from 'vitest'\n(bench as any).each([1])('x %i', () => 1)\n`,
        'src/table.bench.ts':
          "import { describe, bench } from 'vitest'\ndescribe.each`a | b\n${1} | ${2}`('t', () => bench('x', () => 1))\n",
      },
      { type: 'module' },
    );
    const { files } = await runner(root, [
      'src/each.bench.ts',
      'src/unsupported.bench.ts',
      'src/table.bench.ts',
      'src/only.bench.ts',
      'src/skip-only.bench.ts',
      'src/bench-skip-only.bench.ts',
    ]);
    expect(files[0]!.error).toBeUndefined();
    expect(files[0]!.tasks).toEqual([
      'size 1 (one) #0 > one1',
      'size 2 (two) #1 > two2',
      'object 10 > x',
      'object 100 > x',
      'for 3 > three3',
      'flags > json',
      'chain > chained',
    ]);
    // Nothing thrown after the tasks were collected either (a chain vitest allows, e.g. describe.skip.concurrent).
    expect(files[0]!.notes ?? []).toEqual([]);
    // describe.only with a modifier after it: only its suite, as vitest runs it.
    expect(files[3]!.error).toBeUndefined();
    expect(files[3]!.tasks).toEqual(['inside > run']);
    expect(files[4]!.tasks).toEqual(['only wins > run', 'either order > also run']);
    expect(files[5]!.tasks).toEqual(['s > b']);
    // A member vitest has but we do not provide is named, not a raw "is not a function"; so is a template table.
    expect(files[1]!.error).toMatch(/'bench\.each' is not supported/);
    expect(files[1]!.error).not.toMatch(/is not a function/);
    expect(files[2]!.error).toMatch(/describe\.each takes an array of cases here \(a template-literal table is not supported\)/);
  });

  it('names vitest, with its version, as the harness of every vitest file in a process, not only the first', async () => {
    const file = (name: string) => `import { bench, describe } from 'vitest'\ndescribe('${name}', () => { bench('x', () => 1) })\n`;
    const root = project({
      'a.bench.mjs': file('a'),
      'b.bench.mjs': file('b'),
      'c.bench.mjs': `import { Bench } from 'tinybench'\nconst b = new Bench()\nb.add('t', () => 1)\nawait b.run()\n`,
    });
    const { files } = await runner(root, ['a.bench.mjs', 'b.bench.mjs', 'c.bench.mjs']);
    expect(files.map((f) => [f.harness, f.harnesses?.map((h) => h.harness)])).toEqual([
      ['vitest', ['vitest']],
      ['vitest', ['vitest']],
      ['tinybench', ['tinybench']],
    ]);
    expect(files[1]!.harnesses![0]!.version).toBe(files[0]!.harnesses![0]!.version);
  });

  it("names tinybench, benchmark.js and mitata with their versions in every file of a process (fast-uri's later files read [tinybench])", async () => {
    const tiny = (name: string) =>
      `import { Bench } from 'tinybench'\nconst b = new Bench({ name: '${name}' })\nb.add('t', () => 1)\nawait b.run()\n`;
    const suite = (name: string) => `const Benchmark = require('benchmark')\nnew Benchmark.Suite('${name}').add('t', () => 1).run()\n`;
    const mitata = (name: string) =>
      `import { bench, group, run } from 'mitata'\ngroup('${name}', () => bench('t', () => 1))\nawait run()\n`;
    const root = project({
      't1.mjs': tiny('a'),
      't2.mjs': tiny('b'),
      'b1.cjs': suite('a'),
      'b2.cjs': suite('b'),
      'm1.mjs': mitata('a'),
      'm2.mjs': mitata('b'),
    });
    const { files } = await runner(root, ['t1.mjs', 't2.mjs', 'b1.cjs', 'b2.cjs', 'm1.mjs', 'm2.mjs']);
    const labels = files.map((f) => f.harnesses?.map((h) => `${h.harness}${h.version ? ` ${h.version}` : ''}`));
    for (const [i, label] of labels.entries()) {
      expect(label, files[i]!.file).toHaveLength(1);
      expect(label![0], files[i]!.file).toMatch(/^(tinybench|benchmark\.js|mitata) \d+\.\d+\.\d+/);
    }
    expect(labels[1]).toEqual(labels[0]);
    expect(labels[3]).toEqual(labels[2]);
    expect(labels[5]).toEqual(labels[4]);
  });

  it("says a build's output is missing, with paths inside the project, where ohash's src imported dist/ before a build", async () => {
    const root = project(
      {
        'src/index.mjs': "export * from '../dist/crypto.mjs'\n",
        'a.bench.mjs': "import { bench } from 'vitest'\nimport '../src/index.mjs'\nbench('x', () => 1)\n".replace('../src', './src'),
      },
      { type: 'module' },
    );
    const { files } = await runner(root, ['a.bench.mjs']);
    expect(files[0]!.error).toContain("Cannot find module 'dist/crypto.mjs' imported from src/index.mjs");
    expect(files[0]!.error).toContain("the build's output is missing at this revision: set build in benchgate.yml");
    expect(files[0]!.error).not.toContain(root);
  });

  it("suggests the project's build script through the package manager package.json names (reselect: yarn through corepack)", async () => {
    const root = project(
      {
        'src/index.mjs': "export * from '../dist/reselect.mjs'\n",
        'a.bench.mjs': "import { bench } from 'vitest'\nimport './src/index.mjs'\nbench('x', () => 1)\n",
      },
      { type: 'module', packageManager: 'yarn@4.4.1', scripts: { build: 'yarn clean && tsup' } },
    );
    const { files } = await runner(root, ['a.bench.mjs']);
    expect(files[0]!.error).toContain('set build in benchgate.yml, e.g. build: corepack yarn run build (its build script)');
    // No packageManager: the lockfile names it (fast-querystring's pnpm).
    const pnpm = project(
      {
        'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
        'src/index.mjs': "export * from '../dist/x.mjs'\n",
        'a.bench.mjs': "import { bench } from 'vitest'\nimport './src/index.mjs'\nbench('x', () => 1)\n",
      },
      { type: 'module', scripts: { build: 'tsup' } },
    );
    expect((await runner(pnpm, ['a.bench.mjs'])).files[0]!.error).toContain('e.g. build: corepack pnpm run build (its build script)');
  });

  it("says a build's output is missing where a bench package links the unbuilt project (dequal's bench/, file:../)", async () => {
    const root = project({
      'bench/node_modules/linked/package.json': JSON.stringify({ name: 'linked', main: 'dist/index.js' }),
      'bench/index.js': "require('linked')\nconst { Suite } = require('benchmark')\nnew Suite().add('x', () => 1).run()\n",
    });
    const { files } = await runner(root, ['bench/index.js']);
    expect(files[0]!.error).toContain("Cannot find module 'bench/node_modules/linked/dist/index.js'");
    expect(files[0]!.error).toContain("the build's output is missing at this revision: set build in benchgate.yml");
  });

  it('runs the tasks of a bare JSON import, and never shows the module graph it was loaded in', async () => {
    const root = project(
      {
        'data/top.json': '["a=1", "b=2"]',
        'bad.json': '{ nope',
        'a.bench.mjs': `import { bench } from 'vitest'\nimport top from './data/top.json'\nbench('n', () => top.length)\n`,
        'b.bench.mjs': `import { bench } from 'vitest'\nimport bad from './bad.json'\nbench('n', () => bad)\n`,
      },
      { type: 'module' },
    );
    const { files, tasks } = await runner(root, ['a.bench.mjs', 'b.bench.mjs'], true);
    expect(files[0]!.tasks).toEqual(['n']);
    expect(tasks.filter((t) => t.error)).toEqual([]);
    expect(files[1]!.error).toMatch(/bad\.json: not valid JSON/);
    expect(files[1]!.error).not.toContain('benchgate-graph');
  });

  it("reads the project's vitest config as vitest bench does: its aliases, setupFiles and define (reselect's alias to src/)", async () => {
    const root = project(
      {
        // resolve.alias as an object to an absolute path (a trailing-slash form too), test.alias as an array with a
        // RegExp, ahead of resolve.alias as vitest merges them; an ES module config using __dirname, as Vite allows; a
        // function config, called with vitest's env; a setup file without its extension.
        'vitest.config.ts': `import path from 'node:path'
import { defineConfig } from 'vitest/config'
export default defineConfig(({ mode }) => ({
  resolve: { alias: { '@lib': path.resolve(__dirname, 'src/lib'), '#/': path.resolve(__dirname, 'src') + '/', pkg: '/nowhere' } },
  test: {
    alias: [{ find: /^pkg$/, replacement: path.resolve(__dirname, 'src/index.ts') }, { find: 'root', replacement: '/src/lib' }],
    setupFiles: ['./bench/setup', './bench/matchers.ts', './bench/broken.ts'],
  },
  define: { __LIMIT__: '3', 'process.env.BENCH_MODE': JSON.stringify(mode), __EXPR__: 'Date.now()', 'window.X': 'true' },
}))
`,
        'src/lib/math.ts': 'export const double = (n: number): number => n * 2\n',
        'src/lib/index.ts': "export const fromIndex = 'index'\n",
        'src/index.ts': "export { double } from './lib/math.ts'\nexport const name = 'pkg from src'\n",
        'bench/setup.ts': '(globalThis as any).setupRuns = ((globalThis as any).setupRuns ?? 0) + 1\n',
        // reselect's setup: expect.extend through vitest's globals (no import), for tests a bench run never calls.
        'bench/matchers.ts': 'expect.extend({ toBeMemoized: () => ({ pass: true, message: () => "" }) })\n',
        'bench/broken.ts': "throw new Error('a DOM is needed')\n",
        'bench/alias.bench.ts': `import { bench, describe } from 'vitest'
import { double } from '@lib/math'
import { name } from 'pkg'
import { fromIndex } from 'root'
import { double as again } from '#/lib/math'
declare const __LIMIT__: number
describe(\`\${name} \${fromIndex} \${again(__LIMIT__)} \${process.env.BENCH_MODE} \${'window' in globalThis} setup \${(globalThis as any).setupRuns}\`, () => {
  bench('double', () => double(__LIMIT__))
})
`,
        'bench/second.bench.ts': `import { bench } from 'vitest'\nbench(\`setup \${(globalThis as any).setupRuns}\`, () => 1)\n`,
        // A plain script in the same project: no vitest config for it (node would not read one).
        'bench/plain.bench.mjs': `import { Bench } from 'tinybench'\nconst b = new Bench()\nb.add('plain', () => 1)\nawait b.run()\n`,
      },
      { type: 'module' },
    );
    const { files, tasks } = await runner(root, ['bench/alias.bench.ts', 'bench/second.bench.ts', 'bench/plain.bench.mjs'], true);
    expect(files.map((f) => f.error)).toEqual([undefined, undefined, undefined]);
    // Every alias resolved (an alias to a folder, a RegExp to a file, a root-relative path); define set; setup run before each file.
    expect(files[0]!.tasks).toEqual(['pkg from src index 6 benchmark false setup 1 > double']);
    expect(files[1]!.tasks).toEqual(['setup 2']);
    // A define that is code, or a dotted key vitest does not set (no window made), is said; a setup file that throws is
    // set aside and said; one that extends expect passes.
    const notApplied = (key: string) =>
      `vitest.config.ts: define '${key}' is not applied (benchgate sets a plain name's JSON value on globalThis and process.env.X, as vitest does)`;
    expect(files[0]!.notes).toEqual([
      expect.stringMatching(/^its setup file bench\/broken\.ts threw \(set aside\): Error: a DOM is needed/),
      notApplied('__EXPR__'),
      notApplied('window.X'),
    ]);
    expect(files[1]!.notes).toEqual([
      expect.stringMatching(/^its setup file bench\/broken\.ts threw/),
      notApplied('__EXPR__'),
      notApplied('window.X'),
    ]);
    expect(files[2]!.notes ?? []).toEqual([]);
    // The tasks ran, through the aliased modules.
    expect(tasks.filter((t) => t.error)).toEqual([]);
    expect(tasks.map((t) => t.id)).toContain('bench/alias.bench.ts > pkg from src index 6 benchmark false setup 1 > double');
  });

  it("reads the config the bench script names, and tsconfig's paths where the config uses vite-tsconfig-paths", async () => {
    const root = project(
      {
        // Not read: the bench script names another config.
        'vitest.config.mjs': 'export default { define: { __WHICH__: \'"default config"\' } }\n',
        'configs/vitest.bench.config.mjs':
          "const tsconfigPaths = () => ({ name: 'vite-tsconfig-paths' })\nexport default { plugins: [[tsconfigPaths()]], define: { __WHICH__: '\"bench config\"' } }\n",
        // Comments, a trailing comma, and the paths in the config it extends.
        'tsconfig.json':
          '{\n  // the project\'s\n  "extends": "./tsconfig.base.json", /* paths there */\n  "compilerOptions": { "strict": true, },\n}\n',
        'tsconfig.base.json':
          '{ "compilerOptions": { "baseUrl": ".", "paths": { "~lib/*": ["src/lib/*"], "config": ["src/config.mjs"] } } }\n',
        'src/lib/math.mjs': 'export const triple = (n) => n * 3\n',
        'src/config.mjs': "export const label = 'from paths'\n",
        'a.bench.mjs': `import { bench } from 'vitest'
import { triple } from '~lib/math'
import { label } from 'config'
bench(\`\${__WHICH__} \${label} \${triple(2)}\`, () => triple(2))
`,
      },
      { type: 'module', scripts: { bench: 'vitest bench --run --config ./configs/vitest.bench.config.mjs' } },
    );
    const { files } = await runner(root, ['a.bench.mjs']);
    expect(files[0]!.error).toBeUndefined();
    expect(files[0]!.tasks).toEqual(['bench config from paths 6']);
  });

  it("gives each vitest file its own config's aliases, and a file of another harness none, whatever loaded before", async () => {
    const config =
      "import path from 'node:path'\nexport default { resolve: { alias: { '@lib': path.resolve(import.meta.dirname, 'lib') } } }\n";
    // Its task imports through the alias again when it runs, after the other file's config was read: still its own.
    const bench = (own: string) =>
      "import { bench } from 'vitest'\nimport { which } from '@lib/which.mjs'\n" +
      `bench(which, async () => { const late = (await import('@lib/which.mjs')).which; if (late !== '${own}') throw new Error('late import: ' + late) })\n`;
    const root = project({
      'a/package.json': '{ "type": "module" }',
      'a/vitest.config.mjs': config,
      'a/lib/which.mjs': "export const which = 'a'\n",
      'a/x.bench.mjs': bench('a'),
      'b/package.json': '{ "type": "module" }',
      'b/vitest.config.mjs': config,
      'b/lib/which.mjs': "export const which = 'b'\n",
      'b/y.bench.mjs': bench('b'),
      // A tinybench script importing the name a config aliases: as node resolves it (a package of that name).
      'node_modules/@lib/which.mjs/package.json': '{ "name": "@lib/which.mjs", "type": "module", "main": "index.js" }',
      'node_modules/@lib/which.mjs/index.js': "export const which = 'the package'\n",
      'c.bench.mjs':
        "import { Bench } from 'tinybench'\nimport { which } from '@lib/which.mjs'\nconst b = new Bench()\nb.add(which, () => 1)\nawait b.run()\n",
    });
    const { files, tasks } = await runner(root, ['a/x.bench.mjs', 'b/y.bench.mjs', 'c.bench.mjs'], true);
    expect(files.map((f) => f.error)).toEqual([undefined, undefined, undefined]);
    expect(files.map((f) => f.tasks)).toEqual([['a'], ['b'], ['the package']]);
    expect(tasks.filter((t) => t.error)).toEqual([]);
    expect(tasks).toHaveLength(3);
  });

  it('reads the nearest config of each file, and says where two configs in one process define one name differently', async () => {
    const config = (value: string) => `export default { define: { __FLAVOUR__: ${JSON.stringify(value)} } }\n`;
    const bench = "import { bench } from 'vitest'\nbench(String(__FLAVOUR__), () => 1)\n";
    const root = project(
      {
        // Two packages, each run from its own folder (its package.json): each its own config.
        'a/package.json': '{ "type": "module" }',
        'a/vitest.config.mjs': config('"sweet"'),
        'a/x.bench.mjs': bench,
        'b/package.json': '{ "type": "module" }',
        'b/vite.config.mjs': config('"sour"'),
        'b/y.bench.mjs': bench,
      },
      { type: 'module' },
    );
    const { files } = await runner(root, ['a/x.bench.mjs', 'b/y.bench.mjs']);
    expect(files.map((f) => f.tasks)).toEqual([['sweet'], ['sour']]);
    expect(files[0]!.notes ?? []).toEqual([]);
    expect(files[1]!.notes).toEqual([
      expect.stringMatching(
        /^b\/vite\.config\.mjs: define '__FLAVOUR__' is "sour" here and "sweet" in a\/vitest\.config\.mjs read before it/,
      ),
    ]);
  });

  it('loads a vitest file without its config where the config fails, and says so where the file then fails', async () => {
    const root = project(
      {
        'vitest.config.mjs': "import 'not-installed-plugin'\nexport default { resolve: { alias: { '@lib': '/src' } } }\n",
        'src/x.mjs': 'export const x = 1\n',
        'a.bench.mjs': "import { bench } from 'vitest'\nbench('a', () => 1)\n",
        'b.bench.mjs': "import { bench } from 'vitest'\nimport { x } from '@lib/x.mjs'\nbench('b', () => x)\n",
      },
      { type: 'module' },
    );
    const { files } = await runner(root, ['a.bench.mjs', 'b.bench.mjs']);
    expect(files[0]!.tasks).toEqual(['a']);
    expect(files[0]!.notes).toEqual([
      expect.stringMatching(
        /^vitest\.config\.mjs was not read \(.*not-installed-plugin.*\): its aliases, setupFiles and define do not apply$/,
      ),
    ]);
    expect(files[1]!.error).toMatch(/@lib.*vitest\.config\.mjs was not read/s);
  });
});

describe('TypeScript', () => {
  const router = `import type { Server } from 'node:http'
export interface Route { path: string }
export class Router {
  private routes = new Map<string, Route>()
  add(path: string): void { this.routes.set(path, { path }) }
  find(path: string): Route | undefined { return this.routes.get(path) }
  fail(): never { throw new Error('no route') }
}
export type Listener = Server
`;
  it('strips types in place: a stack frame points at the .ts line and column', async () => {
    const root = project(
      {
        'src/router.ts': router,
        'bench/router.bench.ts': `import { Router } from '../src/router.js'\nconst r: Router = new Router()\nexport default { find: (): unknown => r.find('/'), fail: (): never => r.fail() }\n`,
      },
      { type: 'module' },
    );
    const { tasks } = await runner(root, ['bench/router.bench.ts'], true);
    expect(tasks[0]!.error).toBeUndefined();
    expect(tasks[1]!.error!.message).toContain('Error: no route\n    at Router.fail (src/router.ts:7:25)');
  });

  it('transforms enums and parameter properties with a source map, so frames still point at the .ts lines', async () => {
    const root = project({
      'src/kinds.ts': `export enum Kind { A, B }\nexport class Box {\n  constructor(private readonly kind: Kind) {}\n  open(): never {\n    throw new Error('closed ' + Kind[this.kind])\n  }\n}\n`,
      // No "type": a .ts file with import syntax is a module, as Node decides for .js.
      'bench/box.bench.ts': `import { Box, Kind } from '../src/kinds'\nexport default { open: () => new Box(Kind.B).open() }\n`,
    });
    const { tasks } = await runner(root, ['bench/box.bench.ts'], true);
    expect(tasks[0]!.error!.message).toMatch(/Error: closed B\n {4}at Box\.open \(src\/kinds\.ts:5:11\)/);
  });

  it('puts the CPU profile of a transformed file at its .ts lines', async () => {
    // Sixty loops: too big for V8 to inline into benchgate's loop, so spin keeps a frame of its own.
    const loops = Array.from({ length: 60 }, (_, i) => `    for (let i = 0; i < 20; i++) total += (i ^ ${i}) * this.kind % ${i + 7}`);
    const box = [
      'export enum Kind { A, B }',
      'export class Box {',
      '  constructor(private readonly kind: Kind) {}',
      '  spin(): number {',
      '    let total = 0',
      ...loops,
      '    return total',
      '  }',
      '}',
      '',
    ];
    const root = project({
      'src/box.ts': box.join('\n'),
      'bench/box.bench.ts': `import { Box, Kind } from '../src/box'\nconst box = new Box(Kind.B)\nexport default { spin: () => box.spin() }\n`,
    });
    const outFile = path.join(root, 'spin.cpuprofile');
    const answer = await runner(root, ['bench/box.bench.ts'], { task: 'spin', outFile });
    expect(answer.fatal).toBeUndefined();
    const profile = JSON.parse(readFileSync(outFile, 'utf8')) as {
      nodes: {
        callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
        positionTicks?: { line: number }[];
      }[];
    };
    const spins = profile.nodes.filter(
      (node) => node.callFrame.functionName.endsWith('spin') && node.callFrame.url.endsWith('/src/box.ts'),
    );
    expect(spins.length).toBeGreaterThan(0);
    // 0-based: `spin(): number {` is line 4, column 3 of box.ts; in the transformed code it is further down.
    for (const spin of spins) expect(spin.callFrame).toMatchObject({ lineNumber: 3, columnNumber: 2 });
    // Samples land inside spin, lines 4 to 67 of box.ts (1-based), never past the end of the function.
    const lines = spins.flatMap((spin) => (spin.positionTicks ?? []).map((tick) => tick.line));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line >= 4 && line <= 67, `line ${line}`).toBe(true);
  });

  it('loads .cts and .mts, and names the file and line of a syntax error', async () => {
    const root = project({
      'lib.cts': `exports.twice = (n: number): number => n * 2\n`,
      'a.bench.cts': `const { twice } = require('./lib.cts') as { twice: (n: number) => number }\nmodule.exports = { twice: (): number => twice(21) }\n`,
      // Each bench file has a module graph of its own: b imports lib.cts itself (through the hooks), not a's copy.
      'b.bench.mts': `import lib from './lib.cts'\nconst { twice } = lib as { twice: (n: number) => number }\nexport default { twice: (): number => twice(2) }\n`,
      'bad.bench.ts': `export default {\n  broken: (: number) => 1,\n}\n`,
    });
    const { files } = await runner(root, ['a.bench.cts', 'b.bench.mts', 'bad.bench.ts']);
    expect(files.map((f) => f.tasks)).toEqual([['twice'], ['twice'], []]);
    // Named inside the project (the checkout's path, a temporary worktree in a run, is left out).
    expect(files[2]!.error).toContain('SyntaxError: bad.bench.ts:2');
    expect(files[2]!.error).not.toContain(root);
  });

  it('captures the harness a .cts (or CommonJS .ts) file requires, in the process and in an isolate, with its enum lib', async () => {
    // Node gives a file whose source a load hook gave the module loader's require, which resolves a harness to its
    // file before the hooks see it: the real benchmark.js ran its suite past the capture ("it declares no task").
    const root = project({
      'lib.cts': `enum K { A = 2 }\nfunction twice(x: number): number { return x * K.A }\nmodule.exports = { twice }\n`,
      'bench/a.bench.cts': `const Benchmark = require('benchmark')\nconst { twice } = require('../lib.cts')\nconst suite = new Benchmark.Suite()\nsuite.add('twice', () => twice(21)).on('cycle', (e: { target: unknown }) => console.log(String(e.target))).run()\n`,
      'bench/b.bench.cts': `const { Bench } = require('tinybench') as typeof import('tinybench')\nconst bench = new Bench({ time: 10 })\nbench.add('half', () => 21 / 2)\nbench.run()\n`,
      // Not the harness's entry: a file of the package required by its path is the package's own file, not answered.
      'bench/c.bench.cts': `const manifest = require('benchmark/package.json')\nif (manifest.name !== 'benchmark') throw new Error('not the manifest')\nmodule.exports = { version: (): string => manifest.version }\n`,
    });
    const files = ['bench/a.bench.cts', 'bench/b.bench.cts', 'bench/c.bench.cts'];
    const ids = ['bench/a.bench.cts > twice', 'bench/b.bench.cts > half', 'bench/c.bench.cts > version'];
    for (const measure of [true, { isolates: 'files' as const }]) {
      const { files: loaded, tasks, output } = await runner(root, files, measure);
      expect(
        loaded.map((f) => [f.file, f.error, f.tasks]),
        output,
      ).toEqual([
        [files[0], undefined, ['twice']],
        [files[1], undefined, ['half']],
        [files[2], undefined, ['version']],
      ]);
      expect(loaded.map((f) => f.harness)).toEqual(['benchmark.js', 'tinybench', 'default export']);
      expect(tasks.map((t) => [t.id, t.error?.message, t.head!.opsPerSec > 0])).toEqual(ids.map((id) => [id, undefined, true]));
      // The suite never ran for real: benchmark.js prints a cycle line per task it times itself.
      expect(output).not.toMatch(/twice x [\d,.]+ ops\/sec/);
    }
  });
});

describe('a file that declares nothing benchgate knows', () => {
  it('gets an error naming the shapes benchgate accepts', async () => {
    const root = project({
      'plain.mjs': `const start = performance.now()\nfor (let i = 0; i < 1000; i++) Math.sqrt(i)\nconsole.log(performance.now() - start)\n`,
    });
    const loaded = await load(root, 'plain.mjs');
    expect(loaded.error).toContain('it declares no task. benchgate accepts:');
    for (const harness of ['benchmark.js suite', 'tinybench script', 'mitata file', 'vitest bench file', "benchgate's own"])
      expect(loaded.error).toContain(harness);
  });

  it('names a harness benchgate does not run (bench-node), not only "no task"', async () => {
    // A stand-in for bench-node: it would time each benchmark with its own Suite and timer; here it only returns.
    const root = project({
      'node_modules/bench-node/package.json': JSON.stringify({ name: 'bench-node', version: '0.6.0', main: 'index.js' }),
      'node_modules/bench-node/index.js': 'exports.Suite = class { add() { return this } async run() { return [] } }\n',
      'ids.mjs': `import { Suite } from 'bench-node'\nawait new Suite().add('uuid', () => Math.random()).run()\n`,
      // The name in a comment or a string of its own is not an import.
      'other.mjs': `// compare with bench-node later\nconst note = 'bench-node'\nexport {}\n`,
    });
    const loaded = await load(root, 'ids.mjs');
    expect(loaded.error).toMatch(/^Error: it uses bench-node, a harness benchgate does not run\. Declare each scenario as a task instead/);
    expect((await load(root, 'other.mjs')).error).toContain('it declares no task. benchgate accepts:');
  });
});

describe('module graphs and neighbours', () => {
  it('gives each bench file, and each worker a file starts, instances of its own of every module it imports', async () => {
    const root = project({
      // One CommonJS and one ES module shared by everything below: each logs every time it is evaluated.
      'src/shared.js': `${LOG}\nlog('shared.js')\nmodule.exports = { twice: (n) => n * 2 }\n`,
      'src/shared.mjs': `${LOG_ESM}\nlog('shared.mjs')\nexport const half = (n) => n / 2\n`,
      'bench/a.bench.mjs': `import { half } from '../src/shared.mjs'\nimport { createRequire } from 'node:module'\nconst { twice } = createRequire(import.meta.url)('../src/shared.js')\nexport default { a: () => twice(half(4)) }\n`,
      'bench/b.bench.mjs': `import { half } from '../src/shared.mjs'\nimport { createRequire } from 'node:module'\nconst { twice } = createRequire(import.meta.url)('../src/shared.js')\nexport default { b: () => twice(half(8)) }\n`,
      'benchmark/thread.js': `const { workerData } = require('worker_threads')
const Benchmark = require('benchmark')
const { twice } = require('../src/shared.js')
Benchmark.Suite().add(workerData.name, () => twice(workerData.n)).run()`,
      'benchmark/main.js': `const { Worker } = require('worker_threads')
;(async () => {
  for (const s of [{ name: 'one', n: 1 }, { name: 'two', n: 2 }, { name: 'three', n: 3 }])
    await new Promise((resolve) => new Worker(require('path').join(__dirname, 'thread.js'), { workerData: s }).on('exit', resolve))
})()`,
    });
    const { files, tasks } = await runner(root, ['bench/a.bench.mjs', 'bench/b.bench.mjs', 'benchmark/main.js'], true);
    expect(files.map((f) => f.tasks)).toEqual([['a'], ['b'], ['one', 'two', 'three']]);
    expect(tasks.map((t) => t.error)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    // Shared code is evaluated once per module graph: a, b, and each of the three workers (one process would share one copy).
    const log = logOf(root);
    expect(log.filter((line) => line === 'shared.js')).toHaveLength(5);
    expect(log.filter((line) => line === 'shared.mjs')).toHaveLength(2);
  });

  it("keeps a module's later require() in its own graph: a lazy require at measurement time gets its graph's instance", async () => {
    const root = project({
      // A registry filled when a file loads, and read lazily (a require inside the task) when it is measured.
      'src/registry.js': `module.exports = { names: [] }\n`,
      'src/lazy.js': `exports.count = () => require('./registry.js').names.length\n`,
      'bench/a.bench.js': `require('../src/registry.js').names.push('a')\nconst { count } = require('../src/lazy.js')\nmodule.exports = { a: () => { if (count() !== 1) throw new Error('a sees ' + count()); return 1 } }\n`,
      'bench/b.bench.js': `const r = require('../src/registry.js')\nr.names.push('b1', 'b2')\nconst { count } = require('../src/lazy.js')\nmodule.exports = { b: () => { if (count() !== 2) throw new Error('b sees ' + count()); return 1 } }\n`,
    });
    const { tasks } = await runner(root, ['bench/a.bench.js', 'bench/b.bench.js'], true);
    expect(tasks.map((t) => [t.id, t.error?.message])).toEqual([
      ['bench/a.bench.js > a', undefined],
      ['bench/b.bench.js > b', undefined],
    ]);
  });

  it('warms up a decided task when a measured task after it shares its module graph, and only then', async () => {
    // Each task logs its name the first time it runs in a process.
    const task = (name: string) =>
      `'${name}': (() => { let seen = false; return () => { if (!seen) { seen = true; log('${name}') } return '${name}'.length } })()`;
    const root = project({
      'bench/plain.bench.mjs': `${LOG_ESM}\nexport default { ${['a', 'b', 'c'].map(task).join(', ')} }\n`,
      'benchmark/thread.js': `${LOG}
const { workerData } = require('worker_threads')
const Benchmark = require('benchmark')
let seen = false
Benchmark.Suite().add(workerData, () => { if (!seen) { seen = true; log(workerData) } return 1 }).run()`,
      'benchmark/main.js': `const { Worker } = require('worker_threads')
;(async () => {
  for (const s of ['one', 'two'])
    await new Promise((resolve) => new Worker(require('path').join(__dirname, 'thread.js'), { workerData: s }).on('exit', resolve))
})()`,
    });
    const decided = ['bench/plain.bench.mjs > a', 'bench/plain.bench.mjs > c', 'benchmark/main.js > one'];
    const { tasks } = await runner(root, ['bench/plain.bench.mjs', 'benchmark/main.js'], { decided });
    // Only the open tasks are measured and reported.
    expect(tasks.map((t) => t.id)).toEqual(['bench/plain.bench.mjs > b', 'benchmark/main.js > two']);
    // a ran before b (same file, same graph); c comes after every measured task of its file; worker 'one' has a graph of its own.
    expect(logOf(root).sort()).toEqual(['a', 'b', 'two']);

    // In reverse (MicroJob.reverse), the last file first and each file's tasks last to first: c now runs before b and
    // warms up for it, a comes after every measured task of its file.
    rmSync(path.join(root, 'log'));
    const reversed = await runner(root, ['bench/plain.bench.mjs', 'benchmark/main.js'], { decided, reverse: true });
    expect(reversed.tasks.map((t) => t.id)).toEqual(['benchmark/main.js > two', 'bench/plain.bench.mjs > b']);
    expect(logOf(root)).toEqual(['two', 'c', 'b']);
  });
});

describe('isolates of their own (isolates.ts)', () => {
  // Each worker's file counts, on its realm's globalThis, the workers loaded before it there.
  const thread = `${LOG}
const { workerData } = require('worker_threads')
const Benchmark = require('benchmark')
globalThis.loads = (globalThis.loads ?? 0) + 1
log(workerData.name.replace(/\\.+$/, '') + ' ' + globalThis.loads)
if (workerData.name.startsWith('patches')) globalThis.patched = true
Benchmark.Suite().add(workerData.name, () => { if (globalThis.patched && !workerData.name.startsWith('patches')) throw new Error('it shares a realm with patches'); return 1 }).run()`;
  const main = `const { Worker } = require('worker_threads')
const names = ['patches', 'reads', 'reads 3', 'reads 4', 'reads 5', 'reads more']
;(async () => {
  for (const name of names)
    await new Promise((resolve) => new Worker(require('path').join(__dirname, 'thread.js'), { workerData: { name: name.padEnd(10, '.') } }).on('exit', resolve))
})()`;

  it('measures each worker in an isolate of its own that loads only that worker, by its place (names padded)', async () => {
    const root = project({ 'benchmark/thread.js': thread, 'benchmark/main.js': main });
    const shared = await runner(root, ['benchmark/main.js'], true);
    // One realm for every worker: what the first one put on globalThis, the next ones' tasks see.
    const names = ['patches', 'reads', 'reads 3', 'reads 4', 'reads 5', 'reads more'];
    const ids = names.map((name) => `benchmark/main.js > ${name}`);
    expect(shared.tasks.map((t) => [t.id, t.error?.message.split('\n')[0]])).toEqual(
      ids.map((id, i) => [id, i === 0 ? undefined : 'Error: it shares a realm with patches']),
    );
    rmSync(path.join(root, 'log'));
    const isolated = await runner(root, ['benchmark/main.js'], { isolates: 'workers' });
    expect(isolated.tasks.map((t) => [t.id, t.error?.message])).toEqual(ids.map((id) => [id, undefined]));
    expect(isolated.tasks.every((t) => t.head!.opsPerSec > 0)).toBe(true);
    // The process loads all six (the task list), then each isolate its own worker and no other: the sixth
    // too, after five that start and exit at once there.
    expect(logOf(root).sort()).toEqual([...names.map((name, i) => `${name} ${i + 1}`), ...names.map((name) => `${name} 1`)].sort());
    expect(isolated.isolated).toMatchObject({ files: ['benchmark/main.js'] });
  });

  it("measures a worker's suite and task, both padded to the longest scenario, in an isolate of its own", async () => {
    // fast-json-stringify's benchmark/bench.js: a worker per scenario, `new Bench({ name: padded })` and a task of the
    // same padded name. The process reads 'formatted date > formatted date' (the padding shared by every worker); an
    // isolate loads one worker, whose names alone cannot show it is padding: the suite's dots were held against it.
    const root = project(
      {
        'benchmark/thread.mjs': `import { workerData } from 'node:worker_threads'
import { Bench } from 'tinybench'
const bench = new Bench({ name: workerData.name, time: 10 })
const length = workerData.name.length
bench.add(workerData.name, () => length)
await bench.run()`,
        'benchmark/bench.mjs': `import { Worker } from 'node:worker_threads'
const names = ['formatted date', 'integer', 'long string without double quotes']
const longest = Math.max(...names.map((name) => name.length))
for (const name of names)
  await new Promise((resolve, reject) =>
    new Worker(new URL('./thread.mjs', import.meta.url), { workerData: { name: name.padEnd(longest + 10, '.') } }).on('exit', resolve).on('error', reject))
`,
      },
      { type: 'module' },
    );
    const ids = ['formatted date', 'integer', 'long string without double quotes'].map((name) => `benchmark/bench.mjs > ${name} > ${name}`);
    const isolated = await runner(root, ['benchmark/bench.mjs'], { isolates: 'workers' });
    expect(isolated.tasks.map((t) => [t.id, t.error?.message])).toEqual(ids.map((id) => [id, undefined]));
    expect(isolated.tasks.every((t) => t.head!.opsPerSec > 0)).toBe(true);
  });

  it('measures every file in isolates when one changed a builtin as it loaded, and says which', async () => {
    const root = project({
      'bench/a.bench.mjs': `const stringify = JSON.stringify\nJSON.stringify = (value) => stringify(value)\nexport default { a: () => JSON.stringify([1]) }\n`,
      'bench/b.bench.mjs': `export default { b: () => { if (JSON.stringify.name !== 'stringify') throw new Error('b sees a wrapped JSON.stringify'); return 1 } }\n`,
    });
    const { tasks, isolated } = await runner(root, ['bench/a.bench.mjs', 'bench/b.bench.mjs'], true);
    expect(tasks.map((t) => [t.id, t.error?.message])).toEqual([
      ['bench/a.bench.mjs > a', undefined],
      ['bench/b.bench.mjs > b', undefined],
    ]);
    expect(isolated).toMatchObject({
      files: ['bench/a.bench.mjs', 'bench/b.bench.mjs'],
      reason: "head's bench/a.bench.mjs changed builtins that both revisions share in one process (JSON.stringify replaced)",
    });
  });

  it('runs a file the same in the process and in an isolate when it changes nothing shared: no isolate unless asked', async () => {
    const root = project({ 'bench/c.bench.mjs': `export default { c: () => [1, 2].map((n) => n * 2) }\n` });
    const plain = await runner(root, ['bench/c.bench.mjs'], true);
    expect(plain.isolated).toBeUndefined();
    const asked = await runner(root, ['bench/c.bench.mjs'], { isolates: 'files' });
    expect(asked.tasks.map((t) => [t.id, t.error?.message])).toEqual([['bench/c.bench.mjs > c', undefined]]);
    expect(asked.isolated).toMatchObject({ files: ['bench/c.bench.mjs'] });
    expect(asked.isolated!.reason).toBeUndefined();
  });

  it('names the file and revision of an isolate whose task throws outside any call, and ends the process', async () => {
    const root = project({
      'bench/late.bench.mjs': `export default { late: () => { setTimeout(() => { throw new Error('late boom') }, 0); return 1 } }\n`,
    });
    const { fatal } = await runner(root, ['bench/late.bench.mjs'], { isolates: 'files' });
    expect(fatal).toMatch(/^bench\/late\.bench\.mjs \(head\) in its own isolate threw outside any task call: Error: late boom/);
    expect(fatal).toContain("(while running 'bench/late.bench.mjs > late')");
  });
});
