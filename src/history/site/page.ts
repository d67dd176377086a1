/// <reference lib="dom" />
/**
 * The page of a published history (`benchgate publish`), bundled with uPlot into dist/site/site.js. It reads
 * the data files site.ts writes, and shows every contributor's string (benchmark ids, commit subjects, tags,
 * gate keys) through textContent and attribute setters only: nothing of the data is ever parsed as HTML.
 * The charts are uPlot's; the code here only chooses what they show (and the percent ticks of a log scale).
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './site.css';
import type {
  SiteAlert,
  SiteBenchmark,
  SiteDataKind,
  SiteGate,
  SiteInterval,
  SiteOverview,
  SitePush,
  SitePushes,
  SiteRow,
} from '../site-data.js';

// ---- loading: the data are script files that call benchgateSite(kind, data), one at a time ----

let delivered: { kind: SiteDataKind; data: unknown } | undefined;
(window as unknown as { benchgateSite: (kind: SiteDataKind, data: unknown) => void }).benchgateSite = (kind, data) => {
  delivered = { kind, data };
};
let queue: Promise<unknown> = Promise.resolve();
const cache = new Map<string, Promise<unknown>>();

/** One data file, loaded once; loads run one after another, so each file's call is matched with its own load. */
function load<T>(file: string, kind: SiteDataKind): Promise<T> {
  const known = cache.get(file);
  if (known) return known as Promise<T>;
  const next = queue.then(
    () =>
      new Promise<T>((resolve, reject) => {
        delivered = undefined;
        const script = document.createElement('script');
        script.src = file;
        script.onload = () => {
          script.remove();
          if (delivered?.kind === kind) resolve(delivered.data as T);
          else reject(new Error(`${file} did not hold ${kind} data`));
        };
        script.onerror = () => {
          script.remove();
          reject(new Error(`${file} could not be loaded`));
        };
        document.head.append(script);
      }),
  );
  queue = next.catch(() => undefined);
  cache.set(file, next);
  return next;
}

// ---- small DOM helpers: text only ----

type Child = Node | string | null | undefined | false;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  for (const child of children) if (child) node.append(child);
  return node;
}

/** The children worth appending: the falsy ones of conditional parts dropped. */
function kids(...children: Child[]): (Node | string)[] {
  return children.filter((c): c is Node | string => Boolean(c));
}

/** A link to a commit or pull request of the repository, or the text alone where the repository is not known. */
function link(text: string, href: string | null, label?: string): HTMLElement {
  if (!href) return el('span', {}, text);
  return el('a', { href, ...(label ? { 'aria-label': label } : {}) }, text);
}

const percent = (x: number) => {
  const shown = Math.abs(100 * x).toFixed(1);
  return `${shown === '0.0' ? '' : x > 0 ? '+' : '−'}${shown}%`;
};
const interval = (i: SiteInterval | null | undefined) => (i ? `${percent(i.estimate)} [${percent(i.low)}, ${percent(i.high)}]` : '—');
/** A step with the confidence of its own compare, when it is not the 95% of the chained figures. */
const measuredAt = (confidence: number | null | undefined) =>
  confidence === null || confidence === undefined ? '' : ` (${(100 * confidence).toFixed(confidence > 0.99 ? 1 : 0)}%)`;
const short = (sha: string) => sha.slice(0, 7);
const day = (iso: string) => (Date.parse(iso) ? new Date(iso).toISOString().slice(0, 10) : iso);

/** What a verdict looks like: a symbol and a word, so colour is never the only cue. */
const VERDICT: Record<string, { symbol: string; word: string; tone: string }> = {
  regression: { symbol: '✗', word: 'regression', tone: 'bad' },
  improvement: { symbol: '▲', word: 'improvement', tone: 'good' },
  unchanged: { symbol: '✓', word: 'unchanged', tone: 'calm' },
  'within-budget': { symbol: '✓', word: 'within budget', tone: 'calm' },
  inconclusive: { symbol: '?', word: 'inconclusive', tone: 'warn' },
  unmeasured: { symbol: '!', word: 'unmeasured', tone: 'warn' },
  error: { symbol: '!', word: 'error', tone: 'warn' },
  new: { symbol: '+', word: 'new', tone: 'calm' },
  removed: { symbol: '−', word: 'removed', tone: 'calm' },
};

