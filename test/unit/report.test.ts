import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/report/markdown.js';
import { runVerdict, summarize, toReportBenchmark, type Report, type ReportBenchmark } from '../../src/report/model.js';
import type { Comparison } from '../../src/stats/analyze.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { changeChart } from '../../src/report/chart.js';
import { injectionProblems } from '../inert.js';
import { idsInTerminalTable, markdownRow, markdownRows, numbersIn, plainText, squash, terminalRow, terminalRows } from '../report-text.js';

const bench = (over: Partial<ReportBenchmark>): ReportBenchmark => ({
  id: 'bench/ids.bench.js > make request id',
  kind: 'micro',
  file: 'bench/ids.bench.js',
  verdict: 'unchanged',
  budget: 0.05,
  base: { opsPerSec: 28_500_000, samples: 10 },
  head: { opsPerSec: 28_400_000, samples: 10 },
  change: { estimate: -0.003, low: -0.01, high: 0.004, confidence: 0.95 },
  rounds: [],
  resolvable: null,
  ...over,
});

const report = (benchmarks: ReportBenchmark[]): Report => ({
  version: 1,
  tool: { name: 'benchgate', version: '0.0.0' },
  verdict: runVerdict(benchmarks),
  summary: '',
  base: { ref: 'main', sha: 'a'.repeat(40) },
  head: { ref: 'working tree', sha: 'b'.repeat(40), dirty: true },
  benchmarks,
  run: {
    rounds: 10,
    plannedRounds: 10,
    limited: false,
    isolation: 'alternate',
    confidence: 0.95,
    intervalConfidence: 0.95,
    timeLimitMs: 300_000,
    measureMs: 31_000,
    totalMs: 33_000,
  },
  environment: { node: 'v24.0.0', os: 'Linux', arch: 'x64', cpus: { model: 'Test CPU', count: 2 } },
});

