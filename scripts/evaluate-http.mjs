// npm run evaluate:http: the real gate, many times, on a generated HTTP server with known effects: A/A,
// and head slower by injected busy work per request, sized and then measured in place (both servers pinned to
// one core and loaded at once). Prints the false-fail rate, the detection rate, the time to a verdict and how
// close the estimate was, for each http-mode in MODES (default duet,live), the modes' runs interleaved so both
// see the same minutes of the machine. Not part of npm test: each run takes a minute or more.
// SERVER picks the server: todos (default: a node:http JSON list), or bare, express, fastify, hapi (one realistic
// route, POST /users/:id/orders with a JSON body and a tenant header, on each framework's own npm package at a pinned
// version: scripts/http-servers.mjs). REPO=<a git repo with main and feature> runs the gate RUNS_REPO times on a real
// change instead (head = feature), printing each run's estimate, interval, width and time.
// RUNS_AA, RUNS_EFFECT, EFFECTS (throughput drops), BUDGET and DURATION (load per revision per round; unset: the
// schedule the gate chooses per run) tune it;
// RUNS_WAIT adds runs where head only waits (a WAIT_MS timer per request, no extra CPU work; SERVER=todos only).
// KEEP_BLOCKS=file.jsonl appends each run's duet blocks (the report's http.blocks) and schedule, a line a run.
// RATE (a number or auto) makes the load test fixed-rate; LATENCY_BUDGET (e.g. 25%) adds a p50 latency budget.
// For each row it also prints which gated figure failed it (requests/s, requests per CPU-second of the servers'
// main threads, latency), the per-round spread (SD of the per-round log ratios) of both throughput figures on
// the same rounds, and the median of what a run resolves beyond the budget (of the figure the verdict is read from).
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { gitRepo, machine, rowLabel, sizeSlowdown, summary, timedCompare } from './evaluate-lib.mjs';
import { httpConfig, REQUEST, serverFiles } from './http-servers.mjs';

const runsAA = Number(process.env.RUNS_AA ?? 5);
const runsEffect = Number(process.env.RUNS_EFFECT ?? 5);
const effects = (process.env.EFFECTS ?? '0.10').split(',').map(Number);
const budget = process.env.BUDGET ?? '5%';
const duration = process.env.DURATION;
const kind = process.env.SERVER ?? 'todos';
const realRepo = process.env.REPO;
const runsWait = Number(process.env.RUNS_WAIT ?? 0);
const waitMs = Number(process.env.WAIT_MS ?? 1);
const rate = process.env.RATE;
const latencyBudget = process.env.LATENCY_BUDGET;
const modes = (process.env.MODES ?? 'duet,live').split(',');
const lastCpu = os.cpus().length - 1;

// A JSON route with a per-request cost; SPIN adds busy work (head's injected slowdown).
const SERVER = `import http from 'node:http';
const spin = Number(process.env.SPIN ?? SPIN_DEFAULT);
const wait = Number(process.env.WAIT ?? WAIT_DEFAULT);
const todos = Array.from({ length: 20 }, (_, i) => ({ id: i, title: 'todo ' + i, done: i % 3 === 0 }));
let sink = 0;
const server = http.createServer((req, res) => {
  for (let i = 0; i < spin; i++) sink = (sink + i * 7) | 0;
  res.setHeader('content-type', 'application/json');
  const answer = () => res.end(req.url === '/health' ? 'ok' : JSON.stringify(todos));
  if (wait > 0 && req.url !== '/health') setTimeout(answer, wait);
  else answer();
});
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
`;

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const load = (port, ms) =>
  new Promise((resolve, reject) =>
    autocannon(
      {
        url: `http://127.0.0.1:${port}${kind === 'todos' ? '/todos' : ''}`,
        connections: 10,
        duration: ms / 1000,
        sampleInt: 50,
        ...(kind === 'todos' ? {} : { requests: [REQUEST] }),
      },
      (error, result) => (error ? reject(error) : resolve(result['2xx'])),
    ),
  );

