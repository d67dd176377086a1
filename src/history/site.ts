import picomatch from 'picomatch';
import { chainOf, chainSteps, trendOf, type Interval } from './chain.js';
import { UserError } from '../util/errors.js';
import type { HistoryRecord } from './record.js';
import type {
  SiteAlert,
  SiteAnchor,
  SiteBenchmark,
  SiteBisect,
  SiteDataKind,
  SiteDrift,
  SiteGate,
  SiteInterval,
  SiteOverview,
  SitePushes,
  SiteRow,
} from './site-data.js';

/**
 * `benchgate publish`: the history as a static site. Data only is written here; the page that shows it
 * (dist/site/, bundled from site/page.ts with the chart library) is copied beside it by the caller. No server,
 * no CDN: the data are script files the page loads lazily (a page opened from file:// cannot fetch), split per
 * benchmark so the overview reads one small file whatever the history's size.
 */

export interface SiteOptions {
  title: string;
  version: string;
  generated: Date;
  /** Tags marking releases (a glob, default v*): the anchors a reader can choose, the newest the default. */
  releases?: string | undefined;
  /** https URL of the repository, for links to commits and pull requests. */
  repository?: string | undefined;
  /** The absolute URL the site is served at, for the feed's links (optional: the feed links to commits without it). */
  siteUrl?: string | undefined;
  /** Drift verdicts recorded per gate, newest last. */
  drift?: readonly (SiteDrift & { gate: string })[] | undefined;
  /** Bisect outcomes (read with bisectOf), shown on the pages of the benchmarks they searched for. */
  bisects?: readonly SiteBisect[] | undefined;
}

export interface SiteFile {
  path: string;
  text: string;
}

/** Points a row's sparkline keeps, however long the history. */
const SPARK_POINTS = 60;
/** Pushes listed as breaking or nearing a budget on the overview (newest first), and regressions in the feed. */
const MAX_ALERTS = 100;
const MAX_FEED = 50;

/** A data file: a call of the page's loader with the data as a JSON literal (JSON is a JavaScript expression). */
function dataScript(kind: SiteDataKind, data: unknown): string {
  return `benchgateSite(${JSON.stringify(kind)}, ${JSON.stringify(data)});\n`;
}

