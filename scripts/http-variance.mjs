// Where a server's duet variance lives: a nested experiment (Kalibera & Jones, "Rigorous benchmarking in
// reasonable time", ISMM 2013) on two checkouts of a project with a benchgate.yml load test.
//   node scripts/http-variance.mjs BASE_DIR HEAD_DIR [LABEL]     measure (OUT=file.jsonl keeps the blocks)
//   node scripts/http-variance.mjs --analyze FILE.jsonl...       the same figures from kept blocks (another WARMUP)
//   node scripts/http-variance.mjs --schedules FILE.jsonl...     the gate's schedules replayed on kept blocks (below)
//   node scripts/http-variance.mjs --gate-blocks FILE.jsonl      the gate's own rounds (evaluate:http's KEEP_BLOCKS)
// PAIRS fresh pairs of server processes (default 8), each started as benchgate starts them (both pinned to the last
// CPU, which starts first drawn at random), then BLOCKS duet blocks of BLOCK_MS (default 16 of 1000 ms: both servers
// loaded at once, each by its own autocannon client on the other CPUs), each block's answers counted in WINDOWS
// windows (default 4) by the time they arrived, and each server's main-thread CPU read around the block
// (/proc/<pid>/task/<pid>/schedstat). Prints the start cost of a pair (spawn to both ready), the cost of a block,
// the warm-up (each block's ratio against its pair's steady level, by block index), and the variance components
// of ln(head/base) between pairs, between blocks within a pair and between windows within a block, for requests/s
// and for CPU per request, leaving out the first WARMUP blocks of each pair (default 2). Bounded: every load has
// a fixed length, servers are killed at the end of their pair (and on exit), loads go to 127.0.0.1 only.
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { mean, median, sampleVariance } from 'simple-statistics';
import { parse } from 'yaml';
import { importSrc } from './evaluate-lib.mjs';

const { varianceComponents } = await importSrc('src/stats/components.ts');
const warmup = Number(process.env.WARMUP ?? 2);
if (process.argv[2] === '--gate-blocks') {
  for (const line of readRows(process.argv.slice(3))) console.log(JSON.stringify(gateBlocks(line)));
} else if (process.argv[2] === '--schedules') {
  const planner = await importSrc('src/measure/http/planner.ts');
  for (const file of process.argv.slice(3)) console.log(JSON.stringify(replaySchedules(readRows([file]), planner)));
} else {
  const rows = process.argv[2] === '--analyze' ? readRows(process.argv.slice(3)) : await experiment(...process.argv.slice(2));
  console.log(JSON.stringify(analyze(rows)));
}

function readRows(files) {
  return files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line)),
  );
}

async function experiment(baseDir, headDir, label = path.basename(path.resolve(headDir ?? ''))) {
  if (!baseDir || !headDir) throw new Error('usage: node scripts/http-variance.mjs BASE_DIR HEAD_DIR [LABEL] | --analyze FILE.jsonl...');
  const pairs = Number(process.env.PAIRS ?? 8);
  const blocks = Number(process.env.BLOCKS ?? 16);
  const blockMs = Number(process.env.BLOCK_MS ?? 1000);
  const windows = Number(process.env.WINDOWS ?? 4);
  const out = process.env.OUT;
  const config = parse(readFileSync(path.join(baseDir, 'benchgate.yml'), 'utf8')).http[0];
  const requests = config.requests.map((r) => ({ method: r.method ?? 'GET', path: r.path, headers: r.headers, body: r.body }));
  const sharedCpu = os.cpus().length - 1;
  const live = new Set();
  process.on('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
  const freePort = () =>
    new Promise((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address();
        s.close(() => resolve(port));
      });
    });
  const start = async (dir) => {
    const port = await freePort();
    const [command, ...args] = config.start.split(/\s+/);
    const child = spawn('taskset', ['-c', String(sharedCpu), command, ...args], {
      cwd: dir,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: 'ignore',
    });
    live.add(child);
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (Date.now() > deadline) throw new Error(`${dir}: not ready in 20 s`);
      const ok = await new Promise((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.on('connect', () => resolve(true) || socket.destroy());
        socket.on('error', () => resolve(false));
      });
      if (ok) return { child, port, pid: child.pid };
      await sleep(10);
    }
  };
  const cpuOf = (pid) => Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]);
  // One client's block: answers with a 2xx counted per window by arrival time (from t0).
  const load = (port, t0) => {
    const counts = new Array(windows).fill(0);
    const onResponse = (status) => {
      if (status < 200 || status >= 300) return;
      const at = Math.floor(((performance.now() - t0) / blockMs) * windows);
      if (at >= 0 && at < windows) counts[at]++;
    };
    return new Promise((resolve, reject) =>
      autocannon(
        {
          url: `http://127.0.0.1:${port}`,
          connections: config.connections ?? 10,
          duration: blockMs / 1000,
          requests: requests.map((r) => ({ ...r, onResponse })),
        },
        (error) => (error ? reject(error) : resolve(counts)),
      ),
    );
  };
  const rows = [];
  for (let p = 0; p < pairs; p++) {
    const t = performance.now();
    const order = Math.random() < 0.5 ? ['base', 'head'] : ['head', 'base'];
    const servers = {};
    for (const side of order) servers[side] = await start(side === 'base' ? baseDir : headDir);
    const startMs = performance.now() - t;
    for (let b = 0; b < blocks; b++) {
      const before = { base: cpuOf(servers.base.pid), head: cpuOf(servers.head.pid) };
      const t0 = performance.now();
      const sides = Math.random() < 0.5 ? ['base', 'head'] : ['head', 'base'];
      const counts = await Promise.all(sides.map((side) => load(servers[side].port, t0)));
      const wallMs = performance.now() - t0;
      const row = { label, pair: p, block: b, startMs, wallMs, blockMs, load1: os.loadmean()[0] };
      for (const [i, side] of sides.entries()) row[side] = { windows: counts[i], cpuNs: cpuOf(servers[side].pid) - before[side] };
      rows.push(row);
      if (out) appendFileSync(out, `${JSON.stringify(row)}\n`);
    }
    for (const side of order) {
      servers[side].child.kill('SIGKILL');
      live.delete(servers[side].child);
    }
  }
  return rows;
}