function verdictBadge(verdict: string | null): HTMLElement {
  if (!verdict) return el('span', { class: 'verdict' }, '—');
  const v = Object.hasOwn(VERDICT, verdict) ? VERDICT[verdict]! : { symbol: '?', word: verdict, tone: 'warn' };
  return el('span', { class: `verdict ${v.tone}` }, `${v.symbol} ${v.word}`);
}

/** The tone of a change against its budget: beyond it (bad), within, or better. */
function toneOf(change: SiteInterval | null, budget: number): string {
  if (!change) return 'calm';
  if (change.high < -budget) return 'bad';
  if (change.estimate < -budget / 2) return 'warn';
  if (change.low > 0) return 'good';
  return 'calm';
}

// ---- colours: Okabe and Ito's palette, read from the style sheet so the dark theme changes them too ----

function colour(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

// ---- routing: #b=<n> is a benchmark's view, anything else the overview ----

let overview: SiteOverview;
const main = () => document.getElementById('main')!;
const anchorChoice = new Map<number, number>();

function route(): void {
  const match = /^#b=(\d+)$/.exec(location.hash);
  const row = match ? overview.rows[Number(match[1])] : undefined;
  charts.forEach((c) => c.destroy());
  charts.length = 0;
  if (row) void showBenchmark(row, Number(match![1])).catch(showError);
  else showOverview();
}

function showError(error: unknown): void {
  main().replaceChildren(el('p', { class: 'error', role: 'alert' }, `This page could not show the history: ${String(error)}`));
}

const charts: uPlot[] = [];

// ---- the overview ----

function sinceOf(row: SiteRow): SiteInterval | null {
  const gate = overview.gates[row.gate]!;
  return row.since[anchorChoice.get(row.gate) ?? gate.defaultAnchor] ?? null;
}

function showOverview(): void {
  document.title = overview.title;
  const pushes = overview.gates.reduce((n, g) => n + g.pushes, 0);
  document.getElementById('subtitle')!.textContent =
    `${overview.rows.length} benchmark(s) in ${overview.gates.length} gate(s), ${pushes} push(es) measured side by side ` +
    `with their parents; published ${day(overview.generated)} by benchgate ${overview.version}.`;
  const filter = el('input', { type: 'search', id: 'filter', placeholder: 'benchmark name contains…' });
  const controls = el(
    'div',
    { class: 'controls' },
    el('label', { for: 'filter' }, 'Filter '),
    filter,
    ...overview.gates.map((gate, g) => anchorSelect(gate, g)),
  );
  const tbody = el('tbody');
  const table = el(
    'table',
    { class: 'overview' },
    el(
      'caption',
      {},
      'Every benchmark, worst change since its anchor first. The change is the product of every push’s own step ' +
        'measured side by side with its parent (95% band).',
    ),
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        el('th', { scope: 'col' }, 'Benchmark'),
        overview.gates.length > 1 && el('th', { scope: 'col' }, 'Gate'),
        el('th', { scope: 'col' }, 'Change since anchor [95%]'),
        el('th', { scope: 'col' }, 'Trend'),
        el('th', { scope: 'col' }, 'Newest push'),
        el('th', { scope: 'col' }, 'Drift'),
        el('th', { scope: 'col' }, 'Budget'),
      ),
    ),
    tbody,
  );
  const render = () => {
    const needle = filter.value.toLowerCase();
    const rows = overview.rows
      .map((row, n) => ({ row, n, since: sinceOf(row) }))
      .filter(({ row }) => !needle || row.id.toLowerCase().includes(needle))
      .sort((a, b) => (a.since?.estimate ?? Infinity) - (b.since?.estimate ?? Infinity) || a.row.id.localeCompare(b.row.id));
    sparkObserver.disconnect();
    tbody.replaceChildren(...rows.map(({ row, n, since }) => overviewRow(row, n, since)));
  };
  filter.addEventListener('input', render);
  controls.addEventListener('change', (event) => {
    const select = event.target as HTMLSelectElement;
    if (select.dataset.gate === undefined) return;
    anchorChoice.set(Number(select.dataset.gate), Number(select.value));
    render();
  });
  main().replaceChildren(
    el('h2', {}, 'Benchmarks'),
    controls,
    el('div', { class: 'scroll' }, table),
    el('h2', {}, 'Pushes that broke or nearly broke a budget'),
    alertsTable(overview.alerts),
  );
  render();
  // When the overview is there to use: read by the publish benchmark (scripts/bench-site.mjs).
  performance.mark('benchgate-overview');
}

