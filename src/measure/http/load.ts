import http from 'node:http';
import autocannon from 'autocannon';
import { build as buildHistogram } from 'hdr-histogram-js';
import { expectsStatus } from '../../config/status.js';
import type { HttpRequestConfig } from '../../config/types.js';
import type { LatencyFigures, RateFigures, TrafficFigures } from './types.js';

export interface LoadOptions {
  port: number;
  requests: readonly HttpRequestConfig[];
  connections: number;
  durationMs: number;
}

export interface LoadResult {
  requestsPerSec: number;
  /** Every successful response's time (ms), for pooling blocks. */
  times: number[];
  latency: LatencyFigures;
  traffic: TrafficFigures;
  elapsedMs: number;
  /** Fixed-rate loads only (measure/http/rate.ts): the rate asked and reached. */
  rate?: RateFigures;
}

/**
 * Put load on 127.0.0.1:port with autocannon (programmatic API) for a bounded
 * time. autocannon's own latency histogram keeps whole milliseconds, so each
 * response's hrtime duration is taken from its 'response' event instead.
 * A response succeeds when its status is one its request expects (2xx unless configured); any
 * other is counted, per request and status, as unexpected.
 * It ends at its deadline whatever the server does: requests still unanswered then are not
 * counted (a hung server reads as 0 answers, which the rounds treat as an error).
 */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const times: number[] = [];
    let ok = 0;
    let responses = 0;
    let bodyBytes = 0;
    let pendingBody = 0;
    const unexpected: Record<string, number>[] = options.requests.map(() => ({}));
    // autocannon calls a request's onResponse just before it emits 'response' for the same answer, on the same tick:
    // that is the only place that knows which request an answer belongs to.
    let expected = false;
    const started = performance.now();
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${options.port}`,
        connections: options.connections,
        duration: options.durationMs / 1000,
        // autocannon only checks for the end of a run on its sample tick (1 s by default): a short tick ends loads on time.
        sampleInt: 50,
        timeout: 10,
        requests: options.requests.map((request, i) => ({
          method: request.method,
          path: request.path,
          headers: { ...request.headers },
          ...(request.body !== undefined ? { body: request.body } : {}),
          onResponse: (status: number, body: string | undefined) => {
            expected = expectsStatus(request.status, status);
            pendingBody = body ? Buffer.byteLength(body) : 0;
            if (!expected) unexpected[i]![status] = (unexpected[i]![status] ?? 0) + 1;
          },
        })),
      },
      (error: Error | null, result: autocannon.Result) => {
        if (error) return reject(error);
        const elapsedMs = performance.now() - started;
        resolve({
          requestsPerSec: (ok / elapsedMs) * 1000,
          times,
          latency: latencyOf(times),
          traffic: {
            responses,
            ok,
            non2xx: result.non2xx,
            byClass: Object.fromEntries((['1xx', '3xx', '4xx', '5xx'] as const).filter((k) => result[k] > 0).map((k) => [k, result[k]])),
            unexpected,
            errors: result.errors,
            timeouts: result.timeouts,
            resets: result.resets,
            bodyBytes,
          },
          elapsedMs,
        });
      },
    );
    instance.on('response', (_client: unknown, _statusCode: number, _bytes: number, responseTime: number) => {
      responses++;
      if (!expected) return;
      ok++;
      bodyBytes += pendingBody;
      times.push(responseTime);
    });
  });
}

/** One request of each kind, to learn its status before any load: names the request at fault. */
export function preflight(port: number, requests: readonly HttpRequestConfig[]): Promise<number[]> {
  return Promise.all(
    requests.map(
      (request) =>
        new Promise<number>((resolve) => {
          const req = http.request(
            { host: '127.0.0.1', port, path: request.path, method: request.method, headers: request.headers, timeout: 5000, agent: false },
            (response) => {
              response.resume();
              resolve(response.statusCode ?? 0);
            },
          );
          req.on('timeout', () => req.destroy());
          req.on('error', () => resolve(0));
          req.end(request.body);
        }),
    ),
  );
}

/**
 * Percentiles and mean of response times (ms), through an HDR histogram (hdr-histogram-js, what
 * autocannon itself records with) at microsecond resolution and 3 significant digits: autocannon's
 * own histogram counts whole milliseconds, which would read a 0.15 ms p50 as 0 or 1.
 */
export function latencyOf(times: readonly number[]): LatencyFigures {
  if (times.length === 0) return { p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, mean: Number.NaN };
  const histogram = buildHistogram({
    bitBucketSize: 64,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
    useWebAssembly: false,
  });
  for (const ms of times) histogram.recordValue(Math.max(1, Math.round(ms * 1000)));
  const figures = {
    p50: histogram.getValueAtPercentile(50) / 1000,
    p90: histogram.getValueAtPercentile(90) / 1000,
    p99: histogram.getValueAtPercentile(99) / 1000,
    mean: histogram.mean / 1000,
  };
  histogram.destroy();
  return figures;
}
