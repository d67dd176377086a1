// benchgate's own hot paths, gated by benchgate on every pull request (.github/workflows/benchgate.yml).
import { analyze, hodgesLehmann, renderMarkdown } from './.targets.mjs';

let seed = 7;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const rounds = Array.from({ length: 30 }, () => Math.log(0.95 + random() * 0.1));
const benchmarks = Array.from({ length: 40 }, (_, i) => ({
  id: `bench/file-${i % 5}.bench.js > task ${i}`,
  kind: 'micro',
  file: `bench/file-${i % 5}.bench.js`,
  logRatios: rounds.map((x) => x + (i % 7) * 0.01),
  base: { opsPerSec: [1e6 + i] },
  head: { opsPerSec: [0.97e6 + i] },
}));
const comparisons = analyze(benchmarks, { confidence: 0.95, budgetFor: () => 0.05 });
const report = {
  version: 1,
  tool: { name: 'benchgate', version: 'bench' },
  verdict: 'pass',
  summary: '',
  base: { ref: 'main', sha: 'a'.repeat(40) },
  head: { ref: 'feature', sha: 'b'.repeat(40) },
  benchmarks: comparisons.map((c) => ({
    ...c,
    file: c.file ?? null,
    base: c.base ?? null,
    head: c.head ?? null,
    change: c.change ?? null,
    rounds: [],
  })),
  run: null,
  environment: { node: process.version, os: 'Linux', arch: 'x64', cpus: { model: 'cpu', count: 2 } },
};

export default {
  'hodges-lehmann interval, 30 rounds': () => hodgesLehmann(rounds, 0.99),
  'analyze 40 benchmarks': () => analyze(benchmarks, { confidence: 0.95, budgetFor: () => 0.05 }),
  'markdown report, 40 benchmarks': () => renderMarkdown(report),
};
