// What npm run evaluate and npm run evaluate:http share: the generated git repositories, one timed run
// of the real gate, the sizing of an injected slowdown, and the table's figures.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** A git repository in a temp dir: `base` committed on main, then `head` (files overwritten) on feature, checked out. */
export function gitRepo(prefix, base, head) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const git = (...args) =>
    execFileSync('git', ['-c', 'user.name=e', '-c', 'user.email=e@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
      stdio: 'pipe',
    });
  const write = (files) => {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
    }
  };
  write(base);
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  git('checkout', '-q', '-b', 'feature');
  write(head);
  git('commit', '-q', '-am', 'head', '--allow-empty');
  return dir;
}

/** One run of `benchgate compare --base main` in the repository, which is then removed: its report and seconds taken. */
export function timedCompare(repo) {
  const started = Date.now();
  // Time to a verdict: the profile of a regression comes after it and is left out here.
  spawnSync(process.execPath, [cli, 'compare', '--base', 'main', '--json', 'report.json', '--profile', 'never'], {
    cwd: repo,
    stdio: 'ignore',
  });
  const seconds = (Date.now() - started) / 1000;
  const report = JSON.parse(readFileSync(path.join(repo, 'report.json'), 'utf8'));
  rmSync(repo, { recursive: true, force: true });
  return { report, seconds };
}

/**
 * The busy work k that slows the measured thing by `drop` (of throughput): start from `k`, measure the drop in place,
 * and correct k from it until within 10% of the target (the work's cost is not linear in k inside the real code).
 */
export async function sizeSlowdown(drop, k, measure) {
  let truth = await measure(k);
  // A first guess far too small for the work a request does (express: 165 µs a request) reads noise, even a gain:
  // grow it fourfold until the loss stands out, then correct it in proportion.
  for (let i = 0; i < 5 && truth < drop / 3; i++) truth = await measure((k *= 4));
  for (let i = 0; i < 4 && truth > 0 && Math.abs(truth - drop) > drop * 0.1; i++) {
    k = Math.max(1, Math.round((k * (1 / (1 - drop) - 1)) / (1 / (1 - truth) - 1)));
    truth = await measure(k);
  }
  return { drop, k, truth };
}

export const rowLabel = ({ drop, truth }) => `-${(drop * 100).toFixed(0)}% (-${(truth * 100).toFixed(1)}%)`;

/** A row's figures: the median and max time, and the median estimate. */
export function summary(times, estimates) {
  const sorted = [...times].sort((a, b) => a - b);
  const byValue = [...estimates].sort((a, b) => a - b);
  return {
    median: `${sorted[Math.floor(sorted.length / 2)].toFixed(0)}s`,
    max: `${sorted.at(-1).toFixed(0)}s`,
    estimate: byValue.length ? `${(byValue[Math.floor(byValue.length / 2)] * 100).toFixed(1)}%` : '–',
  };
}

export function machine() {
  return `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}`;
}

/**
 * A module of src/ for a script (which runs plain JavaScript): bundled by esbuild, the build's own tool, into a
 * temporary file and imported from there, so that a script and the gate use one implementation.
 */
export async function importSrc(file) {
  const { build } = await import('esbuild');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-src-'));
  const outfile = path.join(dir, `${path.basename(file, '.ts')}.mjs`);
  const root = fileURLToPath(new URL('..', import.meta.url));
  await build({ entryPoints: [path.join(root, file)], bundle: true, platform: 'node', format: 'esm', outfile, logLevel: 'warning' });
  try {
    return await import(outfile);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
