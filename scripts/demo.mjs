// npm run demo: builds the "ids" fixture (a counter-based request id at base, a uuid v4 from fresh
// random bytes at head) as a git repo in a temp dir and runs the real `benchgate compare` on it.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { makeFixtureRepo } from './fixture-repo.mjs';

const repo = makeFixtureRepo('ids');
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
console.log(`Demo repository: ${repo}`);
console.log('  main    : request ids from a counter (the hyperid trick)');
console.log('  feature : a uuid v4 built from 16 fresh random bytes per request (checked out)\n');
console.log('$ npx benchgate compare --base main\n');
const run = spawnSync(process.execPath, [cli, 'compare', '--base', 'main'], { cwd: repo, stdio: 'inherit' });
rmSync(repo, { recursive: true, force: true });
if (run.status === 1) {
  console.log('\nbenchgate exited with 1: the regression was caught, so a CI job running it would fail.');
  process.exit(0);
}
console.log(`\nbenchgate exited with ${run.status ?? run.signal}; the demo expected 1 (a regression).`);
process.exit(1);
