import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { buildSync } from 'esbuild';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script shared with npm run evaluate
import { makeChainRepo } from '../../scripts/chain-repo.mjs';
import { parseAnchor } from '../../src/config/anchor.js';
import { commitsBetween, resolveAnchor } from '../../src/history/anchor.js';
import { benchmarkMatcher, bisect, type BisectCommit } from '../../src/history/bisect.js';
import { chainOf, newestTip, suspects, trendOf, trendSince, type Trend } from '../../src/history/chain.js';
import { historyFileOf } from '../../src/action/history.js';
import { trendPicture } from '../../src/history/picture.js';
import { appendRecords, parseHistory, recordOf, serializeHistory, type HistoryRecord } from '../../src/history/record.js';
import { mermaidLines, trendChart } from '../../src/history/mermaid.js';
import { bisectText, driftMarkdown, driftState, trendLines, trendMarkdown } from '../../src/history/render.js';
import { branchStore, fileStore, type BranchApi } from '../../src/history/store.js';
import { mermaidString } from '../../src/report/escape.js';
import { discoverBenchFiles, exactFile } from '../../src/measure/micro/discover.js';
import type { Report } from '../../src/report/model.js';
import { mermaidBlocks, parseXyChart } from '../mermaid.js';

const sha = (i: number) => i.toString(16).padStart(40, '0');
const temps: string[] = [];
afterAll(() => temps.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A record of commit i (parent i-1) where 'work' changed by `work` with a ±`half` interval, 'steady' by nothing. */
function record(i: number, work: number | null, options: { half?: number; tags?: string[]; gate?: string } = {}): HistoryRecord {
  const half = options.half ?? 0.01;
  return {
    v: 1,
    gate: options.gate ?? 'benchgate.yml',
    commit: sha(i),
    parent: sha(i - 1),
    date: `2026-11-${String(i).padStart(2, '0')}T10:00:00Z`,
    recorded: '2026-11-24T10:00:00Z',
    subject: `commit ${i}`,
    tags: options.tags ?? [],
    parentTags: [],
    runner: { os: 'linux', arch: 'x64', cpus: 2, node: 'v20.0.0' },
    benchmarks: [
      {
        id: 'work',
        verdict: 'unchanged',
        budget: 0.05,
        change: work === null ? null : { estimate: work, low: work - half, high: work + half, confidence: 0.95 },
        base: 1e6,
        head: 1e6 * (1 + (work ?? 0)),
      },
      {
        id: 'steady',
        verdict: 'unchanged',
        budget: 0.05,
        change: { estimate: 0, low: -half, high: half, confidence: 0.95 },
        base: 1e6,
        head: 1e6,
      },
    ],
  };
}

describe('history records', () => {
  it('round-trips through its text, and refuses a bad line naming the file and line', () => {
    const records = [record(1, -0.03), record(2, -0.03)];
    expect(parseHistory(serializeHistory(records), 'h.jsonl')).toEqual(records);
    const bad = serializeHistory(records).replace(sha(2), 'not-a-sha');
    expect(() => parseHistory(bad, 'h.jsonl')).toThrow('h.jsonl:2: not a history record: commit is not a 40-character commit sha.');
    expect(() => parseHistory('{"v":2}\n', 'h.jsonl')).toThrow(
      'h.jsonl:1: not a history record: version 2, this benchgate reads version 1.',
    );
    expect(() => parseHistory('[1,\n', 'x')).toThrow(/^x:1: not a history record \(/);
    const unordered = JSON.stringify({
      ...record(3, 0),
      benchmarks: [{ ...record(3, 0).benchmarks[0], change: { estimate: 0, low: 0.1, high: 0.2, confidence: 0.95 } }],
    });
    expect(() => parseHistory(unordered, 'h')).toThrow('benchmarks[0]: change is not ordered low ≤ estimate ≤ high');
  });

  it('keeps the newest records per gate up to the limit, and a re-run of a commit replaces its record', () => {
    const many = Array.from({ length: 12 }, (_, i) => record(i + 1, -0.01));
    const other = record(5, 0, { gate: 'other.yml' });
    const kept = appendRecords([...many, other], [record(13, -0.02)], 10);
    expect(kept.filter((r) => r.gate === 'benchgate.yml').map((r) => r.commit)).toEqual(Array.from({ length: 10 }, (_, i) => sha(i + 4)));
    expect(kept).toContainEqual(other);
    const rerun = appendRecords(kept, [record(13, -0.05)], 10);
    expect(rerun.filter((r) => r.commit === sha(13))).toHaveLength(1);
    expect(rerun.at(-1)!.benchmarks[0]!.change!.estimate).toBe(-0.05);
  });

  it('1,000 pushes of 20 benchmarks stay under 5 MB (about 230 bytes a benchmark a push)', () => {
    const report = (i: number) =>
      ({
        verdict: 'pass',
        base: { ref: 'HEAD^', sha: sha(i) },
        head: { ref: 'HEAD', sha: sha(i + 1) },
        environment: {
          os: 'linux 6.8.0-1017-azure',
          arch: 'x64',
          cpus: { model: 'AMD EPYC 7763 64-Core Processor', count: 4 },
          node: 'v24.11.0',
        },
        benchmarks: Array.from({ length: 20 }, (_, k) => ({
          id: `bench/router.bench.js > lookup scenario number ${k}`,
          verdict: 'unchanged',
          budget: 0.05,
          change: { estimate: -0.0123456789, low: -0.0234567891, high: 0.00123456789, confidence: 0.9987654321 },
          base: { opsPerSec: 12345678.9012, samples: 10 },
          head: { opsPerSec: 12198765.4321, samples: 10 },
        })),
      }) as unknown as Report;
    const info = {
      date: '2026-11-24T10:00:00+01:00',
      subject: 'Merge pull request #1234 from someone/some-branch-name',
      tags: [],
      parentTags: [],
    };
    const records = Array.from({ length: 1000 }, (_, i) => recordOf(report(i), 'benchgate.yml', info, new Date(0))!);
    const text = serializeHistory(records);
    expect(Buffer.byteLength(text)).toBeLessThan(5 * 1024 * 1024);
    expect(records[0]!.benchmarks[0]).toMatchObject({ change: { estimate: -0.01235, low: -0.02346, high: 0.00123 }, base: 12350000 });
    expect(parseHistory(text, 'big')).toHaveLength(1000);
  });
});

describe('the chain of main', () => {
  it('chains each push measured side by side: the changes multiply, their errors add in quadrature', () => {
    const records = [record(1, -0.03, { tags: ['v1.0.0'] }), ...Array.from({ length: 8 }, (_, i) => record(i + 2, -0.03))];
    const trend = trendSince(records, 'benchgate.yml', {});
    expect(trend.anchor).toEqual({ commit: sha(1), label: 'v1.0.0' });
    expect(trend.records).toHaveLength(8);
    const work = trend.benchmarks.find((b) => b.id === 'work')!;
    expect(work.cumulative!.estimate).toBeCloseTo(0.97 ** 8 - 1, 10);
    // Each step ±1% at 95% ≈ ±0.0103 on the log scale; eight of them: √8 times as wide.
    const width = (Math.log1p(work.cumulative!.high) - Math.log1p(work.cumulative!.low)) / 2;
    const stepWidth = (Math.log1p(-0.02) - Math.log1p(-0.04)) / 2;
    expect(width).toBeCloseTo(Math.sqrt(8) * stepWidth, 10);
    const steady = trend.benchmarks.find((b) => b.id === 'steady')!;
    expect(steady.cumulative!.low).toBeLessThan(0);
    expect(steady.cumulative!.high).toBeGreaterThan(0);
  });

  it('follows parents, not file order: a record of another branch is not on main', () => {
    const side = { ...record(50, -0.5), parent: sha(2) };
    const records = [record(1, -0.01), record(2, -0.01), side, record(3, -0.01)];
    const { chain, reached } = chainOf(records, 'benchgate.yml', { anchor: sha(0) });
    expect(chain.map((r) => r.commit)).toEqual([sha(1), sha(2), sha(3)]);
    expect(reached).toBe(true);
    // An anchor the records do not reach: the trend says where it starts.
    const far = trendOf(
      chainOf(records, 'benchgate.yml', { anchor: sha(99) }).chain,
      'benchgate.yml',
      { commit: sha(99), label: 'v0.1.0' },
      false,
    );
    expect(far.brokenAt).toBe(sha(0));
  });

  it('restarts a benchmark after a push that has no figure of it, rather than guess', () => {
    const records = [record(1, -0.1), record(2, null), record(3, -0.02), record(4, -0.02)];
    const work = trendSince(records, 'benchgate.yml', { anchor: { commit: sha(0), label: 'start' } }).benchmarks.find(
      (b) => b.id === 'work',
    )!;
    expect(work.from).toBe(sha(2));
    expect(work.cumulative!.estimate).toBeCloseTo(0.98 ** 2 - 1, 10);
    expect(work.points[1]!.cumulative).toBeNull();
  });

  it('suspects the steps that lost the most, sure losses first', () => {
    const records = [record(1, -0.015), record(2, -0.06, { half: 0.07 }), record(3, -0.04), record(4, 0.02)];
    const work = trendSince(records, 'benchgate.yml', {}).benchmarks.find((b) => b.id === 'work')!;
    expect(suspects(work).map((p) => p.commit)).toEqual([sha(3), sha(1), sha(2)]);
  });
});

/** A commit whose short sha tells it from the others (sha(i)'s are all 0000000), and its record. */
const long = (i: number) => sha(i).split('').reverse().join('');
const short = (i: number) => long(i).slice(0, 7);
function push(i: number, work: number | null, options: { tags?: string[] } = {}): HistoryRecord {
  return { ...record(i, work, options), commit: long(i), parent: long(i - 1) };
}

/** v1.0.0, then seven pushes of -3% each (±1%), the last tagged v1.1.0: the trend of 'work' since v1.0.0. */
function sinceRelease(make: typeof record = record) {
  const records = [
    make(1, 0, { tags: ['v1.0.0'] }),
    ...Array.from({ length: 6 }, (_, i) => make(i + 2, -0.03)),
    make(8, -0.03, { tags: ['v1.1.0'] }),
  ];
  const trend = trendSince(records, 'benchgate.yml', { anchor: { commit: records[0]!.commit, label: 'v1.0.0' } });
  return { trend, work: trend.benchmarks.find((b) => b.id === 'work')! };
}

describe('the trend picture', () => {
  const { trend, work } = sinceRelease();
  const lines = trendPicture(work, trend, { driftBudget: 0.1 });

  it('puts each push at its chained estimate, the drift budget and zero on their rows, releases under their push', () => {
    expect(lines[0]).toBe(`work  since v1.0.0: ${'-19.2%'} [-21.4%, -17.0%] over 7 pushes`);
    const rows = lines.slice(1, 10);
    const label = (row: string) => row.slice(0, row.search(/[┼┤│]/)).trim();
    const zero = rows.findIndex((row) => label(row) === '0%');
    const budget = rows.findIndex((row) => row.endsWith(' drift budget'));
    expect(label(rows[budget]!)).toBe('-10%');
    const axis = rows[0]!.search(/[┼┤│]/);
    // Column k (0: the anchor) is at axis + 1 + 2k: the anchor on zero, the last push lowest of all, below the budget.
    const rowOfColumn = (k: number) => rows.findIndex((row) => row[axis + 1 + 2 * k] === '●');
    expect(rowOfColumn(0)).toBe(zero);
    const last = rowOfColumn(7);
    expect(last).toBeGreaterThan(budget);
    for (let k = 1; k < 7; k++) expect(rowOfColumn(k)).toBeLessThanOrEqual(rowOfColumn(k + 1));
    const marks = lines[10]!;
    expect(marks.indexOf('▲')).toBe(axis + 1);
    expect(marks.lastIndexOf('▲')).toBe(axis + 1 + 2 * 7);
    expect(lines.slice(11)).toEqual([`${' '.repeat(axis + 1)}v1.0.0`, `${' '.repeat(axis + 1 + 14)}v1.1.0`]);
  });

  it('keeps a bench id with backticks inside its code blocks in the summary: the chart and the text under it', async () => {
    const odd = [{ ...record(1, -0.02), benchmarks: [{ ...record(1, -0.02).benchmarks[0]!, id: '```\n<img src=x>' }] }];
    const markdown = trendMarkdown(trendSince(odd, 'benchgate.yml', {})).markup;
    expect(markdown.match(/```/g)).toHaveLength(4);
    expect(markdown).toContain("'''?<img src=x>");
    const [chart] = mermaidBlocks(markdown);
    expect((await parseXyChart(chart!)).title).toMatch(/^``` <img src=x> {2}since /);
  });
});

const workOf = (trend: Trend) => trend.benchmarks.find((b) => b.id === 'work')!;

/** The chart of 'work' in a trend, as Mermaid parses it. */
function drawn(trend: Trend, options: Parameters<typeof trendChart>[2] = {}) {
  return parseXyChart(mermaidLines(trendChart(workOf(trend), trend, options)!).join('\n'));
}

describe('the trend chart', () => {
  const { trend, work } = sinceRelease(push);
  const percent = (fraction: number) => Number((fraction * 100).toFixed(2));
  /** A pull request's report: 'work' 2% slower (±1%, at 95%). */
  const pullRequest = {
    benchmarks: [{ id: 'work', change: { estimate: -0.02, low: -0.03, high: -0.01, confidence: 0.95 } }],
  } as unknown as Report;

  it('draws each push at its chained change, with its 95% band, from zero at the release, releases by name', async () => {
    const chart = await drawn(trend);
    expect(chart.title).toBe('work  since v1.0.0: -19.2% [-21.4%, -17.0%] over 7 pushes');
    expect(chart.xLabels).toEqual(['v1.0.0', ...[2, 3, 4, 5, 6, 7].map((i) => short(i)), 'v1.1.0']);
    const [estimate, low, high, ...rest] = chart.lines;
    expect(rest).toEqual([]);
    expect([estimate!.title, low!.title, high!.title]).toEqual(['estimate', '95% band, low', '95% band, high']);
    const points = work.points.map((p) => p.cumulative!);
    expect(estimate!.values).toEqual([0, ...points.map((c) => percent(c.estimate))]);
    expect(low!.values).toEqual([0, ...points.map((c) => percent(c.low))]);
    expect(high!.values).toEqual([0, ...points.map((c) => percent(c.high))]);
    // Percent on the y axis, a round range holding the band.
    expect(chart.yTitle).toBe('change since v1.0.0 (%)');
    expect(chart.yRange[0]).toBeLessThanOrEqual(Math.min(...low!.values));
    expect(chart.yRange[1]).toBeGreaterThanOrEqual(0);
    expect(chart.lines.map((l) => l.colour)).toEqual(['#2f81f7', '#8c959f', '#8c959f']);
  });

  it('draws the drift budget as a flat line, inside the range', async () => {
    const chart = await drawn(trend, { driftBudget: 0.25 });
    expect(chart.lines.map((l) => l.title)).toEqual(['estimate', '95% band, low', '95% band, high', 'drift budget']);
    expect(chart.lines[3]!.values).toEqual(Array.from({ length: 8 }, () => -25));
    expect(chart.lines[3]!.colour).toBe('#e5534b');
    expect(chart.yRange[0]).toBeLessThanOrEqual(-25);
  });

  it("puts this PR's own change last, chained onto main's change at its base", async () => {
    const markdown = trendLines(trend, pullRequest, { driftBudget: 0.1 })!.markup;
    const [block, ...others] = mermaidBlocks(markdown);
    expect(others).toHaveLength(1); // 'steady'
    const chart = await parseXyChart(block!);
    expect(chart.xLabels).toHaveLength(9);
    expect(chart.xLabels.at(-1)).toBe('this PR');
    const [estimate, low, high] = chart.lines.map((l) => l.values);
    const main = work.cumulative!;
    expect(estimate!.at(-1)).toBe(percent((1 + main.estimate) * 0.98 - 1));
    // One more step's error on top of main's: the band widens.
    expect(high!.at(-1)! - low!.at(-1)!).toBeGreaterThan(high!.at(-2)! - low!.at(-2)!);
    expect(chart.lines[3]!.values.at(-1)).toBe(-10);
    // The text stays for where Mermaid is not drawn: the lines, and the pictures folded under the charts.
    expect(markdown).toContain('- work: main since v1.0.0: -19.2% ±2.2%; this PR: -2.0%');
    expect(markdown).toMatch(/<details><summary>The charts as text \(main's pushes only\)<\/summary>\n\n```text\nwork {2}since v1\.0\.0: /);
  });

  it('shows the newest 40 pushes of a longer series, and says so under the chart', async () => {
    const series = trendSince(
      Array.from({ length: 45 }, (_, i) => push(i + 1, -0.001)),
      'benchgate.yml',
      { anchor: { commit: long(0), label: 'v2.0.0' } },
    );
    const markdown = trendMarkdown(series).markup;
    const chart = await parseXyChart(mermaidBlocks(markdown)[0]!);
    expect(chart.xLabels).toEqual(Array.from({ length: 40 }, (_, i) => short(i + 6)));
    expect(chart.lines[0]!.values.at(-1)).toBe(percent(0.999 ** 45 - 1));
    expect(markdown).toContain(
      "<sub>The newest 40 of 45 pushes since v2.0.0: the older ones are left out of the chart, never out of its title's figures.</sub>",
    );
    // The text picture is folded under the charts.
    expect(markdown).toMatch(/<details><summary>The trend as text<\/summary>\n\n```text\nmain's trend since v2\.0\.0: 45 push/);
  });

  it('draws one push as two points, starts a series again after a push without its figure, and draws nothing to show nothing', async () => {
    const one = trendSince([push(1, -0.05)], 'benchgate.yml', { anchor: { commit: long(0), label: 'v1' } });
    const chart = await drawn(one);
    expect(chart.xLabels).toEqual(['v1', short(1)]);
    expect(chart.lines[0]!.values).toEqual([0, -5]);
    // A gap: the series starts at the push that had no figure, as the headline says.
    const gap = trendSince([push(1, -0.1), push(2, null), push(3, -0.02)], 'benchgate.yml', {
      anchor: { commit: long(0), label: 'v1' },
    });
    const restarted = await drawn(gap);
    expect(restarted.xLabels).toEqual([short(2), short(3)]);
    expect(restarted.yTitle).toBe(`change since ${short(2)} (%)`);
    // No figure yet (the series starts after the last push): no chart; no history at all: the text alone.
    const none = trendSince([push(1, null)], 'benchgate.yml', { anchor: { commit: long(0), label: 'v1' } });
    expect(trendChart(workOf(none), none)).toBeUndefined();
    const empty = trendMarkdown(trendSince([], 'benchgate.yml', { anchor: { commit: long(0), label: 'v1' } })).markup;
    expect(empty).not.toContain('```mermaid');
    expect(empty).not.toContain('<details>');
    expect(empty).toContain("main's trend: no history recorded yet after v1");
  });

  it('charts the eight benchmarks that lost the most, in the summary and the comment; the text names the rest', async () => {
    const ids = Array.from({ length: 10 }, (_, k) => `b${k}`);
    const many = [1, 2].map((i) => ({ ...push(i, 0), benchmarks: ids.map((id, k) => ({ ...record(i, -0.01 * k).benchmarks[0]!, id })) }));
    const tenfold = trendSince(many, 'benchgate.yml', { anchor: { commit: long(0), label: 'v1' } });
    const summary = trendMarkdown(tenfold).markup;
    const titles = (await Promise.all(mermaidBlocks(summary).map(parseXyChart))).map((chart) => chart.title.split(' ')[0]);
    expect(titles).toEqual(['b9', 'b8', 'b7', 'b6', 'b5', 'b4', 'b3', 'b2']);
    expect(summary).toContain('<sub>2 more benchmark(s) in the text below.</sub>');
    expect(summary).toMatch(/\nb1 {2}since v1: -2\.0% /);
    const comment = trendLines(tenfold, pullRequest)!.markup;
    expect(mermaidBlocks(comment)).toHaveLength(8);
    expect(comment.match(/^- b\d: main since v1: /gm)).toHaveLength(10);
  });

  it('gives two pushes with the same label two places on the axis', async () => {
    const same = trendSince([push(1, -0.01, { tags: ['this PR'] }), push(2, -0.01, { tags: ['this PR'] })], 'benchgate.yml', {
      anchor: { commit: long(0), label: 'this PR' },
    });
    const chart = await drawn(same, { pullRequest: pullRequest.benchmarks[0]!.change });
    expect(chart.xLabels).toEqual(['this PR', 'this PR (2)', 'this PR (3)', 'this PR (4)']);
  });
});

describe('labels of a Mermaid chart', () => {
  /** Tags and ids a push or a pull request could carry, each short enough to be shown whole. */
  const HOSTILE = [
    'v1"] , "x',
    'line\nbreak %% b',
    '```\n```',
    '<script>x</script>',
    'a --> b; c',
    '#quot; #35; &amp;',
    '"`md`" `x`',
    'style:#35;fill:#f00;',
    '%%{init: {}}%%',
    'x-axis ["a"]',
    'ok\u202eevil\u2028end',
  ];
  const HOSTILE_ID = '%%{init: {"theme":"forest"}}%%\n```\nline [1, 2]\n"]-->';
  const shown = (text: string) => text.replace(/[\n\u2028\u202e]/g, ' ');
  const hostile = trendSince(
    HOSTILE.map((tag, i) => ({
      ...push(i + 1, -0.01, { tags: [tag] }),
      benchmarks: [{ ...record(i + 1, -0.01).benchmarks[0]!, id: HOSTILE_ID }],
    })),
    'benchgate.yml',
    { anchor: { commit: long(0), label: '"v0" ]%%' } },
  );

  it('stay labels: every hostile tag and id parses as the text it was, in its place, in one chart and one fence', async () => {
    const markdown = trendMarkdown(hostile, { driftBudget: 0.1 }).markup;
    expect(markdown.match(/^```/gm)).toHaveLength(4); // the chart's fence and the text's, each opened and closed once
    const [block, ...none] = mermaidBlocks(markdown);
    expect(none).toEqual([]);
    const chart = await parseXyChart(block!);
    expect(chart.xLabels).toEqual(['"v0" ]%%', ...HOSTILE.map(shown)]);
    expect(chart.title).toBe(`${shown(HOSTILE_ID)}  since "v0" ]%%: -10.5% [-13.4%, -7.4%] over 11 pushes`);
    expect(chart.yTitle).toBe('change since "v0" ]%% (%)');
    expect(chart.lines.map((l) => l.values.length)).toEqual([12, 12, 12, 12]);
    expect(chart.lines.map((l) => l.title)).toEqual(['estimate', '95% band, low', '95% band, high', 'drift budget']);
  });

  it('would be caught if one escaped: a raw quote or line break fails the parse, a raw directive changes the config', async () => {
    const source = mermaidLines(trendChart(hostile.benchmarks[0]!, hostile)!).join('\n');
    const escaped = mermaidString(HOSTILE[0]);
    expect(source).toContain(escaped);
    await expect(parseXyChart(source.replace(escaped, `"${HOSTILE[0]}"`))).rejects.toThrow(/Parse error/);
    // A raw line break: the next line starts with %%, a comment to Mermaid, and takes the rest of the axis with it.
    await expect(parseXyChart(source.replace(escaped, '"a\n%% b"'))).rejects.toThrow(/Parse error/);
    const directive = await parseXyChart(source.replace(escaped, "\"a %%{init: {'xyChart': {'width': 1}}}%% b\""));
    expect(directive.xLabels[1]).toBe('a  b'); // Mermaid took the directive out of the label, as config
  });

  it('keep letters, digits and plain punctuation; everything else is an entity code, line breaks a space', () => {
    expect(mermaidString("bench/a.js > Ünïcode 名前 (x), [y] @v1.2-rc_3+b! ok?'")).toBe(
      '"bench/a.js #62; Ünïcode 名前 (x), [y] @v1.2-rc_3+b! ok?\'"',
    );
    expect(mermaidString('"#%;:&<>`{}=|\\')).toBe('"#34;#35;#37;#59;#58;#38;#60;#62;#96;#123;#125;#61;#124;#92;"');
    expect(mermaidString('a\r\nb\u0007c\u202ed')).toBe('"a b c d"');
    expect(mermaidString(undefined)).toBe('""');
  });
});

describe('history stores', () => {
  it('a file: six processes appending at once, twenty records each, lose none', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-history-'));
    temps.push(dir);
    // The store as its own module, for child processes: their read-modify-write cycles interleave, unlike in one event loop.
    const bundle = path.join(dir, 'store.mjs');
    buildSync({
      entryPoints: ['src/history/store.ts'],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'silent',
    });
    const file = path.join(dir, 'h', 'history.jsonl');
    const writer = (w: number) =>
      new Promise<number | null>((resolve) => {
        const records = Array.from({ length: 20 }, (_, k) => record(w * 100 + k + 1, -0.01));
        const script = `const { fileStore } = await import(${JSON.stringify(bundle)}); const records = ${JSON.stringify(records)};
for (const r of records) await fileStore(${JSON.stringify(file)}, 1000).append([r]);`;
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
        child.on('close', resolve);
      });
    expect(await Promise.all(Array.from({ length: 6 }, (_, w) => writer(w)))).toEqual([0, 0, 0, 0, 0, 0]);
    const commits = parseHistory(readFileSync(file, 'utf8'), file).map((r) => r.commit);
    expect(commits).toHaveLength(120);
    expect(new Set(commits).size).toBe(120);
    writeFileSync(file, 'garbage\n');
    await expect(fileStore(file, 100).read()).rejects.toThrow(`${file}:1: not a history record`);
  });

  it('a data branch: a writer that loses the race reads again and keeps both records', async () => {
    const files = new Map<string, string>(); // commit → text
    let head: string | undefined;
    let n = 0;
    let interfere: (() => Promise<void>) | undefined;
    const api: BranchApi = {
      branchHead: async () => head,
      readFile: async (commit) => files.get(commit),
      treeOf: async (commit) => `tree-${commit}`,
      commitFile: async ({ text }) => {
        const commit = `c${++n}`;
        files.set(commit, text);
        return commit;
      },
      createBranch: async (_b, commit) => {
        if (head) return false;
        head = commit;
        return true;
      },
      moveBranch: async (_b, commit) => {
        const other = interfere;
        interfere = undefined;
        if (other) {
          // Another job lands its write between our read and our update: ours is no longer a fast-forward.
          await other();
          return false;
        }
        head = commit;
        return true;
      },
    };
    const store = branchStore(api, { branch: 'benchgate-history', file: 'benchgate.yml.jsonl', limit: 100 });
    await store.append([record(1, -0.01)]);
    interfere = async () => {
      const other = `c${++n}`;
      files.set(other, serializeHistory([...(await store.read()), record(2, -0.02)]));
      head = other;
    };
    await store.append([record(3, -0.03)]);
    expect((await store.read()).map((r) => r.commit)).toEqual([sha(1), sha(2), sha(3)]);
  });
});

describe('bisect', () => {
  const commits: BisectCommit[] = Array.from({ length: 16 }, (_, i) => ({ sha: sha(i + 1), subject: `commit ${i + 1}` }));
  /** A compare of good (index 0) with commit `head`, as the gate would judge a throughput of `at(head)`. */
  const fakeCompare = (at: (index: number) => number, halfWidth = 0.02, inconclusiveAt = new Set<number>()) => {
    const calls: { head: string; extend: boolean }[] = [];
    const compare = async (_base: string, head: string, extend: boolean): Promise<Report> => {
      calls.push({ head, extend });
      const index = Number.parseInt(head, 16);
      const estimate = at(index) - 1;
      const change = { estimate, low: estimate - halfWidth, high: estimate + halfWidth, confidence: 0.95, achievedConfidence: 0.95 };
      const verdict = inconclusiveAt.has(index)
        ? 'inconclusive'
        : change.high < -0.05
          ? 'regression'
          : change.low > -0.05
            ? 'unchanged'
            : 'inconclusive';
      return { verdict: 'pass', benchmarks: [{ id: 'work', verdict, budget: 0.05, change }] } as unknown as Report;
    };
    return { compare, calls };
  };

  it('names a 1.5× step among 16 commits with ⌈log2 16⌉ + 1 compares', async () => {
    for (const step of [1, 7, 11, 16]) {
      const { compare, calls } = fakeCompare((i) => (i >= step ? 1 / 1.5 : 1));
      const result = await bisect({ good: sha(0), bad: sha(16), commits, compare, select: () => true, log: () => {} });
      expect(result.firstBad!.commit.sha).toBe(sha(step));
      expect(result.firstBad!.alone).toBe(true);
      expect(calls.length).toBeLessThanOrEqual(5);
      expect(bisectText(result).at(-2)).toBe(`first bad commit: ${sha(step)} commit ${step}`);
    }
  });

  it('says a loss spread over several commits is spread, and lists the largest steps', async () => {
    const { compare } = fakeCompare((i) => 0.97 ** i, 0.005);
    const result = await bisect({ good: sha(0), bad: sha(16), commits, compare, select: () => true, log: () => {} });
    expect(result.firstBad!.alone).toBe(false);
    expect(result.largestSteps!.length).toBeGreaterThan(0);
    expect(bisectText(result).join('\n')).toContain(
      'the loss looks spread over several commits: no single step is shown to lose the budget alone',
    );
  });

  it('extends an inconclusive compare, and stops undecided rather than guess', async () => {
    const { compare, calls } = fakeCompare((i) => (i >= 9 ? 0.7 : 1), 0.02, new Set([8]));
    const result = await bisect({ good: sha(0), bad: sha(16), commits, compare, select: () => true, log: () => {} });
    expect(calls.filter((c) => c.head === sha(8)).map((c) => c.extend)).toEqual([false, true]);
    expect(result.undecided).toEqual({ after: sha(0), upTo: sha(16) });
    expect(result.firstBad).toBeUndefined();
  });

  it('measures, after the first compare, only the bench files and load tests that hold the targets', async () => {
    const scopes: unknown[] = [];
    const compare = async (_b: string, head: string, _extend: boolean, only?: unknown): Promise<Report> => {
      scopes.push(only);
      const lost = Number.parseInt(head, 16) >= 5;
      const change = (estimate: number) => ({ estimate, low: estimate - 0.01, high: estimate + 0.01, confidence: 0.95 });
      const b = (id: string, kind: string, file: string | null, loses: boolean) => ({
        id,
        kind,
        file,
        verdict: loses ? 'regression' : 'unchanged',
        budget: 0.05,
        change: change(loses ? -0.3 : 0),
      });
      return {
        verdict: 'pass',
        benchmarks: [
          b('bench/a.js > x', 'micro', 'bench/a.js', lost),
          b('bench/[id].js > y', 'micro', 'bench/[id].js', lost),
          b('bench/c.js > z', 'micro', 'bench/c.js', false),
          b('http > api', 'http', null, lost),
          b('http > other', 'http', null, lost),
        ],
      } as unknown as Report;
    };
    const lines: string[] = [];
    const select = (id: string) => id !== 'http > other';
    const result = await bisect({ good: sha(0), bad: sha(16), commits, compare, select, log: (line) => lines.push(line) });
    expect(result.firstBad!.commit.sha).toBe(sha(5));
    expect(result.targets).toEqual(['bench/a.js > x', 'bench/[id].js > y', 'http > api']);
    // The first compare measures everything (the targets are what it finds); every step after it, the targets' files and tests.
    expect(scopes[0]).toBeUndefined();
    expect(scopes.length).toBeGreaterThan(2);
    for (const scope of scopes.slice(1)) expect(scope).toEqual({ files: ['bench/[id].js', 'bench/a.js'], http: ['http > api'] });
    expect(lines).toContain('each step measures only what holds the targets: bench/[id].js, bench/a.js, http > api');
  });

  it('says a benchmark that good does not have (its bench file came later) cannot be bisected, never "no loss"', async () => {
    const compare = async (): Promise<Report> =>
      ({
        verdict: 'pass',
        benchmarks: [{ id: 'benchmarks/bench-parse.js > parse', verdict: 'new', budget: 0.05, change: null }],
      }) as unknown as Report;
    await expect(bisect({ good: sha(0), bad: sha(16), commits, compare, select: () => true, log: () => {} })).rejects.toThrow(
      `no benchmark matching the pattern is at both ${sha(0).slice(0, 12)} and ${sha(16).slice(0, 12)}: "benchmarks/bench-parse.js > parse" is new at ${sha(16).slice(0, 12)} (the bench file came later, and ${sha(0).slice(0, 12)} cannot run it)`,
    );
  });

  it("a step's bench file is found by its exact path, glob characters and all", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'benchgate-exact-'));
    try {
      mkdirSync(path.join(root, 'bench'));
      for (const name of ['[id].js', 'i.js', 'd.js']) writeFileSync(path.join(root, 'bench', name), '');
      // Unescaped, '[id]' is also a class of one character: it would measure i.js and d.js beside it.
      expect(await discoverBenchFiles(root, ['bench/[id].js'])).toEqual(['bench/[id].js', 'bench/d.js', 'bench/i.js']);
      expect(await discoverBenchFiles(root, [exactFile('bench/[id].js')])).toEqual(['bench/[id].js']);
      expect(await discoverBenchFiles(root, [exactFile('bench/i.js')])).toEqual(['bench/i.js']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('has nothing to bisect when good and bad differ by less than the budget', async () => {
    const { compare, calls } = fakeCompare(() => 0.99);
    const result = await bisect({ good: sha(0), bad: sha(16), commits, compare, select: () => true, log: () => {} });
    expect(result.noLoss).toBe(true);
    expect(calls).toHaveLength(1);
  });
});

describe('anchors', () => {
  it('parses tag:, days: and revisions, and refuses anything else naming the input', () => {
    expect(parseAnchor('tag:v*')).toEqual({ kind: 'tag', pattern: 'v*' });
    expect(parseAnchor('days:30')).toEqual({ kind: 'days', days: 30 });
    expect(parseAnchor('v1.4.0')).toEqual({ kind: 'ref', ref: 'v1.4.0' });
    expect(() => parseAnchor('tag:$(rm -rf ~)', "Input 'anchor'")).toThrow("Input 'anchor' 'tag:$(rm -rf ~)': the tag pattern may hold");
    expect(() => parseAnchor('days:0')).toThrow('days must be a whole number from 1 to 3650');
    expect(() => parseAnchor('--upload-pack=x')).toThrow('is not tag:<pattern>, days:<n> or a revision name');
  });

  it('resolves the newest release before the commit, not a tag on the commit itself', async () => {
    const { dir, commits } = makeChainRepo({ losses: [0, 0, 0], tags: { 0: 'v1.9.0', 1: 'v1.10.0', 3: 'v1.11.0' }, config: '' });
    temps.push(dir);
    // Version order, not text order: v1.10.0 is newer than v1.9.0; v1.11.0 is on HEAD itself.
    expect(await resolveAnchor({ kind: 'tag', pattern: 'v*' }, commits[3], dir)).toEqual({ commit: commits[1], label: 'v1.10.0' });
    expect(await resolveAnchor({ kind: 'ref', ref: 'v1.9.0' }, commits[3], dir)).toEqual({ commit: commits[0], label: 'v1.9.0' });
    await expect(resolveAnchor({ kind: 'tag', pattern: 'release-*' }, commits[3], dir)).rejects.toThrow("no tag matching 'release-*'");
    // The commits were made just now: none is a year old.
    await expect(resolveAnchor({ kind: 'days', days: 365 }, commits[3], dir)).rejects.toThrow('no commit of');
    expect((await commitsBetween(commits[0], commits[3], dir)).map((c) => c.sha)).toEqual(commits.slice(1));
  });
});

describe('what the review found', () => {
  it('follows the record whose parent is recorded when a commit has two, and takes the newest tip, not the last line', () => {
    const dispatch = { ...record(5, -0.5), parent: sha(40) }; // a dispatch run of commit 5 with another base
    const records = [record(1, -0.01), record(2, -0.01), { ...record(5, -0.02), parent: sha(2) }, dispatch];
    expect(chainOf(records, 'benchgate.yml', { anchor: sha(0) }).chain.map((r) => r.commit)).toEqual([sha(1), sha(2), sha(5)]);
    // Jobs that finished out of order: the file's last line is an older push.
    const late = [record(1, 0), record(3, 0), record(2, 0)];
    expect(newestTip(late)).toBe(sha(3));
  });

  it('keeps a failed compare in the chain: its benchmarks restart after it, the others go on', () => {
    const failed = recordOf(
      {
        verdict: 'error',
        base: { ref: 'x', sha: sha(1) },
        head: { ref: 'y', sha: sha(2) },
        environment: { os: 'linux', arch: 'x64', cpus: { model: 'm', count: 2 }, node: 'v20' },
        benchmarks: [
          { id: 'work', verdict: 'error', budget: 0.05, change: null, base: null, head: null },
          {
            id: 'steady',
            verdict: 'unchanged',
            budget: 0.05,
            change: { estimate: 0.01, low: 0, high: 0.02, confidence: 0.95 },
            base: { opsPerSec: 1 },
            head: { opsPerSec: 1 },
          },
        ],
      } as unknown as Report,
      'benchgate.yml',
      { date: '', subject: 'broke the build', tags: [], parentTags: [] },
      new Date(0),
    )!;
    const trend = trendSince([record(1, -0.1), failed, record(3, -0.02)], 'benchgate.yml', { anchor: { commit: sha(0), label: 'v1' } });
    expect(trend.records).toHaveLength(3);
    const work = trend.benchmarks.find((b) => b.id === 'work')!;
    expect(work.from).toBe(sha(2));
    expect(work.cumulative!.estimate).toBeCloseTo(-0.02, 10);
    // steady's steps: 0, +1% (measured in the failed run), 0.
    expect(trend.benchmarks.find((b) => b.id === 'steady')!.cumulative!.estimate).toBeCloseTo(0.01, 10);
  });

  it('drift: a failed or undecided compare is never "within the budget"', () => {
    const report = (verdicts: string[], verdict = 'pass') =>
      ({
        verdict,
        base: { sha: sha(1) },
        head: { sha: sha(2) },
        benchmarks: verdicts.map((v, i) => ({ id: `b${i}`, verdict: v, budget: 0.1, change: { estimate: -0.2, low: -0.25, high: -0.15 } })),
      }) as unknown as Report;
    expect(driftState(report(['unchanged', 'improvement', 'new']))).toBe('holds');
    expect(driftState(report(['unchanged', 'inconclusive']))).toBe('undecided');
    // Cut short by the time limit (zero rounds included): no answer, said as undecided; the run itself still fails.
    expect(driftState(report(['unchanged', 'unmeasured'], 'error'))).toBe('undecided');
    expect(driftState(report(['unchanged', 'error'], 'error'))).toBe('failed');
    expect(driftState({ ...report([], 'error'), error: 'the build of head failed' })).toBe('failed');
    expect(driftState(report(['regression', 'inconclusive']))).toBe('broken');
    // A regression the time limit kept from its confirmation fails the run, but opens no drift issue: undecided.
    const cut = report(['regression', 'unchanged']);
    (cut.benchmarks[0] as { unconfirmed?: boolean }).unconfirmed = true;
    expect(driftState(cut)).toBe('undecided');
    const anchor = { commit: sha(1), label: 'v1_2' };
    expect(driftMarkdown({ report: cut, trend: undefined, driftBudget: 0.1, anchor, marker: '' })).toContain(
      'undecided, 1 benchmark(s) not shown within 10%',
    );
    const undecided = driftMarkdown({ report: report(['inconclusive']), trend: undefined, driftBudget: 0.1, anchor, marker: '<!-- m -->' });
    expect(undecided).toContain('### 🟡 benchgate drift: undecided, 1 benchmark(s) not shown within 10% of v1&#95;2');
    expect(undecided).not.toContain('✅');
    // A hostile subject in the suspects, and the bisect hint by sha (a code span shows entities as they are).
    const hostile = [{ ...record(2, -0.2), subject: '<img src=x onerror=alert(1)> @everyone [x](javascript:1)' }];
    const trend = trendSince(hostile, 'benchgate.yml', { anchor: { commit: sha(1), label: 'v1' } });
    const broken = driftMarkdown({
      report: { ...report(['regression']), benchmarks: [{ ...report(['regression']).benchmarks[0]!, id: 'work' }] },
      trend,
      driftBudget: 0.1,
      anchor,
      marker: '<!-- m -->',
    });
    expect(broken).not.toContain('<img');
    expect(broken).not.toContain('@everyone');
    expect(broken).toContain(`<code>npx benchgate bisect --good ${sha(1).slice(0, 12)}</code>`);
  });

  it('bisect: a step whose target was unmeasured (zero rounds in the time limit) is undecided, never good, even extended', async () => {
    const commits: BisectCommit[] = Array.from({ length: 8 }, (_, i) => ({ sha: sha(i + 1), subject: `c${i + 1}` }));
    const calls: { head: string; extend: boolean }[] = [];
    const compare = async (_b: string, head: string, extend: boolean): Promise<Report> => {
      calls.push({ head, extend });
      const i = Number.parseInt(head, 16);
      const work =
        i === 4
          ? { id: 'work', verdict: 'unmeasured', budget: 0.05, change: null, rounds: [], note: 'measured in 0 of the 10 rounds' }
          : {
              id: 'work',
              verdict: i >= 2 ? 'regression' : 'unchanged',
              budget: 0.05,
              change: { estimate: i >= 2 ? -0.3 : 0, low: -0.31, high: 0.01, confidence: 0.95 },
            };
      return { verdict: i === 4 ? 'error' : i >= 2 ? 'fail' : 'pass', benchmarks: [work] } as unknown as Report;
    };
    const result = await bisect({ good: sha(0), bad: sha(8), commits, compare, select: () => true, log: () => {} });
    expect(result.firstBad).toBeUndefined();
    expect(result.undecided).toEqual({ after: sha(0), upTo: sha(8) });
    expect(result.steps.find((s) => s.commit === sha(4))!.outcome).toBe('undecided');
    // The unmeasured step was run again with more rounds before the search gave up on it.
    expect(calls).toEqual([
      { head: sha(8), extend: false },
      { head: sha(4), extend: false },
      { head: sha(4), extend: true },
    ]);
  });

  it('bisect: a regression the time limit kept from its confirmation is not bad: the step is compared again, with more rounds', async () => {
    const commits: BisectCommit[] = Array.from({ length: 8 }, (_, i) => ({ sha: sha(i + 1), subject: `c${i + 1}` }));
    const calls: { head: string; extend: boolean }[] = [];
    // The loss comes with commit 6; at commit 4 a transient reads as a loss the short compare could not confirm.
    const compare = async (_b: string, head: string, extend: boolean): Promise<Report> => {
      calls.push({ head, extend });
      const i = Number.parseInt(head, 16);
      const lost = i >= 6 || (i === 4 && !extend);
      const work = {
        id: 'work',
        verdict: lost ? 'regression' : 'unchanged',
        budget: 0.05,
        change: { estimate: lost ? -0.3 : 0, low: lost ? -0.35 : -0.01, high: lost ? -0.25 : 0.01, confidence: 0.95 },
        ...(i === 4 && !extend ? { unconfirmed: true } : {}),
      };
      return { verdict: lost ? 'fail' : 'pass', benchmarks: [work] } as unknown as Report;
    };
    const result = await bisect({ good: sha(0), bad: sha(8), commits, compare, select: () => true, log: () => {} });
    expect(result.firstBad?.commit.sha).toBe(sha(6));
    expect(calls.slice(0, 3)).toEqual([
      { head: sha(8), extend: false },
      { head: sha(4), extend: false },
      { head: sha(4), extend: true },
    ]);
    expect(result.steps.find((s) => s.commit === sha(4))!.outcome).toBe('good');
  });

  it('bisect: a commit whose install fails or that lacks a target is skipped (like git bisect skip), never good, and the search goes on', async () => {
    const commits: BisectCommit[] = Array.from({ length: 8 }, (_, i) => ({ sha: sha(i + 1), subject: `c${i + 1}` }));
    /** The loss comes with commit `step`; commit 4 lacks the benchmark (its bench file came later), commit 6 does not install. */
    const fake = (step: number) => {
      const calls: string[] = [];
      const compare = async (_b: string, head: string): Promise<Report> => {
        calls.push(head);
        const i = Number.parseInt(head, 16);
        if (i === 4) return { verdict: 'pass', benchmarks: [{ id: 'other', verdict: 'unchanged', budget: 0.05 }] } as unknown as Report;
        if (i === 6) return { verdict: 'error', error: 'npm ci failed\nlog', benchmarks: [] } as unknown as Report;
        const estimate = i >= step ? -0.3 : 0;
        const work = { id: 'work', verdict: i >= step ? 'regression' : 'unchanged', budget: 0.05 };
        return {
          verdict: 'pass',
          benchmarks: [{ ...work, change: { estimate, low: estimate - 0.01, high: estimate + 0.01, confidence: 0.95 } }],
        } as unknown as Report;
      };
      return { compare, calls };
    };
    // The culprit is commit 2: 4 is skipped (the nearest untested commit to the middle is tried instead), never re-run.
    const early = fake(2);
    const named = await bisect({ good: sha(0), bad: sha(8), commits, compare: early.compare, select: () => true, log: () => {} });
    expect(named.firstBad!.commit.sha).toBe(sha(2));
    expect(early.calls).toEqual([sha(8), sha(4), sha(3), sha(1), sha(2)]);
    expect(named.skipped).toEqual([{ commit: sha(4), reason: 'work not at this commit' }]);
    expect(bisectText(named)[0]).toContain('5 compare(s), 1 commit(s) skipped as untestable');
    expect(bisectText(named)).toContain(`  ${sha(4).slice(0, 7)} skipped: work not at this commit`);
    // The culprit is commit 7: 6 does not install, so 7 cannot be told from 6: undecided between 5 and 7, never "7".
    const late = fake(7);
    const between = await bisect({ good: sha(0), bad: sha(8), commits, compare: late.compare, select: () => true, log: () => {} });
    expect(between.firstBad).toBeUndefined();
    expect(between.undecided).toEqual({ after: sha(5), upTo: sha(7), skipped: [sha(6)] });
    expect(between.skipped).toEqual([
      { commit: sha(4), reason: 'work not at this commit' },
      { commit: sha(6), reason: 'the compare failed: npm ci failed' },
    ]);
    expect(bisectText(between).at(-1)).toBe(
      `undecided: only commits that could not be tested are left between ${sha(5).slice(0, 7)} (good) and ${sha(7).slice(0, 7)} (bad): the first bad commit is one of ${sha(6).slice(0, 7)}, ${sha(7).slice(0, 7)}`,
    );
    // Bad itself failing leaves nothing to search.
    const failing = await bisect({
      good: sha(0),
      bad: sha(6),
      commits: commits.slice(0, 6),
      compare: late.compare,
      select: () => true,
      log: () => {},
    });
    expect(failing.error).toBe(`the compare of ${sha(0).slice(0, 12)} and ${sha(6).slice(0, 12)} failed: npm ci failed`);
    expect(failing.undecided).toEqual({ after: sha(0), upTo: sha(6) });
    // Said as what it is (a semver bisect whose install left the harness out read "a compare stayed inconclusive").
    expect(bisectText(failing).slice(-2)).toEqual([
      failing.error,
      `undecided: nothing to search until ${sha(0).slice(0, 7)} and ${sha(6).slice(0, 7)} compare; fix what failed above`,
    ]);
    expect(bisectText(failing).join('\n')).not.toContain('inconclusive');
    await expect(
      bisect({ good: sha(0), bad: sha(8), commits: [], compare: late.compare, select: () => true, log: () => {} }),
    ).rejects.toThrow('no commits after');
    await expect(bisect({ good: sha(0), bad: sha(8), commits, compare: late.compare, select: () => false, log: () => {} })).rejects.toThrow(
      /no benchmark matches the pattern at [0-9a-f]{12}; its ids: "work"/,
    );
  });

  it('matches --benchmark on ids as budgets do: a * spans the / of a bench file’s path', () => {
    // A real history's first bisect: '*invalid*' matched nothing, its '*' stopping at the path's '/'.
    const invalid = benchmarkMatcher('*invalid*');
    expect(invalid("benchgate-real/regression.bench.mjs > valid, invalid input 'xyz'")).toBe(true);
    expect(invalid("benchgate-real/regression.bench.mjs > valid, valid input '1.2.3-pre'")).toBe(false);
    expect(benchmarkMatcher('http > *')('http > hello')).toBe(true);
    expect(benchmarkMatcher('http > *')('bench/a.mjs > hello')).toBe(false);
    expect(benchmarkMatcher('bench/a.mjs > make*')('bench/a.mjs > makeId')).toBe(true);
  });

  it('keeps every gate key inside history/', () => {
    expect(historyFileOf('packages/api/benchgate.yml#node-20')).toBe('history/packages/api/benchgate.yml@node-20.jsonl');
    expect(historyFileOf('../../../x')).toBe('history/_/_/_/x.jsonl');
  });
});
