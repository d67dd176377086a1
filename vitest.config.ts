import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Safety nets for a hung test, never a measure of speed: a loaded machine must not fail a test.
    // (Timing figures are printed by npm run bench and npm run bench:http, never asserted.)
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // End-to-end tests spawn benchmark processes; running files in parallel on 2 cores would make them fight.
    fileParallelism: false,
  },
});
