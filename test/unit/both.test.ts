import { describe, expect, it } from 'vitest';
import { agree, joinCounted, withBeside } from '../../src/gate/both.js';
import type { Report, ReportBenchmark } from '../../src/report/model.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { plainText } from '../report-text.js';

const timed = (id: string, estimate: number, low: number, high: number, verdict: ReportBenchmark['verdict']): ReportBenchmark => ({
  id,
  kind: 'micro',
  file: 'bench/a.bench.js',
  verdict,
  budget: 0.05,
  base: { opsPerSec: 1e6, samples: 10 },
  head: { opsPerSec: 1e6 * (1 + estimate), samples: 10 },
  change: { estimate, low, high, confidence: 0.95 },
  rounds: [],
  resolvable: 0.02,
});

const counted = (id: string, estimate: number, low: number, high: number, verdict: ReportBenchmark['verdict']): ReportBenchmark => ({
  ...timed(id, estimate, low, high, verdict),
  base: null,
  head: null,
  resolvable: null,
  counts: { base: { instructions: 1000, seeds: [1000, 1000] }, head: { instructions: 1000 / (1 + estimate), seeds: [] }, seeds: [1, 2] },
});

const report = (benchmarks: ReportBenchmark[]): Report =>
  ({ version: 1, tool: { name: 'benchgate', version: '0' }, verdict: 'pass', summary: '', benchmarks }) as unknown as Report;

