import { describe, expect, it } from 'vitest';
import { codeBlockText, escapeLines, escapeText, Markup, md, terminalText } from '../../src/report/escape.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import type { Report, ReportBenchmark } from '../../src/report/model.js';
import type { FileLoad } from '../../src/measure/micro/protocol.js';
import { renderTerminal } from '../../src/report/terminal.js';
import { renderCalibration } from '../../src/report/calibration.js';
import { fitComment } from '../../src/report/github.js';
import { ALL_PAYLOADS, collapse, injectionProblems, PAYLOADS, renderHtml, skeleton, visibleText } from '../inert.js';

/** A report with `text` in every string a pull request (or a forged report.json) can set: names, files, errors, refs, server and profile text. */
function reportWith(text: string): Report {
  const row = {
    function: text,
    location: text,
    via: { function: text, location: text },
    baseShare: 0.1,
    headShare: 0.5,
    basePerOpUs: 0.5,
    headPerOpUs: 2,
  };
  const server = {
    eventLoopDelayMs: { p50: 1, p99: 2, max: 3 },
    eventLoopUtilization: 0.5,
    gc: { count: 3, totalMs: 12, share: 0.01, byKindMs: { [text]: 1 } },
    peakRssMb: 80,
    peakHeapUsedMb: 20,
  };
  const traffic = { responses: 100, ok: 90, non2xx: 10, byClass: { [text]: 10 }, errors: 1, timeouts: 0, resets: 0 };
  const micro = (over: Partial<ReportBenchmark>): ReportBenchmark => ({
    id: `bench/${text}.bench.js > ${text}`,
    kind: 'micro',
    file: `bench/${text}.bench.js`,
    verdict: 'regression',
    budget: 0.05,
    base: { opsPerSec: 2_000_000, samples: 10 },
    head: { opsPerSec: 1_000_000, samples: 10 },
    change: { estimate: -0.5, low: -0.52, high: -0.48, confidence: 0.95 },
    rounds: [],
    resolvable: null,
    ...over,
  });
  const benchmarks: ReportBenchmark[] = [
    micro({
      note: text,
      warning: text,
      native: {
        base: { opsPerSec: 2_100_000, rme: 1.5, runs: [2_100_000] },
        head: { opsPerSec: 2_000_000, rme: 1.5, runs: [2_000_000] },
        change: { estimate: -0.05, low: -0.07, high: -0.03 },
        agreement: 'disagrees',
        note: text,
      },
      profile: {
        files: { base: `/tmp/${text}.base.cpuprofile`, head: `/tmp/${text}.head.cpuprofile` },
        unit: 'call',
        ops: { base: 1, head: 1 },
        process: 'alone',
        samples: { base: 1000, head: 1000 },
        gcPerOpUs: { base: 0, head: 0 },
        perOpUs: { base: 1, head: 2 },
        top: [row, { ...row, via: undefined, location: '' }],
        ownCode: [row],
        durationMs: 1000,
      },
    }),
    micro({ id: `bench/${text}.bench.js > ${text} (profile failed)`, profile: { error: `${text}\n${text}`, durationMs: 5 } }),
    micro({
      id: `${text} (error)`,
      verdict: 'error',
      change: null,
      head: null,
      error: `Error: ${text}\n    at ${text} (file:///${text}.js:1:2)\n${text}`,
    }),
    micro({
      id: `http > ${text}`,
      kind: 'http',
      file: null,
      verdict: 'unchanged',
      change: { estimate: 0.01, low: -0.01, high: 0.03, confidence: 0.95 },
      http: {
        requests: [`GET /${text}`, `POST /${text}`],
        connections: 10,
        durationMs: 3000,
        warmupMs: 500,
        latency: {
          p99: { base: 2, head: 3, change: { estimate: 0.5, low: 0.4, high: 0.6, confidence: 0.95 }, budget: 0.1, verdict: 'regression' },
        },
        traffic: { base: traffic, head: traffic },
        server: { base: server, head: server, note: text },
        moved: [text, `${text}: ${text}`],
      },
    }),
  ];
  return {
    version: 1,
    tool: { name: 'benchgate', version: '0.0.0' },
    verdict: 'error',
    summary: text,
    base: { ref: text, sha: text },
    head: { ref: text, sha: text, dirty: true },
    benchmarks,
    run: {
      rounds: 10,
      plannedRounds: 10,
      limited: false,
      isolation: text,
      httpRounds: 5,
      httpMode: text,
      confidence: 0.95,
      intervalConfidence: 0.95,
      timeLimitMs: 300_000,
      measureMs: 31_000,
      totalMs: 33_000,
      profile: { dir: `/tmp/${text}`, benchmarks: 2, durationMs: 1005 },
      conditions: { busy: [], spikedRounds: [], note: text },
    },
    environment: {
      node: text,
      os: text,
      arch: text,
      cpus: { model: text, count: 2 },
      loadAverage: { before: [1, 1, 1], after: [2, 2, 2] },
    },
    error: `${text}\n${text}`,
    nativeCheck: {
      runTimeoutMs: 120_000,
      files: [
        {
          file: `bench/${text}.bench.js`,
          harness: text,
          versions: { base: text, head: `${text}2` },
          runs: [
            { revision: 'base', durationMs: 900, tasks: 1 },
            { revision: 'head', durationMs: 120_000, tasks: 0, problem: `${text}\n${text}` },
          ],
          unmatched: [text, `${text} > ${text}`],
        },
        { file: text, runs: [], skipped: text, unmatched: [] },
      ],
      error: `${text}\n${text}`,
    },
  };
}

