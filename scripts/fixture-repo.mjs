// Builds a fixture's git history in a fresh temporary directory: base/ committed on main,
// head/ (or another folder of the fixture, { head: 'head-aa' }) laid over it and committed on feature
// (or left uncommitted with { commitHead: false }).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const fixturesDir = fileURLToPath(new URL('../fixtures/', import.meta.url));

/**
 * @param {string} name fixture folder name
 * @param {{ commitHead?: boolean, config?: string, head?: string, copies?: number }} [options] config: text of a benchgate.yml
 *   written at both revisions; head: the fixture's folder laid over base (default head); copies: each bench/*.bench.* file
 *   also as bench/<name>-2.bench.* … -<copies>.bench.* in both revisions (a larger suite of the same tasks)
 * @returns {string} the repository directory
 */
export function makeFixtureRepo(name, options = {}) {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), `benchgate-fixture-${name}-`)));
  const git = (...args) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  const env = ['-c', 'user.name=benchgate', '-c', 'user.email=benchgate@example.invalid', '-c', 'commit.gpgsign=false'];
  git('init', '-q', '-b', 'main');
  cpSync(path.join(fixturesDir, name, 'base'), dir, { recursive: true });
  if (options.config !== undefined) writeFileSync(path.join(dir, 'benchgate.yml'), options.config);
  const bench = path.join(dir, 'bench');
  for (let copy = 2; copy <= (options.copies ?? 1); copy++)
    for (const file of readdirSync(bench).filter((f) => /^[^-]+\.bench\.[cm]?[jt]s$/.test(f)))
      cpSync(path.join(bench, file), path.join(bench, file.replace('.bench.', `-${copy}.bench.`)));
  git('add', '-A');
  git(...env, 'commit', '-q', '-m', `${name}: base`);
  git('checkout', '-q', '-b', 'feature');
  cpSync(path.join(fixturesDir, name, options.head ?? 'head'), dir, { recursive: true });
  if (options.commitHead !== false) {
    git('add', '-A');
    git(...env, 'commit', '-q', '-m', `${name}: head`);
  }
  return dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [name, ...rest] = process.argv.slice(2);
  if (!name) {
    console.error('usage: node scripts/fixture-repo.mjs <fixture> [--uncommitted] [--head <folder>]');
    process.exit(2);
  }
  const head = rest.includes('--head') ? rest[rest.indexOf('--head') + 1] : undefined;
  console.log(makeFixtureRepo(name, { commitHead: !rest.includes('--uncommitted'), head }));
}
