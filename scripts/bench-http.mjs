// npm run bench:http: figures behind the README's HTTP measurement section, printed, never asserted.
// Runs the HTTP A/A fixture (http-untouched) under each server design and CPU placement and prints
// the per-round spread of ln(head/base) requests/s and p99 latency, the interval, and the time taken.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeFixtureRepo } from './fixture-repo.mjs';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const rounds = Number(process.env.ROUNDS ?? 8);
const fixture = process.env.FIXTURE ?? 'http-untouched';
const variants = (process.env.VARIANTS ?? 'fresh:false,live:false,fresh:true,live:true').split(',').map((v) => v.split(':'));
const sd = (xs) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
};
const pct = (x) => `${(x * 100).toFixed(1)}%`;

console.log(`benchgate HTTP self-benchmark: ${fixture}, ${rounds} rounds of 2s + 1s warm-up per revision, ${process.version}, ${new Date().toISOString().slice(0, 10)}\n`);
console.log('mode   pinned  rps spread/round  p99 spread/round  rps change [CI]               verdict       time');
for (const [mode, pin] of variants) {
  const repo = makeFixtureRepo(fixture);
  const config = readFileSync(path.join(repo, 'benchgate.yml'), 'utf8').replace(/^    start: (.*)$/m, '    start: $1\n    duration: 2s\n    warmup: 1s');
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
