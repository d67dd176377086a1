// npm run evaluate:fidelity: does benchgate measure what the bench file's own harness measures? For each suite,
// one `benchgate compare --native-check --native-runs RUNS` (benchgate's rounds, then the file run as its author runs
// it, RUNS times per revision, alternating), and per benchmark: benchgate's change and interval beside the native
// change (median of the runs' ratio, with a bootstrap interval over the runs) and the check's own agreement.
// Not part of npm test: a suite of benchmark.js defaults takes minutes per native run.
//
// FIXTURES: the fixture suites (default: the four harnesses' fixtures; vitest's runs under `vitest bench`). REPO (a checkout), BASE and HEAD (revisions), CONFIG (a benchgate.yml outside it) add a
// real suite. RUNS (default 5) native runs per revision; NATIVE_TIMEOUT (default 5m) bounds each; REPORTS, a folder that keeps
// each suite's JSON report.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeFixtureRepo } from './fixture-repo.mjs';
import { machine } from './evaluate-lib.mjs';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const runs = Number(process.env.RUNS ?? 5);
const nativeTimeout = process.env.NATIVE_TIMEOUT ?? '5m';
const fixtures = (process.env.FIXTURES ?? 'harness-benchmarkjs,harness-tinybench,harness-mitata,harness-vitest').split(',').filter(Boolean);

/**
 * The native change from whole runs: head's median run over base's, and a 95% bootstrap interval (each revision's runs
 * resampled, the ratio of the medians). Seeded: the same runs give the same interval.
 */
export function bootstrapChange(base, head, draws = 4000) {
  let seed = 0x9e3779b9;
  const random = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32;
  };
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  };
  const resample = (xs) => xs.map(() => xs[Math.floor(random() * xs.length)]);
  const ratios = Array.from({ length: draws }, () => median(resample(head)) / median(resample(base)) - 1).sort((a, b) => a - b);
  return {
    estimate: median(head) / median(base) - 1,
    low: ratios[Math.floor(draws * 0.025)],
    high: ratios[Math.ceil(draws * 0.975) - 1],
  };
}

function compare(name, dir, base, head, config) {
  const started = Date.now();
  const out = path.join(dir, '.benchgate-fidelity.json');
  const args = [cli, 'compare', '--base', base, '--head', head, '--native-check', '--native-runs', String(runs)];
  args.push('--native-timeout', nativeTimeout, '--profile', 'never', '--json', out, ...(config ? ['--config', config] : []));
  const run = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20 });
  const seconds = (Date.now() - started) / 1000;
  let report;
  try {
    report = JSON.parse(readFileSync(out, 'utf8'));
    // REPORTS: a folder that keeps each report (the native runs' figures), for tables made later.
    if (process.env.REPORTS) writeFileSync(path.join(process.env.REPORTS, `${name}.json`), JSON.stringify(report, null, 2));
  } catch {
    console.log(`${name}: no report (exit ${run.status}): ${(run.stderr ?? '').split('\n').slice(-5).join(' | ')}`);
    return;
  }
  const pct = (x) => (x === null || x === undefined ? '–' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`);
  const interval = (c) => (c ? `${pct(c.estimate)} [${pct(c.low)}, ${pct(c.high)}]` : '–');
  console.log(`\n${name}: ${report.verdict}, ${seconds.toFixed(0)} s; native: ${describeFiles(report.nativeCheck)}`);
  console.log(
    'benchmark | benchgate (verdict) | native, check (agreement) | native median [bootstrap 95%] | spread between runs base / head | inside',
  );
  for (const b of report.benchmarks) {
    const n = b.native;
    const boot = n?.base?.runs?.length > 1 && n?.head?.runs?.length > 1 ? bootstrapChange(n.base.runs, n.head.runs) : undefined;
    const inside = boot && b.change ? (b.change.estimate >= boot.low && b.change.estimate <= boot.high ? 'yes' : 'NO') : '–';
    console.log(
      `${b.id} | ${interval(b.change)} (${b.verdict}) | ${n ? `${interval(n.change)} (${n.note?.startsWith(n.agreement) ? n.note : `${n.agreement}${n.note ? `: ${n.note}` : ''}`})` : '–'} | ${interval(boot)} | ${spreadOf(n?.base?.runs)} / ${spreadOf(n?.head?.runs)} | ${inside}`,
    );
  }
}

/** SD of ln(ops/s) between runs, in percent. */
function spreadOf(xs) {
  if (!xs || xs.length < 2) return '–';
  const logs = xs.map(Math.log);
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  return `${(Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1)) * 100).toFixed(1)}%`;
}

function describeFiles(info) {
  if (!info) return 'none';
  return info.files
    .map(
      (f) =>
        `${f.file} ${f.harness ?? ''}${f.versions ? ` (${f.versions.base ?? '?'} → ${f.versions.head ?? '?'})` : ''} ${f.skipped ?? `${f.runs.length} runs${f.runs.some((r) => r.problem) ? `, problems: ${f.runs.filter((r) => r.problem).length}` : ''}`}`,
    )
    .join('; ');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`benchgate evaluate:fidelity: ${machine()}, ${runs} native runs per revision`);
  for (const name of fixtures) {
    const dir = makeFixtureRepo(name);
    try {
      compare(name, dir, 'main', 'feature');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  if (process.env.REPO) compare(path.basename(process.env.REPO), process.env.REPO, process.env.BASE, process.env.HEAD, process.env.CONFIG);
}
