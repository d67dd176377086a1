// npm run evaluate: runs the real gate many times on a generated project with known effects and prints
// the false-fail rate on A/A, the detection rate per effect size, the time to a verdict, and how close
// the estimate was to the truth. The slowdowns are injected busy work, sized and then measured in
// place: the task itself, with and without the extra work, alternated in one process.
// Not part of npm test: it takes minutes. RUNS_AA, RUNS_EFFECT, EFFECTS (throughput drops) and BUDGET tune it.
// EVALUATE=suite runs the gate on the 24-task suite fixture instead, one job and 4 shards (evaluate-suite.mjs);
// EVALUATE=repro the same compare of fixtures/router-suite RUNS times, and how well the runs agree (evaluate-repro.mjs);
// EVALUATE=neighbours whether a task's figure depends on the other tasks of its process (evaluate-neighbours.mjs);
// EVALUATE=history drift and bisect on chains of commits of known cost (evaluate-history.mjs).
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gitRepo, machine, rowLabel, sizeSlowdown, summary, timedCompare } from './evaluate-lib.mjs';
import { evaluateSuite } from './evaluate-suite.mjs';
import { evaluateRepro } from './evaluate-repro.mjs';
import { evaluateNeighbours } from './evaluate-neighbours.mjs';
import { evaluateHistory } from './evaluate-history.mjs';

const runsAA = Number(process.env.RUNS_AA ?? 6);
const runsEffect = Number(process.env.RUNS_EFFECT ?? 3);
const effects = (process.env.EFFECTS ?? '0.02,0.03,0.05,0.10,0.20,0.50').split(',').map(Number);
const budget = process.env.BUDGET ?? '1%';

const WORK = `import { createHash } from 'node:crypto';
export const busy = { k: 0 };
let sink = 0;
function spin(k) { for (let i = 0; i < k; i++) sink = (sink + i * 7) | 0; return sink; }
export function etag(body) { spin(busy.k); return createHash('sha1').update(body).digest('base64'); }
export function serialize(todo) { return JSON.stringify(todo); }
let counter = 0;
export function requestId() { counter = (counter + 1) | 0; return 'f0e1d2c3-b4a5-4697-' + counter; }
export { spin };
`;
const BENCH = (k) => `import { busy, etag, requestId, serialize } from '../src/work.js';
busy.k = ${k};
const todo = { id: 1, title: 'groceries', todos: [{ id: 1, title: 'milk' }, { id: 2, title: 'bread' }] };
export default {
  'etag of a body': () => etag('{"id":1,"title":"groceries"}'),
  'serialize a todo list': () => serialize(todo),
  'make request id': () => requestId(),
};
`;

/** Per-call time of the etag task and of one spin iteration, in one process: k for a given slowdown is their ratio. */
function measureCosts(dir) {
  const probe = `import { etag, spin } from './src/work.js';
const time = (f, n) => { for (let i = 0; i < n; i++) f(); const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) f(); return Number(process.hrtime.bigint() - t) / n; };
const call = Math.min(...Array.from({ length: 5 }, () => time(() => etag('{"id":1,"title":"groceries"}'), 200000)));
const iteration = Math.min(...Array.from({ length: 5 }, () => time(() => spin(1000), 20000))) / 1000;
console.log(JSON.stringify({ call, iteration }));`;
  writeFileSync(path.join(dir, 'probe.mjs'), probe);
  return JSON.parse(execFileSync(process.execPath, ['probe.mjs'], { cwd: dir, encoding: 'utf8' }));
}

/**
 * The true throughput drop of the etag task with k spin iterations: the task as the bench file calls it,
 * k = 0 and k alternated in 20 ms blocks in one process (so both see the same machine), median of the ratios.
 */
function measureTruth(dir, k) {
  const script = `import { busy, etag } from './src/work.js';
const block = (kk) => { busy.k = kk; let n = 0; const end = performance.now() + 20; while (performance.now() < end) { for (let i = 0; i < 100; i++) etag('{"id":1,"title":"groceries"}'); n += 100; } return n; };
for (let i = 0; i < 20; i++) { block(0); block(${k}); }
const ratios = [];
for (let i = 0; i < 80; i++) { const a = i % 2 ? block(${k}) : block(0); const b = i % 2 ? block(0) : block(${k}); ratios.push(i % 2 ? a / b : b / a); }
ratios.sort((x, y) => x - y);
console.log(1 - ratios[ratios.length >> 1]);`;
  writeFileSync(path.join(dir, 'truth.mjs'), script);
  return Number(execFileSync(process.execPath, ['truth.mjs'], { cwd: dir, encoding: 'utf8' }));
}

function makeRepo(k) {
  const files = {
    'package.json': '{ "name": "evaluate", "private": true, "type": "module" }\n',
    'src/work.js': WORK,
    'bench/work.bench.js': BENCH(0),
    'benchgate.yml': `budget: ${budget}\n`,
  };
  return gitRepo('benchgate-evaluate-', files, { 'bench/work.bench.js': BENCH(k) });
}

/** The 3-task project, its etag task slowed by each of EFFECTS. */
async function evaluateEffects() {
  const scratch = makeRepo(0);
  const costs = measureCosts(scratch);
  // Size k for each drop from the per-call costs, then correct it from the drop measured in place (the
  // extra time is not linear in k: the loop's cost inside the task differs from its cost alone).
  const sized = [];
  for (const drop of effects)
    sized.push(
      await sizeSlowdown(drop, Math.round(((1 / (1 - drop) - 1) * costs.call) / costs.iteration), (k) => measureTruth(scratch, k)),
    );
  rmSync(scratch, { recursive: true, force: true });
  console.log(`benchgate evaluate: ${machine()}, budget ${budget}`);
  console.log(`etag task ${costs.call.toFixed(0)} ns a call, one spin iteration ${costs.iteration.toFixed(2)} ns\n`);
  console.log(
    'effect on etag (measured)  runs  fails (regression)  inconclusive  other tasks flagged  median time  max time  median estimate',
  );
  const rows = [{ label: 'A/A', k: 0, runs: runsAA }, ...sized.map((size) => ({ label: rowLabel(size), k: size.k, runs: runsEffect }))];
  for (const { label, k, runs } of rows.filter((row) => row.runs > 0)) {
    let fails = 0;
    let others = 0;
    let inconclusive = 0;
    const times = [];
    const estimates = [];
    for (let r = 0; r < runs; r++) {
      const { report, seconds } = timedCompare(makeRepo(k));
      times.push(seconds);
      const etag = report.benchmarks.find((b) => b.id.endsWith('etag of a body'));
      if (etag?.verdict === 'regression') fails++;
      if (etag?.verdict === 'inconclusive') inconclusive++;
      if (etag?.change) estimates.push(etag.change.estimate);
      others += report.benchmarks.filter(
        (b) => !b.id.endsWith('etag of a body') && (b.verdict === 'regression' || b.verdict === 'improvement'),
      ).length;
    }
    const { median, max, estimate } = summary(times, estimates);
    console.log(
      `${label.padEnd(26)} ${String(runs).padStart(4)}  ${`${fails}/${runs}`.padStart(18)}  ${String(inconclusive).padStart(12)}  ${String(others).padStart(19)}  ${median.padStart(11)}  ${max.padStart(8)}  ${estimate}`,
    );
  }
}

if (process.env.EVALUATE === 'suite') await evaluateSuite();
else if (process.env.EVALUATE === 'repro') await evaluateRepro();
else if (process.env.EVALUATE === 'neighbours') await evaluateNeighbours();
else if (process.env.EVALUATE === 'history') await evaluateHistory();
else await evaluateEffects();