function anchorSelect(gate: SiteGate, g: number): HTMLElement {
  const id = `anchor-${g}`;
  const select = el('select', { id, 'data-gate': String(g) });
  for (const [i, anchor] of gate.anchors.entries()) {
    const option = el('option', { value: String(i) }, `${anchor.label} (${short(anchor.commit)})`);
    if (i === (anchorChoice.get(g) ?? gate.defaultAnchor)) option.selected = true;
    select.append(option);
  }
  return el(
    'span',
    { class: 'anchor' },
    el('label', { for: id }, overview.gates.length > 1 ? `Anchor of ${gate.gate || 'the gate'} ` : 'Since '),
    select,
  );
}

function overviewRow(row: SiteRow, n: number, since: SiteInterval | null): HTMLElement {
  const gate = overview.gates[row.gate]!;
  const drift = gate.drift?.benchmarks.find((b) => b.id === row.id);
  const spark = el('div', { class: 'spark', role: 'img', 'aria-label': sparkLabel(row) });
  sparkRows.set(spark, row);
  sparkObserver.observe(spark);
  return el(
    'tr',
    {},
    el('th', { scope: 'row', class: 'name' }, el('a', { href: `#b=${n}` }, row.id)),
    overview.gates.length > 1 && el('td', {}, gate.gate || '(default)'),
    el('td', { class: `num ${toneOf(since, row.budget)}` }, interval(since)),
    el('td', {}, spark),
    el('td', {}, verdictBadge(row.last)),
    el('td', {}, drift ? el('span', {}, verdictBadge(drift.verdict), ` ${interval(drift.change)} since ${gate.drift!.anchor.label}`) : '—'),
    el('td', { class: 'num' }, `${(100 * row.budget).toFixed(1)}%`),
  );
}

function sparkLabel(row: SiteRow): string {
  const known = row.spark.filter((v): v is number => v !== null);
  if (!known.length) return 'no measured change yet';
  return (
    `chained change from the first push: from ${percent(known[0]!)} to ${percent(known.at(-1)!)}, ` +
    `lowest ${percent(Math.min(...known))}, highest ${percent(Math.max(...known))}`
  );
}

/** Sparklines are drawn when their row scrolls into view: a page of 200 rows draws only those on screen. */
const sparkRows = new WeakMap<Element, SiteRow>();
const sparkObserver = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    sparkObserver.unobserve(entry.target);
    const row = sparkRows.get(entry.target);
    if (row) sparkline(entry.target as HTMLElement, row);
  }
});

function sparkline(target: HTMLElement, row: SiteRow): void {
  const x = row.spark.map((_, i) => i);
  const y = row.spark.map((v) => (v === null ? null : 100 * Math.log1p(v)));
  charts.push(
    new uPlot(
      {
        width: 140,
        height: 32,
        pxAlign: false,
        cursor: { show: false },
        legend: { show: false },
        select: { show: false, left: 0, top: 0, width: 0, height: 0 },
        scales: { x: { time: false } },
        axes: [{ show: false }, { show: false }],
        series: [{}, { stroke: colour('--line'), width: 1.5, points: { show: false } }],
      },
      [x, y],
      target,
    ),
  );
}

