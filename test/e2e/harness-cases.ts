// Real projects' benchmarks, unmodified: one fixture per harness (fixtures/harness-*), written the
// way those projects write them, each with one known large regression at head and a different
// installed copy of the harness at each revision.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixturesWithCache, readJson, runCli, type fixtureRepo } from './helpers.js';

interface Case {
  fixture: string;
  /** micro.files for the fixture (its own benchgate.yml says the same; the test's config adds a short task time). */
  files: string | undefined;
  harness: string;
  versions: [string, string];
  tasks: string[];
  regression: string;
  /** What the harness itself prints when the file runs on its own: never on benchgate's stdout. */
  harnessOutput: RegExp;
  /**
   * Compared in process isolation too: the harnesses whose loading differs most there (worker threads,
   * TypeScript through the module hooks); the others load one revision per process the same way.
   */
  processToo?: boolean;
  /**
   * Run natively too (--native-check): the harness whose native run is not `node <file>` (vitest bench); the others'
   * native runs have their own e2e (native-check.test.ts) and unit tests.
   */
  nativeToo?: boolean;
}

export const CASES: Case[] = [
  {
    fixture: 'harness-benchmarkjs',
    files: 'benchmark/*.js',
    harness: 'benchmark.js',
    versions: ['2.1.3', '2.1.4'],
    tasks: [
      'benchmark/bench.js > escapeHtml',
      'benchmark/bench.js > parseQuery',
      'benchmark/bench.js > etag',
      'benchmark/bench.js > lookup and run async handler',
      // Declared in worker threads, one per scenario, with names padded for alignment.
      'benchmark/workers.js > lookup static route',
      'benchmark/workers.js > lookup parametric route',
      'benchmark/workers.js > lookup two params',
      'benchmark/workers.js > lookup wildcard route',
    ],
    regression: 'benchmark/bench.js > etag',
    harnessOutput: /ops\/sec|Fastest is|runs sampled/,
    processToo: true,
  },
  {
    fixture: 'harness-tinybench',
    files: 'bench/*.mjs',
    harness: 'tinybench',
    versions: ['2.9.0', '6.2.3'],
    tasks: [
      'bench/index.mjs > makeId',
      'bench/index.mjs > slugify',
      'bench/index.mjs > cursor round trip',
      'bench/index.mjs > load session',
    ],
    regression: 'bench/index.mjs > slugify',
    harnessOutput: /\(index\)|Task name|ops\/sec/,
  },
  {
    fixture: 'harness-mitata',
    files: 'bench/*.mjs',
    harness: 'mitata',
    versions: ['1.0.20', '1.0.34'],
    tasks: [
      'bench/escape.mjs > escaping > escapeHtml',
      'bench/escape.mjs > escaping > csvRow',
      'bench/escape.mjs > rendering > render template',
      'bench/escape.mjs > rendering > fetchJson',
    ],
    regression: 'bench/escape.mjs > escaping > escapeHtml',
    harnessOutput: /\/iter|faster than|clk:/,
  },
  {
    fixture: 'harness-vitest',
    // The default micro.files finds vitest's *.bench.ts.
    files: undefined,
    harness: 'vitest',
    versions: ['3.2.4', '4.1.12'],
    tasks: [
      'bench/url.bench.ts > parse > parseURL',
      'bench/url.bench.ts > parse > match a parsed url',
      'bench/url.bench.ts > build > joinURL',
      'bench/url.bench.ts > build > withQuery',
    ],
    regression: 'bench/url.bench.ts > build > withQuery',
    harnessOutput: /BENCH|RUN\s+v|hz\s+min/,
    processToo: true,
    nativeToo: true,
  },
];

// One look, at the fewest rounds the family's level needs (10 for these files), and later ones every 5 rounds up to 25,
// only when a loaded machine left it undecided, as in a user's run. At 15 rounds and this family's level the interval
// is the rounds' extremes, so one odd round (a loss read under the budget) keeps a 3-4x loss open through 15: it did for
// vitest's at max-rounds 12 and tinybench's at 15 in clean-clone CI runs; past 20 rounds one odd round no longer decides
// the interval (the default max-rounds is 40). No confirmation: each fixture's regression (3-4 times slower) is
// several times over its budget, and the test is about what runs, not about how few rounds a verdict needs (the
// decision rule and the confirmation have their own tests). A wide budget keeps the untouched tasks'
// verdicts out of the noise of a loaded machine, and rounds at one process each (no budget asks for more).
export const config = (files: string | undefined) =>
  `budget: 25%\nrounds: 5\nmax-rounds: 25\nconfirm: false\nmicro:\n  task-time: 30ms\n  processes: 1\n${files ? `  files: ${files}\n` : ''}`;

