import { describe, expect, it } from 'vitest';
import { chainSteps } from '../../src/history/chain.js';
import type { HistoryRecord } from '../../src/history/record.js';
import { bisectOf, pullRequestOf, repositoryOfRemote, repositoryUrl, siteFiles } from '../../src/history/site.js';
import type { SiteBenchmark, SiteOverview, SitePushes } from '../../src/history/site-data.js';

const sha = (n: number) => n.toString(16).padStart(40, '0');

/** A chain of pushes 1..n of one benchmark, each step as given (null: the push measured nothing of it). */
function chain(steps: (number | null)[], tags: Record<number, string> = {}, gate = ''): HistoryRecord[] {
  return steps.map((step, i) => ({
    v: 1,
    gate,
    commit: sha(i + 1),
    parent: sha(i),
    date: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
    recorded: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
    subject: `push ${i + 1} (#${100 + i})`,
    tags: tags[i + 1] ? [tags[i + 1]!] : [],
    parentTags: i === 0 && tags[0] ? [tags[0]] : [],
    runner: { os: 'Linux', arch: 'x64', cpus: 2, node: 'v20.20.2' },
    benchmarks: [
      {
        id: 'lookup',
        verdict: step === null ? 'error' : step < -0.05 ? 'regression' : 'unchanged',
        budget: 0.05,
        change: step === null ? null : { estimate: step, low: step - 0.01, high: step + 0.01, confidence: 0.95 },
        base: 100,
        head: 100,
      },
    ],
  }));
}

/** The data a site file holds: the page's loader call, read back. */
function data<T>(files: { path: string; text: string }[], file: string): T {
  const text = files.find((f) => f.path === file)!.text;
  const match = /^benchgateSite\("(\w+)", ([\s\S]*)\);\n$/.exec(text)!;
  return JSON.parse(match[2]!) as T;
}

const options = {
  title: 'acme',
  version: '1.0.0',
  generated: new Date(Date.UTC(2026, 5, 1)),
  repository: 'https://github.com/acme/widgets',
};

describe('publish: the site data', () => {
  it('chains each benchmark since every release, with the newest release the default anchor', () => {
    const records = chain([0.02, -0.1, 0.01, 0.03, -0.02], { 0: 'v1.0.0', 2: 'v1.1.0', 4: 'v1.2.0' });
    const files = siteFiles(records, options);
    const overview = data<SiteOverview>(files, 'data/overview.js');
    const gate = overview.gates[0]!;
    expect(gate.anchors.map((a) => [a.label, a.after])).toEqual([
      ['v1.0.0', -1],
      ['v1.1.0', 1],
      ['v1.2.0', 3],
    ]);
    expect(gate.defaultAnchor).toBe(2);
    const row = overview.rows[0]!;
    const expected = (from: number) =>
      chainSteps(
        records.slice(from).map((r) => ({
          estimate: r.benchmarks[0]!.change!.estimate,
          low: r.benchmarks[0]!.change!.low,
          high: r.benchmarks[0]!.change!.high,
        })),
      ).estimate;
    // At a 95% step a chained step's own interval reads back exactly: the figure is the product of the steps after the anchor.
    expect(row.since.map((s) => s!.estimate)).toEqual([0, 2, 4].map((from) => Number(expected(from).toFixed(5))));
    expect(row.since[0]!.estimate).toBeCloseTo(1.02 * 0.9 * 1.01 * 1.03 * 0.98 - 1, 4);
    expect(row.last).toBe('unchanged');
    expect(row.measured).toBe(5);
  });

  it('starts a series again after a push without a figure, as the trend does', () => {
    const files = siteFiles(chain([-0.2, null, 0.05, 0.05], { 0: 'v1.0.0' }), options);
    const overview = data<SiteOverview>(files, 'data/overview.js');
    // Since v1.0.0, across the gap, is not known: only the steps after it chain.
    expect(overview.rows[0]!.since[0]!.estimate).toBeCloseTo(1.05 * 1.05 - 1, 4);
    const bench = data<SiteBenchmark>(files, 'data/b/0.js');
    expect(bench.step.estimate).toEqual([-0.2, null, 0.05, 0.05]);
    expect(bench.cumulative.estimate[1]).toBeNull();
    expect(bench.verdict).toEqual(['regression', 'error', 'unchanged', 'unchanged']);
  });

  it('lists pushes that broke or neared a budget, newest first, and puts the regressions in the feed, escaped', () => {
    const records = chain([-0.1, -0.03, 0.0, -0.08]);
    records[3]!.subject = '<script>alert(1)</script> & "quotes" (#7)';
    const files = siteFiles(records, options);
    const overview = data<SiteOverview>(files, 'data/overview.js');
    expect(overview.alerts.map((a) => [a.push, a.broke])).toEqual([
      [3, true],
      [1, false],
      [0, true],
    ]);
    const feed = files.find((f) => f.path === 'feed.xml')!.text;
    expect(feed.match(/<entry>/g)).toHaveLength(2);
    expect(feed).not.toContain('<script>');
    expect(feed).toContain('&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;quotes&#34;');
    expect(feed).toContain(`<link rel="alternate" href="https://github.com/acme/widgets/commit/${sha(4)}"/>`);
  });

  it('keeps each gate apart, with its pushes, their runner and pull request', () => {
    const files = siteFiles([...chain([0.01, 0.02]), ...chain([0.03], {}, 'api/benchgate.yml')], options);
    const overview = data<SiteOverview>(files, 'data/overview.js');
    expect(overview.gates.map((g) => [g.gate, g.pushes])).toEqual([
      ['', 2],
      ['api/benchgate.yml', 1],
    ]);
    const pushes = data<SitePushes>(files, overview.gates[0]!.pushFile);
    expect(pushes.pushes.map((p) => [p.commit, p.pr, p.runner])).toEqual([
      [sha(1), 100, 'Linux x64, 2 CPUs, Node v20.20.2'],
      [sha(2), 101, 'Linux x64, 2 CPUs, Node v20.20.2'],
    ]);
    expect(overview.rows.map((r) => [r.gate, r.file])).toEqual([
      [0, 'data/b/0.js'],
      [1, 'data/b/1.js'],
    ]);
  });

  it('escapes the title in the page, whose policy allows no inline script', () => {
    const html = siteFiles(chain([0]), { ...options, title: '</title><script>x</script>' }).find((f) => f.path === 'index.html')!.text;
    expect(html).toContain('<title>&#60;/title&#62;&#60;script&#62;x&#60;/script&#62;</title>');
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain(`script-src 'self'`);
  });
});

