import { defineConfig } from 'vitest/config';

// The slow power claims (a moderate effect caught live): `npm run test:power`, also run by .ci/run.
export default defineConfig({
  test: {
    include: ['test/power/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    fileParallelism: false,
  },
});
