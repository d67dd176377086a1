// npm run evaluate:http: the real gate, many times, on a generated HTTP server with known effects: A/A,
// and head slower by injected busy work per request, sized and then measured in place (both servers up,
// load alternating between them). Prints the false-fail rate, the detection rate, the time to a verdict
// and how close the estimate was. Not part of npm test: each run takes minutes.
// RUNS_AA, RUNS_EFFECT, EFFECTS (throughput drops), BUDGET and DURATION (load per revision per round) tune it;
// RUNS_WAIT adds runs where head only waits (a WAIT_MS timer per request, no extra CPU work).
// RATE (a number or auto) makes the load test fixed-rate; LATENCY_BUDGET (e.g. 25%) adds a p50 latency budget.
// For each row it also prints which gated figure failed it (requests/s, requests per CPU-second of the servers'
// main threads, latency), the per-round spread (SD of the per-round log ratios) of both throughput figures on
// the same rounds, and the median of what a run resolves beyond the budget (requests/s).
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { gitRepo, machine, rowLabel, sizeSlowdown, summary, timedCompare } from './evaluate-lib.mjs';

const runsAA = Number(process.env.RUNS_AA ?? 5);
const runsEffect = Number(process.env.RUNS_EFFECT ?? 5);
const effects = (process.env.EFFECTS ?? '0.10').split(',').map(Number);
const budget = process.env.BUDGET ?? '5%';
const duration = process.env.DURATION ?? '3s';
const runsWait = Number(process.env.RUNS_WAIT ?? 0);
const waitMs = Number(process.env.WAIT_MS ?? 1);
const rate = process.env.RATE;
const latencyBudget = process.env.LATENCY_BUDGET;

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
    autocannon({ url: `http://127.0.0.1:${port}/todos`, connections: 10, duration: ms / 1000, sampleInt: 50 }, (error, result) =>
      error ? reject(error) : resolve(result.requests.total),
    ),
  );

/** The true throughput drop with k spin iterations per request: two live servers, load alternating in 1 s blocks, median of the ratios. */
async function measureTruth(dir, k) {
  const servers = [];
  try {
    const ports = [];
    for (const spinCount of [0, k]) {
      const port = await freePort();
      servers.push(
        spawn(process.execPath, ['server.js'], {
          cwd: dir,
          env: { ...process.env, PORT: String(port), SPIN: String(spinCount), WAIT: '0' },
          stdio: 'ignore',
        }),
      );
      ports.push(port);
    }
    await sleep(500);
    for (const port of ports) await load(port, 1000);
    const ratios = [];
    for (let i = 0; i < 8; i++) {
      const order = i % 2 ? [1, 0] : [0, 1];
      const counts = [];
      for (const which of order) counts[which] = await load(ports[which], 1000);
      ratios.push(counts[1] / counts[0]);
    }
    ratios.sort((a, b) => a - b);
    return 1 - ratios[ratios.length >> 1];
  } finally {
    for (const server of servers) server.kill('SIGKILL');
  }
}

function makeRepo(k, wait = 0) {
  const config = `http:\n  - name: todos\n    start: node server.js\n    ready: /health\n    requests:\n      - path: /todos\n    budget: ${budget}\n    duration: ${duration}\n${rate ? `    rate: ${rate}\n` : ''}${latencyBudget ? `    latency-budget: { p50: ${latencyBudget} }\n` : ''}`;
  const files = {
    'package.json': '{ "name": "evaluate-http", "private": true, "type": "module" }\n',
    'server.js': SERVER.replace('SPIN_DEFAULT', '0').replace('WAIT_DEFAULT', '0'),
    'benchgate.yml': config,
  };
  return gitRepo('benchgate-evaluate-http-', files, {
    'server.js': SERVER.replace('SPIN_DEFAULT', String(k)).replace('WAIT_DEFAULT', String(wait)),
  });
}

const scratch = makeRepo(0);
// Size k from a first guess, corrected from the drop measured in place.
const sized = [];
for (const drop of effects) sized.push(await sizeSlowdown(drop, 2000, (k) => measureTruth(scratch, k)));
rmSync(scratch, { recursive: true, force: true });
console.log(
  `benchgate evaluate:http: ${machine()}, budget ${budget}, ${duration} of load per revision per round${rate ? `, fixed rate ${rate}` : ''}${latencyBudget ? `, p50 budget ${latencyBudget}` : ''}`,
);
console.log(
  'effect (measured)          runs  fails (regression)  by req/s, CPU, latency  inconclusive  median time  max time  median estimate  spread req/s  CPU: estimate  spread  resolves  rounds (+ confirm)',
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
  let fails = 0;
  let inconclusive = 0;
  const times = [];
  const estimates = [];
  const rounds = [];
  const spreads = { rps: [], cpu: [] };
  const cpuEstimates = [];
  const by = { rps: 0, cpu: 0, latency: 0 };
  const resolves = [];
  for (let r = 0; r < runs; r++) {
    const { report, seconds } = timedCompare(makeRepo(k, wait));
    times.push(seconds);
    const [bench] = report.benchmarks;
    if (bench?.verdict === 'regression') fails++;
    if (bench?.verdict === 'inconclusive') inconclusive++;
    if (bench?.change) estimates.push(bench.change.estimate);
    if (bench?.rounds?.length > 1) spreads.rps.push(spread(bench.rounds));
    const cpu = bench?.http?.cpu;
    if (cpu?.rounds?.length > 1) spreads.cpu.push(spread(cpu.rounds));
    if (cpu?.change) cpuEstimates.push(cpu.change.estimate);
    if (bench?.change && bench.change.high < -bench.budget) by.rps++;
    if (cpu?.verdict === 'regression') by.cpu++;
    if (Object.values(bench?.http?.latency ?? {}).some((l) => l.verdict === 'regression')) by.latency++;
    if (Number.isFinite(bench?.resolvable)) resolves.push(bench.resolvable * 100);
    rounds.push(`${bench?.rounds?.length ?? 0}${bench?.confirmation ? `+${bench.confirmation.length}` : ''}`);
  }
  const { median, max, estimate } = summary(times, estimates);
  const pct = (x) => (x === undefined ? '–' : `${x.toFixed(1)}%`);
  console.log(
    `${label.padEnd(26)} ${String(runs).padStart(4)}  ${`${fails}/${runs}`.padStart(18)}  ${`${by.rps}, ${by.cpu}, ${by.latency}`.padStart(22)}  ${String(inconclusive).padStart(12)}  ${median.padStart(11)}  ${max.padStart(8)}  ${estimate.padStart(15)}  ${pct(med(spreads.rps)).padStart(12)}  ${(cpuEstimates.length ? pct(med(cpuEstimates) * 100) : '–').padStart(13)}  ${pct(med(spreads.cpu)).padStart(6)}  ${pct(med(resolves)).padStart(8)}  ${rounds.join(' ')}`,
  );
}
