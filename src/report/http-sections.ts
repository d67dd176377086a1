import { describeTraffic, failedRequests, type RequestLabel } from '../measure/http/traffic.js';
import type { TrafficFigures } from '../measure/http/types.js';
import {
  formatBudget,
  formatConfidence,
  formatDuration as formatMsDuration,
  formatFixed,
  formatMs,
  formatPath,
  formatShare,
} from '../util/format.js';
import type { ServerSummary } from '../measure/http/types.js';
import { formatInterval, formatIntervalAt, verdictWord } from './format.js';
import { openBecause } from './change.js';
import { duetLine, rateLine, scheduleLine, type CpuSummary, type HttpDetails } from './http.js';

/** The rows both reports show for an HTTP benchmark: one table of latency, one of the server, as plain cells. */
export interface HttpSections {
  title: string;
  /** Each request and the status it expects, when there are several. */
  requests: { header: string[]; rows: string[][] } | undefined;
  latency: { header: string[]; rows: string[][] };
  /** Why an open latency verdict stands beside an interval that does not straddle its budget. */
  latencyNote?: string;
  failures: string;
  server: { header: string[]; rows: string[][] } | undefined;
  /** The change of requests per CPU-second of the servers' main threads, or why it was not read. */
  cpu: string | undefined;
  /** Fixed-rate load tests: the rate asked, what each server reached, and who fell behind. */
  rate: string | undefined;
  /** `duet` rounds: how busy the shared CPU and the load generator were, and what an unsaturated CPU means. */
  duet: string | undefined;
  /** A duet's schedule chosen by the run, and why. */
  schedule: string | undefined;
  note: string | undefined;
  moved: string[];
}

const GATED_BECAUSE: Record<string, string> = {
  rate: 'a fixed rate sets requests/s, so it does not compare cost',
  unsaturated: "a saturating load left the shared CPU idle in a round, so requests/s compared what the load allowed, not the servers' cost",
  spread: 'it spread less than requests/s over the rounds',
};

/** The reason text for a known code; anything else (an uploaded report's) reads as the spread. */
function gatedBecause(code: unknown): string {
  return typeof code === 'string' && Object.hasOwn(GATED_BECAUSE, code) ? GATED_BECAUSE[code]! : GATED_BECAUSE.spread!;
}

export function httpSections(id: string, details: HttpDetails): HttpSections {
  const labels = requestLabels(details);
  const only = labels.length === 1 ? labels[0]! : undefined;
  const requests = only ? `${only.label}${only.expected === '2xx' ? '' : ` (expects ${only.expected})`}` : `${labels.length} requests`;
  const title = `${id} · ${requests} · ${details.connections} connections, ${formatMsDuration(details.durationMs)} per revision per round`;
  const latencyRows = Object.entries(details.latency).map(([stat, l]) => [
    stat,
    formatMs(l.base),
    formatMs(l.head),
    formatIntervalAt(l.change),
    l.budget === null ? '' : `${formatBudget(l.budget)} ${verdictWord(l.verdict ?? '')}`.trim(),
  ]);
  // An open latency verdict beside an interval wholly on one side of its budget says why (a CI run read p99
  // "inconclusive" beside [+83%, …] at a 25% budget, with nothing to say its interval was short of its level).
  const latencyNote = Object.entries(details.latency)
    .flatMap(([stat, l]) => {
      const why = l.budget === null ? undefined : openBecause(l.change, l.verdict, l.budget, { lowerIsBetter: true });
      return why ? [`${stat}: ${why}`] : [];
    })
    .join('; ');
  const failures = failuresLine(details.traffic.base, details.traffic.head, labels);
  const { base, head } = details.server;
  const cpu = details.cpu;
  const serverRows = [
    ...(cpu
      ? [
          ['CPU per request: main thread / all threads (µs)', cpuCell(cpu.base), cpuCell(cpu.head)],
          ['waiting for a CPU per request (µs)', formatFixed(cpu.base?.waitUs, 1), formatFixed(cpu.head?.waitUs, 1)],
          ...(cpu.base?.instructions !== undefined && cpu.head?.instructions !== undefined
            ? [['user-mode instructions per request', formatFixed(cpu.base.instructions, 0), formatFixed(cpu.head.instructions, 0)]]
            : []),
        ]
      : []),
    ...(base || head
      ? [
          ['event-loop delay p50/p99/max (ms)', delays(base), delays(head)],
          ['event-loop utilisation', pct(base?.eventLoopUtilization), pct(head?.eventLoopUtilization)],
          ['GC time (share of window)', gc(base), gc(head)],
          ['peak RSS / heap used (MB)', memory(base), memory(head)],
        ]
      : []),
  ];
  const server = serverRows.length ? { header: ['server', 'base', 'head'], rows: serverRows } : undefined;
  const change = cpu?.change;
  const role =
    details.gatedOn === 'cpu'
      ? `the verdict's figure (${gatedBecause(details.gatedBecause)}); requests/s guards it (its confirmed regression still fails)`
      : details.gatedOn === 'requests'
        ? 'a guard: requests/s spread less and gives the verdict; a confirmed regression here still fails'
        : 'gated at the budget';
  const cpuLine = change
    ? `requests per CPU-second of the server's main thread: ${formatInterval(change)} ` +
      `(${formatConfidence(change.confidence)} interval; ${cpu.verdict ? `${role}: ${verdictWord(cpu.verdict)}` : 'reported, not gated'})`
    : details.cpuNote;
  return {
    title,
    requests: only ? undefined : { header: ['request', 'expects'], rows: labels.map((r) => [r.label, r.expected]) },
    latency: { header: ['latency (ms)', 'base', 'head', 'change [CI]', 'budget'], rows: latencyRows },
    ...(latencyNote ? { latencyNote } : {}),
    failures,
    server,
    cpu: cpuLine === undefined ? undefined : String(cpuLine),
    rate: rateLine(details.rate),
    duet: duetLine(details.duet),
    schedule: scheduleLine(details.schedule),
    note: details.server.note,
    moved: details.moved,
  };
}

