// Real projects' benchmarks, unmodified (test/e2e/harness-cases.ts): tinybench and vitest (the others in
// harness-1.test.ts).
import { describeHarnesses } from './harness-cases.js';

describeHarnesses(['tinybench', 'vitest']);
