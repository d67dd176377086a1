// EVALUATE=suite npm run evaluate: the gate on fixtures/suite (24 tasks of 0.1–10 µs in 8 tinybench files, budget 1%),
// whose head slows six tasks by 3%, 5% and 10%. It measures those six changes in place, then runs
// RUNS single-job compares, SHARDED runs of 4 shards (one after another, as 4 matrix jobs would run side
// by side) merged into one report, and RUNS_AA A/A compares (head-aa: a README change), and prints per
// run the resolvable change per benchmark and which changes were caught. TIME_LIMIT (3m) bounds each
// compare or shard, TIME_LIMIT_AA (default TIME_LIMIT) each A/A compare; AA_SHARDED=1 runs the A/A in 4 shards.
// COPIES=9 makes the suite 9 times larger (216 tasks: each bench file also as <name>-2 … -9, the six changed tasks
// changed in every copy); SHARDS (4) sets the shards of a sharded run, PARALLEL=2 runs that many at a time (on
// this 2-core machine, each shard a core). KEEP=<folder> keeps each single-job report there (run-<n>.json).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixturesDir, makeFixtureRepo } from './fixture-repo.mjs';
import { machine } from './evaluate-lib.mjs';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const runs = Number(process.env.RUNS ?? 3);
const sharded = Number(process.env.SHARDED ?? 1);
const runsAA = Number(process.env.RUNS_AA ?? 3);
const timeLimit = process.env.TIME_LIMIT ?? '3m';
const timeLimitAA = process.env.TIME_LIMIT_AA ?? timeLimit;
const aaShards = process.env.AA_SHARDED === '1' ? 4 : 1;
const SHARDS = Number(process.env.SHARDS ?? 4);
const copies = Number(process.env.COPIES ?? 1);
const parallel = Number(process.env.PARALLEL ?? 1);

/** The six changed tasks, called as their bench files call them, and the loss each was sized for. */
export const CHANGED = [
  {
    id: 'bench/router.bench.mjs > router > param route',
    size: 0.03,
    call: (m, d) => () => m.lookup(d.router, 'GET', '/users/42/orders/9001'),
  },
  { id: 'bench/text.bench.mjs > text > slugify', size: 0.03, call: (m, d) => () => m.slugify(d.title) },
  { id: 'bench/query.bench.mjs > query > parse', size: 0.05, call: (m, d) => () => m.parseQuery(d.query) },
  { id: 'bench/dates.bench.mjs > dates > parse http date', size: 0.05, call: (m, d) => () => m.parseHttpDate(d.whenText) },
  { id: 'bench/json.bench.mjs > json > serialize order', size: 0.1, call: (m, d) => () => m.serializeOrder(d.order) },
  { id: 'bench/ids.bench.mjs > ids > ulid', size: 0.1, call: (m) => () => m.ulid() },
];

/**
 * The true loss of each changed task: base and head imported in one process, blocks of each (the median
 * time per call over 101 batches of ~20 µs) alternated AB BA, 30 pairs after 10 warm-up pairs; 1 − the
 * median of the paired ratios (base time ÷ head time, i.e. head ÷ base throughput).
 * Repeated in `processes` processes (two copies of identical code differ by a per-process offset of
 * about a point for a 1 µs task): per task, the median over processes and their range.
 */
export function measureChanges(processes = 5) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-suite-truth-'));
  cpSync(path.join(fixturesDir, 'suite', 'base'), path.join(dir, 'base'), { recursive: true });
  cpSync(path.join(fixturesDir, 'suite', 'base'), path.join(dir, 'head'), { recursive: true });
  cpSync(path.join(fixturesDir, 'suite', 'head'), path.join(dir, 'head'), { recursive: true });
  const script = `const load = async (side) => [await import('./' + side + '/src/index.js'), await import('./' + side + '/bench/data.mjs')];
const [base, head] = [await load('base'), await load('head')];
const calls = [${CHANGED.map((task) => task.call.toString()).join(', ')}];
// A block: 101 batches of ~20 µs, its figure the median batch's time per call (a preempted batch is an outlier, not the figure).
const batchSize = (f) => { let n = 1; for (;;) { const t = performance.now(); for (let i = 0; i < n; i++) f(); if (performance.now() - t > 0.02) return n; n *= 2; } };
const block = (f, n) => { const times = []; for (let b = 0; b < 101; b++) { const t = performance.now(); for (let i = 0; i < n; i++) f(); times.push(performance.now() - t); } return times.sort((x, y) => x - y)[50] / n; };
const losses = calls.map((call) => {
  const [a, b] = [call(...base), call(...head)];
  for (let i = 0; i < 200; i++) { a(); b(); }
  const n = batchSize(a);
  for (let i = 0; i < 10; i++) { block(a, n); block(b, n); }
  const ratios = [];
  for (let i = 0; i < 30; i++) {
    const [first, second] = i % 2 ? [block(b, n), block(a, n)] : [block(a, n), block(b, n)];
    ratios.push(i % 2 ? second / first : first / second);
  }
  ratios.sort((x, y) => x - y);
  return 1 - (ratios[14] + ratios[15]) / 2;
});
console.log(JSON.stringify(losses));`;
  writeFileSync(path.join(dir, 'truth.mjs'), script);
  const perProcess = [];
  for (let p = 0; p < processes; p++) {
    const result = spawnSync(process.execPath, ['truth.mjs'], { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`measuring the changes failed: ${result.stderr}`);
    perProcess.push(JSON.parse(result.stdout));
  }
  rmSync(dir, { recursive: true, force: true });
  return CHANGED.map((_, i) => {
    const losses = perProcess.map((losses) => losses[i]);
    return { loss: median(losses), low: Math.min(...losses), high: Math.max(...losses) };
  });
}