function alertsTable(alerts: readonly SiteAlert[]): HTMLElement {
  if (!alerts.length) return el('p', {}, 'None: no push lost more than half a budget.');
  return el(
    'div',
    { class: 'scroll' },
    el(
      'table',
      { class: 'alerts' },
      el(
        'caption',
        {},
        'Newest first. Broke: the push’s compare found a regression beyond the budget. Near: it lost more than half the budget.',
      ),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          ...['Date', 'Commit', 'Subject', 'Benchmark', 'Step [interval] (confidence)', 'Verdict'].map((h) =>
            el('th', { scope: 'col' }, h),
          ),
        ),
      ),
      el(
        'tbody',
        {},
        ...alerts.map((a) => {
          const n = overview.rows.findIndex((r) => r.file === a.file);
          return el(
            'tr',
            {},
            el('td', {}, day(a.date)),
            el('td', { class: 'sha' }, link(short(a.commit), commitUrl(a.commit), `commit ${short(a.commit)}`)),
            el('td', { class: 'subject' }, a.subject),
            el('td', { class: 'name' }, el('a', { href: `#b=${n}` }, a.id)),
            el('td', { class: `num ${a.broke ? 'bad' : 'warn'}` }, `${interval(a.step)}${measuredAt(a.step.confidence)}`),
            el('td', {}, verdictBadge(a.verdict), a.broke ? ' (broke)' : ' (near)'),
          );
        }),
      ),
    ),
  );
}

const commitUrl = (sha: string) => (overview.repository ? `${overview.repository}/commit/${sha}` : null);
const pullUrl = (pr: number) => (overview.repository ? `${overview.repository}/pull/${pr}` : null);

// ---- one benchmark ----

async function showBenchmark(row: SiteRow, n: number): Promise<void> {
  const gate = overview.gates[row.gate]!;
  main().replaceChildren(el('p', { id: 'loading' }, 'Loading…'));
  const [data, { pushes }] = await Promise.all([load<SiteBenchmark>(row.file, 'benchmark'), load<SitePushes>(gate.pushFile, 'pushes')]);
  if (location.hash !== `#b=${n}`) return;
  document.title = `${row.id} · ${overview.title}`;
  const anchor = gate.anchors[anchorChoice.get(row.gate) ?? gate.defaultAnchor]!;
  const since = sinceOf(row);
  const info = el(
    'div',
    { class: 'info', 'aria-live': 'polite' },
    'Point at a push (or focus a chart and use the arrow keys) to see it here.',
  );
  const cumulativeChart = el('div', { class: 'chart', tabindex: '0', role: 'img', 'aria-label': chartLabel(data, pushes, 'cumulative') });
  const stepChart = el('div', { class: 'chart', tabindex: '0', role: 'img', 'aria-label': chartLabel(data, pushes, 'step') });
  const drift = gate.drift?.benchmarks.find((b) => b.id === row.id);
  main().replaceChildren(
    ...kids(
      el('p', {}, el('a', { href: '#' }, '← all benchmarks')),
      el('h2', { class: 'name' }, row.id),
      el(
        'p',
        {},
        `Since ${anchor.label}: `,
        el('strong', { class: toneOf(since, row.budget) }, interval(since)),
        ` · budget per push ${(100 * row.budget).toFixed(1)}% · ${row.measured} of ${pushes.length} push(es) measured`,
        overview.gates.length > 1 ? ` · gate ${gate.gate || '(default)'}` : '',
      ),
      drift &&
        el(
          'p',
          {},
          `Drift, measured side by side with ${gate.drift!.anchor.label} (${short(gate.drift!.anchor.commit)}) ` +
            `at ${short(gate.drift!.commit)} on ${day(gate.drift!.recorded)}: `,
          verdictBadge(drift.verdict),
          ` ${interval(drift.change)} (drift budget ${(100 * gate.drift!.driftBudget).toFixed(1)}%)`,
        ),
      ...bisectsOf(row.id),
      el('h3', {}, `Chained change since ${gate.anchors[0]!.label} (log scale, 95% band; a large dot marks a release)`),
      cumulativeChart,
      el('h3', {}, 'Each push’s own step (its interval as its compare measured it, coloured by its verdict)'),
      stepChart,
      info,
      el('h3', {}, 'Every push'),
      pushTable(data, pushes),
    ),
  );
  const show = (idx: number | null | undefined) => {
    if (idx === null || idx === undefined || !pushes[idx]) return;
    info.replaceChildren(...kids(...pushInfo(data, pushes[idx], idx)));
  };
  drawCharts(data, pushes, cumulativeChart, stepChart, show);
  show(pushes.length - 1);
  performance.mark('benchgate-benchmark');
}

