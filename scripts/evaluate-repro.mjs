// EVALUATE=repro npm run evaluate: the same compare run RUNS times (10) on fixtures/router-suite (find-my-way's
// layout: 14 lookup scenarios, one worker thread each, sharing one router class; a tinybench file of 5
// serializer tasks sharing one string escape), with TIME_LIMIT (2m) each. It prints, per task, the
// estimates across runs, how often one run's interval misses another run's estimate, and the verdicts,
// and writes the reports to REPORTS (a temp dir) for later reading (node scripts/repro-lib.mjs DIR/*.json).
// CLI=path/to/cli.js measures another build (e.g. an older one, for a before/after table).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeFixtureRepo } from './fixture-repo.mjs';
import { machine } from './evaluate-lib.mjs';
import { formatReproducibility, reproducibility } from './repro-lib.mjs';

const cli = process.env.CLI ?? fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const runs = Number(process.env.RUNS ?? 10);
const timeLimit = process.env.TIME_LIMIT ?? '2m';
const fixture = process.env.FIXTURE ?? 'router-suite';

export async function evaluateRepro() {
  const out = process.env.REPORTS ?? mkdtempSync(path.join(os.tmpdir(), 'benchgate-repro-'));
  mkdirSync(out, { recursive: true });
  console.log(`# Reproducibility: ${runs} compares of ${fixture} (time-limit ${timeLimit}), ${machine()}; reports in ${out}`);
  const repo = makeFixtureRepo(fixture);
  // The working tree is head: installed once, as a user's checkout would be.
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: repo, stdio: 'ignore' });
  const config = path.join(repo, 'benchgate.yml');
  writeFileSync(config, `${readFileSync(config, 'utf8')}time-limit: ${timeLimit}\n`);
  const reports = [];
  for (let i = 1; i <= runs; i++) {
    const file = path.join(out, `run-${i}.json`);
    const started = Date.now();
    const run = spawnSync(process.execPath, [cli, 'compare', '--base', 'main', '--json', file, '--profile', 'never'], {
      cwd: repo,
      encoding: 'utf8',
    });
    const report = JSON.parse(readFileSync(file, 'utf8'));
    if (!report.run) throw new Error(`run ${i}: ${report.summary}`);
    reports.push(report);
    const verdicts = {};
    for (const b of report.benchmarks) verdicts[b.verdict] = (verdicts[b.verdict] ?? 0) + 1;
    console.log(
      `run ${i}: exit ${run.status}, ${report.run.rounds} rounds, ${report.run.processes} processes, ${((Date.now() - started) / 1000).toFixed(0)}s, ${JSON.stringify(verdicts)}`,
    );
  }
  console.log('');
  console.log(formatReproducibility(reproducibility(reports)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await evaluateRepro();