/** One `benchgate` command in the repository: its report (or null) and seconds taken. */
function gate(repo, args) {
  const started = Date.now();
  const result = spawnSync(process.execPath, [cli, ...args], { cwd: repo, encoding: 'utf8' });
  const seconds = (Date.now() - started) / 1000;
  const json = args[args.indexOf('--json') + 1];
  try {
    return { report: JSON.parse(readFileSync(path.join(repo, json), 'utf8')), seconds };
  } catch {
    throw new Error(`benchgate ${args.join(' ')} wrote no report (exit ${result.status}): ${result.stderr.slice(-2000)}`);
  }
}

const compareArgs = (limit) => ['compare', '--base', 'main', '--time-limit', limit, '--profile', 'never'];

/** A fresh copy of the fixture with head checked out and installed, as a CI job has it before `benchgate compare`. */
function checkout(head = 'head') {
  const repo = makeFixtureRepo('suite', { head, copies });
  execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: repo, stdio: 'ignore' });
  return repo;
}

let kept = 0;

/** A single-job compare of a fresh copy of the fixture. */
function singleRun(head, limit) {
  const repo = checkout(head);
  const { report, seconds } = gate(repo, [...compareArgs(limit), '--json', 'report.json']);
  // KEEP=<folder>: every run's report kept there (run-<n>.json), to read its rows again later.
  if (process.env.KEEP) writeFileSync(path.join(process.env.KEEP, `run-${++kept}.json`), JSON.stringify(report));
  rmSync(repo, { recursive: true, force: true });
  return { report, seconds, shardSeconds: [seconds] };
}

/** One `benchgate` command run in the background: resolves to its seconds (the report is read at merge). */
function gateAsync(repo, args) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: repo, stdio: 'ignore' });
    child.on('close', () => resolve((Date.now() - started) / 1000));
  });
}

/** Four shards, PARALLEL at a time, then merged; seconds: the longest shard (what 4 parallel jobs would take). */
async function shardedRun(head, limit) {
  const repo = checkout(head);
  const shardSeconds = [];
  for (let first = 1; first <= SHARDS; first += parallel) {
    const batch = Array.from({ length: Math.min(parallel, SHARDS - first + 1) }, (_, k) => first + k);
    shardSeconds.push(
      ...(await Promise.all(
        batch.map((i) => gateAsync(repo, [...compareArgs(limit), '--shard', `${i}/${SHARDS}`, '--json', `shard-${i}.json`])),
      )),
    );
  }
  const shards = Array.from({ length: SHARDS }, (_, i) => `shard-${i + 1}.json`);
  const { report } = gate(repo, ['merge', ...shards, '--json', 'merged.json']);
  rmSync(repo, { recursive: true, force: true });
  return { report, seconds: Math.max(...shardSeconds), shardSeconds };
}

/** The report's resolvable change, or half the interval's width when the report has none. */
const resolvable = (b) => b.resolvable ?? (b.change ? (b.change.high - b.change.low) / 2 : null);
const pct = (x, digits = 1) => (x === null || x === undefined ? '–' : `${(x * 100).toFixed(digits)}%`);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  return n ? (sorted[(n - 1) >> 1] + sorted[n >> 1]) / 2 : null;
};

/** One run's figures: resolvable per benchmark (median, worst), caught changes by size, false verdicts on untouched tasks. */
function figures({ report, seconds, shardSeconds }, changed) {
  const benchmarks = report.benchmarks.filter((b) => b.kind !== 'http');
  // A copy's id (bench/router-2.bench.mjs > …) is its original's with the copy's number in the file name.
  const original = (id) => id.replace(/-\d+(\.bench\.)/, '$1');
  const changedIds = new Set(benchmarks.map((b) => b.id).filter((id) => changed.has(original(id))));
  const resolvables = benchmarks.map(resolvable).filter((x) => x !== null);
  const caught = {};
  for (const id of changedIds) {
    const { size } = CHANGED.find((task) => task.id === original(id));
    caught[size] ??= [];
    caught[size].push(benchmarks.find((b) => b.id === id)?.verdict === 'regression');
  }
  const untouched = benchmarks.filter((b) => !changedIds.has(b.id));
  return {
    count: benchmarks.length,
    rounds: report.run.rounds,
    processes: report.run.processes,
    limited: report.run.limited,
    verdicts: Object.fromEntries(
      ['regression', 'improvement', 'unchanged', 'within-budget', 'inconclusive', 'unmeasured', 'error'].map((v) => [
        v,
        benchmarks.filter((b) => b.verdict === v).length,
      ]),
    ),
    medianResolvable: median(resolvables),
    worstResolvable: resolvables.length ? Math.max(...resolvables) : null,
    worstId: benchmarks.reduce((worst, b) => ((resolvable(b) ?? -1) > (resolvable(worst) ?? -1) ? b : worst), benchmarks[0])?.id,
    caught,
    falseVerdicts: untouched.filter((b) => b.verdict === 'regression' || b.verdict === 'improvement').map((b) => `${b.id}: ${b.verdict}`),
    fail: report.verdict === 'fail',
    load: report.environment?.loadAverage,
    seconds,
    shardSeconds,
  };
}