describe('terminal report', () => {
  it('fits 100 columns even with long benchmark names', () => {
    const text = renderTerminal(
      report([
        bench({
          id: `bench/${'deeply/nested/'.repeat(6)}ids.bench.js > ${'a very long task name '.repeat(4)}`,
          verdict: 'regression',
          change: { estimate: -0.123, low: -0.2, high: -0.1, confidence: 0.95 },
        }),
        bench({}),
      ]),
      { color: false },
    );
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
    // Wrapped, not cut: every word of the long id is there.
    const table = text.slice(0, text.indexOf('base and head in'));
    expect(table).not.toContain('…');
    for (const word of `${'deeply/nested/'.repeat(6)}ids.bench.js a very long task name`.split(/[ /]/)) expect(table).toContain(word);
    expect(text).toContain('-12.3% [-20.0%, -10.0%]');
    expect(text).toContain('FAIL: 1 regression, 1 unchanged');
  });

  it('defines every verdict word its rows use, and only those, in its legend', () => {
    const rows = [
      bench({ id: 'a > down', verdict: 'regression', change: { estimate: -0.2, low: -0.25, high: -0.15, confidence: 0.95 } }),
      bench({ id: 'b > up', verdict: 'improvement', change: { estimate: 0.2, low: 0.15, high: 0.25, confidence: 0.95 } }),
      bench({ id: 'c > same' }),
    ];
    const text = squash(renderTerminal(report(rows), { color: false, width: 100 }));
    expect(text).toContain(squash('regression: the whole interval below -budget (fails)'));
    expect(text).toContain(squash('improvement: a certain pass, the whole interval above +budget'));
    expect(text).toContain(squash('unchanged: a certain pass, the interval within ±budget'));
    expect(text).not.toContain(squash('inconclusive:'));
    expect(text).not.toContain(squash('within budget:'));
    const open = squash(
      renderTerminal(report([bench({ verdict: 'inconclusive' }), bench({ id: 'z', verdict: 'within-budget' })]), { color: false }),
    );
    expect(open).toContain(squash('inconclusive: a loss beyond the budget is possible'));
    expect(open).toContain(squash('within budget: a certain pass'));
    expect(open).not.toContain(squash('unchanged:'));
  });

  it('says a pass with open rows is no budget shown broken, and every budget holds only where every row is a certain pass', () => {
    expect(summarize([bench({}), bench({ verdict: 'within-budget' })])).toBe('pass: every budget holds (1 within budget, 1 unchanged)');
    expect(summarize([bench({}), bench({ verdict: 'inconclusive' })])).toBe(
      'pass: no budget shown broken, 1 of 2 left open (1 inconclusive, 1 unchanged)',
    );
    expect(summarize([bench({ verdict: 'regression' }), bench({ verdict: 'inconclusive' })])).toMatch(/^fail: /);
  });

  it("says in the PR comment's headline and the terminal's closing line whether a pass left rows open", () => {
    const open = report([bench({}), bench({ id: 'b', verdict: 'inconclusive' }), bench({ id: 'c', verdict: 'inconclusive' })]);
    const held = report([bench({}), bench({ id: 'b', verdict: 'within-budget' })]);
    const headline = (r: Report) => plainText(renderMarkdown(r).split('\n')[0]!);
    expect(headline(open)).toBe('### ✅ benchgate: pass — no budget shown broken, 2 of 3 left open');
    expect(headline(held)).toBe('### ✅ benchgate: pass — every budget holds');
    const closing = (r: Report) =>
      plainText(renderTerminal(r, { color: false }))
        .split('\n')
        .find((l) => l.startsWith('PASS'));
    expect(closing(open)).toBe('PASS (no budget shown broken, 2 of 3 left open): 2 inconclusive, 1 unchanged');
    expect(closing(held)).toBe('PASS (every budget holds): 1 within budget, 1 unchanged');
    // Rows compared with nothing (a first PR's new bench files) hold no budget; an empty shard neither.
    expect(headline(report([bench({ verdict: 'new' }), bench({ id: 'b', verdict: 'new' })]))).toBe(
      '### ✅ benchgate: pass — no budget compared',
    );
    expect(headline(report([]))).toBe('### ✅ benchgate: pass — no budget compared');
    expect(headline(report([bench({}), bench({ id: 'b', verdict: 'inconclusive' }), bench({ id: 'c', verdict: 'new' })]))).toBe(
      '### ✅ benchgate: pass — no budget shown broken, 1 of 2 left open',
    );
    // A report made elsewhere (mode: comment) whose verdict its rows contradict gets no pass words.
    expect(headline({ ...report([bench({ verdict: 'regression' })]), verdict: 'pass' })).toBe('### ✅ benchgate: pass');
    // A failing run's headline carries no pass words.
    expect(renderMarkdown(report([bench({ verdict: 'regression' }), bench({ id: 'b', verdict: 'inconclusive' })]))).not.toMatch(
      /left open/,
    );
  });

  it("marks an early look's coarse estimate in the terminal row, as in the markdown one", () => {
    const coarse = bench({
      verdict: 'regression',
      coarse: true,
      change: { estimate: -0.575, low: -0.663, high: -0.463, confidence: 0.997 },
    });
    expect(terminalRow(renderTerminal(report([coarse]), { color: false, width: 140 }), /✗ regression/).join(' ')).toContain('(coarse)');
    expect(markdownRow(renderMarkdown(report([coarse])), /regression/).join(' ')).toContain('(coarse)');
    expect(
      terminalRow(renderTerminal(report([bench({ verdict: 'regression' })]), { color: false, width: 140 }), /✗ regression/).join(' '),
    ).not.toContain('coarse');
  });

  it('puts regressions first and uses colour only when asked', () => {
    const text = renderTerminal(report([bench({ id: 'a > fine' }), bench({ id: 'z > slow', verdict: 'regression' })]), { color: false });
    expect(text.indexOf('z > slow')).toBeLessThan(text.indexOf('a > fine'));
    expect(text).not.toContain('\x1b[');
    expect(renderTerminal(report([bench({ verdict: 'regression' })]), { color: true })).toContain('\x1b[31m');
  });

  it('shows control characters in task names as ? so they cannot drive the terminal', () => {
    const text = renderTerminal(report([bench({ id: 'x > \u001b[2Jclear', verdict: 'error', error: 'bad\u001b]0;title\u0007' })]), {
      color: false,
    });
    expect(text).not.toContain('\u001b');
    expect(text).toContain('x > ?[2Jclear');
  });
});

describe('markdown report', () => {
  it('escapes benchmark names so they cannot inject markdown, HTML or mentions', () => {
    const evil = 'bench/x.bench.js > <img src=x onerror=alert(1)> | **bold** [link](http://evil) @octocat `code`';
    const text = renderMarkdown(report([bench({ id: evil, verdict: 'error', error: '</pre><script>alert(1)</script>' })]));
    // Inside the chart's code block text shows as it is (no fence can close it there): everywhere else it is escaped.
    const outsideCode = text.replace(/```text\n[\s\S]*?\n```/g, '');
    expect(outsideCode).not.toContain('<img');
    expect(outsideCode).not.toContain('<script>');
    expect(text).toContain(
      '&lt;img src=x onerror=alert(1)&gt; &#124; &#42;&#42;bold&#42;&#42; &#91;link&#93;(http&#58;//evil) @\u200boctocat &#96;code&#96;',
    );
    expect(text).toContain('&lt;/pre&gt;&lt;script&gt;');
    // The row still has exactly seven cells, and the error's heading (HTML, in a markdown paragraph) is escaped the same way.
    const row = text.split('\n').find((line) => line.startsWith('| ⚠️ error'))!;
    expect(row.split('|').length).toBe(9);
    expect(text).toContain(
      '<b>bench/x.bench.js &gt; &lt;img src=x onerror=alert(1)&gt; &#124; &#42;&#42;bold&#42;&#42; &#91;link&#93;(http&#58;//evil) @\u200boctocat &#96;code&#96;</b>',
    );
    expect(injectionProblems(text)).toEqual([]);
  });

  it('leads with the verdict and shows the table', () => {
    const text = renderMarkdown(
      report([bench({ verdict: 'regression', change: { estimate: -0.5, low: -0.52, high: -0.48, confidence: 0.95 } })]),
    );
    expect(text.split('\n')[0]).toBe('### ❌ benchgate: regression');
    expect(text).toContain(
      '| 🔴 regression | bench/ids.bench.js &gt; make request id | 28.5M | 28.4M | -50.0% &#91;-52.0%, -48.0%&#93; | 5% |',
    );
    expect(text).toContain('(with uncommitted changes)');
  });

  it('marks a regression the time limit kept from its confirmation, and only a regression', () => {
    const change = { estimate: -0.5, low: -0.52, high: -0.48, confidence: 0.95 };
    const marked = renderMarkdown(report([bench({ verdict: 'regression', unconfirmed: true, change })]));
    expect(marked).toContain('| 🔴 regression (unconfirmed) | bench/ids.bench.js &gt; make request id |');
    expect(renderTerminal(report([bench({ verdict: 'regression', unconfirmed: true, change })]), { color: false, width: 120 })).toMatch(
      /✗ regression \(unconfirmed\)/,
    );
    // An uploaded report's mark on another verdict is not shown.
    const forged = renderMarkdown(report([bench({ verdict: 'inconclusive', unconfirmed: true, change })]));
    expect(forged).not.toContain('(unconfirmed)');
  });
});

