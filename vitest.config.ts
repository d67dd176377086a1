import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest test files first (their mean durations in four clean-clone CI runs on this 2-core machine, Node 20 and
 * 24: counts 440 s, harness-1 192 s, isolates 185 s, compare 182 s, ... history 100 s), so that the three workers end
 * together instead of one starting a long file when the others are nearly done. Vitest orders by the durations it
 * cached from the last run, which a clean clone (and CI) does not have; it then falls back to file size.
 */
const LONGEST_FIRST = [
  'counts',
  'harness-1',
  'isolates',
  'compare',
  'harness-2',
  'http-2',
  'action-history',
  'history',
  'bad-input',
  'action-trust',
  'shard',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const name = /([^/\\]+)\.test\.ts$/.exec(file.moduleId)?.[1] ?? '';
      const at = file.moduleId.includes('/e2e/') ? LONGEST_FIRST.indexOf(name) : -1;
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    // A stable sort: the files not named keep vitest's own order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    // test/power holds the slow power claims: npm run test:power (vitest.power.config.ts), also run by .ci/run.
    include: ['test/unit/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    // Safety nets for a hung test, never a measure of speed: a loaded machine must not fail a test.
    // (Timing figures are printed by npm run bench and npm run bench:http, never asserted.)
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // Three test files at a time on 2 cores: an end-to-end test spends most of its time waiting (installs, process
    // starts, measuring blocks of fixed wall-clock length), and every assertion holds on a loaded machine: the files
    // beside it cost noise, never a verdict (budgets, rounds and what is asserted are sized for that; power claims
    // live in test/power). Each run watches its own processes
    // by pid and path, and fixtures live in their own temp folders, so files never see each other's.
    fileParallelism: true,
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
  },
});