/** What each bisect that searched for this benchmark found: the first bad commit and its step, or why none. */
function bisectsOf(id: string): HTMLElement[] {
  return overview.bisects
    .filter((b) => b.targets.includes(id))
    .map((b) => {
      const range = `Bisect from ${short(b.good)} to ${short(b.bad)} (${b.compares} compares): `;
      if (b.firstBad) {
        const change = b.firstBad.changes.find((c) => c.id === id);
        return el(
          'p',
          { class: 'bisect' },
          range,
          'first bad commit ',
          link(short(b.firstBad.commit), commitUrl(b.firstBad.commit), `commit ${short(b.firstBad.commit)}`),
          ' ',
          el('span', { class: 'subject' }, b.firstBad.subject),
          change ? `: its own step ${interval(change.step)}, ${interval(change.sinceGood)} since ${short(b.good)}` : '',
          b.firstBad.alone
            ? ' (the commit alone lost more than the budget)'
            : ' (it tipped a loss spread over several commits past the budget)',
        );
      }
      if (b.undecided)
        return el('p', { class: 'bisect' }, range, `undecided between ${short(b.undecided.after)} and ${short(b.undecided.upTo)}`);
      return el(
        'p',
        { class: 'bisect' },
        range,
        b.error ? `failed: ${b.error}` : b.noLoss ? 'no loss beyond the budget to find' : 'no first bad commit',
      );
    });
}

function chartLabel(data: SiteBenchmark, pushes: readonly SitePush[], kind: 'cumulative' | 'step'): string {
  const steps = data.step.estimate.map((e, i) => ({ e, i })).filter((s): s is { e: number; i: number } => s.e !== null);
  if (kind === 'cumulative') {
    const last = data.cumulative.estimate.findLast((v) => v !== null);
    const ending = last === undefined || last === null ? 'no figure' : percent(last);
    return `Chart of the chained change over ${pushes.length} pushes, ending at ${ending}; the table below lists every push.`;
  }
  const worst = steps.reduce<{ e: number; i: number } | undefined>((w, s) => (!w || s.e < w.e ? s : w), undefined);
  const largest = worst ? `${percent(worst.e)} at ${short(pushes[worst.i]!.commit)}` : 'none';
  return `Chart of each push's step; the largest loss ${largest}; the table below lists every push.`;
}

/** Push i's interval from a benchmark's columns (its step, or its chained change), or null where it has none. */
function intervalAt(columns: SiteBenchmark['step' | 'cumulative'], i: number): SiteInterval | null {
  const estimate = columns.estimate[i];
  return estimate === null || estimate === undefined ? null : { estimate, low: columns.low[i]!, high: columns.high[i]! };
}

function pushInfo(data: SiteBenchmark, push: SitePush, i: number): Child[] {
  const stepInterval = intervalAt(data.step, i);
  const cumInterval = intervalAt(data.cumulative, i);
  return [
    el(
      'p',
      {},
      el('strong', {}, `Push ${i + 1}: `),
      link(short(push.commit), commitUrl(push.commit), `commit ${short(push.commit)}`),
      ' ',
      el('span', { class: 'subject' }, push.subject),
    ),
    el(
      'p',
      {},
      `${day(push.date)} · against ${short(push.parent)} · step `,
      el('span', { class: toneOf(stepInterval, data.budget) }, `${interval(stepInterval)}${measuredAt(data.step.confidence[i])}`),
      ' ',
      verdictBadge(data.verdict[i] ?? null),
      ` · chained ${interval(cumInterval)}`,
    ),
    el(
      'p',
      {},
      `runner: ${push.runner}`,
      push.tags.length ? ` · tags: ${push.tags.join(', ')}` : '',
      push.pr !== null ? ' · ' : '',
      push.pr !== null ? link(`pull request #${push.pr}`, pullUrl(push.pr)) : '',
    ),
  ];
}

/** Rows of the push table drawn at first (newest first); the rest on request: 5,000 rows take a second to lay out. */
const FIRST_ROWS = 300;

