// The reproducibility of a compare: the same command run several times on the same revisions, and for each
// benchmark how often one run's interval misses another run's estimate, and how often the verdict differs.
// Used by EVALUATE=repro npm run evaluate (evaluate-repro.mjs); also usable on any repository:
//   node scripts/repro-lib.mjs REPORT.json REPORT.json ...   (prints the table of those reports)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Per benchmark, over the runs' reports: the estimates, the pairs (i, j), i ≠ j, in which run i's interval
 * misses run j's estimate, and the verdicts. A benchmark that is not compared in a run (error, unmeasured)
 * is left out of that run's pairs.
 */
export function reproducibility(reports, budgetDistance = 0.01) {
  const ids = [...new Set(reports.flatMap((r) => r.benchmarks.map((b) => b.id)))];
  return ids.map((id) => {
    const runs = reports.map((r) => r.benchmarks.find((b) => b.id === id)).filter((b) => b?.change);
    let pairs = 0;
    let misses = 0;
    for (const a of runs)
      for (const b of runs) {
        if (a === b) continue;
        pairs++;
        if (b.change.estimate < a.change.low || b.change.estimate > a.change.high) misses++;
      }
    const estimates = runs.map((b) => b.change.estimate);
    const mean = estimates.reduce((s, x) => s + x, 0) / Math.max(1, estimates.length);
    const verdicts = {};
    for (const b of runs) verdicts[b.verdict] = (verdicts[b.verdict] ?? 0) + 1;
    const regressions = verdicts.regression ?? 0;
    const budget = runs[0]?.budget ?? 0;
    // A flip: some runs fail it and some do not, for a task whose mean change is clearly on one side of the budget.
    const flips = regressions > 0 && regressions < runs.length;
    const clear = Math.abs(-mean - budget) > budgetDistance;
    const widths = runs.map((b) => b.change.high - b.change.low);
    return {
      id,
      runs: runs.length,
      mean,
      min: Math.min(...estimates),
      max: Math.max(...estimates),
      width: widths.sort((x, y) => x - y)[widths.length >> 1] ?? NaN,
      pairs,
      misses,
      verdicts,
      flips,
      clearFlip: flips && clear,
    };
  });
}

const pct = (x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;

/** The table, one row per benchmark, and a total line. */
export function formatReproducibility(rows) {
  const lines = ['| benchmark | runs | mean | range | median width | misses | verdicts |', '|---|---|---|---|---|---|---|'];
  for (const r of rows) {
    const verdicts = Object.entries(r.verdicts)
      .map(([v, n]) => `${v} ${n}`)
      .join(', ');
    lines.push(
      `| ${r.id} | ${r.runs} | ${pct(r.mean)} | ${pct(r.min)} … ${pct(r.max)} | ${(r.width * 100).toFixed(1)} | ${r.misses}/${r.pairs} | ${verdicts}${r.clearFlip ? ' **flip**' : ''} |`,
    );
  }
  const pairs = rows.reduce((s, r) => s + r.pairs, 0);
  const misses = rows.reduce((s, r) => s + r.misses, 0);
  const flips = rows.filter((r) => r.clearFlip).length;
  lines.push('');
  lines.push(
    `pairs whose interval misses the other run's estimate: ${misses}/${pairs} (${((misses / Math.max(1, pairs)) * 100).toFixed(1)}%); tasks whose verdict flips more than a point away from the budget: ${flips}`,
  );
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const reports = process.argv.slice(2).map((file) => JSON.parse(readFileSync(file, 'utf8')));
  console.log(formatReproducibility(reproducibility(reports)));
}
