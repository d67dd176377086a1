// npm run bench: figures behind the README's "Measurement" section, printed, never asserted.
// 1. Both isolation modes on the fixtures: per-round spread of the log ratio, interval width, verdict, time.
// 2. Why batches: tinybench alone against benchgate's batched samples on fast functions.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { makeFixtureRepo } from './fixture-repo.mjs';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const repeats = Number(process.env.REPEATS ?? 3);
const fixtures = (process.env.FIXTURES ?? 'untouched,ids,serialization').split(',');
const modes = (process.env.MODES ?? 'alternate,process').split(',');

const sd = (xs) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
};
const pct = (x, digits = 1) => `${(x * 100).toFixed(digits)}%`;

console.log(
  `benchgate self-benchmark on ${process.version}, ${(await import('node:os')).cpus().length} cpus, ${new Date().toISOString().slice(0, 10)}\n`,
);
console.log('fixture        mode       task                         rounds  spread/round  CI width   verdict       time');
for (const fixture of fixtures) {
  for (const mode of modes) {
    for (let r = 0; r < repeats; r++) {
      const repo = makeFixtureRepo(fixture);
      const started = Date.now();
      spawnSync(process.execPath, [cli, 'compare', '--base', 'main', '--isolation', mode, '--json', 'r.json'], {
        cwd: repo,
        stdio: 'ignore',
      });
      const seconds = (Date.now() - started) / 1000;
      const report = JSON.parse(readFileSync(path.join(repo, 'r.json'), 'utf8'));
      rmSync(repo, { recursive: true, force: true });
      for (const b of report.benchmarks) {
        if (!b.change) continue;
        const spread = sd(b.rounds.map((x) => Math.log1p(x)));
        const task = b.id.split(' > ')[1].slice(0, 28);
        console.log(
          `${fixture.padEnd(14)} ${mode.padEnd(10)} ${task.padEnd(28)} ${String(report.run.rounds).padStart(6)}  ${pct(spread, 2).padStart(12)}  ${pct(b.change.high - b.change.low, 2).padStart(8)}   ${b.verdict.padEnd(12)} ${seconds.toFixed(1).padStart(5)}s`,
        );
      }
    }
  }
}

console.log('\nFast functions: tinybench timing every call, against benchgate batches (ops/s)');
let counter = 0;
const prefix = 'f0e1d2c3-b4a5-4697-8879-';
const tasks = { 'bare counter': () => counter++, 'counter id (hyperid-like)': () => prefix + (counter = (counter + 1) | 0) };
const bench = new Bench({ time: 500 });
for (const [name, fn] of Object.entries(tasks)) bench.add(name, fn);
await bench.run();
for (const task of bench.tasks)
  console.log(`  tinybench per call   ${task.name.padEnd(28)} ${(task.result.throughput.mean / 1e6).toFixed(1)}M ops/s`);
const batched = new Bench({ time: 500 });
for (const [name, fn] of Object.entries(tasks)) {
  const loop = new Function('fn', 'return function () { for (let i = 0; i < 2000; i++) fn(); }')(fn);
  batched.add(name, loop);
}
await batched.run();
for (const task of batched.tasks)
  console.log(`  batches of 2000      ${task.name.padEnd(28)} ${((2000 * 1000) / task.result.latency.mean / 1e6).toFixed(1)}M ops/s`);

// 3. Where the remaining micro noise comes from: two copies of the same module in one process (what
// alternate isolation runs), timed in long 20 ms blocks alternated AB BA, one figure per process.
// The figures differ between processes by far more than any clock could explain: the offset belongs
// to the process (code layout, JIT order), so only more processes average it out.
if (process.env.COPIES !== '0') {
  const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
  const os = await import('node:os');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-copies-'));
  const work =
    "import { createHash } from 'node:crypto';\nexport const etag = (body) => createHash('sha1').update(body).digest('base64');\nlet n = 0;\nexport const id = () => 'f0e1d2c3-' + (n = (n + 1) | 0);\n";
  for (const copy of ['a', 'b']) {
    mkdirSync(path.join(dir, copy));
    writeFileSync(path.join(dir, copy, 'work.mjs'), work);
  }
  writeFileSync(
    path.join(dir, 'offset.mjs'),
    `const [first, second] = process.argv[2] === '1' ? ['./b/work.mjs', './a/work.mjs'] : ['./a/work.mjs', './b/work.mjs'];
const copies = { [first]: await import(first), [second]: await import(second) };
const a = copies['./a/work.mjs'], b = copies['./b/work.mjs'];
const result = {};
for (const task of ['etag', 'id']) {
  const block = (m) => { let n = 0; const end = performance.now() + 20; while (performance.now() < end) { for (let i = 0; i < 100; i++) m[task]('{"id":1}'); n += 100; } return n; };
  for (let i = 0; i < 10; i++) { block(a); block(b); }
  const ratios = [];
  for (let i = 0; i < 40; i++) { const x = i % 2 ? block(b) : block(a); const y = i % 2 ? block(a) : block(b); ratios.push(i % 2 ? x / y : y / x); }
  ratios.sort((p, q) => p - q);
  result[task] = Math.log(ratios[ratios.length >> 1]);
}
console.log(JSON.stringify(result));`,
  );
  const processes = Number(process.env.COPIES ?? 12);
  const figures = Array.from({ length: processes }, (_, i) =>
    JSON.parse(spawnSync(process.execPath, ['offset.mjs', String(i % 2)], { cwd: dir, encoding: 'utf8' }).stdout),
  );
  rmSync(dir, { recursive: true, force: true });
  console.log(`\nTwo copies of identical code in one process, 20 ms blocks AB BA, ${processes} processes (ln ratio per process):`);
  for (const task of ['etag', 'id']) {
    const values = figures.map((f) => f[task]);
    console.log(`  ${task.padEnd(5)} ${values.map((x) => pct(x)).join(' ')}  spread ${pct(sd(values), 2)}`);
  }
}
