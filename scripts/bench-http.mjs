// npm run bench:http: figures behind the README's HTTP measurement section, printed, never asserted.
// 1. The load generator's timing on this machine: a handler busy for a known time, one connection
//    (the figures test/unit/http-load.test.ts used to bound; a loaded machine moves them, so they live here).
// 2. Runs the HTTP A/A fixture (http-untouched) under each server design and CPU placement and prints
//    the per-round spread of ln(head/base) requests/s and p99 latency, the interval, and the time taken.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { makeFixtureRepo } from './fixture-repo.mjs';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const rounds = Number(process.env.ROUNDS ?? 8);
const fixture = process.env.FIXTURE ?? 'http-untouched';
const variants = (process.env.VARIANTS ?? 'fresh:false,live:false,fresh:true,live:true')
  .split(',')
  .filter(Boolean)
  .map((v) => v.split(':'));

if (process.env.PRECISION !== '0') {
  // benchgate's own load runner (src/measure/http/load.ts), bundled for this script.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-bench-load-'));
  const outfile = path.join(dir, 'load.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('../src/measure/http/load.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'warning',
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
  });
  const { runLoad } = await import(pathToFileURL(outfile).href);
  rmSync(dir, { recursive: true, force: true });
  const busyMs = Number(process.env.BUSY_MS ?? 2.5);
  const server = http.createServer((req, res) => {
    const until = performance.now() + busyMs;
    while (performance.now() < until); // busy: one request at a time, each exactly busyMs of work
    res.end('ok');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const ms = (x) => x.toFixed(3).padStart(8);
  console.log(
    `Load generator timing: a handler busy ${busyMs} ms, 1 connection, 600 ms of load (in this process), ${os.cpus().length} cpus, load average ${os.loadavg()[0].toFixed(2)}`,
  );
  console.log('  run   ok    p50 ms    p90 ms    p99 ms   mean ms   req/s  (at most ' + (1000 / busyMs).toFixed(0) + ')');
  for (let run = 1; run <= Number(process.env.PRECISION_RUNS ?? 5); run++) {
    const result = await runLoad({
      port: server.address().port,
      requests: [{ method: 'GET', path: '/', headers: {}, body: undefined }],
      connections: 1,
      durationMs: 600,
    });
    const { p50, p90, p99, mean } = result.latency;
    console.log(
      `  ${String(run).padStart(3)} ${String(result.traffic.ok).padStart(4)}  ${ms(p50)}  ${ms(p90)}  ${ms(p99)}  ${ms(mean)}  ${result.requestsPerSec.toFixed(0).padStart(6)}`,
    );
  }
  server.close();
  console.log('');
}
if (variants.length === 0) process.exit(0);
const sd = (xs) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
};
const pct = (x) => `${(x * 100).toFixed(1)}%`;

console.log(
  `benchgate HTTP self-benchmark: ${fixture}, ${rounds} rounds of 2s + 1s warm-up per revision, ${process.version}, ${new Date().toISOString().slice(0, 10)}\n`,
);
console.log('mode   pinned  rps spread/round  p99 spread/round  rps change [CI]               verdict       time');
for (const [mode, pin] of variants) {
  const repo = makeFixtureRepo(fixture);
  const config = readFileSync(path.join(repo, 'benchgate.yml'), 'utf8').replace(
    /^ {4}start: (.*)$/m,
    '    start: $1\n    duration: 2s\n    warmup: 1s',
  );
  writeFileSync(path.join(repo, 'benchgate.yml'), `${config}rounds: ${rounds}\nhttp-mode: ${mode}\nhttp-pin: ${pin}\n`);
  const started = Date.now();
  spawnSync(process.execPath, [cli, 'compare', '--base', 'main', '--json', 'r.json'], { cwd: repo, stdio: 'ignore' });
  const seconds = (Date.now() - started) / 1000;
  const report = JSON.parse(readFileSync(path.join(repo, 'r.json'), 'utf8'));
  rmSync(repo, { recursive: true, force: true });
  const b = report.benchmarks[0];
  if (!b?.change) {
    console.log(`${mode.padEnd(6)} ${pin.padEnd(6)}  failed: ${b?.error ?? report.error}`);
    continue;
  }
  const rps = sd(b.rounds.map((x) => Math.log1p(x)));
  const p99 = b.http?.latency?.p99;
  const p99Spread = p99 ? `${pct((p99.change.high - p99.change.low) / 2)} (CI half)` : '–';
  console.log(
    `${mode.padEnd(6)} ${pin.padEnd(6)}  ${pct(rps).padStart(16)}  ${p99Spread.padStart(16)}  ${`${pct(b.change.estimate)} [${pct(b.change.low)}, ${pct(b.change.high)}]`.padEnd(28)}  ${b.verdict.padEnd(12)} ${seconds.toFixed(0)}s`,
  );
  console.log(`               rounds: ${b.rounds.map((x) => pct(x)).join(' ')}`);
}