function analyze(rows) {
  const pairs = [...new Set(rows.map((r) => r.pair))];
  const blocks = Math.max(...rows.map((r) => r.block)) + 1;
  const blockMs = rows[0].blockMs ?? 1000;
  const n = (s) => s.windows.reduce((a, b) => a + b, 0);
  const ratio = (row) => Math.log(n(row.head) / n(row.base));
  const cpuRatio = (row) => Math.log(row.head.cpuNs / n(row.head) / (row.base.cpuNs / n(row.base)));
  const byPair = (f) => pairs.map((p) => rows.filter((r) => r.pair === p && r.block >= warmup).map(f));
  const pct = (x) => +(100 * x).toFixed(2);
  const sd = (v) => pct(Math.sqrt(Math.max(0, v)));
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rps3 = varianceComponents(byPair((r) => r.head.windows.map((h, i) => Math.log(h / r.base.windows[i]))));
  const rps = varianceComponents(byPair(ratio));
  const cpu = varianceComponents(byPair(cpuRatio));
  // Warm-up: each block's ratio against its pair's steady level (the median of its blocks after the warm-up), by index.
  // ... and the largest deviation of any pair's block at each index: a JIT transient shows in one pair, not the median.
  const worst = (f) => {
    const steady = byPair(f).map(med);
    return Array.from({ length: blocks }, (_, b) =>
      pct(Math.max(...rows.filter((r) => r.block === b).map((r) => Math.abs(f(r) - steady[pairs.indexOf(r.pair)])))),
    );
  };
  const curve = (f) => {
    const steady = byPair(f).map(med);
    return Array.from({ length: blocks }, (_, b) =>
      pct(med(rows.filter((r) => r.block === b).map((r) => f(r) - steady[pairs.indexOf(r.pair)]))),
    );
  };
  const steady = rows.filter((r) => r.block >= warmup);
  return {
    label: rows[0].label,
    pairs: pairs.length,
    blocks,
    blockMs,
    warmup,
    load1:
      rows[0].load1 === undefined
        ? undefined
        : `${Math.min(...rows.map((r) => r.load1)).toFixed(1)}-${Math.max(...rows.map((r) => r.load1)).toFixed(1)}`,
    answersPerSec: Math.round(med(steady.map((r) => (n(r.base) + n(r.head)) / (blockMs / 1000)))),
    cpuPerRequestUs: +med(steady.map((r) => r.base.cpuNs / n(r.base) / 1000)).toFixed(1),
    coreShare: +med(steady.map((r) => (r.base.cpuNs + r.head.cpuNs) / 1e6 / r.wallMs)).toFixed(3),
    startMs: Math.round(med(rows.filter((r) => r.block === 0).map((r) => r.startMs))),
    blockCostMs: Math.round(med(rows.map((r) => r.wallMs))),
    requests: {
      estimate: pct(rps.mean),
      pairs: sd(rps.variances[1]),
      blocks: sd(rps.variances[0]),
      windows: sd(rps3.variances[0]),
      blocks3: sd(rps3.variances[1]),
    },
    cpu: { estimate: pct(cpu.mean), pairs: sd(cpu.variances[1]), blocks: sd(cpu.variances[0]) },
    warmupRequests: curve(ratio),
    warmupCpu: curve(cpuRatio),
    worstRequests: worst(ratio),
    worstCpu: worst(cpuRatio),
  };
}

/**
 * --schedules: the duet planner (src/measure/http/planner.ts, the gate's own code) replayed on one server's kept
 * blocks. DRAWS times (default 400, a fixed seed), two pairs drawn at random are the pilot: their blocks after the
 * first (block 0 is the configured 1 s warm-up) are fed to a DuetPlanner as the pilot's rounds, which learns the
 * warm-up from them. Every other pair is then one round measured after that warm-up, its figure the median of its
 * next r blocks (requests per CPU-second), for r = 2, 3, 4 and the planner's own choice. Printed per schedule: the
 * warm-up learned (mean), the per-round SD (pooled over draws, about each draw's mean), what a round costs (the
 * pair's start, warm-up and blocks, at the measured block cost) and their product, the variance of a round for the
 * time spent (smaller is better: intervals at equal time scale with its square root). Rounds that run past the
 * kept blocks are left out and counted.
 */
