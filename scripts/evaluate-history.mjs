// EVALUATE=history npm run evaluate: history's targets (issue "History across commits"), on chains of commits of
// known cost (scripts/chain-repo.mjs), through the built CLI:
//   drift:   8 commits each costing 'work' 3% (every push passes a 5% budget); `benchgate drift` against the
//            first commit at a 10% drift budget, RUNS times: how often the drift is caught;
//   drift A/A: the same chain with no loss: how often drift raises a false alarm;
//   scale:   a history of 1,000 pushes of 20 benchmarks: its size, and how long `benchgate trend` takes over it;
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

/**
 * 1,000 pushes of 20 benchmarks, shaped as `record` writes them (rounded figures, a commit subject, tags): the
 * file's size, and the time `benchgate trend` takes to load and chain it and draw every picture, beyond the CLI's start.
 */
function historyAtScale() {
  const { dir, commits } = makeChainRepo({ losses: [0], config: CONFIG });
  const sha = (i) => i.toString(16).padStart(40, '0');
  const lines = [];
  for (let i = 1; i <= 1000; i++) {
    const last = i === 1000;
    lines.push(
      JSON.stringify({
        v: 1,
        gate: 'benchgate.yml',
        commit: last ? commits[1] : sha(i),
        parent: i === 1 ? commits[0] : sha(i - 1),
        date: '2026-11-24T10:00:00+00:00',
        recorded: '2026-11-24T10:05:00.000Z',
        subject: `Merge pull request #${i} from someone/some-branch-name`,
        tags: i % 100 === 0 ? [`v1.${i / 100}.0`] : [],
        parentTags: [],
        runner: { os: 'linux 6.8.0-1017-azure', arch: 'x64', cpus: 4, node: 'v24.11.0' },
        benchmarks: Array.from({ length: 20 }, (_, k) => ({
          id: `bench/router.bench.js > lookup scenario number ${k}`,
          verdict: 'unchanged',
          budget: 0.05,
          change: { estimate: -0.00123, low: -0.01234, high: 0.00987, confidence: 0.99875 },
          base: 12350000,
          head: 12330000,
        })),
      }),
    );
  }
  const file = path.join(dir, 'history.jsonl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const times = [];
  const starts = [];
  for (let i = 0; i < 5; i++) {
    const run = cliRun(['trend', '--history', 'history.jsonl', '--anchor', 'tag:none*'], dir);
    if (run.status !== 0) throw new Error(run.stderr);
    times.push(run.seconds);
    starts.push(cliRun(['--version'], dir).seconds);
  }
  const bytes = readFileSync(file).length;
  rmSync(dir, { recursive: true, force: true });
  return { bytes, seconds: median(times), start: median(starts) };
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
  const scale = historyAtScale();
  console.log(
    `\nhistory of 1,000 pushes of 20 benchmarks: ${(scale.bytes / 1024 / 1024).toFixed(2)} MB; \`benchgate trend\` over all of it ${scale.seconds.toFixed(2)} s, of which ${scale.start.toFixed(2)} s is the CLI starting (\`benchgate --version\`): ${(scale.seconds - scale.start).toFixed(2)} s to load, chain and draw (medians of 5)`,
  );
  const out = process.env.OUT;
  if (out) writeFileSync(out, JSON.stringify({ results, bisects }, null, 2));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await evaluateHistory();