const explained = (over: Partial<ReportBenchmark> = {}): ReportBenchmark =>
  bench({
    verdict: 'regression',
    change: { estimate: -0.99, low: -0.992, high: -0.988, confidence: 0.95 },
    profile: {
      files: { base: '/tmp/p/ids.base.cpuprofile', head: '/tmp/p/ids.head.cpuprofile' },
      unit: 'call',
      ops: { base: 58_000_000, head: 480_000 },
      process: 'shared',
      samples: { base: 4000, head: 4000 },
      gcPerOpUs: { base: 0.002, head: 0.3 },
      perOpUs: { base: 0.017, head: 2.06 },
      top: [
        {
          function: 'run',
          location: '',
          via: { function: 'makeId', location: 'src/ids.js:4' },
          baseShare: 0,
          headShare: 0.889,
          basePerOpUs: 0,
          headPerOpUs: 1.835,
        },
        {
          function: '<img src=x onerror=alert(1)> | x',
          location: 'src/evil.js:1',
          baseShare: 0.1,
          headShare: 0.2,
          basePerOpUs: 0.001,
          headPerOpUs: 0.2,
        },
      ],
      ownCode: [{ function: 'makeId', location: 'src/ids.js:4', baseShare: 0.8, headShare: 0.9, basePerOpUs: 0.015, headPerOpUs: 1.84 }],
      durationMs: 2235,
    },
    ...over,
  });

describe('where the time went', () => {
  it('shows the functions that cost more per call, with the project function they were called from', () => {
    const withRun = { ...report([explained()]), run: { ...report([]).run!, profile: { dir: '/tmp/p', benchmarks: 1, durationMs: 2235 } } };
    const terminal = renderTerminal(withRun, { color: false });
    // The title wraps at the terminal's width, never cut: read it joined.
    expect(terminal.replace(/\n(?=\S)/g, ' ')).toContain(
      'bench/ids.bench.js > make request id: CPU per call 17 ns → 2.06 µs (profiled in 2.2s, both revisions in one process as measured)',
    );
    expect(terminal).not.toContain('the profile disagrees');
    expect(terminal).toMatch(/run ← makeId +native +0\.0% +88\.9% +\+1\.83 µs/);
    expect(terminal).toContain("in the project's code: makeId (src/ids.js:4): 15 ns → 1.84 µs per call, with what it calls");
    expect(terminal).toContain('CPU profiles (Chrome DevTools, speedscope): /tmp/p');
    for (const line of terminal.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);

    const markdown = renderMarkdown(withRun);
    expect(markdown).toContain('<details><summary>bench/ids.bench.js &gt; make request id: where the time went</summary>');
    expect(markdown).toContain('| run ← makeId | native | 0.0% | 88.9% | +1.83 µs |');
    expect(markdown).toContain('<code>ids.base.cpuprofile</code>, <code>ids.head.cpuprofile</code>');
    // A function name is the project's text: escaped like a benchmark name.
    expect(markdown).not.toContain('<img');
    expect(
      markdown
        .split('\n')
        .find((line) => line.includes('onerror'))!
        .split('|').length,
    ).toBe(7);
    expect(injectionProblems(markdown)).toEqual([]);
  });

  it('says why there is no profile when profiling failed', () => {
    const failed = explained({ profile: { error: 'base: the benchmark process exited with code 1', durationMs: 900 } });
    const terminal = renderTerminal(
      { ...report([failed]), run: { ...report([]).run!, profile: { benchmarks: 1, durationMs: 900 } } },
      { color: false },
    );
    expect(terminal).toContain('  base: the benchmark process exited with code 1');
    // No folder line when no profile was written.
    expect(terminal).not.toContain('CPU profiles (');
    expect(renderMarkdown(report([failed]))).toContain('<pre>base&#58; the benchmark process exited with code 1</pre>');
  });
});

