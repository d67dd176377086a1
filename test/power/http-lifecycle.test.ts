// Power claims: a moderate effect caught live, which takes long loads and many rounds. They run in
// `npm run test:power` (and in .ci/run), not in `npm test`, which stays quick enough to run before every commit.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkEachTest, fixtureRepo, readJson, runCli } from '../e2e/helpers.js';
import { httpConfig } from '../e2e/http-fixtures.js';

let repo = '';
// Every server and benchmark process the run started is gone after each test, whatever happened, and the repo's worktrees.
checkEachTest(() => repo);

describe('HTTP load tests catch a moderate loss', () => {
  it('flags a lifecycle that awaits every hook instead of only the async ones', async () => {
    // A moderate effect needs longer loads than the e2e tests' to stand out of the noise, and, as in a
    // user's run, more rounds when a round the machine disturbed leaves the first look undecided
    // (6 rounds at 95% are an interval from the lowest round to the highest: one odd round decides it).
    const config = httpConfig('todo list', '    budget: 5%\n', 1000, 'confirm: false\n').replace('max-rounds: 6', 'max-rounds: 16');
    repo = fixtureRepo('http-lifecycle', { config });
    const run = await runCli(['compare', '--base', 'main', '--json', 'report.json', '--profile', 'never'], repo);
    const [bench] = readJson(path.join(repo, 'report.json')).benchmarks;
    expect(bench.verdict, run.stdout).toBe('regression');
    expect(run.code).toBe(1);
    expect(bench.http.server.head.gc.share).toBeGreaterThan(bench.http.server.base.gc.share);
  });
});
