import { describeTraffic } from '../measure/http/traffic.js';
import type { TrafficFigures } from '../measure/http/types.js';
import { formatBudget, formatDuration as formatMsDuration, formatFixed, formatMs, formatPercent, formatShare } from '../util/format.js';
import type { ServerSummary } from '../measure/http/types.js';
import type { HttpDetails } from './http.js';

/** The rows both reports show for an HTTP benchmark: one table of latency, one of the server, as plain cells. */
export interface HttpSections {
  title: string;
  latency: { header: string[]; rows: string[][] };
  failures: string;
  server: { header: string[]; rows: string[][] } | undefined;
  note: string | undefined;
  moved: string[];
}

export function httpSections(id: string, details: HttpDetails): HttpSections {
  const requests = details.requests.length === 1 ? details.requests[0]! : `${details.requests.length} requests`;
  const title = `${id} · ${requests} · ${details.connections} connections, ${formatMsDuration(details.durationMs)} per revision per round`;
  const latencyRows = Object.entries(details.latency).map(([stat, l]) => [
    stat,
    formatMs(l.base),
    formatMs(l.head),
    `${formatPercent(l.change.estimate)} [${formatPercent(l.change.low)}, ${formatPercent(l.change.high)}]`,
    l.budget === null ? '' : `${formatBudget(l.budget)} ${l.verdict ?? ''}`.trim(),
  ]);
  const failures = failuresLine(details.traffic.base, details.traffic.head);
  const { base, head } = details.server;
  const server =
    base || head
      ? {
          header: ['server', 'base', 'head'],
          rows: [
            ['event-loop delay p50/p99/max (ms)', delays(base), delays(head)],
            ['event-loop utilisation', pct(base?.eventLoopUtilization), pct(head?.eventLoopUtilization)],
            ['GC time (share of window)', gc(base), gc(head)],
            ['peak RSS / heap used (MB)', memory(base), memory(head)],
          ],
        }
      : undefined;
  return {
    title,
    latency: { header: ['latency (ms)', 'base', 'head', 'change [CI]', 'budget'], rows: latencyRows },
    failures,
    server,
    note: details.server.note,
    moved: details.moved,
  };
}

function failuresLine(base: TrafficFigures, head: TrafficFigures): string {
  const bad = (t: TrafficFigures) => t.non2xx + t.errors + t.timeouts + t.resets;
  if (!bad(base) && !bad(head)) return `failed requests: none (${base.ok} and ${head.ok} answered 2xx)`;
  return `failed requests: base ${bad(base) ? describeTraffic(base) : 'none'}; head ${bad(head) ? describeTraffic(head) : 'none'}`;
}

const delays = (s: ServerSummary | null) =>
  s ? `${formatMs(s.eventLoopDelayMs.p50)} / ${formatMs(s.eventLoopDelayMs.p99)} / ${formatMs(s.eventLoopDelayMs.max)}` : '–';
// Figures of a report.json made elsewhere may be anything: formatFixed shows '–' for what is not a number.
const pct = (x: number | undefined) => formatShare(x, 0);
const gc = (s: ServerSummary | null) =>
  s ? `${formatFixed(s.gc?.totalMs, 0)} ms (${formatShare(s.gc?.share, 1)}), ${formatFixed(s.gc?.count, 0)} pauses` : '–';
const memory = (s: ServerSummary | null) => (s ? `${formatFixed(s.peakRssMb, 0)} / ${formatFixed(s.peakHeapUsedMb, 0)}` : '–');
