// EVALUATE=history npm run evaluate: history's targets (issue "History across commits"), on chains of commits of
// known cost (scripts/chain-repo.mjs), through the built CLI:
//   drift:   8 commits each costing 'work' 3% (every push passes a 5% budget); `benchgate drift` against the
//            first commit at a 10% drift budget, RUNS times: how often the drift is caught;
//   drift A/A: the same chain with no loss: how often drift raises a false alarm;
//   bisect:  16 commits, one step (1.5×, and 15% at a 5% budget) at a random commit: how often `benchgate bisect`
//            names it, and how many compares it took;
// RUNS (20) per scenario, BISECT_RUNS (RUNS) per bisect scenario, CONFIG (the quick config below) tune it.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeChainRepo } from './chain-repo.mjs';
import { machine } from './evaluate-lib.mjs';

const cli = process.env.CLI ?? fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const runs = Number(process.env.RUNS ?? 20);
const bisectRuns = Number(process.env.BISECT_RUNS ?? runs);
/** The budget every push is judged by; the compares run at the gate's defaults but for short tasks and one process a round. */
const CONFIG = process.env.CONFIG ?? 'budget: 5%\nmicro:\n  task-time: 30ms\n  processes: 1\n';
const WORK = 'bench/work.bench.js > work';

function cliRun(args, cwd) {
  const started = Date.now();
  const run = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { ...run, seconds: (Date.now() - started) / 1000 };
}

function drift(losses, label) {
  let caught = 0;
  let falseAlarms = 0;
  const estimates = [];
  const seconds = [];
  for (let i = 1; i <= runs; i++) {
    const { dir, commits } = makeChainRepo({ losses, config: CONFIG });
    const run = cliRun(['drift', '--anchor', commits[0], '--drift-budget', '10%', '--json', 'drift.json', '--history', 'none.jsonl'], dir);
    const report = JSON.parse(readFileSync(path.join(dir, 'drift.json'), 'utf8'));
    if (report.verdict === 'error') throw new Error(`${label} run ${i}: ${report.error}`);
    const work = report.benchmarks.find((b) => b.id === WORK);
    const steady = report.benchmarks.find((b) => b.id !== WORK);
    if (work.verdict === 'regression') caught++;
    falseAlarms += [work, steady].filter((b) => b.verdict === 'regression' && (b === steady || losses.every((l) => l === 0))).length;
    estimates.push(work.change?.estimate ?? NaN);
    seconds.push(run.seconds);
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(
      `  ${label} ${i}/${runs}: work ${work.verdict} ${(100 * (work.change?.estimate ?? NaN)).toFixed(1)}%, steady ${steady.verdict}, ${run.seconds.toFixed(0)} s\n`,
    );
  }
  return { label, runs, caught, falseAlarms, estimates, seconds };
}

function bisectScenario(step, label) {
  let named = 0;
  const compares = [];
  const seconds = [];
  const outcomes = {};
  for (let i = 1; i <= bisectRuns; i++) {
    const at = 1 + Math.floor(Math.random() * 16); // the commit (1..16) that makes the step
    const losses = Array.from({ length: 16 }, (_, k) => (k + 1 === at ? step : 0));
    const { dir, commits } = makeChainRepo({ losses, config: CONFIG });
    const run = cliRun(['bisect', '--good', commits[0], '--json', 'bisect.json'], dir);
    const result = JSON.parse(readFileSync(path.join(dir, 'bisect.json'), 'utf8'));
    const outcome = result.firstBad
      ? result.firstBad.commit.sha === commits[at]
        ? 'named'
        : 'wrong'
      : result.undecided
        ? 'undecided'
        : 'none';
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    if (outcome === 'named') named++;
    compares.push(result.compares);
    seconds.push(run.seconds);
    rmSync(dir, { recursive: true, force: true });
    process.stdout.write(
      `  ${label} ${i}/${bisectRuns}: step at ${at}, ${outcome}, ${result.compares} compares, ${run.seconds.toFixed(0)} s\n`,
    );
  }
  return { label, runs: bisectRuns, named, compares, seconds, outcomes };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function evaluateHistory() {
  console.log(`# History: drift and bisect on chains of commits of known cost, ${machine()}`);
  console.log(`config: ${CONFIG.replace(/\n/g, ' ')}`);
  const results = [];
  if (!process.env.SKIP_DRIFT) {
    results.push(drift(Array(8).fill(0.03), 'drift of 8 × 3%'));
    results.push(drift(Array(8).fill(0), 'drift A/A (8 untouched)'));
  }
  const bisects = [];
  if (!process.env.SKIP_BISECT) {
    bisects.push(bisectScenario(1 / 3, 'bisect 1.5× step in 16'));
    bisects.push(bisectScenario(0.15, 'bisect 15% step in 16'));
  }
  console.log('\n| scenario | runs | drift caught | false drift alarms | median estimate of work | median time per run |');
  console.log('|---|---|---|---|---|---|');
  for (const r of results)
    console.log(
      `| ${r.label} | ${r.runs} | ${r.caught} | ${r.falseAlarms} | ${(100 * median(r.estimates)).toFixed(1)}% | ${median(r.seconds).toFixed(0)} s |`,
    );
  console.log('\n| scenario | runs | first bad commit named | outcomes | compares (median, max) | median time per bisect |');
  console.log('|---|---|---|---|---|---|');
  for (const b of bisects)
    console.log(
      `| ${b.label} | ${b.runs} | ${b.named} | ${Object.entries(b.outcomes)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')} | ${median(b.compares)}, ${Math.max(...b.compares)} | ${median(b.seconds).toFixed(0)} s |`,
    );
  const out = process.env.OUT;
  if (out) writeFileSync(out, JSON.stringify({ results, bisects }, null, 2));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await evaluateHistory();
