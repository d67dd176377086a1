import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/report/markdown.js';
import { runVerdict, type Report, type ReportBenchmark } from '../../src/report/model.js';
import { renderTerminal } from '../../src/report/terminal.js';

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
  run: { rounds: 10, plannedRounds: 10, limited: false, isolation: 'alternate', confidence: 0.95, intervalConfidence: 0.95, timeLimitMs: 300_000, measureMs: 31_000, totalMs: 33_000 },
  environment: { node: 'v24.0.0', os: 'Linux', arch: 'x64', cpus: { model: 'Test CPU', count: 2 } },
});

describe('terminal report', () => {
  it('fits 100 columns even with long benchmark names', () => {
    const text = renderTerminal(
      report([
        bench({ id: `bench/${'deeply/nested/'.repeat(6)}ids.bench.js > ${'a very long task name '.repeat(4)}`, verdict: 'regression', change: { estimate: -0.123, low: -0.2, high: -0.1, confidence: 0.95 } }),
        bench({}),
      ]),
      { color: false },
    );
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(text).toContain('…');
    expect(text).toContain('-12.3% [-20.0%, -10.0%]');
    expect(text).toContain('FAIL: 1 regression, 1 unchanged');
  });

  it('puts regressions first and uses colour only when asked', () => {
    const text = renderTerminal(report([bench({ id: 'a > fine' }), bench({ id: 'z > slow', verdict: 'regression' })]), { color: false });
    expect(text.indexOf('z > slow')).toBeLessThan(text.indexOf('a > fine'));
    expect(text).not.toContain('\x1b[');
    expect(renderTerminal(report([bench({ verdict: 'regression' })]), { color: true })).toContain('\x1b[31m');
  });


  it('shows control characters in task names as ? so they cannot drive the terminal', () => {
    const text = renderTerminal(report([bench({ id: 'x > \u001b[2Jclear', verdict: 'error', error: 'bad\u001b]0;title\u0007' })]), { color: false });
    expect(text).not.toContain('\u001b');
    expect(text).toContain('x > ?[2Jclear');
  });
});

describe('markdown report', () => {
  it('escapes benchmark names so they cannot inject markdown, HTML or mentions', () => {
    const evil = 'bench/x.bench.js > <img src=x onerror=alert(1)> | **bold** [link](http://evil) @octocat `code`';
    const text = renderMarkdown(report([bench({ id: evil, verdict: 'error', error: '</pre><script>alert(1)</script>' })]));
    expect(text).not.toContain('<img');
    expect(text).not.toContain('<script>');
    expect(text).toContain('&lt;img src=x onerror=alert\\(1\\)&gt; \\| \\*\\*bold\\*\\* \\[link\\]\\(http://evil\\) @\u200boctocat \\`code\\`');
    expect(text).toContain('&lt;/pre&gt;&lt;script&gt;');
    // The row still has exactly six cells.
    const row = text.split('\n').find((line) => line.startsWith('| ⚠️ error'))!;
    expect(row.split(/(?<!\\)\|/).length).toBe(8);
  });

  it('leads with the verdict and shows the table', () => {
    const text = renderMarkdown(report([bench({ verdict: 'regression', change: { estimate: -0.5, low: -0.52, high: -0.48, confidence: 0.95 } })]));
    expect(text.split('\n')[0]).toBe('### ❌ benchgate: regression');
    expect(text).toContain('| 🔴 regression | bench/ids.bench.js &gt; make request id | 28.5M | 28.4M | \\-50.0% \\[\\-52.0%, \\-48.0%\\] | 5% |');
    expect(text).toContain('(with uncommitted changes)');
  });
});