function printRun(label, f) {
  const caught = Object.entries(f.caught)
    .map(([size, hits]) => `${pct(Number(size), 0)} ${hits.filter(Boolean).length}/${hits.length}`)
    .join(', ');
  const load = f.load ? ` load ${f.load.before[0].toFixed(1)}→${f.load.after[0].toFixed(1)}` : '';
  console.log(
    `${label}: ${f.count} benchmarks, ${f.rounds} rounds${f.processes > f.rounds * 2 ? ` (${f.processes} processes)` : ''}${f.limited ? ' (time limit)' : ''}, ${f.shardSeconds.map((s) => `${s.toFixed(0)}s`).join(' + ')}${load}; ` +
      `resolvable median ${pct(f.medianResolvable)} worst ${pct(f.worstResolvable)} (${f.worstId}); ` +
      `${Object.entries(f.verdicts)
        .filter(([, n]) => n)
        .map(([v, n]) => `${n} ${v}`)
        .join(', ')}${caught ? `; caught ${caught}` : ''}${f.falseVerdicts.length ? `; FALSE: ${f.falseVerdicts.join(', ')}` : ''}`,
  );
}

function summaryRow(label, results, limit) {
  const all = (size) => results.flatMap((f) => f.caught[size] ?? []);
  const rate = (size) => `${all(size).filter(Boolean).length}/${all(size).length}`;
  const cells = [
    label,
    `${results.length} × ${limit}`,
    results.length
      ? `${pct(median(results.map((f) => f.medianResolvable)))} (${results.map((f) => pct(f.medianResolvable)).join(', ')})`
      : '–',
    results.length ? `${pct(Math.max(...results.map((f) => f.worstResolvable)))}` : '–',
    rate(0.03),
    rate(0.05),
    rate(0.1),
    `${results.filter((f) => f.falseVerdicts.length).length}/${results.length}`,
    results.length
      ? `${median(results.map((f) => f.seconds)).toFixed(0)}s / ${Math.max(...results.map((f) => f.seconds)).toFixed(0)}s`
      : '–',
  ];
  console.log(`| ${cells.join(' | ')} |`);
}

export async function evaluateSuite() {
  console.log(
    `benchgate evaluate (suite): ${machine()}; uptime: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const losses = measureChanges();
  if (copies > 1) console.log(`the suite ${copies} times over: ${copies * 24} tasks, the six changes in every copy`);
  if (parallel > 1) console.log(`shards ${parallel} at a time on this machine's ${os.cpus().length} cores`);
  console.log(
    'changes measured in place (1 − median of 30 paired throughput ratios, base and head alternated in one process; median over 5 processes and range):',
  );
  for (const [i, task] of CHANGED.entries())
    console.log(
      `  ${task.id}: sized ${pct(task.size, 0)}, measured ${pct(losses[i].loss)} (${pct(losses[i].low)} … ${pct(losses[i].high)})`,
    );
  const changed = new Set(CHANGED.map((task) => task.id));
  const single = [];
  for (let r = 0; r < runs; r++) {
    single.push(figures(singleRun('head', timeLimit), changed));
    printRun(`one job, run ${r + 1}/${runs}`, single.at(-1));
  }
  const shards = [];
  for (let r = 0; r < sharded; r++) {
    shards.push(figures(await shardedRun('head', timeLimit), changed));
    printRun(`${SHARDS} shards, run ${r + 1}/${sharded}`, shards.at(-1));
  }
  const aa = [];
  for (let r = 0; r < runsAA; r++) {
    aa.push(figures(aaShards > 1 ? await shardedRun('head-aa', timeLimitAA) : singleRun('head-aa', timeLimitAA), new Set()));
    printRun(`A/A${aaShards > 1 ? `, ${SHARDS} shards` : ''}, run ${r + 1}/${runsAA}`, aa.at(-1));
  }
  console.log(
    `\nuptime after: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    '| runs | count × time limit | median resolvable (per run) | worst resolvable | 3% caught | 5% caught | 10% caught | runs with a false verdict | median / max time |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  summaryRow('one job', single, timeLimit);
  summaryRow(`${SHARDS} shards`, shards, `${SHARDS} × ${timeLimit}`);
  summaryRow(aaShards > 1 ? `A/A (${SHARDS} shards)` : 'A/A (one job)', aa, aaShards > 1 ? `${SHARDS} × ${timeLimitAA}` : timeLimitAA);
}
