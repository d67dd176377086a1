// Bench files where projects keep them, found from the files alone (before any install).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { conventionalBenchFiles, filesOfScripts } from '../../src/measure/micro/conventions.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>, scripts?: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'benchgate-conventions-'));
  dirs.push(root);
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'p', ...(scripts ? { scripts } : {}) }));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const SUITE = "const Benchmark = require('benchmark');\nnew Benchmark.Suite().add('x', () => 1).run();\n";

describe('conventional bench files', () => {
  it("finds fast-uri's root benchmark.js", () => {
    expect(conventionalBenchFiles(project({ 'benchmark.js': SUITE, 'index.js': 'module.exports = 1;\n' }))).toEqual({
      files: ['benchmark.js'],
      where: 'at the project root',
    });
  });

  it('prefers the files a bench script runs over a folder that also holds its helpers', () => {
    const root = project(
      { 'benchmarks/run.mjs': "import './parse.mjs'\n", 'benchmarks/parse.mjs': SUITE, 'benchmark.js': SUITE },
      { bench: 'npm run build && cd benchmarks && node --expose-gc run.mjs', test: 'node test.js' },
    );
    expect(conventionalBenchFiles(root)).toEqual({ files: ['benchmarks/run.mjs'], where: 'named by the `bench` script' });
  });

  it('reads every bench script, a folder as its index, and never a file outside the project or in node_modules', () => {
    const root = project(
      { 'bench/index.js': SUITE, 'perf/a.ts': SUITE, 'node_modules/x/bench.js': SUITE },
      { 'bench:all': 'node bench', 'bench:ts': 'node --import tsx perf/a', perf: 'node ../elsewhere.js && node node_modules/x/bench.js' },
    );
    expect(filesOfScripts(root)).toEqual({ files: ['bench/index.js', 'perf/a.ts'], scripts: ['`bench:all`', '`bench:ts`'] });
  });

  it("names a folder's index once, however the script spells the folder (fast-deep-equal's `cd ./benchmark && node ./`)", () => {
    const root = project({ 'benchmark/index.js': SUITE }, { benchmark: 'cd ./benchmark && node ./' });
    expect(filesOfScripts(root).files).toEqual(['benchmark/index.js']);
  });

  it('takes the top of a bench folder, leaving out helpers that name no harness and export nothing', () => {
    const root = project({
      'benchmarks/ids.js': "import { Bench } from 'tinybench'\n",
      'benchmarks/data.js': 'export const rows = [1, 2, 3]\n',
      'benchmarks/types.d.ts': 'export type X = 1\n',
      'benchmarks/deep/other.js': SUITE,
    });
    expect(conventionalBenchFiles(root)).toEqual({ files: ['benchmarks/ids.js'], where: 'in benchmarks/' });
  });

  it('finds nothing in a project without benchmarks (a lib file called bench-utils is not one)', () => {
    expect(conventionalBenchFiles(project({ 'src/bench-utils.js': SUITE, 'index.js': 'export default 1\n' }))).toBeUndefined();
  });
});

describe('benchgate list before an install', () => {
  it("names the bench file's own package where the missing package is installed (fast-uri's benchmark/), and the project's otherwise", async () => {
    const { withInstallHints } = await import('../../src/measure/micro/inventory.js');
    const root = project({
      'benchmark/package.json': JSON.stringify({ name: 'benchmark', private: true, dependencies: { tinybench: '^5.0.0' } }),
      'benchmark/equal.mjs': "import { Bench } from 'tinybench'\n",
      'bench/a.bench.mjs': "import { Bench } from 'tinybench'\n",
    });
    const missing = (file: string) => ({
      revision: 'head' as const,
      file,
      tasks: [],
      error: `Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'tinybench' imported from ${path.join(root, file)}`,
    });
    const [listed] = withInstallHints(
      [
        {
          revision: { label: 'head', root, ref: 'working tree', sha: 'a'.repeat(40), worktree: undefined } as never,
          files: [missing('benchmark/equal.mjs'), missing('bench/a.bench.mjs')],
        },
      ],
      undefined,
    );
    expect(listed!.files.map((f) => f.error)).toEqual([
      `it imports 'tinybench', which is not installed in ${path.join(root, 'benchmark')} (the bench file's own package): run \`npm install\` in ${root} and \`npm install --no-audit --no-fund --no-package-lock\` in benchmark first, then list again`,
      `it imports 'tinybench', which is not installed in ${root}: run \`npm install\` there first, then list again`,
    ]);
  });

  it("never reads a path inside the project as a missing package (dequal's bench/ linking the unbuilt project)", async () => {
    const { assertInstalled } = await import('../../src/measure/micro/inventory.js');
    const root = project({ 'bench/index.js': "require('dequal')\n", 'bench/node_modules/.keep': '' });
    const revision = { label: 'head', root, ref: '37c21f6', sha: 'b'.repeat(40), worktree: root } as never;
    // The load error as withinProject names it: the linked package's main (dist/index.js) is not built.
    const unbuilt = {
      revision: 'head' as const,
      file: 'bench/index.js',
      tasks: [],
      error:
        "Error: Cannot find module 'bench/node_modules/dequal/dist/index.js' (the build's output is missing at this revision: set build in benchgate.yml, e.g. build: npm run build)",
    };
    // Not "is not installed: ... 'bench' is not found": the file's own error says what is missing, and why.
    expect(() => assertInstalled([{ revision, files: [unbuilt] }], undefined)).not.toThrow();
    // A package that is missing is still called missing.
    const missing = { ...unbuilt, error: "Error: Cannot find module 'deep-equal'" };
    expect(() => assertInstalled([{ revision, files: [missing] }], undefined)).toThrow(
      /head \(37c21f6\) is not installed: bench\/index\.js imports 'deep-equal'/,
    );
  });
});