function replaySchedules(rows, { DuetPlanner, PILOT_BLOCKS, PILOT_ROUNDS }) {
  const pairs = [...new Set(rows.map((r) => r.pair))];
  const n = (s) => s.windows.reduce((a, b) => a + b, 0);
  const perCpu = (row) => Math.log(n(row.head) / row.head.cpuNs / (n(row.base) / row.base.cpuNs));
  const series = pairs.map((p) => rows.filter((r) => r.pair === p).sort((a, b) => a.block - b.block));
  const blockMs = rows[0].blockMs ?? 1000;
  const blockCost = [...rows.map((r) => r.wallMs)].sort((a, b) => a - b)[Math.floor(rows.length / 2)];
  let seed = 1;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const draws = Number(process.env.DRAWS ?? 400);
  const schedules = ['2', '3', '4', 'planner'];
  const out = Object.fromEntries(schedules.map((k) => [k, { deviations: [], costs: [], warmups: [], blocks: [], cut: 0 }]));
  for (let d = 0; d < draws; d++) {
    const order = pairs.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    const planner = new DuetPlanner({ id: 'replay', warmupMs: blockMs, blockMs }, () => {});
    for (const p of order.slice(0, PILOT_ROUNDS)) {
      const plan = planner.next();
      const pilot = series[p].slice(1, 1 + PILOT_BLOCKS);
      const roundMs = series[p][0].startMs + (1 + pilot.length) * blockCost;
      planner.record(
        {
          requests: pilot.map((r) => Math.log(n(r.head) / n(r.base))),
          cpu: pilot.map(perCpu),
          roundMs,
          blocksMs: pilot.length * blockCost,
        },
        plan,
      );
    }
    const next = planner.next();
    const from = Math.round(next.warmupMs / blockMs);
    for (const k of schedules) {
      const r = k === 'planner' ? next.blocks : Number(k);
      const figures = [];
      for (const p of order.slice(PILOT_ROUNDS)) {
        const blocks = series[p].slice(from, from + r);
        if (blocks.length < r) {
          out[k].cut++;
          continue;
        }
        figures.push(median(blocks.map(perCpu)));
        out[k].costs.push(series[p][0].startMs + (from + r) * blockCost);
      }
      if (figures.length > 1) {
        const level = mean(figures);
        out[k].deviations.push(...figures.map((x) => x - level));
      }
      out[k].warmups.push(from * blockMs);
      out[k].blocks.push(r);
    }
  }
  return {
    label: rows[0].label,
    pairs: pairs.length,
    draws,
    schedules: Object.fromEntries(
      schedules.map((k) => {
        const o = out[k];
        const sd = Math.sqrt(mean(o.deviations.map((x) => x * x)));
        const cost = mean(o.costs) / 1000;
        return [
          k === 'planner' ? 'planner' : `${k} blocks`,
          {
            warmupS: +(mean(o.warmups) / 1000).toFixed(1),
            blocks: +mean(o.blocks).toFixed(1),
            roundSdPct: +(100 * sd).toFixed(2),
            roundCostS: +cost.toFixed(1),
            varianceTimesCost: +(1e4 * sd * sd * cost).toFixed(1),
            cut: o.cut,
          },
        ];
      }),
    ),
  };
}

/**
 * --gate-blocks: one gate run's rounds (a line of evaluate:http's KEEP_BLOCKS file: the report's http.blocks), after
 * its two pilot rounds: how far its blocks after the warm-up spread within a round (the pooled SD), how far the
 * rounds' figures spread, and the pairs' own component (K&J's, from the rounds' block means), of requests per
 * CPU-second where read, else requests/s, as percentages.
 */
function gateBlocks(run) {
  const rounds = run.blocks.slice(2).map((r) => ({ ...r, xs: r.cpu ?? r.requests }));
  const pct = (v) => +(100 * Math.sqrt(Math.max(0, v))).toFixed(1);
  const measured = rounds.map((r) => r.xs.slice(r.measuredFrom));
  const components = measured.length >= 2 ? varianceComponents(measured.filter((xs) => xs.length >= 2)) : undefined;
  return {
    server: run.server,
    verdict: run.verdict,
    resolvable: +(100 * run.resolvable).toFixed(1),
    seconds: Math.round(run.seconds),
    warmupMs: run.schedule?.warmupMs,
    rounds: rounds.length,
    figureSd: rounds.length >= 2 ? pct(sampleVariance(rounds.map((r) => median(r.xs.slice(r.figureFrom))))) : null,
    blocksSd: components ? pct(components.variances[0]) : null,
    pairsSd: components ? pct(components.variances[1]) : null,
  };
}
