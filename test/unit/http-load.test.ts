import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { latencyOf, preflight, runLoad } from '../../src/measure/http/load.js';
import { execIfSimple, hasShellOperator, runsNode } from '../../src/measure/http/server.js';
import { bodySizeMismatch, describeTraffic, failedRequests, requestLabels } from '../../src/measure/http/traffic.js';
import type { TrafficFigures } from '../../src/measure/http/types.js';
import { formatPath } from '../../src/util/format.js';
import { numbersIn } from '../report-text.js';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

function listen(handler: http.RequestListener): Promise<number> {
  server = http.createServer(handler);
  return new Promise((resolve) => server!.listen(0, '127.0.0.1', () => resolve((server!.address() as AddressInfo).port)));
}

describe('latency figures', () => {
  it('computes percentiles and the mean of response times', () => {
    const times = Array.from({ length: 1000 }, (_, i) => (i + 1) / 1000); // 0.001 … 1.000 ms
    const figures = latencyOf(times);
    expect(figures.p50).toBeCloseTo(0.5, 2);
    expect(figures.p90).toBeCloseTo(0.9, 2);
    expect(figures.p99).toBeCloseTo(0.99, 2);
    expect(figures.mean).toBeCloseTo(0.5005, 6);
    expect(latencyOf([]).p50).toBeNaN();
  });

  it('keeps three significant digits from microseconds to seconds, where autocannon counts whole milliseconds', () => {
    // A sub-millisecond route, a slow one and a very slow one: each read within 0.1%.
    for (const ms of [0.153, 2.5, 47.3, 1234]) {
      const figures = latencyOf(Array.from({ length: 100 }, () => ms));
      for (const value of [figures.p50, figures.p99, figures.mean])
        expect(Math.abs(value / ms - 1), `${ms} ms read as ${value}`).toBeLessThan(0.001);
    }
    // p99 of 99 fast answers and one slow one is the fast one; of 98 and two slow ones, the slow one.
    expect(latencyOf([...Array.from({ length: 99 }, () => 1), 100]).p99).toBeCloseTo(1, 2);
    expect(latencyOf([...Array.from({ length: 98 }, () => 1), 100, 100]).p99).toBeCloseTo(100, 0);
  });

  it('keeps sub-millisecond precision under real load: a handler busy 2.5 ms reads as at least 2.5 ms, not a whole number', async () => {
    // (How close to 2.5 ms it reads depends on the machine: npm run bench:http prints it.)
    const port = await listen((req, res) => {
      const until = performance.now() + 2.5;
      while (performance.now() < until); // busy: one request at a time, each exactly 2.5 ms of work
      res.end('ok');
    });
    const result = await runLoad({
      port,
      requests: [{ method: 'GET', path: '/', headers: {}, body: undefined, status: ['2xx'] }],
      connections: 1,
      durationMs: 600,
    });
    expect(result.traffic.ok).toBeGreaterThan(0);
    expect(result.times).toHaveLength(result.traffic.ok);
    // Every response waited for the whole 2.5 ms of work, timed to fractions of a millisecond.
    expect(Math.min(...result.times)).toBeGreaterThanOrEqual(2.5);
    expect(result.times.every((ms) => Number.isInteger(ms))).toBe(false);
    expect(result.latency.p50).toBeGreaterThanOrEqual(2.5);
    expect(result.latency.p50).toBeLessThanOrEqual(result.latency.p99);
    // One connection never has two requests in flight: the rate is at most one per mean response time,
    // whatever the machine's speed (a rate over the nominal 600 ms instead of the real span could break it).
    expect(result.requestsPerSec).toBeLessThanOrEqual(1000 / result.latency.mean);
    expect(result.requestsPerSec).toBeCloseTo((result.traffic.ok / result.elapsedMs) * 1000, 9);
  });

  it('counts failed responses apart from successful ones', async () => {
    let n = 0;
    const port = await listen((req, res) => {
      res.statusCode = ++n % 2 ? 200 : 503;
      res.end();
    });
    const result = await runLoad({
      port,
      requests: [{ method: 'GET', path: '/', headers: {}, body: undefined, status: ['2xx'] }],
      connections: 2,
      durationMs: 300,
    });
    expect(result.traffic.byClass['5xx']).toBeGreaterThan(0);
    expect(Math.abs(result.traffic.ok - result.traffic.byClass['5xx']!)).toBeLessThanOrEqual(2);
    expect(result.times.length).toBe(result.traffic.ok);
  });

  it("counts a not-found route's 404s as successes when the request expects 404", async () => {
    const port = await listen((req, res) => {
      res.statusCode = req.url === '/' ? 200 : 404;
      res.end();
    });
    const result = await runLoad({
      port,
      requests: [
        { method: 'GET', path: '/no-such-route', headers: {}, body: undefined, status: [404] },
        { method: 'GET', path: '/', headers: {}, body: undefined, status: ['2xx'] },
      ],
      connections: 2,
      durationMs: 300,
    });
    expect(result.traffic.byClass['4xx']).toBeGreaterThan(0);
    // Both routes' answers are successes: timed, counted in the rate, none failed.
    expect(result.traffic.ok).toBe(result.traffic.responses);
    expect(result.times).toHaveLength(result.traffic.ok);
    expect(result.traffic.unexpected).toEqual([{}, {}]);
    expect(failedRequests(result.traffic)).toBe(0);
  });

  it('counts a 200 where 404 is expected as a failure, and says which status was expected', async () => {
    const port = await listen((req, res) => {
      res.statusCode = 200;
      res.end();
    });
    const requests = [{ method: 'GET' as const, path: '/no-such-route', headers: {}, body: undefined, status: [404] }];
    const result = await runLoad({ port, requests, connections: 2, durationMs: 300 });
    expect(result.traffic.ok).toBe(0);
    expect(result.times).toEqual([]);
    const failed = result.traffic.unexpected![0]!['200']!;
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBe(result.traffic.responses);
    const text = describeTraffic(result.traffic, requestLabels(requests));
    expect(text).toMatch(/^\d+ unexpected responses to GET \/no-such-route \(200 ×\d+; expected 404\) out of \d+ requests$/);
    expect(numbersIn(text)[0]).toBe(failed);
  });

  it('sends each request once before the load, to name a failing one', async () => {
    const port = await listen((req, res) => {
      res.statusCode = req.method === 'POST' && req.url === '/todos' ? 201 : 404;
      res.end();
    });
    const statuses = await preflight(port, [
      { method: 'POST', path: '/todos', headers: { 'content-type': 'application/json' }, body: '{"title":"x"}', status: [201] },
      { method: 'GET', path: '/missing', headers: {}, body: undefined, status: ['2xx'] },
    ]);
    expect(statuses).toEqual([201, 404]);
  });
});