describe('measure: both', () => {
  it("keeps the gated figure's verdict and columns, with the other beside it", () => {
    const time = [
      timed('bench/a.bench.js > slower', -0.08, -0.1, -0.06, 'regression'),
      timed('bench/a.bench.js > same', 0, -0.01, 0.01, 'unchanged'),
    ];
    const counts = [
      counted('bench/a.bench.js > slower', -0.079, -0.08, -0.078, 'regression'),
      counted('bench/a.bench.js > same', 0.0, 0, 0, 'unchanged'),
    ];
    const byTime = withBeside(time, counts, 'time');
    expect(byTime.map((b) => [b.id, b.verdict, b.base?.opsPerSec, b.counts])).toEqual([
      ['bench/a.bench.js > slower', 'regression', 1e6, undefined],
      ['bench/a.bench.js > same', 'unchanged', 1e6, undefined],
    ]);
    expect(byTime[0]!.beside).toEqual({
      measure: 'counts',
      verdict: 'regression',
      change: { estimate: -0.079, low: -0.08, high: -0.078, confidence: 0.95 },
      base: 1000,
      head: 1000 / 0.921,
      agrees: true,
    });
    // Gated on counts: the counted row (instructions, no ops/s), time beside it.
    const byCounts = withBeside(time, counts, 'counts');
    expect(byCounts[0]!.base).toBeNull();
    expect(byCounts[0]!.counts!.base!.instructions).toBe(1000);
    expect(byCounts[0]!.beside).toMatchObject({ measure: 'time', base: 1e6, head: 1e6 * 0.92, verdict: 'regression', agrees: true });
  });

  it("states the gated figure's level in the heading, and counts' alone where they replace time", () => {
    const time = { benchmarks: [timed('bench/a.bench.js > a', 0, -0.01, 0.01, 'unchanged')], figures: 1, intervalLevel: 0.95 };
    const counts = { benchmarks: [counted('bench/a.bench.js > a', 0, 0, 0, 'unchanged')], figures: 1, level: 0.9 };
    const byTime = joinCounted(time, counts, { measure: 'both', measures: [], gate: 'time' }, false);
    expect([byTime.intervalLevel, byTime.benchmarks[0]!.beside?.measure]).toEqual([0.95, 'counts']);
    const byCounts = joinCounted(time, counts, { measure: 'both', measures: [], gate: 'counts' }, false);
    expect([byCounts.intervalLevel, byCounts.benchmarks[0]!.beside?.measure]).toEqual([0.9, 'time']);
    // Counts alone (no timed micro rows): the counted rows, at counts' level; with load tests, the lower of the two.
    const alone = joinCounted({ ...time, benchmarks: [] }, counts, { measure: 'counts', measures: [], gate: 'time' }, true);
    expect([alone.intervalLevel, alone.benchmarks.map((b) => b.beside)]).toEqual([0.9, [undefined]]);
  });

  it('joins rows measured as micro.measures says: counted, timed or both, each row its own figure, the heading the lower level', () => {
    const measures = [
      { pattern: 'bench/ids.bench.js > *', measure: 'counts' as const },
      { pattern: 'bench/a.bench.js > both', measure: 'both' as const },
    ];
    const time = {
      benchmarks: [
        timed('bench/a.bench.js > a', 0, -0.01, 0.01, 'unchanged'),
        timed('bench/a.bench.js > both', -0.1, -0.12, -0.08, 'regression'),
        // A row of a counted task the timed stage should not have measured: left out, the counted row stands.
        timed('bench/ids.bench.js > uuid', 0.5, 0.4, 0.6, 'improvement'),
      ],
      figures: 4,
      intervalLevel: 0.95,
    };
    const counts = {
      benchmarks: [
        counted('bench/ids.bench.js > uuid', -0.5, -0.51, -0.49, 'regression'),
        counted('bench/a.bench.js > both', -0.09, -0.1, -0.08, 'regression'),
        counted('bench/a.bench.js > a', 0.3, 0.2, 0.4, 'improvement'),
      ],
      figures: 3,
      level: 0.9,
    };
    const joined = joinCounted(time, counts, { measure: 'time', measures, gate: 'time' }, false);
    const rows = new Map(joined.benchmarks.map((b) => [b.id, b]));
    expect([...rows.keys()].sort()).toEqual(['bench/a.bench.js > a', 'bench/a.bench.js > both', 'bench/ids.bench.js > uuid']);
    // Timed only: its row is time's, nothing beside it (the counted row of a timed task is not the verdict's).
    const [a, uuid] = [rows.get('bench/a.bench.js > a')!, rows.get('bench/ids.bench.js > uuid')!];
    expect([a.verdict, a.counts, a.beside]).toEqual(['unchanged', undefined, undefined]);
    // Counted only: the counts' row.
    expect([uuid.verdict, uuid.beside, uuid.counts?.base?.instructions]).toEqual(['regression', undefined, 1000]);
    // Both: micro.gate's figure (time), counts beside it.
    expect(rows.get('bench/a.bench.js > both')!.beside).toMatchObject({ measure: 'counts', verdict: 'regression' });
    // Rows gated on each figure: the heading states the lower level and the larger family.
    expect([joined.intervalLevel, joined.figures]).toEqual([0.9, 4]);
  });

  it('never leaves out an error row: a file that failed names the file, which no task pattern matches', () => {
    // The counting processes of bench/ids.bench.js died (its pattern counts it); the timed stage could not load bench/x.bench.js.
    const measures = [
      { pattern: 'bench/ids.bench.js > *', measure: 'counts' as const },
      { pattern: 'bench/x.bench.js > *', measure: 'time' as const },
    ];
    const error = (id: string, message: string): ReportBenchmark => ({
      ...counted(id, 0, 0, 0, 'error'),
      change: null,
      counts: undefined,
      error: message,
    });
    const time = {
      benchmarks: [timed('bench/a.bench.js > a', 0, -0.01, 0.01, 'unchanged'), error('bench/x.bench.js', 'SyntaxError')],
      figures: 1,
      intervalLevel: 0.95,
    };
    const counts = {
      benchmarks: [error('bench/ids.bench.js', 'base under seed 1: killed after 10 minutes of silence')],
      figures: 1,
      level: 0.9,
    };
    for (const measure of ['time', 'counts'] as const) {
      const joined = joinCounted(time, counts, { measure, measures, gate: 'time' }, false);
      expect(joined.benchmarks.filter((b) => b.verdict === 'error').map((b) => [b.id, b.error])).toEqual([
        ['bench/ids.bench.js', 'base under seed 1: killed after 10 minutes of silence'],
        ['bench/x.bench.js', 'SyntaxError'],
      ]);
    }
  });

  it("wraps a counted row's name between words, never inside one, beside counts' wide columns (fast-uri's nonSimpleDomain)", () => {
    // The run's table: 8 counted rows of one file (grouped under its name) and a timed one of another.
    const pairs = ['component with component', 'component with string', 'string with component', 'string with string'];
    const equal = ['equal', 'not equal'].flatMap((kind) =>
      pairs.map((pair) => counted(`benchmark/equal.mjs > fast-uri equal > ${kind} ${pair}`, -0.111, -0.111, -0.111, 'regression')),
    );
    const rows = [
      ...equal.map((b) => ({
        ...b,
        counts: { ...b.counts!, base: { instructions: 71_912, seeds: [1, 2] }, head: { instructions: 81_234, seeds: [1, 2] } },
      })),
      {
        ...timed('benchmark/non-simple-domain.mjs > nonSimpleDomain > nonSimpleDomain', -0.001, -0.016, 0.017, 'unchanged'),
        resolvable: 0.025,
      },
    ];
    const text = renderTerminal(report(rows), { color: false });
    // Every word of each name is whole on one line.
    for (const word of ['nonSimpleDomain', 'component', 'equal']) expect(text).toContain(word);
    expect(text).not.toMatch(/nonSimpleDom\w*\n\s+\w/);
  });

  it('says where time and counts part, and never lets the other figure decide', () => {
    // Time reads a loss the counts do not see (memory, caches): the intervals do not meet.
    const [row] = withBeside(
      [timed('bench/a.bench.js > cache', -0.2, -0.25, -0.15, 'regression')],
      [counted('bench/a.bench.js > cache', -0.01, -0.02, 0, 'unchanged')],
      'time',
    );
    expect(row!.verdict).toBe('regression');
    expect(row!.beside!.agrees).toBe(false);
    expect(row!.note).toBe(
      'time and counts part: time -20.0% [-25.0%, -15.0%] (regression), counts -1.0% [-2.0%, 0.0%] (unchanged): counts are not time, ' +
        "they do not see memory and caches, frequent collections, waiting or other threads (docs/counts.md); the verdict is the gated figure's",
    );
    // A regression beside a certain pass parts even where the intervals touch.
    const touching = agree(timed('x', -0.06, -0.07, -0.051, 'regression'), counted('x', -0.04, -0.051, -0.03, 'unchanged'));
    expect(touching.agrees).toBe(false);
    // Open where either has no interval.
    expect(agree(timed('x', 0, 0, 0, 'unchanged'), { ...counted('x', 0, 0, 0, 'error'), change: null }).agrees).toBeNull();
    // Both a regression, of sizes whose intervals do not meet (ids: time -99%, instructions -97%): one story.
    const sizes = agree(timed('x', -0.99, -0.993, -0.988, 'regression'), counted('x', -0.97, -0.971, -0.969, 'regression'));
    expect(sizes.agrees).toBe(true);
    // ... and the sizes said, since they are apart.
    expect(sizes.note).toMatch(
      /^time and counts agree on the verdict, not on its size: time -99\.0% \[.*\] \(regression\), counts -97\.0% \[/,
    );
    // Intervals that meet need no word.
    expect(agree(timed('x', -0.1, -0.12, -0.08, 'regression'), counted('x', -0.09, -0.095, -0.085, 'regression')).note).toBeUndefined();
    // A gain counts claim where time reads none (hyperid's untouched crypto.randomUUID): they part.
    expect(agree(timed('x', 0.003, -0.005, 0.011, 'unchanged'), counted('x', 1.957, 1.955, 1.96, 'improvement')).agrees).toBe(false);
    // Both open but meeting: they agree (neither claims what the other denies).
    expect(agree(timed('x', -0.04, -0.09, 0.01, 'inconclusive'), counted('x', -0.05, -0.06, -0.04, 'inconclusive')).agrees).toBe(true);
  });

  it('keeps two long ids that differ only in their middle apart in the table beside', () => {
    const ids = [10, 100].map((n) => `bench/cookie.bench.js > cookie.stringifySetCookie > ${n} set-cookies of one name, long`);
    const rows = withBeside(
      ids.map((id) => timed(id, 0, -0.01, 0.01, 'unchanged')),
      ids.map((id) => counted(id, 0, 0, 0, 'unchanged')),
      'time',
    );
    const text = renderTerminal(report(rows), { color: false });
    const table = text.slice(text.indexOf('counts beside time'));
    const labels = table
      .split('\n')
      .filter((l) => / instr .*\[/.test(l))
      .map((l) => l.trim().split(/\s{2,}/)[0]);
    expect(labels).toHaveLength(2);
    expect(new Set(labels).size).toBe(2);
    for (const label of labels) expect(label!.length).toBeLessThanOrEqual(40);
  });

  it('shows the figure beside in both reports, with the count of agreements, names escaped', () => {
    const rows = withBeside(
      [
        timed('bench/a.bench.js > <b>cache</b>', -0.2, -0.25, -0.15, 'regression'),
        timed('bench/a.bench.js > same', 0, -0.01, 0.01, 'unchanged'),
      ],
      [counted('bench/a.bench.js > <b>cache</b>', -0.01, -0.02, 0, 'unchanged'), counted('bench/a.bench.js > same', 0, 0, 0, 'unchanged')],
      'time',
    );
    const text = renderTerminal(report(rows), { color: false });
    expect(text).toContain("counts beside time (measure: both; the verdicts are time's): 1 agree, 1 part, 0 open");
    const line = text.split('\n').find((l) => l.includes('> same') && l.includes('instr'))!;
    expect(line.trim().split(/\s{2,}/)).toEqual([
      'bench/a.bench.js > same',
      '1.00k instr',
      '1.00k instr',
      '0.0% [0.0%, 0.0%]',
      'unchanged',
      'yes',
    ]);
    const markdown = renderMarkdown(report(rows));
    expect(markdown).toContain('<details open><summary>counts beside time');
    // The name is the pull request's: escaped in the section's table (the chart's code block shows it as text).
    expect(markdown).toContain('| bench/a.bench.js &gt; &lt;b&gt;cache&lt;/b&gt; | 1.00k instr |');
    expect(plainText(markdown)).toContain(
      'bench/a.bench.js > <b>cache</b> | 1.00k instr | 1.01k instr | -1.0% [-2.0%, 0.0%] | unchanged | no |',
    );
  });
});
