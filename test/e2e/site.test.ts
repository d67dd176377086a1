import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script shared with the publish benchmark
import { syntheticHistory } from '../../scripts/synthetic-history.mjs';
import { runCli } from './helpers.js';

/**
 * The published history in a real browser: headless Chromium (Debian's package, driven by puppeteer-core), the
 * site built by the real CLI from a real recorded chain (fixtures/history/marked.jsonl: marked v2.1.3..v3.0.0, each
 * push recorded by `benchgate record` against its parent) and from a second gate whose contributors are hostile.
 */

const REPO = 'https://github.com/markedjs/marked';
const REAL = path.resolve('fixtures/history/marked.jsonl');
/** `benchgate bisect --good v2.1.3 --bad v3.0.0 --benchmark '*list*' --json` on the same range, as run then. */
const BISECT = path.resolve('fixtures/history/marked-bisect.json');
const HOSTILE_SUBJECT = `<img src=x onerror="window.__pwned=1"></script><script>window.__pwned=2</script> \u202eevil\u202c (#42)`;
const HOSTILE_ID = `bench/x.bench.js > <b onmouseover="window.__pwned=3">${'ج'.repeat(20)}</b>${'x'.repeat(10_000)}`;
const HOSTILE_TAG = 'v9<svg onload="window.__pwned=4">';

/** The system's Chromium (Debian's package): .ci/run installs it; elsewhere CHROMIUM names one, or the file is skipped, said loudly. */
function chromium(): string | undefined {
  return [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p): p is string => Boolean(p && existsSync(p)));
}
const executablePath = chromium();
if (!executablePath && process.env.CI) throw new Error("no Chromium: .ci/run installs Debian's chromium package; set CHROMIUM to a binary");
if (!executablePath) console.warn('site.test.ts SKIPPED: no Chromium here (apt-get install chromium, or set CHROMIUM)');

interface Record {
  commit: string;
  parent: string;
  subject: string;
  tags: string[];
  gate: string;
  benchmarks: { id: string; verdict: string; change: { estimate: number } | null }[];
}

let dir: string;
let browser: Browser;
let real: Record[];
let hostile: Record[];

beforeAll(async () => {
  if (!executablePath) return;
  dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-site-'));
  real = readFileSync(REAL, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record);
  // A second gate, made up, whose subject, benchmark id and tag are a contributor's attack.
  hostile = (syntheticHistory({ pushes: 6, benchmarks: 2, seed: 7, releaseEvery: 3, gate: 'hostile/benchgate.yml' }) as Record[]).map(
    (r, i) => ({
      ...r,
      subject: i === 4 ? HOSTILE_SUBJECT : r.subject,
      tags: i === 3 ? [HOSTILE_TAG] : r.tags,
      benchmarks: r.benchmarks.map((b, k) => (k === 1 ? { ...b, id: HOSTILE_ID, verdict: i === 4 ? 'regression' : b.verdict } : b)),
    }),
  );
  writeFileSync(path.join(dir, 'hostile.jsonl'), hostile.map((r) => `${JSON.stringify(r)}\n`).join(''));
  // A drift of that gate, kept beside its history as benchgate drift keeps it.
  const head = hostile.at(-1)!;
  const drift = {
    v: 1,
    gate: head.gate,
    commit: head.commit,
    anchor: { commit: hostile[0]!.parent, label: 'v1.0.0' },
    recorded: '2026-02-01T00:00:00.000Z',
    driftBudget: 0.1,
    state: 'broken',
    benchmarks: head.benchmarks.map((b, k) => ({
      id: b.id,
      verdict: k === 0 ? 'regression' : 'unchanged',
      change: k === 0 ? { estimate: -0.2, low: -0.25, high: -0.15 } : { estimate: 0.01, low: -0.02, high: 0.04 },
    })),
  };
  writeFileSync(path.join(dir, 'hostile.drift.jsonl'), `${JSON.stringify(drift)}\n`);
  const run = await runCli(
    ['publish', REAL, 'hostile.jsonl', '--out', 'site', '--repository', REPO, '--anchor', 'tag:v*', '--bisect', BISECT],
    dir,
  );
  expect(run.code, run.stderr).toBe(0);
  browser = await puppeteer.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
});

afterAll(async () => {
  const pid = browser?.process()?.pid;
  await browser?.close();
  // The browser goes with the file, by its pid.
  if (pid) expect(() => process.kill(pid, 0)).toThrow();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A page of the site, with what it said on the console (errors and warnings, a CSP refusal among them). */
async function open(hash = '', scheme: 'light' | 'dark' = 'light'): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1200, height: 900 });
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warn') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  page.on('requestfailed', (r) => problems.push(`failed: ${r.url()}`));
  await page.goto(`file://${path.join(dir, 'site', 'index.html')}${hash}`, { waitUntil: 'load' });
  await page.waitForSelector(hash ? '.chart canvas' : 'table.overview tbody tr');
  return { page, problems };
}