/** The pull request a commit subject names: a squash merge's "(#123)" at its end, or a merge commit's "Merge pull request #123". */
export function pullRequestOf(subject: string): number | null {
  const match = /\(#(\d{1,9})\)\s*$/.exec(subject) ?? /^Merge pull request #(\d{1,9})\b/.exec(subject);
  return match ? Number(match[1]) : null;
}

/** A repository URL safe to build links on: https, no quotes, spaces or markup; anything else gives no links. */
export function repositoryUrl(url: string | undefined): string | null {
  if (!url) return null;
  const trimmed = url
    .trim()
    .replace(/\.git$/, '')
    .replace(/\/+$/, '');
  return /^https:\/\/[A-Za-z0-9.-]+(:\d+)?(\/[A-Za-z0-9._~-]+)+$/.test(trimmed) ? trimmed : null;
}

/** The https URL of a git remote as GitHub (or a GitHub Enterprise host) names it: https and scp-like ssh forms. */
export function repositoryOfRemote(remote: string): string | null {
  const scp = /^git@([A-Za-z0-9.-]+):(.+?)(\.git)?$/.exec(remote.trim());
  return repositoryUrl(scp ? `https://${scp[1]}/${scp[2]}` : remote.replace(/^ssh:\/\/git@/, 'https://'));
}

export function siteFiles(records: readonly HistoryRecord[], options: SiteOptions): SiteFile[] {
  const isRelease = picomatch(options.releases ?? 'v*', { dot: true });
  const repository = repositoryUrl(options.repository);
  const gateKeys = [...new Set(records.map((r) => r.gate))].sort();
  const files: SiteFile[] = [];
  const gates: SiteGate[] = [];
  const rows: SiteRow[] = [];
  const alerts: SiteAlert[] = [];
  for (const [g, key] of gateKeys.entries()) {
    const own = records.filter((r) => r.gate === key);
    const { chain } = chainOf(own, key);
    if (chain.length === 0) continue;
    const gate = gates.length;
    const start = chain[0]!.parent;
    const trend = trendOf(chain, key, { commit: start, label: start.slice(0, 7) }, true);
    const anchors = anchorsOf(chain, isRelease);
    // Each push's points by id, once: thousands of pushes × hundreds of benchmarks.
    const byId = chain.map((r) => new Map(r.benchmarks.map((b) => [b.id, b])));
    const pushes: SitePushes = {
      gate,
      pushes: chain.map((r) => ({
        commit: r.commit,
        parent: r.parent,
        date: r.date,
        subject: r.subject,
        tags: r.tags,
        runner: `${r.runner.os} ${r.runner.arch}, ${r.runner.cpus} CPUs, Node ${r.runner.node}`,
        pr: pullRequestOf(r.subject),
      })),
    };
    const pushFile = `data/pushes-${g}.js`;
    files.push({ path: pushFile, text: dataScript('pushes', pushes) });
    const drift = options.drift?.filter((d) => d.gate === key).at(-1);
    gates.push({
      gate: key,
      pushes: chain.length,
      head: chain.at(-1)!.commit,
      pushFile,
      anchors,
      defaultAnchor: anchors.length - 1,
      ...(drift ? { drift: withoutGate(drift) } : {}),
    });
    for (const b of trend.benchmarks) {
      const file = `data/b/${rows.length}.js`;
      const column = (pick: (p: (typeof b.points)[number]) => number | null | undefined) => b.points.map((p) => round(pick(p)));
      const verdicts = byId.map((points) => points.get(b.id)?.verdict ?? null);
      // Each push's step as its compare measured it, at its own confidence (the chained figures are 95%).
      const measured = byId.map((points) => points.get(b.id)?.change ?? null);
      const stepColumn = (pick: (c: NonNullable<(typeof measured)[number]>) => number) => measured.map((c) => (c ? round(pick(c)) : null));
      const data: SiteBenchmark = {
        gate,
        id: b.id,
        budget: b.budget,
        verdict: verdicts,
        step: {
          estimate: stepColumn((c) => c.estimate),
          low: stepColumn((c) => c.low),
          high: stepColumn((c) => c.high),
          confidence: measured.map((c) => c?.confidence ?? null),
        },
        cumulative: {
          estimate: column((p) => p.cumulative?.estimate),
          low: column((p) => p.cumulative?.low),
          high: column((p) => p.cumulative?.high),
        },
      };
      files.push({ path: file, text: dataScript('benchmark', data) });
      const steps = b.points.map((p) => p.step);
      rows.push({
        gate,
        id: b.id,
        file,
        budget: b.budget,
        since: anchors.map((a) => since(steps, a.after)),
        spark: thin(data.cumulative.estimate, SPARK_POINTS),
        last: verdicts.at(-1) ?? null,
        measured: steps.filter(Boolean).length,
      });
      for (const [i, p] of b.points.entries()) {
        const step = measured[i];
        if (!step) continue;
        const broke = verdicts[i] === 'regression';
        const near = step.estimate <= -b.budget / 2 || (verdicts[i] === 'inconclusive' && step.low < -b.budget);
        if (broke || near)
          alerts.push({
            gate,
            push: i,
            commit: p.commit,
            subject: p.subject,
            date: p.date,
            id: b.id,
            file,
            verdict: verdicts[i] ?? 'unmeasured',
            step: { ...rounded(step), confidence: step.confidence },
            budget: b.budget,
            broke,
          });
      }
    }
  }
  const newestFirst = alerts.sort((a, b) => Date.parse(b.date) - Date.parse(a.date) || a.step.estimate - b.step.estimate);
  const overview: SiteOverview = {
    title: options.title,
    version: options.version,
    generated: options.generated.toISOString(),
    repository,
    gates,
    rows,
    alerts: newestFirst.slice(0, MAX_ALERTS),
    bisects: [...(options.bisects ?? [])],
  };
  files.push({ path: 'data/overview.js', text: dataScript('overview', overview) });
  files.push({ path: 'feed.xml', text: atomFeed(overview, newestFirst.filter((a) => a.broke).slice(0, MAX_FEED), options.siteUrl) });
  files.push({ path: 'index.html', text: indexHtml(options.title) });
  return files;
}

/**
 * A `bisect --json` file's outcome, read strictly (a file named on the command line, checked as any input is):
 * what the site shows of it, or an error naming the field at fault.
 */
export function bisectOf(value: unknown, source: string): SiteBisect {
  const fail = (what: string): never => {
    throw new UserError(`${source}: not a bisect result (benchgate bisect --json): ${what}.`);
  };
  const object = (v: unknown, what: string) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : fail(what);
  const sha = (v: unknown, what: string) => (typeof v === 'string' && /^[0-9a-f]{40}$/.test(v) ? v : fail(`${what} is not a commit sha`));
  const text = (v: unknown, what: string) => (typeof v === 'string' ? v : fail(`${what} is not a string`));
  const change = (v: unknown, what: string): SiteInterval => {
    const c = object(v, `${what} is not a change`);
    if (![c.estimate, c.low, c.high].every((x) => typeof x === 'number' && Number.isFinite(x)))
      fail(`${what} is not { estimate, low, high }`);
    return rounded(c as unknown as Interval);
  };
  const r = object(value, 'not an object');
  const targets = Array.isArray(r.targets) ? r.targets.map((t, i) => text(t, `targets[${i}]`)) : fail('targets is not a list');
  const first = r.firstBad === undefined ? null : object(r.firstBad, 'firstBad is not an object');
  const undecided = r.undecided === undefined ? null : object(r.undecided, 'undecided is not an object');
  return {
    good: sha(r.good, 'good'),
    bad: sha(r.bad, 'bad'),
    targets,
    compares: typeof r.compares === 'number' && Number.isInteger(r.compares) ? r.compares : fail('compares is not a count'),
    firstBad: first
      ? {
          commit: sha(object(first.commit, 'firstBad.commit is not an object').sha, 'firstBad.commit.sha'),
          subject: text(object(first.commit, 'firstBad.commit').subject, 'firstBad.commit.subject').slice(0, 200),
          alone: first.alone === true,
          changes: (Array.isArray(first.changes) ? first.changes : fail('firstBad.changes is not a list')).map((c, i) => {
            const entry = object(c, `firstBad.changes[${i}]`);
            return {
              id: text(entry.id, `firstBad.changes[${i}].id`),
              sinceGood: change(entry.sinceGood, `firstBad.changes[${i}].sinceGood`),
              step: change(entry.step, `firstBad.changes[${i}].step`),
            };
          }),
        }
      : null,
    undecided: undecided ? { after: sha(undecided.after, 'undecided.after'), upTo: sha(undecided.upTo, 'undecided.upTo') } : null,
    noLoss: r.noLoss === true,
    error: r.error === undefined ? null : text(r.error, 'error').slice(0, 500),
  };
}

function withoutGate(drift: SiteDrift & { gate: string }): SiteDrift {
  return {
    commit: drift.commit,
    anchor: drift.anchor,
    recorded: drift.recorded,
    driftBudget: drift.driftBudget,
    state: drift.state,
    benchmarks: drift.benchmarks,
  };
}

/** The releases in a chain, oldest first, then the first push's parent if no release is there: where a trend may start. */
function anchorsOf(chain: readonly HistoryRecord[], isRelease: (tag: string) => boolean): SiteAnchor[] {
  const first = chain[0]!;
  const start: SiteAnchor = {
    label: first.parentTags.find(isRelease) ?? `first push (${first.parent.slice(0, 7)})`,
    commit: first.parent,
    after: -1,
  };
  const releases = chain.flatMap((r, i): SiteAnchor[] => {
    const tag = r.tags.find(isRelease);
    // A release at the newest push has nothing after it yet.
    return tag && i < chain.length - 1 ? [{ label: tag, commit: r.commit, after: i }] : [];
  });
  return [start, ...releases];
}

/** The steps after push `after` chained to the newest; a gap (a push without a figure) starts it again after the gap. */
function since(steps: readonly (Interval | null)[], after: number): SiteInterval | null {
  const later = steps.slice(after + 1);
  const gap = later.lastIndexOf(null);
  const chained = later.slice(gap + 1) as Interval[];
  return chained.length ? rounded(chainSteps(chained)) : null;
}

function thin(values: readonly (number | null)[], count: number): (number | null)[] {
  if (values.length <= count) return [...values];
  return Array.from({ length: count }, (_, i) => values[Math.round((i * (values.length - 1)) / (count - 1))] ?? null);
}

function round(x: number | null | undefined): number | null {
  return x === null || x === undefined ? null : Number(x.toFixed(5));
}

function rounded(i: Interval): SiteInterval {
  return { estimate: round(i.estimate)!, low: round(i.low)!, high: round(i.high)! };
}

/** XML text: the five characters that make markup, and the control characters XML 1.0 does not allow, dropped. */
function xml(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
  );
}

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}%`;

/** The regressions as an Atom feed (RFC 4287), newest first, as asv publishes its own. */
function atomFeed(overview: SiteOverview, regressions: readonly SiteAlert[], siteUrl: string | undefined): string {
  const base = repositoryUrl(siteUrl);
  const updated =
    regressions[0]?.date && Date.parse(regressions[0].date) ? new Date(regressions[0].date).toISOString() : overview.generated;
  const entries = regressions.map((a) => {
    const gate = overview.gates[a.gate]!.gate;
    const link = overview.repository ? `${overview.repository}/commit/${a.commit}` : base ? `${base}/` : undefined;
    const when = Date.parse(a.date) ? new Date(a.date).toISOString() : overview.generated;
    const change = `${pct(a.step.estimate)} [${pct(a.step.low)}, ${pct(a.step.high)}]`;
    return [
      '  <entry>',
      `    <id>urn:benchgate:${xml(encodeURIComponent(gate))}:${a.commit}:${xml(encodeURIComponent(a.id))}</id>`,
      `    <title>${xml(`${a.id}: ${change} in ${a.commit.slice(0, 7)} ${a.subject}`)}</title>`,
      `    <updated>${when}</updated>`,
      ...(link ? [`    <link rel="alternate" href="${xml(link)}"/>`] : []),
      `    <summary>${xml(
        `${a.id} lost more than its ${(100 * a.budget).toFixed(1)}% budget in ${a.commit.slice(0, 7)} ("${a.subject}"): ` +
          `${change}, measured side by side with its parent commit${gate ? ` (gate ${gate})` : ''}.`,
      )}</summary>`,
      '  </entry>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<feed xmlns="http://www.w3.org/2005/Atom">',
    `  <id>urn:benchgate:feed:${xml(encodeURIComponent(overview.title))}</id>`,
    `  <title>${xml(`${overview.title}: regressions`)}</title>`,
    `  <updated>${updated}</updated>`,
    '  <author><name>benchgate</name></author>',
    ...(base ? [`  <link rel="alternate" href="${xml(base)}/"/>`] : []),
    ...entries,
    '</feed>',
    '',
  ].join('\n');
}

/** The page's policy: script, style and images from the site's own files only; no inline script, nothing from elsewhere. */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * The page: static, the same for every history (the title is the publisher's, escaped). Its policy allows
 * scripts and styles from the site's own files only: no inline script, no inline style, nothing from elsewhere.
 */
function indexHtml(title: string): string {
  const escaped = xml(title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escaped}</title>
<link rel="stylesheet" href="assets/site.css">
<link rel="alternate" type="application/atom+xml" title="Regressions" href="feed.xml">
<script src="assets/site.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header><h1 id="title">${escaped}</h1><p id="subtitle"></p></header>
<main id="main" tabindex="-1">
<noscript>This page draws the history with JavaScript; the data are in data/ and the regressions in feed.xml.</noscript>
<p id="loading">Loading…</p>
</main>
<footer><p>Published by benchgate. Each point is a push measured side by side with its parent in one job;
bands are 95% intervals of the chained steps. <a href="feed.xml">Regressions feed (Atom)</a></p></footer>
</body>
</html>
`;
}