/**
 * The tests of each harness named: list, compare in alternate isolation, and in process isolation where
 * `processToo`. Registers the file's clean-up (no process or worktree left after each test, fixture repos removed
 * at the end) and returns the fixture maker the file's other tests use with it.
 */
export function describeHarnesses(harnesses: string[]): (name: string, options: Parameters<typeof fixtureRepo>[1]) => string {
  // Each fixture's revisions are installed once, by its list test, then reused from --install-cache by its compares.
  const { cache, fixture } = fixturesWithCache('harness-installs-');
  const listed = new Set<string>();
  describe.each(CASES.filter((c) => harnesses.includes(c.harness)))('$harness bench files, unmodified ($fixture)', (c) => {
    it('lists each revision with its own copy of the harness, and the tasks with their nesting', async () => {
      const repo = fixture(c.fixture, { config: config(c.files) });
      const run = await runCli(['list', '--base', 'main', '--head', 'feature', '--json', 'out/list.json', '--install-cache', cache], repo);
      expect(run.code, run.stderr).toBe(0);
      listed.add(c.fixture);
      const listing = readJson<{
        revisions: {
          label: string;
          root: string;
          files: { file: string; tasks: string[]; harness?: string; harnesses?: { harness: string; version?: string; path: string }[] }[];
        }[];
      }>(path.join(repo, 'out/list.json'));
      expect(listing.revisions.map((r) => r.label)).toEqual(['base', 'head']);
      listing.revisions.forEach((revision, i) => {
        const ids = revision.files.flatMap((file) => file.tasks.map((task) => `${file.file} > ${task}`));
        expect(ids.sort()).toEqual([...c.tasks].sort());
        const copies = revision.files.flatMap((file) => file.harnesses ?? []);
        expect(copies.length).toBeGreaterThan(0);
        for (const copy of copies) {
          expect(copy.harness).toBe(c.harness);
          expect(copy.version).toBe(c.versions[i]);
          // Resolved inside this revision's own checkout: its own node_modules.
          expect(copy.path.startsWith(path.join(revision.root, 'node_modules') + path.sep)).toBe(true);
        }
      });
      expect(listing.revisions[0]!.root).not.toBe(listing.revisions[1]!.root);
      for (const id of c.tasks) expect(run.stdout).toContain(id);
    });

    it.each(['alternate'])('catches the regression and flags nothing else, in %s isolation', async (isolation) => {
      const repo = fixture(c.fixture, { config: config(c.files) });
      const run = await runCli(
        [
          ...['compare', '--base', 'main', '--head', 'feature', '--isolation', isolation, '--profile', 'never'],
          ...['--json', 'out/report.json', '--install-cache', cache],
        ],
        repo,
      );
      // The table too where it fails: which row, and its rounds, say why.
      expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(1);
      // The list test (before this one) installed both revisions into the cache: both are reused, never installed again.
      if (listed.has(c.fixture))
        for (const side of ['base', 'head'])
          expect(run.stderr).toContain(
            `install ${side}: reused the install of an earlier run, kept in ${cache} (the same package-lock.json`,
          );
      const report = readJson<{ verdict: string; benchmarks: { id: string; verdict: string }[] }>(path.join(repo, 'out/report.json'));
      expect(report.benchmarks.map((b) => b.id).sort()).toEqual([...c.tasks].sort());
      const verdicts = Object.fromEntries(report.benchmarks.map((b) => [b.id, b.verdict]));
      expect(verdicts[c.regression]).toBe('regression');
      for (const id of c.tasks.filter((task) => task !== c.regression))
        expect(['unchanged', 'within-budget', 'inconclusive', 'improvement']).toContain(verdicts[id]);
      expect(run.stderr).toContain(`base bench files use ${c.harness} ${c.versions[0]}`);
      expect(run.stderr).toContain(`head bench files use ${c.harness} ${c.versions[1]}`);
      // The harness neither timed nor printed anything of its own.
      expect(run.stdout).not.toMatch(c.harnessOutput);
    });

    // One revision per process: pairs of processes spread 20-30% on a loaded machine (docs/evaluation.md), so whether
    // 8 pairs decide a 4x loss at this family's level is a question of power; the test is about what runs.
    if (c.processToo)
      it('measures every task in process isolation, one revision per process, the loss where it is', async () => {
        const repo = fixture(c.fixture, { config: config(c.files) });
        const run = await runCli(
          [
            ...['compare', '--base', 'main', '--head', 'feature', '--isolation', 'process', '--profile', 'never'],
            ...['--json', 'out/report.json', '--install-cache', cache],
          ],
          repo,
        );
        const report = readJson<{
          verdict: string;
          run: { isolation: string; plannedRounds: number };
          benchmarks: { id: string; verdict: string; rounds: number[]; change: { estimate: number } | null; note?: string }[];
        }>(path.join(repo, 'out/report.json'));
        expect(report.run.isolation).toBe('process');
        expect(report.benchmarks.map((b) => b.id).sort()).toEqual([...c.tasks].sort());
        for (const b of report.benchmarks) {
          // Every task measured at both revisions, to its first look (or to the early look's 3 rounds, which decided it and
          // says so): no error, nothing unmeasured.
          expect(['regression', 'unchanged', 'within-budget', 'inconclusive', 'improvement'], `${b.id}: ${b.verdict}`).toContain(b.verdict);
          const early = b.rounds.length === 3 && /decided at the early look/.test(b.note ?? '');
          expect(b.rounds.length, b.note).toBeGreaterThanOrEqual(early ? 3 : report.run.plannedRounds);
        }
        const lost = report.benchmarks.find((b) => b.id === c.regression)!;
        expect(lost.change!.estimate).toBeLessThan(-0.25);
        expect(['regression', 'inconclusive']).toContain(lost.verdict);
        // The exit code is the verdicts': 1 exactly when a regression was found.
        expect(run.code, run.stderr).toBe(report.benchmarks.some((b) => b.verdict === 'regression') ? 1 : 0);
        expect(run.stderr).toContain(`head bench files use ${c.harness} ${c.versions[1]}`);
        expect(run.stdout).not.toMatch(c.harnessOutput);
      });

    if (c.nativeToo)
      it('runs the bench file as its author does (--native-check), its harness’s figures beside benchgate’s', async () => {
        const repo = fixture(c.fixture, { config: config(c.files) });
        const run = await runCli(
          [
            ...['compare', '--base', 'main', '--head', 'feature', '--profile', 'never', '--native-check', '--native-runs', '2'],
            ...['--json', 'out/report.json', '--install-cache', cache],
          ],
          repo,
        );
        const report = readJson<{
          verdict: 'pass' | 'fail' | 'error';
          benchmarks: {
            id: string;
            native?: { base: { opsPerSec: number; runs: number[] } | null; head: { opsPerSec: number; runs: number[] } | null };
          }[];
          nativeCheck: { files: { file: string; harness: string; runs: { revision: string; problem?: string }[]; unmatched: string[] }[] };
        }>(path.join(repo, 'out/report.json'));
        expect(run.code, run.stderr).toBe({ pass: 0, fail: 1, error: 2 }[report.verdict]);
        const file = c.tasks[0]!.split(' > ')[0]!;
        expect(run.stderr).toContain(`native check: vitest bench ${file} at base`);
        expect(report.nativeCheck.files.map((f) => [f.file, f.harness])).toEqual([[file, c.harness]]);
        const [native] = report.nativeCheck.files;
        expect(native!.runs.map((r) => r.revision)).toEqual(['base', 'head', 'head', 'base']);
        expect(native!.runs.filter((r) => r.problem)).toEqual([]);
        // Every benchmark vitest reported is one benchgate compared, under the same id, at both revisions.
        expect(native!.unmatched).toEqual([]);
        for (const b of report.benchmarks)
          for (const side of [b.native!.base, b.native!.head]) {
            expect(side!.opsPerSec, b.id).toBeGreaterThan(0);
            expect(side!.runs, b.id).toHaveLength(2);
          }
        // The file's regression (3-4 times slower) is in vitest's own figures too: the figures are that task's. (Its
        // harness times each call, which compresses the change, and two native runs a side beside two busy loops and
        // another compare read only -24% once: the direction and a clear loss are what is checked.)
        const lost = report.benchmarks.find((b) => b.id === c.regression)!.native!;
        expect(lost.head!.opsPerSec / lost.base!.opsPerSec).toBeLessThan(0.9);
      });
  });
  return fixture;
}
