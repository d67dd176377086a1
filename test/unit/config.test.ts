import { describe, expect, it } from 'vitest';
import { budgetFor, measureFor } from '../../src/config/budgets.js';
import { parseConfig } from '../../src/config/load.js';
import { DEFAULTS } from '../../src/config/types.js';

const load = (text: string) => parseConfig(text, '/repo/benchgate.yml');
const errorOf = (text: string): string => {
  try {
    load(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a config error');
};

describe('config file', () => {
  it('applies the defaults to an empty file', () => {
    const config = load('');
    expect(config.budget).toBe(DEFAULTS.budget);
    expect(config.micro.files).toEqual(['**/*.{bench,benchmark}.?(c|m)[jt]s?(x)']);
    expect(config.micro.isolation).toBe('alternate');
    expect(config.timeLimitMs).toBe(300_000);
    expect(config.install).toBeUndefined();
  });

  it('reads every documented field', () => {
    const config = load(`
budget: 7.5%
budgets:
  "bench/ids.bench.js > *": 10%
micro:
  files: [perf/*.bench.mjs]
  isolation: process
  task-time: 250ms
  task-timeout: 5s
  processes: 2
  measure: counts
  seeds: 5
  count: cycles
install: pnpm install
build: npm run build
rounds: 12
confidence: 99%
time-limit: 2m
`);
    expect(config.budget).toBeCloseTo(0.075);
    expect(config.budgets).toEqual([{ pattern: 'bench/ids.bench.js > *', budget: 0.1 }]);
    expect(config.micro).toEqual({
      files: ['perf/*.bench.mjs'],
      isolation: 'process',
      taskTimeMs: 250,
      taskTimeoutMs: 5000,
      maxProcesses: 2,
      measure: 'counts',
      measures: [],
      gate: 'time',
      seeds: 5,
      count: 'cycles',
    });
    expect(load('micro:\n  processes: auto\n').micro.maxProcesses).toBe(8);
    expect(load('budget: 5%\n').micro).toMatchObject({ measure: 'time', seeds: 3 });
    expect(() => load('micro:\n  seeds: 1\n')).toThrow(/seeds/);
    expect(() => load('micro:\n  measure: cycles\n')).toThrow(/measure/);
    // both: the verdict from micro.gate (time by default); gate means nothing without both, and says so.
    expect(load('micro:\n  measure: both\n').micro).toMatchObject({ measure: 'both', gate: 'time' });
    expect(load('micro:\n  measure: both\n  gate: counts\n').micro).toMatchObject({ measure: 'both', gate: 'counts' });
    expect(() => load('micro:\n  gate: counts\n')).toThrow(
      /: micro\.gate is 'counts', but micro\.measure is time \(the default\): the gate chooses between figures only where micro\.measure \(or a pattern of micro\.measures\) is both/,
    );
    expect(() => load('micro:\n  measure: both\n  gate: cycles\n')).toThrow(/gate/);
    const http = (measure: string) =>
      `http:\n  - name: list\n    start: node server.js\n    requests: [{ path: / }]\n    measure: ${measure}\n`;
    expect(load(http('counts')).http[0]!.measure).toBe('counts');
    expect(load('micro:\n  measure: counts\n').micro.count).toBe('instructions');
    expect(load('micro:\n  measure: counts\n  count: cycles\n').micro.count).toBe('cycles');
    expect(() => load('micro:\n  count: branches\n')).toThrow(/count/);
    expect(load(http('time')).http[0]!.measure).toBe('time');
    expect(load('http:\n  - name: list\n    start: node server.js\n    requests: [{ path: / }]\n').http[0]!.measure).toBe('time');
    expect(() => load(http('both'))).toThrow(/http\/0\/measure|measure/);
    expect(() => load('micro:\n  processes: 9\n')).toThrow(/processes/);
    expect(config.install).toBe('pnpm install');
    expect(config.build).toBe('npm run build');
    expect(config.rounds).toBe(12);
    expect(config.confidence).toBeCloseTo(0.99);
    expect(config.timeLimitMs).toBe(120_000);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('accepts install: false to skip installing', () => {
    expect(load('install: false').install).toBe(false);
  });

  it('names the file, line and problem of invalid YAML', () => {
    expect(errorOf('budget: [5%\nmicro: {')).toBe(
      '/repo/benchgate.yml:2:1: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ].',
    );
  });

  it('rejects an unknown key with a did-you-mean', () => {
    expect(errorOf('budgte: 5%')).toBe(
      "/repo/benchgate.yml:1:1: unknown key 'budgte' (did you mean 'budget'?). Known keys: budget, budgets, micro, install, build, rounds, confidence, time-limit, env, install-timeout, http, http-mode, http-pin, max-rounds, confirm.",
    );
    expect(errorOf('micro:\n  file: x.js')).toMatch(
      /benchgate\.yml:2:3: unknown key 'micro\.file' \(did you mean 'files'\?\)\. Known keys of micro: files, isolation/,
    );
  });

  it('rejects a negative or non-numeric budget, naming the field and value', () => {
    expect(errorOf('budget: -5%')).toBe("/repo/benchgate.yml:1:9: budget: '-5%' is not a percentage from 0% to 99%, like 5%.");
    expect(errorOf('budgets:\n  "src/* > x": abc')).toBe(
      '/repo/benchgate.yml:2:16: budgets["src/* > x"]: \'abc\' is not a percentage from 0% to 99%, like 5%.',
    );
    expect(errorOf('budget: 5')).toMatch(/budget: 5 is not a percentage/);
  });

  it('rejects bad durations, rounds and isolation modes, all at once', () => {
    const message = errorOf('time-limit: soon\nrounds: 1\nmicro:\n  isolation: fork\n  files: []');
    expect(message).toContain("time-limit: 'soon' is not a duration like 500ms, 30s or 2m.");
    expect(message).toContain('rounds: 1 is not a whole number from 2 to 500.');
    expect(message).toContain("micro.isolation: 'fork' is not alternate, thread or process.");
    expect(message).toContain('micro.files: [] is not a glob pattern or a list of them.');
  });

  it('rejects a top level that is not a mapping', () => {
    expect(errorOf('- budget: 5%')).toMatch(/must be a mapping/);
  });
});

describe('http load tests in the config', () => {
  it('reads a load test with its defaults', () => {
    const [test] = load(`
http:
  - name: todo lists
    start: node server.js
    requests:
      - path: /todo-lists
      - method: POST
        path: /todos
        headers: { content-type: application/json }
        body: '{"title":"milk"}'
    latency-budget: { p99: 25% }
`).http;
    expect(test).toMatchObject({
      id: 'http > todo lists',
      start: 'node server.js',
      ready: undefined,
      connections: 10,
      rate: undefined,
      durationMs: 3000,
      warmupMs: 1000,
      readyTimeoutMs: 15_000,
      budget: undefined,
      latencyBudget: { p99: 0.25 },
      where: '/repo/benchgate.yml: http[0] (todo lists)',
    });
    expect(test!.requests).toEqual([
      { method: 'GET', path: '/todo-lists', headers: {}, body: undefined, status: ['2xx'] },
      { method: 'POST', path: '/todos', headers: { 'content-type': 'application/json' }, body: '{"title":"milk"}', status: ['2xx'] },
    ]);
  });

  it('reads the status each request expects: a number, a class or a list', () => {
    const [test] = load(`
http:
  - name: router
    start: node server.js
    requests:
      - path: /no-such-route
        status: 404
      - path: /cached
        headers: { if-none-match: '"v1"' }
        status: [200, 304]
      - method: POST
        path: /login
        status: 4xx
`).http;
    expect(test!.requests.map((r) => r.status)).toEqual([[404], [200, 304], ['4xx']]);
  });

  it('names the file, the field and the bad value of a status', () => {
    const at = (status: string) =>
      errorOf(
        `http:\n  - name: x\n    start: node s.js\n    requests:\n      - path: /\n      - path: /a\n      - path: /b\n        status: ${status}\n`,
      );
    const expected = 'is not an HTTP status (100 to 599, or a class like 4xx) or a list of them.';
    expect(at('700')).toBe(`/repo/benchgate.yml:8:17: http[0].requests[2].status: 700 ${expected}`);
    expect(at('not-found')).toBe(`/repo/benchgate.yml:8:17: http[0].requests[2].status: 'not-found' ${expected}`);
    expect(at('[]')).toBe(`/repo/benchgate.yml:8:17: http[0].requests[2].status: [] ${expected}`);
    expect(at('[200, 6xx]')).toContain(
      "/repo/benchgate.yml:8:23: http[0].requests[2].status[1]: '6xx' is not an HTTP status (100 to 599, or a class like 4xx).",
    );
  });

  it('names the field of a bad load test', () => {
    const message = errorOf(
      'http:\n  - name: x\n    start: node s.js\n    requests: [{ path: todo }]\n    latency-budget: { p95: 5% }\n    connections: 0\n',
    );
    expect(message).toContain("http[0].requests[0].path: 'todo' is not a path starting with /.");
    expect(message).toContain("unknown key 'http[0].latency-budget.p95' (did you mean 'p90'?)");
    expect(message).toContain('http[0].connections: 0 is not a whole number from 1 to 1000.');
    const rate = (value: string) => errorOf(`http:\n  - name: x\n    start: a\n    requests: [{ path: / }]\n    rate: ${value}\n`);
    expect(rate('0')).toContain('http[0].rate: 0 is not a whole number of requests per second from 1 to 1000000, or auto.');
    expect(rate('fast')).toContain("http[0].rate: 'fast' is not a whole number of requests per second from 1 to 1000000, or auto.");
    expect(errorOf('http:\n  - name: x\n    start: a\n')).toBe("/repo/benchgate.yml:2:5: http[0] has no 'requests', which is required.");
  });

  it('rejects two load tests with one name', () => {
    expect(
      errorOf('http:\n  - { name: a, start: x, requests: [{ path: / }] }\n  - { name: a, start: y, requests: [{ path: / }] }\n'),
    ).toContain("http[1].name: 'a' is already the name of another HTTP benchmark");
  });
});

describe('budget per benchmark', () => {
  const config = {
    budget: 0.05,
    budgets: [
      { pattern: 'bench/*', budget: 0.2 },
      { pattern: 'bench/ids.bench.js > *', budget: 0.1 },
      { pattern: 'bench/ids.bench.js > uuid v4', budget: 0.3 },
    ],
  };

  it('uses an exact id before any pattern', () => expect(budgetFor('bench/ids.bench.js > uuid v4', config)).toBe(0.3));
  it('prefers the most specific matching pattern', () => expect(budgetFor('bench/ids.bench.js > counter', config)).toBe(0.1));
  it('lets * cross slashes in paths and names', () => expect(budgetFor('bench/deep/x.bench.js > a/b', config)).toBe(0.2));
  it('falls back to the default budget', () => expect(budgetFor('other/x.bench.js > y', config)).toBe(0.05));
});

describe('measure per micro-benchmark (micro.measures)', () => {
  const config = load(
    "micro:\n  measure: time\n  measures:\n    'bench/*': both\n    'bench/ids.bench.js > *': counts\n    'bench/ids.bench.js > uuid v4': time\n  gate: counts\n",
  );

  it('reads each pattern as budgets are read: an exact id, then the most specific pattern, then micro.measure', () => {
    expect(config.micro.measures).toEqual([
      { pattern: 'bench/*', measure: 'both' },
      { pattern: 'bench/ids.bench.js > *', measure: 'counts' },
      { pattern: 'bench/ids.bench.js > uuid v4', measure: 'time' },
    ]);
    expect(
      ['bench/ids.bench.js > uuid v4', 'bench/ids.bench.js > counter', 'bench/deep/x.bench.js > a', 'perf/x.js > y'].map((id) =>
        measureFor(id, config.micro),
      ),
    ).toEqual(['time', 'counts', 'both', 'time']);
    // micro.gate chooses between figures where a pattern measures both, as where micro.measure does.
    expect(config.micro.gate).toBe('counts');
  });

  it('names a pattern for a load test, a bad measure, and a gate no pattern can use', () => {
    expect(errorOf("micro:\n  measures:\n    'http > list': counts\n")).toBe(
      "/repo/benchgate.yml: micro.measures: 'http > list' names a load test, and micro.measures applies to micro-benchmarks only: set measure: counts in that load test's http[] entry.",
    );
    expect(errorOf("micro:\n  measures:\n    'bench/*': cycles\n")).toMatch(/micro\.measures.*bench\/\*.*cycles/s);
    expect(errorOf("micro:\n  measures:\n    'bench/*': counts\n  gate: counts\n")).toMatch(
      /micro\.gate is 'counts', but micro\.measure is time \(the default\).*a pattern of micro\.measures\) is both/,
    );
  });
});

describe('one form of a budget', () => {
  it('is the same expression in the config schema and in the parser the action inputs use', async () => {
    const { BUDGET_FORM, parseBudget } = await import('../../src/config/units.js');
    const schema = (await import('../../schema/benchgate.schema.json', { with: { type: 'json' } })).default as {
      definitions: { budget: { pattern: string } };
    };
    expect(schema.definitions.budget.pattern).toBe(BUDGET_FORM.source);
    expect(parseBudget('7.5%')).toBeCloseTo(0.075, 12);
    for (const bad of ['100%', '-5%', '5', 'abc', '5 %']) expect(() => parseBudget(bad), bad).toThrow(RangeError);
  });
});

describe('env: in benchgate.yml', () => {
  it("lists variables for the children, and refuses a credential's name, which a pull request could add", () => {
    expect(load('env: [BENCH_SIZE, FEATURE_FLAGS]\n').env).toEqual(['BENCH_SIZE', 'FEATURE_FLAGS']);
    expect(errorOf('env: [BENCH_SIZE, DATABASE_URL, GITHUB_OUTPUT]\n')).toContain(
      "env: 'DATABASE_URL', 'GITHUB_OUTPUT' look like a credential or one of the runner's own files, and a pull request can edit this file: list such a variable in the action's env input",
    );
  });
});
