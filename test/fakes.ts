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
  measure: 'time',
  latencyBudget: {},
  where: `benchgate.yml: http[0] (${name})`,
  ...over,
});

/** mulberry32: a small seeded generator of [0, 1), so a test that draws is the same on every run. */
export function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A standard normal draw from a source of [0, 1) (Box–Muller). */
export function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}