/**
 * Each request of a report as "GET /path" (a long path shortened) and the status it expects. A report
 * made elsewhere may hold anything here, or predate `expected` (when every request expected 2xx).
 */
function requestLabels(details: HttpDetails): RequestLabel[] {
  const requests = Array.isArray(details.requests) ? details.requests : [];
  return requests.map((request, i) => {
    const text = String(request);
    const space = text.indexOf(' ');
    const label = space < 0 ? formatPath(text) : `${text.slice(0, space)} ${formatPath(text.slice(space + 1))}`;
    const expected = Array.isArray(details.expected) && details.expected[i] !== undefined ? String(details.expected[i]) : '2xx';
    return { label, expected };
  });
}

function failuresLine(base: TrafficFigures, head: TrafficFigures, labels: RequestLabel[]): string {
  const bad = failedRequests;
  if (!bad(base) && !bad(head)) {
    const expected = new Set(labels.map((r) => r.expected));
    const answered = expected.size === 1 ? [...expected][0]! : 'as expected';
    return `failed requests: none (${base.ok} and ${head.ok} answered ${answered})`;
  }
  return `failed requests: base ${bad(base) ? describeTraffic(base, labels) : 'none'}; head ${bad(head) ? describeTraffic(head, labels) : 'none'}`;
}

const delays = (s: ServerSummary | null) =>
  s ? `${formatMs(s.eventLoopDelayMs.p50)} / ${formatMs(s.eventLoopDelayMs.p99)} / ${formatMs(s.eventLoopDelayMs.max)}` : '–';
// Figures of a report.json made elsewhere may be anything: formatFixed shows '–' for what is not a number.
const pct = (x: number | undefined) => formatShare(x, 0);
const gc = (s: ServerSummary | null) =>
  s ? `${formatFixed(s.gc?.totalMs, 0)} ms (${formatShare(s.gc?.share, 1)}), ${formatFixed(s.gc?.count, 0)} pauses` : '–';
const cpuCell = (c: CpuSummary | undefined) => (c ? `${formatFixed(c.mainUs, 1)} / ${formatFixed(c.processUs, 1)}` : '–');
const memory = (s: ServerSummary | null) => (s ? `${formatFixed(s.peakRssMb, 0)} / ${formatFixed(s.peakHeapUsedMb, 0)}` : '–');