/**
 * The true loss with k spin iterations per request: two servers pinned to one core, loaded at once (each by its own
 * client) in 1 s blocks, median of 8 blocks' ratios of requests per CPU-second of each server's main thread
 * (/proc/PID/schedstat, as the gate reads it): both see one CPU speed in every block, and the ratio is the servers'
 * cost whether or not the clients (both in this process, not pinned) keep the shared core saturated. (Sized from
 * request counts, a fastify loss sized at 5.5% read 10.6% through the gate: the clients, not the core, had set the pace.)
 */
async function measureTruth(dir, k) {
  const servers = [];
  try {
    const ports = [];
    for (const spinCount of [0, k]) {
      const port = await freePort();
      // The framework servers take their busy work from the file (head's is written with it): one dir per size.
      const cwd = kind === 'todos' ? dir : scratchWith(dir, spinCount);
      servers.push(
        spawn('taskset', ['-c', String(lastCpu), process.execPath, 'server.js'], {
          cwd,
          env: { ...process.env, PORT: String(port), SPIN: String(spinCount), WAIT: '0' },
          stdio: 'ignore',
        }),
      );
      ports.push(port);
    }
    await sleep(kind === 'todos' ? 500 : 1500);
    // A framework's JIT settles seconds into a duet (docs/evaluation.md): size the effect once it has.
    if (kind !== 'todos') await Promise.all(ports.map((port) => load(port, 4000)));
    await Promise.all(ports.map((port) => load(port, 1000)));
    const cpuNs = () => servers.map((server) => Number(readFileSync(`/proc/${server.pid}/schedstat`, 'utf8').split(' ')[0]));
    const ratios = [];
    for (let i = 0; i < 8; i++) {
      const before = cpuNs();
      const counts = await Promise.all(ports.map((port) => load(port, 1000)));
      const after = cpuNs();
      const perCpu = counts.map((count, side) => count / (after[side] - before[side]));
      ratios.push(perCpu[1] / perCpu[0]);
    }
    ratios.sort((a, b) => a - b);
    return 1 - ratios[ratios.length >> 1];
  } finally {
    for (const server of servers) server.kill('SIGKILL');
  }
}

const extra = () =>
  `    budget: ${budget}\n${duration ? `    duration: ${duration}\n` : ''}${rate ? `    rate: ${rate}\n` : ''}${latencyBudget ? `    latency-budget: { p50: ${latencyBudget} }\n` : ''}`;

/** A framework's lockfile, made once per run in a temp folder: each generated repo installs from it (npm ci). */
const lockfile =
  kind === 'todos'
    ? undefined
    : (() => {
        const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-evaluate-lock-'));
        for (const [file, text] of Object.entries(serverFiles(kind))) writeFileSync(path.join(dir, file), text);
        execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'ignore' });
        const lock = readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
        rmSync(dir, { recursive: true, force: true });
        return lock;
      })();

function makeRepo(k, wait = 0, mode = 'duet') {
  if (kind !== 'todos') {
    const config = `http-mode: ${mode}\n${httpConfig(kind, extra())}`;
    const files = { ...serverFiles(kind), 'package-lock.json': lockfile, 'benchgate.yml': config, '.gitignore': 'node_modules\n' };
    const dir = gitRepo('benchgate-evaluate-http-', files, serverFiles(kind, k));
    // Head is the working tree, installed as a user's is before a compare (benchgate installs base's worktree).
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'ignore' });
    return dir;
  }
  const config = `http-mode: ${mode}\nhttp:\n  - name: todos\n    start: node server.js\n    ready: /health\n    requests:\n      - path: /todos\n${extra()}`;
  const files = {
    'package.json': '{ "name": "evaluate-http", "private": true, "type": "module" }\n',
    'server.js': SERVER.replace('SPIN_DEFAULT', '0').replace('WAIT_DEFAULT', '0'),
    'benchgate.yml': config,
  };
  return gitRepo('benchgate-evaluate-http-', files, {
    'server.js': SERVER.replace('SPIN_DEFAULT', String(k)).replace('WAIT_DEFAULT', String(wait)),
  });
}

