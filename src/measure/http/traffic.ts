import type { TrafficFigures } from './types.js';

/** Two windows of traffic as one. */
export function addTraffic(a: TrafficFigures, b: TrafficFigures): TrafficFigures {
  const byClass = { ...a.byClass };
  for (const [k, v] of Object.entries(b.byClass)) byClass[k] = (byClass[k] ?? 0) + v;
  return {
    responses: a.responses + b.responses,
    ok: a.ok + b.ok,
    non2xx: a.non2xx + b.non2xx,
    byClass,
    errors: a.errors + b.errors,
    timeouts: a.timeouts + b.timeouts,
    resets: a.resets + b.resets,
  };
}

/** "12 5xx responses, 3 connection resets out of 40000 requests" */
export function describeTraffic(t: TrafficFigures): string {
  const parts = Object.entries(t.byClass)
    .filter(([k]) => k !== '3xx' && k !== '1xx')
    .map(([k, v]) => `${v} ${k} responses`);
  if (t.errors) parts.push(`${t.errors} connection errors`);
  if (t.resets) parts.push(`${t.resets} connection resets`);
  if (t.timeouts) parts.push(`${t.timeouts} timeouts`);
  return `${parts.join(', ')} out of ${t.responses + t.errors} requests`;
}