/** The same report with a harmless word everywhere: what its structure must stay. */
const control = renderMarkdown(reportWith('word'));

describe('the escaping of untrusted text (src/report/escape.ts)', () => {
  it('turns markup into character references that render as the text itself', () => {
    expect(escapeText('a|b')).toBe('a&#124;b');
    expect(escapeText('[x](javascript:alert(1))')).toBe('&#91;x&#93;(javascript&#58;alert(1))');
    expect(escapeText('<img src=x>')).toBe('&lt;img src=x&gt;');
    expect(escapeText('```')).toBe('&#96;&#96;&#96;');
    expect(escapeText('&#64;a &amp;')).toBe('&amp;&#35;\u200b64;a &amp;amp;');
    // Mentions and issue references are found in the decoded text: a zero-width space breaks them.
    expect(escapeText('@someone #12')).toBe('@\u200bsomeone &#35;\u200b12');
    expect(escapeText('www.evil.example')).toBe('www&#46;evil.example');
    // Rendered, it is one paragraph that reads as the text.
    const html = renderHtml(escapeText(ALL_PAYLOADS));
    expect(skeleton(html)).toEqual(['p', '/p']);
    expect(visibleText(html)).toBe(collapse(ALL_PAYLOADS));
  });

  it('flattens line breaks and control characters to spaces, and escapes what would open a block at the start of a line', () => {
    expect(escapeText('a\r\nb\n\n# c\u0000\u001b[31m\u2028\u202e')).toBe('a b  &#35;\u200b c  &#91;31m  ');
    for (const start of ['- item', '+ item', '1. item', '2) item', '---', '===', '    code', '> quote', '# heading', '| cell']) {
      expect(skeleton(renderHtml(escapeText(start))), start).toEqual(['p', '/p']);
    }
    // Figures keep their signs and dots where they are no markup.
    expect(escapeText('-12.3% [-14.1%, +1.0%]')).toBe('-12.3% &#91;-14.1%, +1.0%&#93;');
  });

  it('keeps line breaks only in the <pre> variant, and no line of it can end the <pre>', () => {
    expect(escapeLines('a\r\n\n</pre># b\r@c')).toBe('a\n\n&lt;/pre&gt;&#35;\u200b b\n@\u200bc');
    expect(skeleton(renderHtml(`<pre>${escapeLines(ALL_PAYLOADS.replace(/ /g, '\n'))}</pre>`))).toEqual(['pre', '/pre']);
  });

  it('md escapes every interpolated value unless it is Markup already', () => {
    expect(String(md`<b>${'<i>x</i>'}</b> ${md`<i>${'*'}</i>`} ${new Markup('<br>')} ${42} ${undefined}`)).toBe(
      '<b>&lt;i&gt;x&lt;/i&gt;</b> <i>&#42;</i> <br> 42 ',
    );
  });

  it('keeps a code block closed and its columns aligned', () => {
    expect(codeBlockText('a```b\r\nc\u001b')).toBe("a'''b??c?");
    expect(codeBlockText('a```b\r\nc\u001b')).toHaveLength('a```b\r\nc\u001b'.length);
  });

  it('shows control characters, C1 and bidirectional overrides as ? in a terminal', () => {
    expect(terminalText('a\u001b[2J\u009b31m\u202eb\nc')).toBe('a?[2J?31m?b?c');
    expect(terminalText('a\u001b\r\nb', { keepNewlines: true })).toBe('a?\nb');
  });
});

