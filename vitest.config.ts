import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // End-to-end tests spawn benchmark processes; running files in parallel on 2 cores would make them fight.
    fileParallelism: false,
  },
});