describe('publish: links', () => {
  it('reads the pull request a subject names', () => {
    expect(pullRequestOf('Fix lists (#2112)')).toBe(2112);
    expect(pullRequestOf('Merge pull request #541 from npm/fix')).toBe(541);
    expect(pullRequestOf('See #12 for why')).toBeNull();
  });

  it('links only to an https repository, from a URL or a git remote', () => {
    expect(repositoryUrl('https://github.com/acme/widgets.git')).toBe('https://github.com/acme/widgets');
    expect(repositoryOfRemote('git@github.com:acme/widgets.git')).toBe('https://github.com/acme/widgets');
    expect(repositoryOfRemote('ssh://git@github.com/acme/widgets')).toBe('https://github.com/acme/widgets');
    for (const bad of ['javascript:alert(1)', 'http://github.com/a/b', 'https://github.com/a/b"><x', '/tmp/repo', ''])
      expect(repositoryUrl(bad), bad).toBeNull();
  });
});

describe('publish: bisect results', () => {
  const result = {
    good: sha(1),
    bad: sha(9),
    targets: ['lookup'],
    commits: [],
    steps: [],
    compares: 5,
    firstBad: {
      commit: { sha: sha(4), subject: 'slow lookup (#12)' },
      changes: [
        { id: 'lookup', sinceGood: { estimate: -0.3, low: -0.32, high: -0.28 }, step: { estimate: -0.29, low: -0.31, high: -0.27 } },
      ],
      alone: true,
    },
  };

  it("keeps what the site shows of bisect --json's result", () => {
    expect(bisectOf(result, 'b.json')).toEqual({
      good: sha(1),
      bad: sha(9),
      targets: ['lookup'],
      compares: 5,
      firstBad: { commit: sha(4), subject: 'slow lookup (#12)', alone: true, changes: result.firstBad.changes },
      undecided: null,
      noLoss: false,
      error: null,
    });
    const files = siteFiles(chain([0]), { ...options, bisects: [bisectOf(result, 'b.json')] });
    expect(data<SiteOverview>(files, 'data/overview.js').bisects[0]!.firstBad!.commit).toBe(sha(4));
  });

  it('refuses another file, naming the field at fault', () => {
    expect(() => bisectOf({ ...result, good: 'v1.0.0' }, 'b.json')).toThrow(
      'b.json: not a bisect result (benchgate bisect --json): good is not a commit sha.',
    );
    expect(() =>
      bisectOf({ ...result, firstBad: { ...result.firstBad, changes: [{ id: 'x', sinceGood: {}, step: {} }] } }, 'b.json'),
    ).toThrow('firstBad.changes[0].sinceGood is not { estimate, low, high }');
    expect(() => bisectOf([], 'b.json')).toThrow('not an object');
  });
});
