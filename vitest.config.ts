import { defineConfig } from 'vitest/config';

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
  },
});
