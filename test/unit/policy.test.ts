import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { policyChanges, withPolicyOf } from '../../src/config/policy.js';

const config = (text: string) => parseConfig(text, '/repo/benchgate.yml');
const HTTP = (name: string, extra = '') => `  - name: ${name}\n    start: node server.js\n    requests:\n      - path: /\n${extra}`;

describe("the gate's policy", () => {
  const base = config(
    `budget: 5%\nbudgets:\n  'bench/a.bench.js > *': 10%\nconfidence: 95%\nrounds: 10\nmax-rounds: 40\nconfirm: true\ntime-limit: 5m\nmicro:\n  task-time: 400ms\n  files: bench/*.js\ninstall: npm ci\nhttp:\n${HTTP('list', '    budget: 10%\n    latency-budget: { p99: 25% }\n')}`,
  );
  const loose = config(
    `budget: 99%\nbudgets:\n  'bench/a.bench.js > *': 50%\nconfidence: 99.9%\nrounds: 2\nmax-rounds: 2\nconfirm: false\ntime-limit: 1s\nmicro:\n  task-time: 1ms\n  files: perf/*.js\ninstall: pnpm install\nhttp:\n${HTTP('list', '    budget: 90%\n')}${HTTP('new one')}`,
  );

  it('lists every policy setting the change makes different, each from base to head', () => {
    expect(policyChanges(base, loose).map((c) => `${c.setting} ${c.base} → ${c.head}`)).toEqual([
      'budget 5% → 99%',
      'confidence 95% → 99.9%',
      'rounds 10 → 2',
      'max-rounds 40 → 2',
      'confirm true → false',
      'time-limit 5m → 1.0s',
      'micro.task-time 400ms → 1ms',
      'budgets["bench/a.bench.js > *"] 10% → 50%',
      'http "list" budget 10% → 90%',
      'http "list" latency-budget p99 25% → none',
    ]);
    expect(policyChanges(base, base)).toEqual([]);
  });

  it("takes base's policy and head's measurements: bench files, install, load tests", () => {
    const judged = withPolicyOf(loose, base);
    expect(judged).toMatchObject({
      budget: 0.05,
      budgets: [{ pattern: 'bench/a.bench.js > *', budget: 0.1 }],
      confidence: 0.95,
      rounds: 10,
      maxRounds: 40,
      confirm: true,
      timeLimitMs: 300_000,
      install: 'pnpm install',
    });
    expect(judged.micro).toMatchObject({ taskTimeMs: 400, files: ['perf/*.js'] });
    // The load tests are head's, with base's budgets; one new at head gets none of its own (base's budgets apply).
    expect(judged.http.map((t) => [t.name, t.budget, t.latencyBudget])).toEqual([
      ['list', 0.1, { p99: 0.25 }],
      ['new one', undefined, {}],
    ]);
  });

  it("keeps base's measure and seeds: a pull request cannot switch time to counts or thin the seeds out", () => {
    const timed = config('micro:\n  measure: time\n');
    const counted = config('micro:\n  measure: counts\n  seeds: 2\n');
    expect(policyChanges(timed, counted).map((c) => `${c.setting} ${c.base} → ${c.head}`)).toEqual([
      'micro.measure time → counts',
      'micro.seeds 3 → 2',
    ]);
    expect(withPolicyOf(counted, timed).micro).toMatchObject({ measure: 'time', seeds: 3 });
    expect(withPolicyOf(config('micro:\n  measure: counts\n  count: cycles\n'), counted).micro).toMatchObject({ count: 'instructions' });
    expect(withPolicyOf(timed, config('micro:\n  measure: counts\n  seeds: 5\n')).micro).toMatchObject({ measure: 'counts', seeds: 5 });
  });

  it("keeps base's micro.measures: a pull request cannot move a benchmark from counts to time by a pattern", () => {
    const timed = config('micro:\n  measure: time\n');
    const patterned = config("micro:\n  measures:\n    'bench/ids.bench.js > *': counts\n");
    expect(policyChanges(timed, patterned).map((c) => `${c.setting} ${c.base} → ${c.head}`)).toEqual([
      'micro.measures["bench/ids.bench.js > *"] none → counts',
    ]);
    expect(withPolicyOf(patterned, timed).micro.measures).toEqual([]);
    expect(withPolicyOf(timed, patterned).micro.measures).toEqual([{ pattern: 'bench/ids.bench.js > *', measure: 'counts' }]);
  });

  it("keeps base's measure of each load test: head cannot switch one to counts or back, and a new one is timed", () => {
    const test = (name: string, measure?: string) =>
      `  - name: ${name}\n    start: node server.js\n    requests: [{ path: / }]\n${measure ? `    measure: ${measure}\n` : ''}`;
    const base = config(`http:\n${test('list', 'counts')}${test('show')}`);
    const head = config(`http:\n${test('list', 'time')}${test('show', 'counts')}${test('new one', 'counts')}`);
    expect(policyChanges(base, head).map((c) => `${c.setting} ${c.base} → ${c.head}`)).toEqual([
      'http "list" measure counts → none',
      'http "show" measure none → counts',
      'http "new one" measure none → counts',
    ]);
    expect(withPolicyOf(head, base).http.map((t) => [t.name, t.measure])).toEqual([
      ['list', 'counts'],
      ['show', 'time'],
      ['new one', 'time'],
    ]);
  });
});
