// The node flags an author runs a bench file with, from the revision's package.json scripts (src/measure/native/flags.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { authorFlags } from '../../src/measure/native/flags.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function project(manifest: unknown): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'benchgate-flags-'));
  dirs.push(root);
  writeFileSync(path.join(root, 'package.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
  return root;
}

describe('the author’s node flags', () => {
  it("takes fast-json-stringify's: node --expose-gc ./benchmark/bench.js, from the bench script", () => {
    const root = project({ scripts: { test: 'node --test', bench: 'node --expose-gc ./benchmark/bench.js' } });
    expect(authorFlags(root, 'benchmark/bench.js')).toEqual({ script: 'bench', flags: ['--expose-gc'] });
  });

  it('finds the file in a chain, after env assignments, and prefers bench* scripts', () => {
    const root = project({
      scripts: {
        other: 'node --max-old-space-size=4096 bench/a.js',
        'bench:a': 'npm run build && NODE_ENV=production node --expose-gc --allow-natives-syntax bench/a.js | tee out.txt',
      },
    });
    expect(authorFlags(root, 'bench/a.js')).toEqual({ script: 'bench:a', flags: ['--expose-gc', '--allow-natives-syntax'] });
  });

  it('runs the file without flags when the script runs it with none, or passes what it does not take', () => {
    expect(authorFlags(project({ scripts: { bench: 'node bench/a.js' } }), 'bench/a.js')).toBeUndefined();
    // A flag with a separate value, a short flag, a flag that loads other code, a value a shell would read otherwise.
    for (const flags of [
      '--max-old-space-size 4096',
      '-r dotenv/config',
      '--require=./setup.js',
      '--import=tsx',
      '--title=$(id)',
      '--inspect',
    ])
      expect(authorFlags(project({ scripts: { bench: `node ${flags} bench/a.js` } }), 'bench/a.js'), flags).toBeUndefined();
  });

  it('is undefined when no script runs the file, and for a package.json that is missing, malformed or without scripts', () => {
    expect(authorFlags(project({ scripts: { bench: 'node --expose-gc bench/b.js' } }), 'bench/a.js')).toBeUndefined();
    expect(authorFlags(project({ scripts: { bench: 'nodemon --expose-gc bench/a.js' } }), 'bench/a.js')).toBeUndefined();
    expect(authorFlags(project('{ not json'), 'bench/a.js')).toBeUndefined();
    expect(authorFlags(project({ name: 'x' }), 'bench/a.js')).toBeUndefined();
    expect(authorFlags(project({ scripts: ['node --expose-gc bench/a.js'] }), 'bench/a.js')).toBeUndefined();
    expect(authorFlags(path.join(os.tmpdir(), 'benchgate-no-such-project'), 'bench/a.js')).toBeUndefined();
  });
});
