// Real projects' benchmarks, unmodified (test/e2e/harness-cases.ts): benchmark.js and mitata here, tinybench and
// vitest in harness-2.test.ts (two files so that vitest runs them side by side); then listing one revision, and a
// revision that is not installed.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { config, describeHarnesses } from './harness-cases.js';
import { readJson, runCli } from './helpers.js';

const fixture = describeHarnesses(['benchmark.js', 'mitata']);

describe('benchgate list of one revision', () => {
  it('checks out, installs and lists --head alone, and lists the working tree without a worktree', async () => {
    const repo = fixture('harness-tinybench', { config: config('bench/*.mjs') });
    const head = await runCli(['list', '--head', 'main'], repo);
    expect(head.code, head.stdout + head.stderr).toBe(0);
    // main's own copy, installed in its checkout: tinybench 2.9.0 (the working tree, feature, has none installed).
    expect(head.stdout).toMatch(/^head \(main, [0-9a-f]{7}\): 1 bench file, 4 tasks$/m);
    expect(head.stdout).toContain('[tinybench 2.9.0]');
    const here = await runCli(['list'], repo);
    // Nothing checked out or installed: the working tree as it is, whose import does not resolve.
    expect(here.stderr).not.toContain('install');
    expect(here.stdout).toMatch(/^head \(working tree, [0-9a-f]{7}\)/m);
    // Which package is missing and the command that installs it, where Node's own error said neither.
    expect(here.stdout).toContain("it imports 'tinybench', which is not installed in");
    expect(here.stdout).toContain('run `npm ci --no-audit --no-fund` there first, then list again');
    expect(here.code).toBe(2);
  });
});

describe('a revision that is not installed', () => {
  it('stops before measuring when the working tree has no node_modules, naming the package and the command', async () => {
    const repo = fixture('harness-tinybench', { config: config('bench/*.mjs'), commitHead: false });
    const run = await runCli(['compare', '--base', 'main', '--json', 'out/report.json'], repo);
    expect(run.code, run.stdout).toBe(2);
    expect(run.stdout).toContain('head (the working tree) is not installed');
    expect(run.stdout).toContain("bench/index.mjs imports 'tinybench'");
    expect(run.stdout).toContain('run `npm ci --no-audit --no-fund` in');
    expect(run.stderr).not.toMatch(/round \d+ of/);
    expect(readJson<{ verdict: string }>(path.join(repo, 'out/report.json')).verdict).toBe('error');
  });

  it("stops before measuring when base's install left a bench file's import unresolved", async () => {
    const repo = fixture('harness-tinybench', { config: `${config('bench/*.mjs')}install: node -e 0\n` });
    const run = await runCli(['compare', '--base', 'main', '--head', 'feature'], repo);
    expect(run.code, run.stdout).toBe(2);
    expect(run.stdout).toContain('base (main) is not installed');
    expect(run.stdout).toContain("bench/index.mjs imports 'tinybench'");
    expect(run.stdout).toContain('benchgate installed this checkout with `node -e 0`');
    expect(run.stderr).not.toMatch(/round \d+ of/);
  });

  it('loads its bench files once the working tree is installed with that command', async () => {
    const repo = fixture('harness-tinybench', { config: config('bench/*.mjs'), commitHead: false });
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: repo, stdio: 'ignore' });
    const run = await runCli(['list'], repo);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('[tinybench 6.2.3]');
  });
});