function pushRow(data: SiteBenchmark, push: SitePush, i: number): HTMLElement {
  const step = intervalAt(data.step, i);
  const cum = intervalAt(data.cumulative, i);
  return el(
    'tr',
    {},
    el('td', { class: 'num' }, String(i + 1)),
    el('td', {}, day(push.date)),
    el('td', { class: 'sha' }, link(short(push.commit), commitUrl(push.commit), `commit ${short(push.commit)}`)),
    el('td', {}, push.pr !== null ? link(`#${push.pr}`, pullUrl(push.pr), `pull request ${push.pr}`) : ''),
    el('td', { class: 'subject' }, push.subject, ...push.tags.map((t) => el('span', { class: 'tag' }, t))),
    el('td', { class: `num ${toneOf(step, data.budget)}` }, `${interval(step)}${measuredAt(data.step.confidence[i])}`),
    el('td', {}, verdictBadge(data.verdict[i] ?? null)),
    el('td', { class: 'num' }, interval(cum)),
  );
}

function pushTable(data: SiteBenchmark, pushes: readonly SitePush[]): HTMLElement {
  const newestFirst = pushes.map((_, i) => pushes.length - 1 - i);
  const tbody = el('tbody', {}, ...newestFirst.slice(0, FIRST_ROWS).map((i) => pushRow(data, pushes[i]!, i)));
  const rest = newestFirst.slice(FIRST_ROWS);
  const more = rest.length ? el('button', { type: 'button', class: 'more' }, `Show the ${rest.length} older push(es)`) : undefined;
  more?.addEventListener('click', () => {
    tbody.append(...rest.map((i) => pushRow(data, pushes[i]!, i)));
    more.remove();
  });
  return el(
    'div',
    {},
    el(
      'div',
      { class: 'scroll tall' },
      el(
        'table',
        { class: 'pushes' },
        el('caption', {}, 'The charts’ data, newest push first: each push’s step measured against its parent, and the steps chained.'),
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            ...['#', 'Date', 'Commit', 'Pull request', 'Subject', 'Step [interval] (confidence)', 'Verdict', 'Chained [95%]'].map((h) =>
              el('th', { scope: 'col' }, h),
            ),
          ),
        ),
        tbody,
      ),
    ),
    more,
  );
}

/** Ticks of a log-ratio axis (100·ln(1+change)) at round percentages: the one piece of axis logic uPlot leaves to us. */
function percentSplits(_u: uPlot, _axis: number, min: number, max: number): number[] {
  const low = Math.expm1(min / 100);
  const high = Math.expm1(max / 100);
  const span = Math.max(high - low, 1e-4);
  const step = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10].find((s) => span / s <= 6) ?? 10;
  const ticks: number[] = [];
  for (let v = Math.ceil(low / step) * step; v <= high + 1e-12; v += step) if (v > -1) ticks.push(100 * Math.log1p(v));
  return ticks;
}