/** The scratch project with k steps of busy work in its server file, installed once (sizing only). */
const scratchDirs = new Map();
function scratchWith(dir, k) {
  if (!scratchDirs.has(k)) {
    const copy = mkdtempSync(path.join(os.tmpdir(), 'benchgate-evaluate-size-'));
    cpSync(dir, copy, { recursive: true });
    writeFileSync(path.join(copy, 'server.js'), serverFiles(kind, k)['server.js']);
    scratchDirs.set(k, copy);
  }
  return scratchDirs.get(k);
}

if (realRepo) {
  // A real change: the gate RUNS_REPO times on REPO (main against feature), each run's figures as it printed them.
  console.log(`benchgate evaluate:http: ${machine()}, REPO ${realRepo}, load average ${os.loadavg()[0].toFixed(1)}`);
  for (let r = 0; r < Number(process.env.RUNS_REPO ?? 3); r++) {
    const copy = mkdtempSync(path.join(os.tmpdir(), 'benchgate-evaluate-repo-'));
    execFileSync('git', ['clone', '-q', '--no-local', realRepo, copy]);
    execFileSync('git', ['checkout', '-q', 'feature'], { cwd: copy });
    execFileSync('git', ['branch', '-q', 'main', 'origin/main'], { cwd: copy });
    // Head is the working tree, installed as a user's is before a compare.
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: copy, stdio: 'ignore' });
    const load1 = os.loadavg()[0];
    const { report, seconds } = timedCompare(copy);
    const [bench] = report.benchmarks;
    const pct = (x) => `${(x * 100).toFixed(1)}%`;
    const figure = bench?.http?.gatedOn === 'cpu' ? bench.http.cpu.change : bench?.change;
    console.log(
      `run ${r + 1}: ${bench?.verdict} gated on ${bench?.http?.gatedOn ?? 'requests'}: ${figure ? `${pct(figure.estimate)} [${pct(figure.low)}, ${pct(figure.high)}], ${((figure.high - figure.low) * 100).toFixed(1)} points wide` : '–'}; requests/s ${bench?.change ? pct(bench.change.estimate) : '–'}; ${bench?.rounds?.length} rounds; ${seconds.toFixed(0)} s; load ${load1.toFixed(1)}; ${bench?.http?.schedule ? `${bench.http.schedule.blocks} blocks after ${bench.http.schedule.warmupMs} ms` : ''}`,
    );
  }
  process.exit(0);
}

const scratch = makeRepo(0);
// Size k from a first guess, corrected from the drop measured in place.
const sized = [];
if (runsEffect > 0) for (const drop of effects) sized.push(await sizeSlowdown(drop, 2000, (k) => measureTruth(scratch, k)));
rmSync(scratch, { recursive: true, force: true });
for (const dir of scratchDirs.values()) rmSync(dir, { recursive: true, force: true });
console.log(
  `benchgate evaluate:http: ${machine()}, server ${kind}, budget ${budget}, ${duration ?? 'the chosen schedule'} of load per revision per round${rate ? `, fixed rate ${rate}` : ''}${latencyBudget ? `, p50 budget ${latencyBudget}` : ''}`,
);
console.log(
  'effect (measured)          mode   runs  fails (regression)  by req/s, CPU, latency  inconclusive  median time  max time  median estimate  spread req/s  CPU: estimate  spread  resolves  rounds (+ confirm)  times (s)',
);
const rows = [
  { label: 'A/A', k: 0, runs: runsAA },
  ...sized.map((size) => ({ label: rowLabel(size), k: size.k, runs: runsEffect })),
  { label: `waiting: ${waitMs} ms timer`, k: 0, wait: waitMs, runs: runsWait },
];
/** Sample standard deviation of the per-round log ratios, in percent (relative changes given). */
const spread = (changes) => {
  const logs = changes.map((x) => Math.log1p(x));
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  return Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1)) * 100;
};
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const { label, k, wait = 0, runs } of rows.filter((row) => row.runs > 0)) {
  const by = Object.fromEntries(modes.map((mode) => [mode, newTally()]));
  // The modes' runs interleaved: each mode sees the same minutes of the machine.
  for (let r = 0; r < runs; r++) for (const mode of modes) tally(by[mode], timedCompare(makeRepo(k, wait, mode)));
  for (const mode of modes) print(label, mode, runs, by[mode]);
}

