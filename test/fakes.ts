// Fakes the unit tests of the measuring stages share.
import type { Revision } from '../src/checkout/revisions.js';
import type { HttpBenchmarkConfig } from '../src/config/types.js';

/** A checked-out revision that is only a name: nothing on disk is read through it in a test that uses fakes. */
export const fakeRevision = (label: 'base' | 'head'): Revision => ({
  label,
  ref: label,
  sha: 'a'.repeat(40),
  root: `/repo/${label}`,
  worktree: undefined,
  dirty: false,
});

/** A load test of one GET, as the config would give it; `over` changes what a test is about. */
export const fakeLoadTest = (name: string, over: Partial<HttpBenchmarkConfig> = {}): HttpBenchmarkConfig => ({
  name,
  id: `http > ${name}`,
  start: 'node server.js',
  ready: '/health',
  readyTimeoutMs: 15_000,
  requests: [{ method: 'GET', path: '/todos', headers: {}, body: undefined, status: ['2xx'] }],
  connections: 8,
  rate: undefined,
  durationMs: 500,
  warmupMs: 250,
  schedule: 'fixed',
  budget: undefined,
  latencyBudget: {},
  where: `benchgate.yml: http[0] (${name})`,
  ...over,
});
