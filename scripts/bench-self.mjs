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

// 4. What capturing a harness costs per call: the same two functions declared at base in benchgate's
// own default-export shape and at head through each harness (benchmark.js, tinybench, mitata, a
// mitata generator, vitest), compared by benchgate itself. The change is the capture's overhead,
// with its interval; every harness should read "unchanged".
if (process.env.CAPTURE !== '0') {
  const { execFileSync } = await import('node:child_process');
  const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
  const os = await import('node:os');
  const modules = fileURLToPath(new URL('../node_modules', import.meta.url));
  const work =
    'let n = 0;\nexport const id = () => \'f0e1d2c3-\' + (n = (n + 1) | 0);\nexport const parse = () => JSON.parse(\'{"id":7,"tags":["a","b"]}\');\n';
  const heads = {
    'default export': `import { id, parse } from '../src/work.mjs';\nexport default { id, parse };\n`,
    'benchmark.js': `import Benchmark from 'benchmark';\nimport { id, parse } from '../src/work.mjs';\nnew Benchmark.Suite().add('id', id).add('parse', parse).on('cycle', (e) => console.log(String(e.target))).run();\n`,
    tinybench: `import { Bench } from 'tinybench';\nimport { id, parse } from '../src/work.mjs';\nconst bench = new Bench();\nbench.add('id', id).add('parse', parse);\nawait bench.run();\nconsole.table(bench.table());\n`,
    mitata: `import { bench, run } from 'mitata';\nimport { id, parse } from '../src/work.mjs';\nbench('id', id);\nbench('parse', parse);\nawait run();\n`,
    'mitata generator': `import { bench, run } from 'mitata';\nimport { id, parse } from '../src/work.mjs';\nbench('id', function* () { yield id; });\nbench('parse', function* () { yield parse; });\nawait run();\n`,
    vitest: `import { bench } from 'vitest';\nimport { id, parse } from '../src/work.mjs';\nbench('id', id);\nbench('parse', parse);\n`,
  };
  console.log('\nCapture overhead per call: default export (base) against each harness (head), same functions, benchgate compare:');
  console.log('  harness            task    change   interval             verdict');
  for (const [harness, text] of Object.entries(heads)) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-capture-cost-'));
    const git = (...args) =>
      execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@example.invalid', ...args], { cwd: dir, stdio: 'ignore' });
    mkdirSync(path.join(dir, 'src'));
    mkdirSync(path.join(dir, 'bench'));
    writeFileSync(path.join(dir, 'src/work.mjs'), work);
    writeFileSync(path.join(dir, 'package.json'), '{ "name": "capture-cost", "private": true, "type": "module" }\n');
    writeFileSync(path.join(dir, '.gitignore'), 'node_modules\nr.json\n');
    // Each checkout links benchgate's own dev dependencies: the harnesses, without an install.
    writeFileSync(path.join(dir, 'benchgate.yml'), `budget: 2%\ninstall: ln -s ${modules} node_modules\nmicro:\n  files: bench/*.mjs\n`);
    writeFileSync(path.join(dir, 'bench/work.mjs'), heads['default export']);
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'default export');
    writeFileSync(path.join(dir, 'bench/work.mjs'), text);
    git('commit', '-q', '--allow-empty', '-am', harness);
    spawnSync(process.execPath, [cli, 'compare', '--base', 'main', '--head', 'HEAD', '--profile', 'never', '--json', 'r.json'], {
      cwd: dir,
      stdio: 'ignore',
    });
    const report = JSON.parse(readFileSync(path.join(dir, 'r.json'), 'utf8'));
    rmSync(dir, { recursive: true, force: true });
    for (const b of report.benchmarks) {
      const c = b.change;
      const interval = c ? `[${pct(c.low, 2)}, ${pct(c.high, 2)}]` : '';
      console.log(
        `  ${harness.padEnd(18)} ${b.id.split(' > ').at(-1).padEnd(7)} ${c ? pct(c.estimate, 2).padStart(7) : '      -'}  ${interval.padEnd(20)} ${b.verdict}`,
      );
    }
  }
}