describe('a report whose every string is a payload', () => {
  it.each(Object.entries({ ...PAYLOADS, all: ALL_PAYLOADS }))(
    'renders %s as text: same structure as a harmless word, nothing live, readable',
    (_, payload) => {
      const markdown = renderMarkdown(reportWith(payload));
      expect(injectionProblems(markdown)).toEqual([]);
      // Escaping only changes text: the rendered HTML has the tags of the harmless report, in the same order.
      expect(skeleton(renderHtml(markdown))).toEqual(skeleton(renderHtml(control)));
      // ...and the text reads as the payload.
      expect(visibleText(renderHtml(markdown))).toContain(collapse(payload));
    },
  );

  it('has no check that passes without escaping (each payload is caught by injectionProblems when raw)', () => {
    // The raw payloads in the same places as the renderer puts them break the checks: they are the test's teeth.
    const raw = (payload: string) => control.replace(/word/g, payload);
    for (const [name, payload] of Object.entries(PAYLOADS)) {
      // Leading spaces make an indented code block only where a block starts, which no untrusted text does here; escaped anyway.
      if (name === 'leading') continue;
      expect(injectionProblems(raw(payload)), name).not.toEqual([]);
    }
  });

  it('shows the chart as one code block that a name cannot close', () => {
    const report = reportWith('word');
    report.benchmarks[0]!.id = '```\n@someone <img src=x>';
    const markdown = renderMarkdown(report);
    expect(injectionProblems(markdown)).toEqual([]);
    expect(markdown).toContain("'''?@someone <img src=x>");
    const fences = markdown.split('\n').filter((line) => line.startsWith('```'));
    expect(fences).toEqual(['```text', '```']);
  });

  it('renders figures, verdicts and revisions of a forged report.json inert, and does not throw', () => {
    const report = reportWith('x');
    const forged = {
      ...report,
      verdict: '<img src=x onerror=alert(1)>',
      base: { ref: 'main', sha: '`@a|b`' },
      benchmarks: report.benchmarks.map((b) => ({
        ...b,
        verdict: '[x](javascript:alert(1)) | @someone',
        budget: '<b>5%</b>',
        base: { opsPerSec: '1|2', samples: 1 },
        change: { estimate: '@a', low: '|', high: null, confidence: 1 },
      })),
      run: { ...report.run!, intervalConfidence: '|', measureMs: '<b>' },
      environment: { ...report.environment, loadAverage: { before: ['|'], after: [] } },
    } as unknown as Report;
    forged.benchmarks[3]!.http!.server.base!.gc.totalMs = '|' as unknown as number;
    forged.benchmarks[3]!.http!.latency.p99!.base = '@x' as unknown as number;
    const markdown = renderMarkdown(forged);
    expect(injectionProblems(markdown)).toEqual([]);
    expect(markdown).toContain('### ❔ benchgate: &lt;img src=x onerror=alert(1)&gt;');
    expect(markdown).toContain('| ❔ &#91;x&#93;(javascript&#58;alert(1)) &#124; @\u200bsomeone | x (error) | – | – | – | – |');
    expect(markdown).toContain('Base main @ <code>&#96;@\u200ba&#124;b&#96;</code>');
    expect(markdown).not.toMatch(/NaN|undefined|\[object/);
    expect(() => renderTerminal(forged, { color: true })).not.toThrow();
  });
});

describe("a comment cut to GitHub's limit", () => {
  it('stays inert wherever the cut falls: never inside a character reference, every <pre> and <details> closed', () => {
    const report = reportWith(ALL_PAYLOADS);
    report.benchmarks.push(
      ...Array.from({ length: 6 }, (_, i) => ({
        ...report.benchmarks[2]!,
        id: `${i} ${ALL_PAYLOADS}`,
        error: `${ALL_PAYLOADS}\n`.repeat(4),
      })),
    );
    const full = renderMarkdown(report);
    for (let limit = 400; limit < full.length; limit += 53) {
      const body = fitComment(full, undefined, { limit });
      // (the closing </pre> and </details> come on top of the limit: the default leaves 200 characters for them and the marker)
      expect(body.length).toBeLessThanOrEqual(limit + '</pre>\n</details>'.length);
      expect(injectionProblems(body), `cut at ${limit}`).toEqual([]);
    }
  });
});

describe('the terminal report', () => {
  const payload = 'x\u001b[2J\u001b]0;title\u0007\u009b31m\u202e\r\nnext';

  it('lets no control character of any string reach the terminal', () => {
    const report = reportWith(payload);
    for (const color of [false, true]) {
      const text = renderTerminal(report, { color }).replace(/\u001b\[\d+(;\d+)*m/g, ''); // its own colours are SGR sequences
      expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
      expect(text).toContain('x?[2J?]0;title??31m???next');
    }
  });

  it('and neither does the calibration table', () => {
    const text = renderCalibration({
      ref: payload,
      sha: payload,
      durationMs: 1000,
      compareRounds: 10,
      benchmarks: [{ id: payload, spread: 0.01, resolvable: 0.02, suggestedBudget: 0.03, budget: 0.01, rounds: 10, warning: payload }],
    } as never);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });
});

describe('benchgate list', () => {
  /** `benchgate list` of one revision, head at feature, with these files (and the measure of each task not timed). */
  const listing = async (files: FileLoad[], measures?: Record<string, string>) => {
    const { renderListing } = await import('../../src/report/listing.js');
    const revision = { label: 'head', ref: 'feature', sha: 'a'.repeat(40), root: '/r', files };
    return renderListing({ revisions: [revision], ...(measures ? { measures } : {}) });
  };

  it("shows a harness's version from the pull request's node_modules without its terminal control characters", async () => {
    const evil = '6.2.3\u001b[2J\u001b]0;pwned\u0007\r\nFAKE: all good';
    const text = await listing([
      {
        revision: 'head',
        file: 'bench/a.bench.js',
        tasks: ['x'],
        harness: 'tinybench',
        harnesses: [{ harness: 'tinybench', version: evil, path: '/r/node_modules/tinybench' }],
      },
    ]);
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u009b]/);
    // One line per item: the version cannot start a line of its own.
    expect(text.split('\n').filter((line) => line.startsWith('FAKE'))).toEqual([]);
    expect(text).toContain('[tinybench 6.2.3');
  });

  it('marks each task measured other than in time (micro.measures), and no other', async () => {
    const text = await listing(
      [{ revision: 'head', file: 'bench/ids.bench.js', tasks: ['uuid', 'counter', 'ulid'], harness: 'tinybench' }],
      {
        'bench/ids.bench.js > uuid': 'counts',
        'bench/ids.bench.js > ulid': 'both',
      },
    );
    expect(text.split('\n').filter((line) => line.startsWith('    '))).toEqual([
      '    bench/ids.bench.js > uuid  [counts]',
      '    bench/ids.bench.js > counter',
      '    bench/ids.bench.js > ulid  [both]',
    ]);
  });
});