describe('server commands', () => {
  it('knows when the probe can be preloaded', () => {
    expect(runsNode('node server.js')).toBe(true);
    expect(runsNode('NODE_ENV=production node --max-old-space-size=512 dist/server.js')).toBe(true);
    expect(runsNode('/usr/local/bin/node server.js')).toBe(true);
    expect(runsNode('taskset -c 1 node server.js')).toBe(true);
    expect(runsNode('npm start')).toBe(false);
    expect(runsNode("sh -c 'node server.js'")).toBe(false);
    expect(runsNode('python -m http.server')).toBe(false);
  });

  it('finds the shell operators outside quotes, the ones that end a command', () => {
    for (const command of [
      'node a.js; b',
      'node a.js && b',
      'node a.js || b',
      'node a.js | b',
      'node a.js &',
      'node a\nb',
      'x `y`',
      'x $(y)',
      "x 'open",
    ])
      expect(hasShellOperator(command), command).toBe(true);
    for (const command of [
      'node server.js',
      `node -e "a(); b | c && d"`,
      'node -e \'a(); "b"; c\'',
      'node a.js 2>&1',
      'node a.js &> log',
      'node a\\;b.js',
      `node -e "say \\"x; y\\""`,
    ])
      expect(hasShellOperator(command), command).toBe(false);
  });

  it("execs simple commands so the server is benchgate's own child", () => {
    expect(execIfSimple('node server.js')).toBe('exec node server.js');
    expect(execIfSimple('npm run build && node server.js')).toBe('npm run build && node server.js');
    expect(execIfSimple('node server.js > log.txt')).toBe('node server.js > log.txt');
    expect(execIfSimple('NODE_ENV=production PORT2=1 node server.js')).toBe('NODE_ENV=production PORT2=1 exec node server.js');
  });

  it('hands variables set before a simple command to the program the shell execs (not a program named VAR=value)', () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'benchgate-exec-'));
    try {
      const script = path.join(folder, 'check.js');
      writeFileSync(script, "process.exit(process.env.FOO === 'bar' ? 7 : 1);\n");
      const run = spawnSync('sh', ['-c', execIfSimple(`FOO=bar ${process.execPath} ${script}`)], { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(7);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('event-loop delay over paused windows', () => {
  it('merges the percentiles of several segments by their counts', async () => {
    const { mergedPercentile } = await import('../../src/measure/http/probe.js');
    const segment = (count: number, values: [number, number][]) => ({ count, percentiles: new Map(values) });
    // 90 samples all at 1 ms, 10 samples all at 50 ms: p50 is 1 ms, p99 is 50 ms.
    const quiet = segment(90, [
      [0, 1],
      [100, 1],
    ]);
    const busy = segment(10, [
      [0, 50],
      [100, 50],
    ]);
    expect(mergedPercentile([quiet, busy], 50)).toBe(1);
    expect(mergedPercentile([quiet, busy], 89)).toBe(1);
    expect(mergedPercentile([quiet, busy], 99)).toBe(50);
    expect(mergedPercentile([], 99)).toBe(0);
  });
});

describe('long paths in messages and tables', () => {
  it('shortens a 2,000-character path, keeping its start and end and saying how long it is', () => {
    const path = `/search?q=${'a'.repeat(1000)}${'b'.repeat(983)}&page=2`;
    expect(path).toHaveLength(2000);
    const shown = formatPath(path);
    expect(shown.length).toBeLessThan(90);
    expect(shown.startsWith('/search?q=aaa')).toBe(true);
    expect(shown).toMatch(/bbb&page=2 \(2000 characters\)$/);
    expect(formatPath('/todo-lists?filter=x')).toBe('/todo-lists?filter=x');
    const [label] = requestLabels([{ method: 'GET', path, headers: {}, body: undefined, status: [404] }]);
    expect(label).toEqual({ label: `GET ${shown}`, expected: '404' });
  });
});

describe('the size of the answers', () => {
  const load = (port: number) =>
    runLoad({ port, requests: [{ method: 'GET', path: '/', headers: {}, status: ['2xx'] }] as never, connections: 2, durationMs: 300 });

  it('counts the body bytes of the expected responses, per response', async () => {
    const body = 'x'.repeat(1234);
    const full = await load(await listen((req, res) => res.end(body)));
    expect(full.traffic.ok).toBeGreaterThan(0);
    expect(full.traffic.bodyBytes! / full.traffic.ok).toBe(1234);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    const empty = await load(await listen((req, res) => res.end()));
    expect(empty.traffic.ok).toBeGreaterThan(0);
    expect(empty.traffic.bodyBytes).toBe(0);
  });

  it('calls answers of a very different size different answers, not a faster server', () => {
    const traffic = (ok: number, bodyBytes: number | undefined) =>
      ({ responses: ok, ok, non2xx: 0, byClass: {}, errors: 0, timeouts: 0, resets: 0, bodyBytes }) as TrafficFigures;
    const base = traffic(100, 120_000); // 1.2 kB a response
    expect(bodySizeMismatch(base, traffic(200, 240_000))).toBeUndefined();
    // Dynamic bodies (a date, an id) move by bytes.
    expect(bodySizeMismatch(base, traffic(100, 119_000))).toBeUndefined();
    expect(bodySizeMismatch(base, traffic(100, 0))).toBe(
      "head answered 0 B per response where base answered 1.2 kB: different answers, not a faster or slower server (a body 2× larger or smaller, or empty on one side only, is not compared). Check what head's server sends for these requests.",
    );
    expect(bodySizeMismatch(base, traffic(100, 50_000))).toMatch(/^head answered 500 B per response where base answered 1\.2 kB/);
    expect(bodySizeMismatch(base, traffic(100, 300_000))).toMatch(/^head answered 3\.0 kB per response where base answered 1\.2 kB/);
    expect(bodySizeMismatch(traffic(100, 0), traffic(100, 0))).toBeUndefined();
    // A report from before sizes were counted: nothing to compare.
    expect(bodySizeMismatch(traffic(100, undefined), traffic(100, 0))).toBeUndefined();
  });
});