function newTally() {
  return {
    fails: 0,
    inconclusive: 0,
    times: [],
    estimates: [],
    rounds: [],
    spreads: { rps: [], cpu: [] },
    cpuEstimates: [],
    by: { rps: 0, cpu: 0, latency: 0 },
    resolves: [],
  };
}

function tally(t, { report, seconds }) {
  t.times.push(seconds);
  const [bench] = report.benchmarks;
  // KEEP_BLOCKS=file.jsonl: each run's duet blocks and schedule, one line a run (http-variance.mjs --gate-blocks reads them).
  if (process.env.KEEP_BLOCKS && bench?.http?.blocks)
    appendFileSync(
      process.env.KEEP_BLOCKS,
      `${JSON.stringify({ server: kind, seconds, verdict: bench.verdict, resolvable: bench.resolvable, schedule: bench.http.schedule, blocks: bench.http.blocks })}\n`,
    );
  if (bench?.verdict === 'regression') t.fails++;
  if (bench?.verdict === 'inconclusive') t.inconclusive++;
  if (bench?.change) t.estimates.push(bench.change.estimate);
  if (bench?.rounds?.length > 1) t.spreads.rps.push(spread(bench.rounds));
  const cpu = bench?.http?.cpu;
  if (cpu?.rounds?.length > 1) t.spreads.cpu.push(spread(cpu.rounds));
  if (cpu?.change) t.cpuEstimates.push(cpu.change.estimate);
  if (bench?.change && bench.change.high < -bench.budget) t.by.rps++;
  if (cpu?.verdict === 'regression') t.by.cpu++;
  if (Object.values(bench?.http?.latency ?? {}).some((l) => l.verdict === 'regression')) t.by.latency++;
  if (Number.isFinite(bench?.resolvable)) t.resolves.push(bench.resolvable * 100);
  if (bench?.error) console.log(`  (a run's error: ${bench.error.split('\n')[0].slice(0, 300)})`);
  const schedule = bench?.http?.schedule;
  t.rounds.push(
    `${bench?.rounds?.length ?? 0}${bench?.confirmation ? `+${bench.confirmation.length}` : ''}${bench && !['regression', 'unchanged', 'improvement', 'inconclusive'].includes(bench.verdict) ? `(${bench.verdict})` : ''}${schedule ? `[${schedule.blocks}x after ${(schedule.warmupMs / 1000).toFixed(0)}s, ${bench.http.gatedOn ?? 'requests'}]` : ''}`,
  );
}

function print(label, mode, runs, t) {
  const { median, max, estimate } = summary(t.times, t.estimates);
  const pct = (x) => (x === undefined ? '–' : `${x.toFixed(1)}%`);
  console.log(
    `${label.padEnd(26)} ${mode.padEnd(5)} ${String(runs).padStart(5)}  ${`${t.fails}/${runs}`.padStart(18)}  ${`${t.by.rps}, ${t.by.cpu}, ${t.by.latency}`.padStart(22)}  ${String(t.inconclusive).padStart(12)}  ${median.padStart(11)}  ${max.padStart(8)}  ${estimate.padStart(15)}  ${pct(med(t.spreads.rps)).padStart(12)}  ${(t.cpuEstimates.length ? pct(med(t.cpuEstimates) * 100) : '–').padStart(13)}  ${pct(med(t.spreads.cpu)).padStart(6)}  ${pct(med(t.resolves)).padStart(8)}  ${t.rounds.join(' ')}  times: ${t.times.map((x) => Math.round(x)).join(' ')}`,
  );
}