function drawCharts(
  data: SiteBenchmark,
  pushes: readonly SitePush[],
  cumulativeTarget: HTMLElement,
  stepTarget: HTMLElement,
  show: (idx: number | null | undefined) => void,
): void {
  const x = pushes.map((_, i) => i + 1);
  const logOf = (values: (number | null)[]) => values.map((v) => (v === null ? null : 100 * Math.log1p(v)));
  const release = data.cumulative.estimate.map((v, i) => (pushes[i]!.tags.length && v !== null ? 100 * Math.log1p(v) : null));
  const only = (keep: (verdict: string | null) => boolean) => data.step.estimate.map((v, i) => (keep(data.verdict[i] ?? null) ? v : null));
  const width = Math.max(320, Math.min(1100, main().clientWidth - 8));
  const axisX: uPlot.Axis = {
    stroke: colour('--fg'),
    grid: { stroke: colour('--grid') },
    ticks: { stroke: colour('--grid') },
    space: 96,
    // Each tick's push's date, once: pushes of one day share it.
    values: (_u, splits) =>
      splits
        .map((s) => (Number.isInteger(s) && pushes[s - 1] ? day(pushes[s - 1]!.date) : ''))
        .map((label, i, all) => (label === all[i - 1] ? '' : label)),
  };
  const axisY = (log: boolean): uPlot.Axis => ({
    stroke: colour('--fg'),
    grid: { stroke: colour('--grid') },
    ticks: { stroke: colour('--grid') },
    size: 64,
    ...(log ? { splits: percentSplits } : {}),
    values: (_u, splits) => splits.map((s) => percent(log ? Math.expm1(s / 100) : s / 100)),
  });
  const common = {
    width,
    height: 260,
    padding: [8, 28, 0, 0] as uPlot.Padding,
    legend: { show: false },
    scales: { x: { time: false } },
    // Drag across a chart to zoom into those pushes (both charts follow); a double click shows them all again.
    cursor: { sync: { key: 'benchgate', scales: ['x', null] as [string, null] }, drag: { x: true, y: false } },
    hooks: { setCursor: [(u: uPlot) => show(u.cursor.idx)] },
  };
  const line = colour('--line');
  const band = colour('--band');
  const cumulative = new uPlot(
    {
      ...common,
      axes: [axisX, axisY(true)],
      series: [
        {},
        { label: 'chained change', stroke: line, width: 2, points: { show: false } },
        { label: 'low', stroke: band, width: 0.5, points: { show: false } },
        { label: 'high', stroke: band, width: 0.5, points: { show: false } },
        {
          label: 'release',
          stroke: colour('--release'),
          paths: () => null,
          points: { show: true, size: 12, fill: colour('--release'), stroke: colour('--fg'), width: 1 },
        },
      ],
      bands: [{ series: [3, 2], fill: band }],
    },
    [x, logOf(data.cumulative.estimate), logOf(data.cumulative.low), logOf(data.cumulative.high), release],
    cumulativeTarget,
  );
  const bars = uPlot.paths.bars!({ size: [0.7, 24] });
  const steps = new uPlot(
    {
      ...common,
      height: 200,
      axes: [axisX, axisY(false)],
      series: [
        {},
        { label: 'step low', stroke: band, width: 0.5, points: { show: false } },
        { label: 'step high', stroke: band, width: 0.5, points: { show: false } },
        { label: 'regression', fill: colour('--bad'), stroke: colour('--bad'), paths: bars, points: { show: false } },
        { label: 'improvement', fill: colour('--good'), stroke: colour('--good'), paths: bars, points: { show: false } },
        { label: 'other', fill: colour('--calm'), stroke: colour('--calm'), paths: bars, points: { show: false } },
      ],
      bands: [{ series: [2, 1], fill: band }],
    },
    [
      x,
      data.step.low.map((v) => (v === null ? null : 100 * v)),
      data.step.high.map((v) => (v === null ? null : 100 * v)),
      only((v) => v === 'regression').map((v) => (v === null ? null : 100 * v)),
      only((v) => v === 'improvement').map((v) => (v === null ? null : 100 * v)),
      only((v) => v !== 'regression' && v !== 'improvement').map((v) => (v === null ? null : 100 * v)),
    ],
    stepTarget,
  );
  charts.push(cumulative, steps);
  // What the charts hold, as uPlot has it, for a reader's tools and the browser test: points drawn per series.
  const drawn = (chart: uPlot, series: number[]) =>
    series.reduce(
      (n, k) => n + (chart.data[k] as readonly (number | null | undefined)[]).filter((v) => v !== null && v !== undefined).length,
      0,
    );
  cumulativeTarget.dataset.pushes = String(cumulative.data[0].length);
  cumulativeTarget.dataset.points = String(drawn(cumulative, [1]));
  cumulativeTarget.dataset.releases = String(drawn(cumulative, [4]));
  stepTarget.dataset.points = String(drawn(steps, [3, 4, 5]));
  // The keyboard moves the cursor push by push, as the mouse does: the same sync, the same info below.
  for (const [target, chart] of [
    [cumulativeTarget, cumulative],
    [stepTarget, steps],
  ] as const) {
    let idx = pushes.length - 1;
    target.addEventListener('keydown', (event) => {
      const move = { ArrowLeft: -1, ArrowRight: 1, Home: -Infinity, End: Infinity }[event.key];
      if (move === undefined) return;
      event.preventDefault();
      idx = Math.max(0, Math.min(pushes.length - 1, idx + move));
      chart.setCursor({ left: chart.valToPos(idx + 1, 'x'), top: chart.bbox.height / devicePixelRatio / 2 });
      show(idx);
    });
  }
}

// ---- start ----

load<SiteOverview>('data/overview.js', 'overview')
  .then((data) => {
    overview = data;
    document.getElementById('title')!.textContent = data.title;
    window.addEventListener('hashchange', route);
    route();
  })
  .catch(showError);