describe('change chart', () => {
  const change = (estimate: number, low: number, high: number) => ({ estimate, low, high, confidence: 0.95 });

  it('places each interval and estimate on a shared axis, with the budget lines and zero', () => {
    const lines = changeChart([
      bench({ id: 'a', change: change(-0.075, -0.1, -0.05) }),
      bench({ id: 'b', change: change(0, -0.0075, 0.0075) }),
      bench({ id: 'gone', verdict: 'removed', change: null }),
    ]);
    // Three budgets of 5% make a ±15% axis over 41 cells: 0 at cell 20, 5% every 6.67 cells.
    expect(lines).toEqual([
      'a  ·······───●──│······¦······│·············    -7.5%',
      'b  ·············│·····─●─·····│·············     0.0%',
      '   -15%                0                +15%',
    ]);
  });

  it('marks values past the axis with « and », and widens the axis for large budgets', () => {
    expect(
      changeChart([bench({ id: 'x', change: change(-0.99, -0.992, -0.98) }), bench({ id: 'y', change: change(0.1, 0.05, 0.5) })]),
    ).toEqual([
      'x  «············│······¦······│·············   -99.0%',
      'y  ·············│······¦······│─────●──────»   +10.0%',
      '   -15%                0                +15%',
    ]);
    expect(changeChart([bench({ id: 'z', budget: 0.25, change: change(-0.3, -0.4, -0.2) })]).at(-1)).toBe(
      '   -100%               0               +100%',
    );
    // An interval just past three budgets widens the axis to hold it (up to five budgets).
    expect(changeChart([bench({ id: 'w', change: change(-0.157, -0.189, -0.122) })])).toEqual([
      'w  ·───●────······│····¦····│···············   -15.7%',
      '   -20%                0                +20%',
    ]);
  });

  it('appears in the markdown report as a code block with a legend, names made inert', () => {
    const markdown = renderMarkdown(report([bench({ id: 'bench/a.js > `x`\n' })]));
    expect(markdown).toContain("```text\nbench/a.js > 'x'?  ·············│·····─●─·····│·············    -0.3%\n");
    expect(markdown).toMatch(/\+15%\n```\n<sub>● estimate/);
  });
});

/** Eighteen tasks of one file whose ids differ only past the middle, as in issue 13 (the 100-column table read two of them alike). */
const lookupIds = Array.from({ length: 18 }, (_, i) => {
  const suite = ['static routes', 'routes with params'][i % 2];
  const task = ['lookup with two short params', 'lookup with two long params', 'lookup short static route'][i % 3];
  return `bench/lookup.bench.js > ${suite} > ${task} variant ${String.fromCharCode(97 + i)}`;
});
const lookupReport = () =>
  report(
    lookupIds.map((id, i) =>
      bench({
        id,
        verdict: i === 7 ? 'regression' : 'unchanged',
        change: { estimate: i === 7 ? -0.2 : 0.001 * i, low: i === 7 ? -0.25 : -0.01, high: i === 7 ? -0.15 : 0.02, confidence: 0.95 },
      }),
    ),
  );
describe('many benchmarks of one file', () => {
  it('shows each of 18 long ids of one file whole at 100 columns, under a heading for the file', () => {
    const text = renderTerminal(lookupReport(), { color: false, width: 100 });
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
    const shown = idsInTerminalTable(text);
    expect(shown).toHaveLength(18);
    expect(new Set(shown)).toEqual(new Set(lookupIds.map(squash)));
    // The file is named once, not on each of its rows; the regression still leads the table.
    expect(text.split('\n').filter((line) => line.includes('bench/lookup.bench.js'))).toHaveLength(1);
    expect(shown[0]).toBe(squash(lookupIds[7]!));
    expect(terminalRows(text, '✗ regression')).toHaveLength(1);
    // Wrapped, never cut.
    expect(text).not.toContain('…');
  });

  it('keeps one to three benchmarks on rows of their own, whole ids and no headings', () => {
    const text = renderTerminal(report(lookupIds.slice(0, 3).map((id) => bench({ id }))), { color: false, width: 140 });
    for (const id of lookupIds.slice(0, 3)) expect(terminalRows(text, '✓ unchanged').map((row) => row[1])).toContain(id);
    expect(idsInTerminalTable(text)).toEqual(expect.arrayContaining(lookupIds.slice(0, 3).map(squash)));
  });

  it('groups the markdown table and the chart by file, each row naming the rest of its id', () => {
    const markdown = renderMarkdown(lookupReport());
    const rows = markdown.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| | Benchmark'));
    let heading = '';
    const shown: string[] = [];
    for (const row of rows) {
      const cells = row
        .slice(1, -1)
        .split('|')
        .map((cell) => plainText(cell.trim()));
      if (cells[0] === '') heading = cells[1]!.replace(/^<b>|<\/b>$/g, '');
      else shown.push(`${heading} > ${cells[1]}`);
    }
    expect(new Set(shown)).toEqual(new Set(lookupIds));
    expect(shown).toHaveLength(18);
    // The chart: one heading line, then each label whole (wrapped onto a line of its own when long).
    const chart = markdown.slice(markdown.indexOf('```text\n') + 8, markdown.indexOf('\n```\n'));
    const chartIds: string[] = [];
    for (const line of chart.split('\n').slice(0, -1)) {
      if (!line.startsWith(' ')) heading = line;
      else if (line.startsWith('    ')) chartIds[chartIds.length - 1] += ` ${line.trim()}`;
      else chartIds.push(`${heading} > ${line.split(/ {2,}/)[1]!}`);
    }
    expect(new Set(chartIds.map(squash))).toEqual(new Set(lookupIds.map(squash)));
  });
});

describe('HTTP requests that expect another status than 2xx', () => {
  const longPath = `/search?q=${'x'.repeat(1990)}`;
  const traffic = (ok: number, unexpected: Record<string, number>[]) => ({
    responses: ok + unexpected.reduce((sum, counts) => sum + Object.values(counts).reduce((a, b) => a + b, 0), 0),
    ok,
    non2xx: ok,
    byClass: { '4xx': ok },
    unexpected,
    errors: 0,
    timeouts: 0,
    resets: 0,
  });
  const withHttp = (
    requests: string[],
    expected: string[],
    base: ReturnType<typeof traffic>,
    head: ReturnType<typeof traffic>,
    latency: NonNullable<ReportBenchmark['http']>['latency'] = {},
  ) =>
    report([
      bench({
        id: 'http > not found',
        kind: 'http',
        file: null,
        http: {
          requests,
          expected,
          connections: 10,
          durationMs: 3000,
          warmupMs: 1000,
          latency,
          traffic: { base, head },
          server: { base: null, head: null, note: 'no probe' },
          moved: [],
        },
      }),
    ]);

  it('says which status was expected, and shortens a 2,000-character path', () => {
    const one = withHttp([`GET ${longPath}`], ['404'], traffic(5000, [{}]), traffic(4900, [{}]));
    const terminal = renderTerminal(one, { color: false });
    const markdown = renderMarkdown(one);
    for (const text of [terminal, plainText(markdown)]) {
      expect(text).not.toContain('x'.repeat(100));
      expect(text.replace(/\s+/g, ' ')).toContain('(2000 characters) (expects 404)');
      const failures = text.split('\n').find((line) => line.includes('failed requests: none'))!;
      expect(failures).toMatch(/answered 404\)$/);
      expect(numbersIn(failures).slice(0, 2)).toEqual([5000, 4900]);
    }
    for (const line of terminal.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  it('says under the latency table why an open latency verdict stands beside an interval beyond its budget', () => {
    const p99 = (change: { low: number; achieved?: number; unsure?: { low: boolean } }) => ({
      p99: {
        base: 1.2,
        head: 2.4,
        change: { estimate: 1, high: 1.5, confidence: 0.98, ...change },
        budget: 0.25,
        verdict: 'inconclusive' as const,
      },
    });
    const ok = traffic(5000, [{}]);
    const short = withHttp(['GET /'], ['2xx'], ok, ok, p99({ low: 0.83, achieved: 0.875 }));
    for (const text of [renderTerminal(short, { color: false }), plainText(renderMarkdown(short))]) {
      expect(text).toContain('+100.0% [+83.0%, +150.0%] at 87.5%');
      expect(text.replace(/\s+/g, ' ')).toContain(
        'p99: its interval is at 87.5% confidence, the most its rounds give, short of the 98% a verdict needs',
      );
    }
    const grouped = withHttp(['GET /'], ['2xx'], ok, ok, p99({ low: 0.83, unsure: { low: true } }));
    for (const text of [renderTerminal(grouped, { color: false }), plainText(renderMarkdown(grouped))])
      expect(text.replace(/\s+/g, ' ')).toContain('p99: its lower bound rests on a group of rounds too small');
    // Within the budget, open because the upper bound (the one that would make it unchanged) rests on a small group.
    const within = withHttp(['GET /'], ['2xx'], ok, ok, {
      p99: { ...p99({ low: -0.1 }).p99, change: { estimate: 0, low: -0.1, high: 0.1, confidence: 0.98, unsure: { high: true } } },
    });
    expect(renderTerminal(within, { color: false }).replace(/\s+/g, ' ')).toContain(
      'p99: its upper bound rests on a group of rounds too small',
    );
    // An interval that straddles the budget is its own reason.
    const straddles = withHttp(['GET /'], ['2xx'], ok, ok, p99({ low: 0.1, achieved: 0.875 }));
    expect(renderTerminal(straddles, { color: false })).not.toContain('p99: its');
  });

  it('lists each request with the status it expects, and names the expected status of failures', () => {
    const several = withHttp(
      ['GET /no-such-route', 'GET /cached'],
      ['404', '200 or 304'],
      traffic(5000, [{}, {}]),
      traffic(10, [{ 200: 4990 }, {}]),
    );
    const terminal = renderTerminal(several, { color: false });
    expect(terminalRow(terminal, 'GET /no-such-route')[1]).toBe('404');
    expect(terminalRow(terminal, 'GET /cached')[1]).toBe('200 or 304');
    expect(markdownRow(renderMarkdown(several), 'GET /cached')[1]).toBe('200 or 304');
    const failures = terminal.split('\n').find((line) => line.includes('failed requests:'))!;
    expect(failures).toContain('base none; head 4990 unexpected responses to GET /no-such-route (200 ×4990; expected 404)');
  });
});

describe('what a run resolves, per benchmark', () => {
  const comparison = (over: Partial<Comparison>): Comparison => ({
    id: 'bench/ids.bench.js > make request id',
    kind: 'micro',
    file: 'bench/ids.bench.js',
    verdict: 'unchanged',
    budget: 0.05,
    base: { opsPerSec: 1000, samples: 10 },
    head: { opsPerSec: 1000, samples: 10 },
    change: { estimate: 0, low: -0.01, high: 0.01, confidence: 0.95, achievedConfidence: 0.95 },
    logRatios: Array(10).fill(0),
    ...over,
  });

  it('is in the JSON of every compared benchmark, and null where the run could not say', () => {
    expect(toReportBenchmark(comparison({ resolvable: 0.0234 })).resolvable).toBe(0.0234);
    expect(toReportBenchmark(comparison({ resolvable: Number.NaN })).resolvable).toBeNull();
    expect(toReportBenchmark(comparison({ verdict: 'new', change: undefined })).resolvable).toBeNull();
  });

  it('says why an open verdict stands beside an interval that does not straddle -budget, and shows the level it has', () => {
    // 5 rounds, each 93-97% slower, cut by the time limit: [min, max] at 93.75%, short of the 98% a verdict needs.
    const cut = toReportBenchmark(
      comparison({
        verdict: 'unmeasured',
        change: { estimate: -0.95, low: -0.97, high: -0.93, confidence: 0.98, achievedConfidence: 0.9375 },
        head: { opsPerSec: 50, samples: 5 },
        logRatios: Array(5).fill(Math.log(0.05)),
      }),
    );
    expect(cut.change).toEqual({ estimate: -0.95, low: -0.97, high: -0.93, confidence: 0.98, achieved: 0.9375 });
    expect(cut.warning).toBe(
      'its interval is at 93.8% confidence, the most 5 rounds give, short of the 98% a verdict needs: no verdict rests on it',
    );
    const terminal = renderTerminal(report([cut]), { color: false });
    expect(terminalRow(terminal, '… unmeasured')[4]).toBe('-95.0% [-97.0%, -93.0%] at 93.8%');
    expect(plainText(markdownRow(renderMarkdown(report([cut])), '⏳ unmeasured')[4]!)).toBe('-95.0% [-97.0%, -93.0%] at 93.8%');
    // A bound a group too small set: which one, and no level mark (the interval has its level elsewhere).
    const held = toReportBenchmark(
      comparison({
        verdict: 'inconclusive',
        change: { estimate: 0, low: -0.02, high: 0.4, confidence: 0.98, achievedConfidence: 0.98, unsure: { low: true } },
      }),
    );
    expect(held.change!.unsure).toEqual({ low: true });
    expect(held.change!.achieved).toBeUndefined();
    expect(held.warning).toMatch(/^its lower bound rests on a group of rounds too small/);
    // A load test whose requests/s is a certain pass while another budgeted figure is open.
    const other = toReportBenchmark(comparison({ verdict: 'inconclusive', openFigures: true }));
    expect(other.warning).toMatch(/^another of its budgeted figures is open/);
    // An interval that straddles -budget is its own reason: nothing added.
    const straddles = toReportBenchmark(
      comparison({
        verdict: 'inconclusive',
        change: { estimate: -0.03, low: -0.08, high: 0.01, confidence: 0.95, achievedConfidence: 0.95 },
      }),
    );
    expect(straddles.warning).toBeUndefined();
    expect(straddles.change).toEqual({ estimate: -0.03, low: -0.08, high: 0.01, confidence: 0.95 });
  });

  it('shows in its own column of both tables, next to the budget it is judged against', () => {
    const sharp = bench({ id: 'bench/a.bench.js > sharp', resolvable: 0.0123 });
    const blunt = bench({ id: 'bench/a.bench.js > blunt', resolvable: 0.234 });
    const unknown = bench({ id: 'bench/a.bench.js > new one', verdict: 'new', change: null, resolvable: null });
    const terminal = renderTerminal(report([sharp, blunt, unknown]), { color: false });
    expect(terminal.split('\n').find((line) => line.startsWith('verdict '))).toMatch(/budget {2}resolves$/);
    const row = (rows: string[][], name: string) => rows.find((cells) => cells[1] === `bench/a.bench.js > ${name}`)!.slice(5);
    expect(row(terminalRows(terminal, '✓ unchanged'), 'sharp')).toEqual(['5%', '≈1.2%']);
    expect(row(terminalRows(terminal, '✓ unchanged'), 'blunt')).toEqual(['5%', '≈23%']);
    expect(row(terminalRows(terminal, '+ new'), 'new one')).toEqual(['5%', '–']);
    expect(terminal).toContain("resolves: the smallest change this run's rounds catch with 95% power");
    const markdown = renderMarkdown(report([sharp, blunt, unknown]));
    expect(markdown).toContain('| Budget | Resolves |');
    expect(row(markdownRows(markdown, '⚪ unchanged'), 'sharp')).toEqual(['5%', '≈1.2%']);
    expect(row(markdownRows(markdown, '🆕 new'), 'new one')).toEqual(['5%', '–']);
  });

  it('gives way in the terminal when its columns alone would make a whole id wrap', () => {
    const id = 'bench/ids.bench.js > make request id';
    const long = bench({
      id,
      verdict: 'regression',
      change: { estimate: -0.9715, low: -0.9812, high: -0.9493, confidence: 0.95 },
      resolvable: 0.02,
    });
    const text = renderTerminal(report([long, bench({ resolvable: 0.01 })]), { color: false });
    expect(terminalRow(text, '✗ regression')).toEqual([expect.any(String), id, '28.5M', '28.4M', '-97.2% [-98.1%, -94.9%]', '5%']);
    expect(text).not.toContain('resolves');
    // Wider, it is back.
    expect(terminalRow(renderTerminal(report([long]), { color: false, width: 120 }), '✗ regression').at(-1)).toBe('≈2%');
    expect(renderMarkdown(report([long]))).toContain('| Budget | Resolves |');
  });

  it('keeps 18 grouped long ids within 100 columns with the extra column', () => {
    const text = renderTerminal(lookupReport(), { color: false });
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
    const shown = idsInTerminalTable(text);
    expect(shown).toHaveLength(18);
    expect(shown).toEqual(expect.arrayContaining(lookupIds.map(squash)));
  });
});

describe('speed levels of the rounds', () => {
  it("adds a note under the table in both reports, the benchmark's name escaped in markdown", () => {
    const levels = {
      base: {
        levels: [
          { opsPerSec: 606, processes: 5 },
          { opsPerSec: 909, processes: 7 },
        ],
      },
    };
    const one = report([bench({ id: 'bench/a.js > <b>x</b>', levels })]);
    const terminal = renderTerminal(one, { color: false });
    expect(terminal).toContain(
      'note: bench/a.js > <b>x</b>: at base it ran at 2 speeds from process to process: 1.65 ms or 1.1 ms a call (5 and 7 of 12)',
    );
    // Markdown escapes the colons (so no text of a report turns into a link or an emoji code).
    const markdown = renderMarkdown(one).replaceAll('&#58;', ':');
    expect(markdown).toContain(
      '> bench/a.js &gt; &lt;b&gt;x&lt;/b&gt;: at base it ran at 2 speeds from process to process: 1.65 ms or 1.1 ms',
    );
    expect(renderTerminal(report([bench({ id: 'bench/a.js > y' })]), { color: false })).not.toContain('speeds from process to process');
  });
});

describe('a counts-mode row (micro.measure: counts)', () => {
  const counted = bench({
    verdict: 'regression',
    base: null,
    head: null,
    change: { estimate: 2108 / 2544 - 1, low: -0.176, high: -0.165, confidence: 0.99 },
    counts: { base: { instructions: 2108, seeds: [2108, 2108] }, head: { instructions: 2544, seeds: [2544, 2544] }, seeds: [1, 2] },
  });
  const withRun = (r: Report): Report => ({
    ...r,
    run: { ...r.run!, counts: { seeds: [1, 2], processes: 4, durationMs: 70_000, valgrind: 'valgrind-3.19.0' } },
  });

  it('shows instructions per call in the base and head columns, and says so in both legends', () => {
    const terminal = renderTerminal(withRun(report([counted])), { color: false, width: 160 });
    const row = terminalRow(terminal, /✗ regression/);
    expect(row).toContain('2.11k instr');
    expect(row).toContain('2.54k instr');
    expect(terminal).toContain('instructions per call');
    expect(terminal).toContain('counts under 2 seed(s) a revision (4 callgrind processes)');
    // Adaptive seeds: a row the first two settled beside one that took the third.
    const third = { ...counted, id: 'bench/a.js > open', counts: { ...counted.counts!, seeds: [1, 2, 3] } };
    const mixed = withRun(report([counted, third]));
    mixed.run!.counts = { ...mixed.run!.counts!, seeds: [1, 2, 3], processes: 6 };
    expect(renderTerminal(mixed, { color: false, width: 160 })).toContain(
      'counts under 2 seed(s) a revision for 1 row(s), 3 for the 1 they left open (6 callgrind processes)',
    );
    const markdown = renderMarkdown(withRun(report([counted])));
    const cells = markdownRow(markdown, /regression/);
    expect(cells).toContain('2.11k instr');
    expect(markdown).toContain('instructions per call');
    // The "How to read this" of a counted run says what its rows are, not time mode's alternation.
    expect(markdown).toContain('Counted rows were counted, not timed');
    expect(markdown).not.toContain('alternating short timed blocks');
    // Its header names no unit its cells do not have: the cells say instr.
    expect(markdown).toMatch(/\| \| Benchmark \| Base \| Head \| Change/);
    expect(markdown).not.toContain('ops/s');
  });

  it("gives an error row no legend of columns it has no figure in, and keeps its budget's column", () => {
    const error = bench({ verdict: 'error', base: null, head: null, change: null, budget: 0.03, error: 'the server did not start' });
    const terminal = renderTerminal(report([error]), { color: false, width: 160 });
    expect(terminal).not.toContain('operations per second');
    expect(terminalRow(terminal, /! error/)).toContain('3%');
    const markdown = renderMarkdown(report([error]));
    expect(markdown).not.toContain('base and head in operations per second');
    expect(markdown).toMatch(/\| \| Benchmark \| Base \| Head \| Change/);
    expect(markdown).toMatch(/<sub>resolves/);
    // Beside a timed row with figures, the legend is back.
    expect(renderTerminal(report([error, bench({})]), { color: false, width: 160 })).toContain('operations per second');
  });

  it('keeps time rows as they were beside no counts', () => {
    const markdown = renderMarkdown(report([bench({})]));
    expect(markdown).toMatch(/\| \| Benchmark \| Base ops\/s \| Head ops\/s \| Change/);
    expect(markdown).toContain('alternating short timed blocks');
    expect(markdown).not.toContain('instr');
  });
});

describe('benchgate list', () => {
  it('labels each harness copy once, and says when there is nothing to measure', async () => {
    const { renderListing, listsNothing } = await import('../../src/report/listing.js');
    const vitest = { harness: 'vitest', version: '1.6.1', path: '/r/node_modules/vitest' };
    const revision = { label: 'head', ref: 'HEAD', sha: 'c'.repeat(40), root: '/r' };
    const file = { revision: 'head' as const, file: 'a.bench.ts', tasks: ['s > x'], harness: 'vitest', harnesses: [vitest, { ...vitest }] };
    const listing = { revisions: [{ ...revision, files: [file] }] };
    expect(renderListing(listing)).toContain('  a.bench.ts  [vitest 1.6.1]\n');
    const twoCopies = {
      revisions: [{ ...revision, files: [{ ...file, harnesses: [vitest, { ...vitest, path: '/r/a/node_modules/vitest' }] }] }],
    };
    expect(renderListing(twoCopies)).toContain('  a.bench.ts  [vitest 1.6.1 (2 copies)]\n');
    expect(listsNothing(listing)).toBe(false);
    const empty = { revisions: [{ ...revision, files: [{ ...file, tasks: [] }] }] };
    expect(listsNothing(empty)).toBe(true);
    expect(renderListing(empty)).toContain('nothing to measure');
    expect(listsNothing({ ...empty, http: ['http > home'] })).toBe(false);
  });
});

describe('notes shared by many rows', () => {
  it('says a note three or more benchmarks share once, naming each of them, and keeps the others per row', () => {
    const cut = 'measured in 8 of the 15 rounds its first look needs: too few for a verdict: raise time-limit to at least 5m10s';
    const rows = [
      bench({ id: 'f > a', verdict: 'unmeasured', note: cut }),
      bench({ id: 'f > b', verdict: 'unmeasured', note: cut }),
      bench({ id: 'f > c', verdict: 'unmeasured', note: `${cut}; its rounds fell in 2 groups` }),
      bench({ id: 'f > d', verdict: 'unmeasured', note: cut }),
      bench({ id: 'g > e', warning: 'twice' }),
      bench({ id: 'g > f', warning: 'twice' }),
    ];
    const terminal = plainText(renderTerminal(report(rows), { color: false }))
      .split('\n')
      .filter((line) => line.startsWith('note: '));
    expect(terminal.filter((line) => line.endsWith(cut))).toEqual([`note: 3 benchmarks (f > a, f > b, f > d): ${cut}`]);
    expect(terminal).toContain(`note: f > c: ${cut}; its rounds fell in 2 groups`);
    // Two alike stay one a row.
    expect(terminal).toContain('note: g > e: twice');
    expect(terminal).toContain('note: g > f: twice');
    const markdown = plainText(renderMarkdown(report(rows)));
    expect(markdown.split(cut).length - 1).toBe(2);
    expect(markdown).toContain(`> 3 benchmarks (f > a, f > b, f > d): ${cut}`);
  });
});
