import { Pool } from 'undici';
import { expectsStatus } from '../../config/status.js';
import type { HttpRequestConfig } from '../../config/types.js';
import { latencyOf, type LoadResult } from './load.js';
import type { RateFigures } from './types.js';

/**
 * A fixed-rate (open-loop) load: requests leave on a schedule, one every 1/rate seconds, whatever the
 * server answers, over a pool of `connections` keep-alive connections (undici's Pool: a request with
 * no free connection waits in the pool's queue). Each response's latency counts from the moment the
 * schedule sent it, not from when a connection took it, so time spent queued behind a slow answer is
 * the server's, not hidden: the correction for coordinated omission. (wrk2 counts from the moment a
 * request was due; here the 1 ms timer's own lateness would then add up to a millisecond to answers
 * that take a fifth of one, so it is counted apart: a request sent more than LATE_MS after it was due
 * is late, and many late requests mean the load generator fell behind.) autocannon's `overallRate` was not used: it sends
 * each connection's share of a second at once, then waits for the next second, which is a burst
 * per second, not a rate, and its correction assumes an interval of whole milliseconds.
 *
 * Written by hand: the schedule and the checks below; undici does the HTTP.
 */
export interface RateLoadOptions {
  port: number;
  requests: readonly HttpRequestConfig[];
  connections: number;
  durationMs: number;
  /** Requests per second asked of both servers alike. */
  rate: number;
  /** After the schedule ends, how long answers still due may take before they count as unanswered (default 2 s). */
  drainMs?: number;
}

/** A request is late when the load generator sends it this long after it was due: the generator, not the server, fell behind. */
export const LATE_MS = 5;

/** The rate check: the share of the asked rate answered as expected below which a side fell behind. */
export const REACHED_SHARE = 0.97;
/** The share of requests sent late above which the load generator fell behind. */
export const LATE_SHARE = 0.05;

/**
 * The schedule: request k is due at start + k × 1000 / rate (ms). `due(now)` returns the requests that
 * are due by `now` and not sent yet, with the time each was due, and how many were due by the end.
 */
export class Schedule {
  private sent = 0;
  readonly total: number;
  constructor(
    readonly start: number,
    readonly rate: number,
    durationMs: number,
  ) {
    this.total = Math.floor((durationMs * rate) / 1000);
  }
  due(now: number): number[] {
    const times: number[] = [];
    while (this.sent < this.total) {
      const at = this.start + (this.sent * 1000) / this.rate;
      if (at > now) break;
      times.push(at);
      this.sent++;
    }
    return times;
  }
  get done(): boolean {
    return this.sent >= this.total;
  }
}

/**
 * Whether a side kept the rate: answers as expected per second against the rate asked, and the share
 * of requests the load generator sent more than LATE_MS after they were due. Behind: who fell behind
 * ("load generator" first, since a generator that cannot send on time says nothing of the server).
 */
export function checkRate(figures: RateFigures): 'load generator' | 'server' | undefined {
  if (figures.lateShare > LATE_SHARE) return 'load generator';
  if (figures.reached < REACHED_SHARE * figures.asked) return 'server';
  return undefined;
}

export function runRateLoad(options: RateLoadOptions): Promise<LoadResult> {
  const { requests } = options;
  const pool = new Pool(`http://127.0.0.1:${options.port}`, {
    connections: options.connections,
    pipelining: 1,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const times: number[] = [];
  const unexpected: Record<string, number>[] = requests.map(() => ({}));
  const byClass: Record<string, number> = {};
  let ok = 0;
  let responses = 0;
  let non2xx = 0;
  let errors = 0;
  let timeouts = 0;
  let resets = 0;
  let bodyBytes = 0;
  let late = 0;
  let pending = 0;
  let next = 0;
  const started = performance.now();
  const schedule = new Schedule(started, options.rate, options.durationMs);

  const send = (sentAt: number) => {
    const i = next++ % requests.length;
    const request = requests[i]!;
    pending++;
    pool
      .request({
        method: request.method,
        path: request.path,
        headers: request.headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
      })
      .then(async (response) => {
        const body = Buffer.from(await response.body.arrayBuffer());
        const done = performance.now();
        responses++;
        const status = response.statusCode;
        if (status < 200 || status >= 300) {
          non2xx++;
          const kind = `${Math.floor(status / 100)}xx`;
          byClass[kind] = (byClass[kind] ?? 0) + 1;
        }
        if (!expectsStatus(request.status, status)) {
          unexpected[i]![status] = (unexpected[i]![status] ?? 0) + 1;
          return;
        }
        ok++;
        bodyBytes += body.length;
        times.push(done - sentAt);
      })
      .catch((error: { code?: string }) => {
        if (error.code === 'UND_ERR_HEADERS_TIMEOUT' || error.code === 'UND_ERR_BODY_TIMEOUT') timeouts++;
        else if (error.code === 'ECONNRESET' || error.code === 'UND_ERR_SOCKET') resets++;
        else if (error.code !== 'UND_ERR_DESTROYED' && error.code !== 'UND_ERR_ABORTED') errors++;
      })
      .finally(() => pending--);
  };

  return new Promise((resolve) => {
    const finish = async () => {
      // Only what was sent in the window counts; answers still due at the drain's end are unanswered.
      const drainEnd = performance.now() + (options.drainMs ?? 2000);
      while (pending > 0 && performance.now() < drainEnd) await new Promise((r) => setTimeout(r, 5));
      const unanswered = pending;
      await pool.destroy().catch(() => undefined);
      const windowMs = options.durationMs;
      const rate: RateFigures = {
        asked: options.rate,
        reached: (ok / windowMs) * 1000,
        lateShare: schedule.total > 0 ? late / schedule.total : 0,
      };
      resolve({
        requestsPerSec: rate.reached,
        times,
        latency: latencyOf(times),
        traffic: {
          responses,
          ok,
          non2xx,
          byClass,
          unexpected,
          errors,
          timeouts: timeouts + unanswered,
          resets,
          bodyBytes,
        },
        elapsedMs: windowMs,
        rate,
      });
    };
    // A 1 ms timer sends what is due.
    const tick = () => {
      const now = performance.now();
      for (const due of schedule.due(now)) {
        if (now - due > LATE_MS) late++;
        send(now);
      }
      if (schedule.done) void finish();
      else setTimeout(tick, 1);
    };
    tick();
  });
}
