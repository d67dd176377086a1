// npm run evaluate:offline: the decision rule (Hodges–Lehmann + signed-rank interval, adaptive looks
// with Bonferroni, confirmation by a fresh group) replayed on real samples from a noisy 2-core machine
// (../shared/data/noise, or NOISE_DIR): one process per revision, i.e. what `isolation: process` sees.
// Prints the false-fail rate on A/A data and the detection rate of known slowdowns. Deterministic (seeded).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = process.env.NOISE_DIR ?? path.join(root, '..', 'shared', 'data', 'noise');
if (!existsSync(dir)) {
  console.error(`no noise data at ${dir}: set NOISE_DIR`);
  process.exit(2);
}
const bundle = path.join(root, 'node_modules', '.cache', 'benchgate-stats.mjs');
await build({
  stdin: {
    contents:
      "export { estimateChange, decide, familyConfidence } from './src/stats/compare.ts'; export { minimumRounds } from './src/stats/signed-rank.ts';",
    resolveDir: root,
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: bundle,
  logLevel: 'warning',
});
const { estimateChange, decide, familyConfidence, minimumRounds } = await import(bundle);

const read = (file) =>
  readFileSync(path.join(dir, file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
const ops = (row) => row.reps[0].hz;

/** Per-round log ratios of `variant` against base, pairing the two processes of each round (adjacent in time). */
function pairs(rows, variant, task) {
  const byRound = new Map();
  for (const row of rows.filter((r) => r.task === task)) (byRound.get(row.round) ?? byRound.set(row.round, []).get(row.round)).push(row);
  const out = [];
  for (const round of [...byRound.keys()].sort((a, b) => a - b)) {
    const group = byRound.get(round);
    const base = group.find((r) => r.variant === 'base');
    const other = group.find((r) => r.variant === variant);
    if (base && other) out.push(Math.log(ops(other) / ops(base)));
  }
  return out;
}

// A seeded generator (Park–Miller), so the table is the same on every run.
let seed = 20261122;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;

const CONFIDENCE = 0.95;
const MIN = 10;
const MAX = 40;
const EVERY = 5;
const LOOKS = 1 + Math.ceil((MAX - MIN) / EVERY);

/** One simulated run: draw rounds from the pool (consecutive, from a random start, wrapping), look, confirm. */
function simulate(pool, budget) {
  const level = familyConfidence(CONFIDENCE, LOOKS);
  const start = Math.floor(random() * pool.length);
  const take = (from, n) => Array.from({ length: n }, (_, i) => pool[(from + i) % pool.length]);
  const min = Math.max(MIN, minimumRounds(level));
  for (let n = min; n <= MAX; n += EVERY) {
    const verdict = decide(estimateChange(take(start, n), level), budget);
    if (verdict === 'inconclusive' && n + EVERY <= MAX) continue;
    if (verdict !== 'regression') return { verdict, rounds: n };
    const again = decide(estimateChange(take(start + n, min), level), budget);
    return { verdict: again === 'regression' ? 'regression' : 'inconclusive', rounds: n + min };
  }
  return { verdict: 'inconclusive', rounds: MAX };
}

function evaluate(pool, budget, runs = 2000) {
  let fails = 0;
  const rounds = [];
  for (let i = 0; i < runs; i++) {
    const result = simulate(pool, budget);
    if (result.verdict === 'regression') fails++;
    rounds.push(result.rounds);
  }
  rounds.sort((a, b) => a - b);
  return { rate: fails / runs, median: rounds[Math.floor(runs / 2)] };
}

const pct = (x) => `${(x * 100).toFixed(1)}%`;
console.log(`Decision rule on process-level samples (${dir}); 2000 seeded runs per row`);
console.log(
  `rounds ${MIN}, looks every ${EVERY} up to ${MAX} (${LOOKS} looks), confidence ${CONFIDENCE}, confirmation by ${MIN} fresh rounds\n`,
);
console.log('data                     true change     budget  spread/round  fails (regression)  median rounds');
const aa = read('aa_pool.jsonl');
for (const task of [...new Set(aa.map((r) => r.task))]) {
  const pool = pairs(aa, 'head', task);
  const m = pool.reduce((a, b) => a + b, 0) / pool.length;
  const spread = Math.sqrt(pool.reduce((a, b) => a + (b - m) ** 2, 0) / (pool.length - 1));
  for (const budget of [0.02, 0.05]) {
    const { rate, median } = evaluate(pool, budget);
    console.log(
      `A/A ${task.padEnd(20)} ${'none'.padEnd(14)}  ${pct(budget).padStart(6)}  ${pct(spread).padStart(12)}  ${pct(rate).padStart(18)}  ${String(median).padStart(13)}`,
    );
  }
}
for (const [file, truth] of [
  ['power_sha512.jsonl', { s3: '≈3.5%', s5: '≈5–6%', s10: '≈7–11%' }],
  ['power_json.jsonl', { s3: '≈3%', s5: '≈5%', s10: '≈10%' }],
]) {
  const rows = read(file);
  const task = rows[0].task;
  for (const variant of ['s3', 's5', 's10']) {
    const pool = pairs(rows, variant, task);
    const m = pool.reduce((a, b) => a + b, 0) / pool.length;
    const spread = Math.sqrt(pool.reduce((a, b) => a + (b - m) ** 2, 0) / (pool.length - 1));
    for (const budget of [0.02]) {
      const { rate, median } = evaluate(pool, budget);
      console.log(
        `${`${task} ${variant}`.padEnd(24)} ${`-${truth[variant].replace('≈', '')}`.padEnd(14)}  ${pct(budget).padStart(6)}  ${pct(spread).padStart(12)}  ${pct(rate).padStart(18)}  ${String(median).padStart(13)}`,
      );
    }
  }
}