const rowsOfRealGate = () => [...new Set(real.flatMap((r) => r.benchmarks.map((b) => b.id)))];

/** The overview's row number of a benchmark (its view is #b=<n>). */
async function viewOf(page: Page, id: string): Promise<string> {
  const href = await page.$$eval(
    'table.overview th.name a',
    (links, id) => links.find((a) => a.textContent === id)?.getAttribute('href'),
    id,
  );
  expect(href, id).toMatch(/^#b=\d+$/);
  return href!;
}

async function axe(page: Page): Promise<{ id: string; impact: string; nodes: number }[]> {
  // Evaluated through the DevTools protocol: the page's own policy (no script but its own files) still holds for the page.
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  const result = await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run: (o: object) => Promise<any> } }).axe.run;
    return run({ resultTypes: ['violations'] });
  });
  return (result.violations as { id: string; impact: string; nodes: unknown[] }[]).map((v) => ({
    id: v.id,
    impact: v.impact,
    nodes: v.nodes.length,
  }));
}

describe.skipIf(!executablePath)('the published history in Chromium', () => {
  it('lists every benchmark of both gates, worst first, with no console error, and the regressions in the feed', async () => {
    const { page, problems } = await open();
    const names = await page.$$eval('table.overview tbody th.name', (cells) => cells.map((c) => c.textContent));
    expect(names.sort()).toEqual([...rowsOfRealGate(), ...new Set(hostile.flatMap((r) => r.benchmarks.map((b) => b.id)))].sort());
    // Worst first: the changes since the anchor, parsed from the cells, never rise down the table.
    const changes = await page.$$eval('table.overview tbody tr', (rows) => rows.map((r) => r.children[2]!.textContent));
    const estimates = changes.filter((c) => c !== '—').map((c) => Number(c.split(' ')[0]!.replace('−', '-').replace('%', '')));
    expect(estimates.length).toBeGreaterThan(0);
    expect(estimates).toEqual([...estimates].sort((a, b) => a - b));
    // The hostile gate's drift, in its benchmarks' rows; the real gate has none recorded.
    const driftOf = (id: string) =>
      page.$$eval(
        'table.overview tbody tr',
        (rows, id) => rows.find((r) => r.querySelector('th')!.textContent === id)!.children[5]!.textContent,
        id,
      );
    expect(await driftOf(hostile[0]!.benchmarks[0]!.id)).toBe('✗ regression −20.0% [−25.0%, −15.0%] since v1.0.0');
    expect(await driftOf(rowsOfRealGate()[0]!)).toBe('—');
    expect(problems).toEqual([]);
    const feed = readFileSync(path.join(dir, 'site', 'feed.xml'), 'utf8');
    const parsed = await page.evaluate((xml) => {
      const doc = new DOMParser().parseFromString(xml, 'application/xml');
      return {
        error: doc.querySelector('parsererror')?.textContent ?? null,
        titles: [...doc.querySelectorAll('entry > title')].map((t) => t.textContent),
      };
    }, feed);
    expect(parsed.error).toBeNull();
    const regressions = [...real, ...hostile].flatMap((r) =>
      r.benchmarks.filter((b) => b.verdict === 'regression').map((b) => `${b.id}: ${r.commit.slice(0, 7)}`),
    );
    expect(parsed.titles).toHaveLength(Math.min(50, regressions.length));
    expect(parsed.titles.some((t) => t.includes(HOSTILE_SUBJECT))).toBe(true);
    await page.close();
  });

  it('draws one point per push of a real benchmark, and links each push to its commit and pull request', async () => {
    const overview = await open();
    const id = rowsOfRealGate()[0]!;
    const hash = await viewOf(overview.page, id);
    await overview.page.close();
    const { page, problems } = await open(hash);
    const chart = await page.$eval('.chart', (c) => ({ ...(c as HTMLElement).dataset }));
    const measured = real.filter((r) => r.benchmarks.find((b) => b.id === id)?.change).length;
    expect(Number(chart.pushes)).toBe(real.length);
    expect(Number(chart.points)).toBe(measured);
    expect(Number(chart.releases)).toBe(
      real.filter((r, i) => r.tags.length && i >= 0 && r.benchmarks.find((b) => b.id === id)?.change).length,
    );
    // The table: one row per push, newest first, each commit's link its own sha.
    const rows = await page.$$eval('table.pushes tbody tr', (trs) =>
      trs.map((tr) => ({
        commit: tr.querySelector('td.sha a')?.getAttribute('href'),
        pr: tr.children[3]!.querySelector('a')?.getAttribute('href') ?? null,
        subject: tr.querySelector('td.subject')!.firstChild!.textContent,
      })),
    );
    expect(rows.map((r) => r.commit)).toEqual([...real].reverse().map((r) => `${REPO}/commit/${r.commit}`));
    expect(rows.map((r) => r.subject)).toEqual([...real].reverse().map((r) => r.subject));
    for (const [i, r] of [...real].reverse().entries()) {
      const pr = /\(#(\d+)\)\s*$/.exec(r.subject)?.[1];
      expect(rows[i]!.pr).toBe(pr ? `${REPO}/pull/${pr}` : null);
    }
    // The bisect that searched for it names its first bad commit, linked, with that commit's own step.
    const bisect = JSON.parse(readFileSync(BISECT, 'utf8'));
    const bisected = await page.$$eval('p.bisect', (ps) =>
      ps.map((p) => ({ text: p.textContent, href: p.querySelector('a')?.getAttribute('href') })),
    );
    if (bisect.targets.includes(id)) {
      expect(bisected).toHaveLength(1);
      expect(bisected[0]!.href).toBe(`${REPO}/commit/${bisect.firstBad.commit.sha}`);
      expect(bisected[0]!.text).toContain(
        `first bad commit ${bisect.firstBad.commit.sha.slice(0, 7)} ${bisect.firstBad.commit.subject}: its own step −`,
      );
    } else expect(bisected).toEqual([]);
    // Hover and keyboard reach the same push: the newest, then the one before it, then the first.
    const info = () => page.$eval('.info a', (a) => a.getAttribute('href'));
    expect(await info()).toBe(`${REPO}/commit/${real.at(-1)!.commit}`);
    await page.focus('.chart');
    await page.keyboard.press('ArrowLeft');
    expect(await info()).toBe(`${REPO}/commit/${real.at(-2)!.commit}`);
    await page.keyboard.press('Home');
    expect(await info()).toBe(`${REPO}/commit/${real[0]!.commit}`);
    const box = (await (await page.$('.chart .u-over'))!.boundingBox())!;
    await page.mouse.move(box.x + box.width - 1, box.y + box.height / 2);
    expect(await info()).toBe(`${REPO}/commit/${real.at(-1)!.commit}`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows hostile subjects, names and tags as text: no element, no script, no handler runs', async () => {
    const overview = await open();
    const hash = await viewOf(overview.page, HOSTILE_ID);
    const alertSubjects = await overview.page.$$eval('table.alerts td.subject', (cells) => cells.map((c) => c.textContent));
    expect(alertSubjects).toContain(HOSTILE_SUBJECT);
    await overview.page.hover('table.overview th.name');
    await overview.page.close();
    const { page, problems } = await open(hash);
    expect(await page.$eval('h2.name', (h) => h.textContent)).toBe(HOSTILE_ID);
    const subjects = await page.$$eval('table.pushes td.subject', (cells) => cells.map((c) => c.firstChild!.textContent));
    expect(subjects).toContain(HOSTILE_SUBJECT);
    const tags = await page.$$eval('table.pushes .tag', (spans) => spans.map((s) => s.textContent));
    expect(tags).toContain(HOSTILE_TAG);
    await page.hover('h2.name');
    // Nothing of the data became markup: no <img>, <svg>, <b> or injected <script> in the page, and no handler ran.
    expect(await page.$$eval('main img, main svg, main b, main script', (found) => found.length)).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(problems).toEqual([]);
    // The page's policy forbids inline script: one added to the page does not run, and the browser says why.
    const html = readFileSync(path.join(dir, 'site', 'index.html'), 'utf8');
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self';/);
    expect(html).not.toContain('unsafe-inline');
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'window.__inline = 1';
      document.body.append(script);
    });
    expect(await page.evaluate(() => (window as unknown as { __inline?: number }).__inline)).toBeUndefined();
    expect(problems.join('\n')).toMatch(/Content Security Policy/);
    await page.close();
  });

  it('passes axe-core with no serious or critical violation, in the light and the dark theme', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      const overview = await open('', scheme);
      const hash = await viewOf(overview.page, rowsOfRealGate()[0]!);
      const serious = (await axe(overview.page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(serious, `overview, ${scheme}`).toEqual([]);
      await overview.page.close();
      const { page } = await open(hash, scheme);
      const onPage = (await axe(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(onPage, `benchmark, ${scheme}`).toEqual([]);
      await page.close();
    }
  });
});
