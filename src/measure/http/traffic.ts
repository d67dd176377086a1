import { describeExpected } from '../../config/status.js';
import type { HttpRequestConfig } from '../../config/types.js';
import { formatPath } from '../../util/format.js';
import type { TrafficFigures } from './types.js';

/** A request as messages name it: "GET /missing", what it expects: "404". */
export interface RequestLabel {
  label: string;
  expected: string;
}

export function requestLabels(requests: readonly HttpRequestConfig[]): RequestLabel[] {
  return requests.map((r) => ({ label: `${r.method} ${formatPath(r.path)}`, expected: describeExpected(r.status) }));
}

/** Two windows of traffic as one. */
export function addTraffic(a: TrafficFigures, b: TrafficFigures): TrafficFigures {
  const byClass = { ...a.byClass };
  for (const [k, v] of Object.entries(b.byClass)) byClass[k] = (byClass[k] ?? 0) + v;
  const sum: TrafficFigures = {
    responses: a.responses + b.responses,
    ok: a.ok + b.ok,
    non2xx: a.non2xx + b.non2xx,
    byClass,
    errors: a.errors + b.errors,
    timeouts: a.timeouts + b.timeouts,
    resets: a.resets + b.resets,
  };
  if (a.bodyBytes !== undefined || b.bodyBytes !== undefined) sum.bodyBytes = (a.bodyBytes ?? 0) + (b.bodyBytes ?? 0);
  if (a.unexpected || b.unexpected) {
    const length = Math.max(a.unexpected?.length ?? 0, b.unexpected?.length ?? 0);
    sum.unexpected = Array.from({ length }, (_, i) => {
      const counts = { ...a.unexpected?.[i] };
      for (const [status, n] of Object.entries(b.unexpected?.[i] ?? {})) counts[status] = (counts[status] ?? 0) + n;
      return counts;
    });
  }
  return sum;
}

/** The mean body size of the expected responses, in bytes; undefined when unknown (older reports) or none came. */
export function meanBodyBytes(t: TrafficFigures): number | undefined {
  return t.bodyBytes === undefined || t.ok === 0 ? undefined : t.bodyBytes / t.ok;
}

/**
 * How far apart two servers' answers may be in size and still be the same answers: dynamic bodies (a
 * date, an id, a count) move by bytes, not by half. An empty body where the other side sends one, or a
 * body half or twice the size, is a different answer, and a faster server that sends less is not faster.
 */
export const BODY_SIZE_RATIO = 2;

/** Why head's answers are not base's, by their size, or undefined when they may be the same answers. */
export function bodySizeMismatch(base: TrafficFigures, head: TrafficFigures): string | undefined {
  const [b, h] = [meanBodyBytes(base), meanBodyBytes(head)];
  if (b === undefined || h === undefined) return undefined;
  const empty = (b === 0) !== (h === 0);
  const apart = b > 0 && h > 0 && Math.max(b / h, h / b) > BODY_SIZE_RATIO;
  if (!empty && !apart) return undefined;
  return (
    `head answered ${formatBytes(h)} per response where base answered ${formatBytes(b)}: different ` +
    `answers, not a faster or slower server (a body ${BODY_SIZE_RATIO}× larger or smaller, or ` +
    `empty on one side only, is not compared). Check what head's server sends for these requests.`
  );
}

function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${Math.round(bytes)} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** Responses with a status their request does not expect (every non-2xx in reports that predate expected statuses). */
export function failedResponses(t: TrafficFigures): number {
  if (!Array.isArray(t.unexpected)) return t.non2xx;
  return t.unexpected.reduce((sum, counts) => sum + Object.values(counts).reduce((a, b) => a + b, 0), 0);
}

/** Responses that failed plus requests that got no response: what makes a server broken under load. */
export function failedRequests(t: TrafficFigures): number {
  return failedResponses(t) + t.errors + t.timeouts + t.resets;
}

/** More failed requests than a round tolerates (5, or one in a thousand): enough to fail it, at head or to explain at base. */
export function tooManyFailures(t: TrafficFigures): boolean {
  return failedRequests(t) > Math.max(5, 0.001 * (t.responses + t.errors));
}

/**
 * "2950 unexpected responses to GET /todo-lists (503 ×2950; expected 2xx), 3 connection resets out of 3001 requests".
 * `requests` names each request; without it (or for a report that predates expected statuses) the counts stand alone.
 */
export function describeTraffic(t: TrafficFigures, requests: readonly RequestLabel[] = []): string {
  const parts = Array.isArray(t.unexpected)
    ? t.unexpected.flatMap((counts, i) => {
        const statuses = Object.entries(counts).sort(([, x], [, y]) => y - x);
        if (!statuses.length) return [];
        const total = statuses.reduce((sum, [, n]) => sum + n, 0);
        const request = requests[i];
        const list = statuses.map(([status, n]) => `${status} ×${n}`).join(', ');
        return [
          `${total} unexpected responses to ${request?.label ?? `requests[${i}]`} (${list}${request ? `; expected ${request.expected}` : ''})`,
        ];
      })
    : Object.entries(t.byClass)
        .filter(([k]) => k !== '3xx' && k !== '1xx')
        .map(([k, v]) => `${v} ${k} responses`);
  if (t.errors) parts.push(`${t.errors} connection errors`);
  if (t.resets) parts.push(`${t.resets} connection resets`);
  if (t.timeouts) parts.push(`${t.timeouts} timeouts`);
  return parts.length
    ? `${parts.join(', ')} out of ${t.responses + t.errors} requests`
    : `no failed response among ${t.responses + t.errors} requests`;
}
