// compare --native-check on a real project's tinybench script (fixtures/harness-tinybench: tinybench 2.9.0 at base,
// 6.2.3 at head, slugify ~4x slower at head): the file run as its author runs it, at each revision, and the harness's
// own figures beside benchgate's in the JSON and the terminal, the verdicts and exit code benchgate's alone.
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { config } from './harness-cases.js';
import { fixtureRepo, leftoverProcesses, leftovers, readJson, removeFixtureRepos, runCli } from './helpers.js';

let repo = '';
afterAll(removeFixtureRepos);
afterEach(async () => {
  expect(await leftoverProcesses()).toEqual([]);
  if (repo) expect(leftovers(repo)).toEqual({ worktrees: [], tempDirs: [] });
});

const TASKS = ['makeId', 'slugify', 'cursor round trip', 'load session'];

interface NativeSide {
  opsPerSec: number;
  rme: number | null;
  runs: number[];
}

describe('compare --native-check', () => {
  it("puts the harness's own figures of each revision beside benchgate's, and keeps benchgate's verdicts", async () => {
    repo = fixtureRepo('harness-tinybench', { config: config('bench/*.mjs') });
    const run = await runCli(
      // --native-runs 2: exactly two runs per revision (the default would add a third pair while the check is under a minute).
      [
        'compare',
        '--base',
        'main',
        '--head',
        'feature',
        '--native-check',
        '--native-runs',
        '2',
        '--profile',
        'never',
        '--json',
        'out/report.json',
      ],
      repo,
    );
    const report = readJson<{
      verdict: 'pass' | 'fail' | 'error';
      benchmarks: {
        id: string;
        verdict: string;
        native?: { base: NativeSide | null; head: NativeSide | null; change: { estimate: number } | null; agreement: string };
      }[];
      nativeCheck: { runTimeoutMs: number; files: { file: string; runs: { revision: string; problem?: string }[]; unmatched: string[] }[] };
    }>(path.join(repo, 'out/report.json'));
    // Information only: the exit code is the verdicts', and slugify's loss is benchgate's regression as without the check.
    expect(run.code, run.stderr).toBe({ pass: 0, fail: 1, error: 2 }[report.verdict]);
    expect(report.benchmarks.find((b) => b.id === 'bench/index.mjs > slugify')!.verdict).toBe('regression');
    // The file ran natively at both revisions, base first, each run clean, every task it reported matched.
    expect(run.stderr).toContain('native check: node bench/index.mjs at base');
    const [file] = report.nativeCheck.files;
    expect(file!.file).toBe('bench/index.mjs');
    expect(file!.runs.map((r) => r.revision)).toEqual(['base', 'head', 'head', 'base']);
    expect(file!.runs.filter((r) => r.problem)).toEqual([]);
    expect(file!.unmatched).toEqual([]);
    expect(report.benchmarks.map((b) => b.id).sort()).toEqual(TASKS.map((t) => `bench/index.mjs > ${t}`).sort());
    for (const b of report.benchmarks) {
      const native = b.native!;
      for (const side of [native.base, native.head]) {
        expect(side!.opsPerSec, b.id).toBeGreaterThan(0);
        // Base, head, head, base: two runs of each, what the noise between runs is measured from.
        expect(side!.runs.length, b.id).toBe(2);
      }
      expect(Number.isFinite(native.change!.estimate), b.id).toBe(true);
      // Base pins tinybench 2.9.0 and head 6.2.3, whose figures are not the same measure: shown, not judged.
      expect(native.agreement, b.id).toBe('unknown');
    }
    // The terminal shows them: a section, and a row per task with both figures and the agreement.
    expect(run.stdout).toMatch(/^native runs \(--native-check\): 4 compared, 0 disagree$/m);
    expect(run.stdout).toContain('bench/index.mjs · tinybench · ');
    for (const task of TASKS) {
      const row = run.stdout.split('\n').find((line) => line.startsWith(`  ${task} `) && /(agrees|disagrees|unknown)$/.test(line));
      expect(row, task).toBeDefined();
      // Both revisions' figures with their margins, and the change the JSON holds with its interval (a zero
      // prints unsigned, '0.0%', and from 1000% on without decimals, '+1800%': runs printed both).
      expect(row!.match(/\d[kM]? ±\d+\.\d%/g)?.length, row).toBe(2);
      const [, estimate, low, high] = row!.match(/([+-]?\d+(?:\.\d)?)% \[([+-]?\d+(?:\.\d)?)%, ([+-]?\d+(?:\.\d)?)%\]/) ?? [];
      const change = report.benchmarks.find((b) => b.id === `bench/index.mjs > ${task}`)!.native!.change!;
      expect(Math.abs(Number(estimate) - change.estimate * 100), row).toBeLessThanOrEqual(0.5 + 1e-9);
      expect(Number(low), row).toBeLessThanOrEqual(Number(estimate));
      expect(Number(high), row).toBeGreaterThanOrEqual(Number(estimate));
    }
    // Base and head pin different tinybench versions: the note says their figures may not compare.
    // (The terminal wraps long notes: read it with its line breaks as spaces.)
    const text = run.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('base runs tinybench 2.9.0 and head 6.2.3, major versions whose figures are not the same measure');
    // Said once for the file, not once per task.
    expect(text.match(/major versions/g)).toHaveLength(1);
  });
});
