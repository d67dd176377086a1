import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { checkRate, runRateLoad, Schedule } from '../../src/measure/http/rate.js';
import { poolRate } from '../../src/measure/http/round.js';
import type { RateFigures } from '../../src/measure/http/types.js';
import { rateLine } from '../../src/report/http.js';
import { numbersIn } from '../report-text.js';

let server: http.Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

function listen(handler: http.RequestListener): Promise<number> {
  server = http.createServer(handler);
  server.keepAliveTimeout = 10_000;
  return new Promise((resolve) => server!.listen(0, '127.0.0.1', () => resolve((server!.address() as AddressInfo).port)));
}

const get = (path: string) => ({ method: 'GET' as const, path, headers: {}, body: undefined, status: ['2xx' as const] });

describe('the fixed-rate schedule', () => {
  it('makes each request due at start + k / rate, whatever was answered, and ends with the window', () => {
    const schedule = new Schedule(100, 1000, 10); // 1000/s for 10 ms: 10 requests, one per ms from t = 100
    expect(schedule.total).toBe(10);
    expect(schedule.due(99.9)).toEqual([]);
    expect(schedule.due(100)).toEqual([100]);
    // A late tick sends every request due meanwhile, each with the time it was due.
    expect(schedule.due(103.5)).toEqual([101, 102, 103]);
    expect(schedule.due(103.9)).toEqual([]);
    expect(schedule.due(1000)).toEqual([104, 105, 106, 107, 108, 109]);
    expect(schedule.done).toBe(true);
    expect(new Schedule(0, 3, 1000).due(Infinity)).toEqual([0, 1000 / 3, 2000 / 3]);
  });
});

describe('the rate check', () => {
  const figures = (reached: number, lateShare: number): RateFigures => ({ asked: 1000, reached, lateShare });

  it('tells a server that fell behind from a load generator that did, and a kept rate from both', () => {
    expect(checkRate(figures(995, 0))).toBeUndefined();
    expect(checkRate(figures(970, 0.05))).toBeUndefined();
    expect(checkRate(figures(900, 0.01))).toBe('server');
    // Requests the generator sent late say nothing of the server: the generator is named first.
    expect(checkRate(figures(900, 0.2))).toBe('load generator');
    expect(checkRate(figures(1000, 0.06))).toBe('load generator');
  });

  it('pools the blocks of a round by their windows, and keeps no rate when a block had none', () => {
    const block = (ok: number, elapsedMs: number, lateShare: number) => ({
      elapsedMs,
      traffic: { responses: ok, ok, non2xx: 0, byClass: {}, errors: 0, timeouts: 0, resets: 0 },
      rate: { asked: 100, reached: (ok / elapsedMs) * 1000, lateShare },
    });
    const pooled = poolRate([block(100, 1000, 0), block(40, 1000, 0.5)])!;
    expect(pooled.asked).toBe(100);
    expect(pooled.reached).toBeCloseTo(70, 9);
    expect(pooled.lateShare).toBeCloseTo(0.25, 9);
    expect(poolRate([block(100, 1000, 0), { ...block(100, 1000, 0), rate: undefined }])).toBeUndefined();
  });

  it('says who fell behind, in how many rounds, with the rates parsed back', () => {
    const line = rateLine({
      asked: 5000,
      auto: true,
      base: { reached: 4998, lateShare: 0 },
      head: { reached: 4120, lateShare: 0.001 },
      behind: [{ side: 'head', who: 'server', rounds: 3 }],
      rounds: 10,
    })!;
    expect(numbersIn(line.slice(0, line.indexOf(' requests/s')))).toEqual([5000]);
    expect(line).toContain("(auto: half the slower server's capacity)");
    expect(numbersIn(line.slice(line.indexOf('reached')))).toEqual([4998, 4120, 3, 10]);
    expect(line).toContain("head's server fell behind in 3 of 10 rounds");
    const keptRate = {
      asked: 200,
      auto: false,
      base: { reached: 200, lateShare: 0 },
      head: { reached: 199, lateShare: 0 },
      behind: [],
      rounds: 4,
    };
    expect(rateLine(keptRate)).toMatch(/both kept the rate$/);
    expect(rateLine(undefined)).toBeUndefined();
    // A report made elsewhere may hold anything in its list: what is no entry is left out, never a crash.
    const forged = { ...keptRate, behind: [null, 3, { side: 'head', who: 'load generator', rounds: 2 }] } as never;
    expect(() => rateLine(forged)).not.toThrow();
    expect(rateLine(forged)).toContain("head's load generator fell behind in 2 of 4 rounds");
  });

  it('reads rate: from the config, a number or auto', () => {
    const rateOf = (value: string) =>
      parseConfig(`http:\n  - name: x\n    start: a\n    requests: [{ path: / }]\n    rate: ${value}\n`, '/repo/benchgate.yml').http[0]!
        .rate;
    expect(rateOf('2500')).toBe(2500);
    expect(rateOf('auto')).toBe('auto');
  });
});

describe('a fixed-rate load on a real server (127.0.0.1)', () => {
  it('sends on schedule whatever the server answers: a server slower than the rate falls behind, and its queue counts in latency', async () => {
    // One connection, 50 ms per answer: at most 20 answers a second, asked 100.
    const port = await listen((_req, res) => void setTimeout(() => res.end('ok'), 50));
    const result = await runRateLoad({ port, requests: [get('/')], connections: 1, durationMs: 600, rate: 100, drainMs: 200 });
    expect(result.rate!.asked).toBe(100);
    expect(result.rate!.reached).toBeLessThan(40);
    // (Whether this busy test machine also sent some requests late is the load generator's business, checked above.)
    expect(checkRate({ ...result.rate!, lateShare: 0 })).toBe('server');
    // Requests waited behind each other for the one connection: counted from when the schedule sent them,
    // latency grows far past the 50 ms each answer takes (a closed-loop load would read about 50 ms).
    expect(Math.min(...result.times)).toBeGreaterThanOrEqual(49);
    expect(result.latency.p99).toBeGreaterThan(150);
    // What was still waiting when the drain ended is unanswered, not dropped from view.
    expect(result.traffic.ok + result.traffic.timeouts + result.traffic.errors + result.traffic.resets).toBe(60);
    expect(result.traffic.timeouts).toBeGreaterThan(0);
  });

  it('counts statuses a request does not expect apart, per request, with the answered bodies', async () => {
    const port = await listen((req, res) => {
      res.statusCode = req.url === '/missing' ? 404 : 200;
      res.end('0123456789');
    });
    const result = await runRateLoad({ port, requests: [get('/'), get('/missing')], connections: 4, durationMs: 400, rate: 50 });
    // 20 requests due, alternating: 10 answered as expected, 10 a 404 the second does not expect.
    expect(result.traffic.responses).toBe(20);
    expect(result.traffic.ok).toBe(10);
    expect(result.traffic.unexpected).toEqual([{}, { 404: 10 }]);
    expect(result.traffic.byClass).toEqual({ '4xx': 10 });
    expect(result.traffic.bodyBytes).toBe(100);
    expect(result.times).toHaveLength(10);
    expect(result.rate!.reached).toBeCloseTo(25, 9);
  });
});
