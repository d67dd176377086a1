// A history of main as `benchgate record` writes it, made up: `pushes` records of `benchmarks` benchmarks each,
// every push a small measured step (noise of about 1%), now and then a real loss or gain, releases tagged every
// `releaseEvery` pushes. For the publish benchmark (scripts/bench-site.mjs) and the site's browser test; a real
// recorded history is fixtures/history/marked.jsonl. Deterministic for a seed.
//   node scripts/synthetic-history.mjs OUT.jsonl [PUSHES] [BENCHMARKS]

import { writeFileSync } from 'node:fs';

function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function syntheticHistory({
  pushes = 40,
  benchmarks = 6,
  seed = 1,
  releaseEvery = 25,
  gate = '',
  start = Date.UTC(2026, 0, 1),
} = {}) {
  const rand = random(seed);
  const normal = () => Math.sqrt(-2 * Math.log(rand() || 1e-12)) * Math.cos(2 * Math.PI * rand());
  const sha = () => Array.from({ length: 40 }, () => '0123456789abcdef'[Math.floor(rand() * 16)]).join('');
  const ids = Array.from({ length: benchmarks }, (_, i) => `bench/suite-${i % 10}.bench.js > task ${i}`);
  const records = [];
  let parent = sha();
  let release = 0;
  for (let p = 0; p < pushes; p++) {
    const commit = sha();
    const tags = p > 0 && p % releaseEvery === 0 ? [`v1.${++release}.0`] : [];
    const date = new Date(start + p * 3_600_000 * 7).toISOString().replace('.000Z', 'Z');
    records.push({
      v: 1,
      gate,
      commit,
      parent,
      date,
      recorded: date,
      subject: `Change ${p + 1} of the suite (#${1000 + p})`,
      tags,
      parentTags: p === 0 ? ['v1.0.0'] : [],
      runner: { os: 'Linux', arch: 'x64', cpus: 4, node: 'v24.11.0' },
      benchmarks: ids.map((id, i) => {
        const real = rand() < 0.01 ? (rand() < 0.6 ? -0.08 : 0.06) * (1 + rand()) : 0;
        const estimate = real + 0.004 * normal();
        const half = 0.01 + 0.01 * rand();
        const verdict =
          estimate + half < -0.05
            ? 'regression'
            : estimate - half > 0.05
              ? 'improvement'
              : Math.abs(estimate) + half < 0.05
                ? 'unchanged'
                : 'inconclusive';
        const round = (x) => Number(x.toFixed(5));
        const base = Number((1e5 * (1 + i / 10)).toPrecision(4));
        return {
          id,
          verdict,
          budget: 0.05,
          change: { estimate: round(estimate), low: round(estimate - half), high: round(estimate + half), confidence: 0.99 },
          base,
          head: Number((base * (1 + estimate)).toPrecision(4)),
        };
      }),
    });
    parent = commit;
  }
  return records;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [out, pushes = '40', benchmarks = '6'] = process.argv.slice(2);
  const records = syntheticHistory({ pushes: Number(pushes), benchmarks: Number(benchmarks) });
  writeFileSync(out, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  console.log(`${records.length} records of ${benchmarks} benchmarks in ${out}`);
}
