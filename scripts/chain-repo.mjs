// Builds a repository whose main branch is a chain of commits, each changing the work of one benchmark
// by a known factor: the history, drift and bisect tests and evaluation run on it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * @param {{ losses: number[], tags?: Record<number, string>, config: string, work?: number, broken?: number[], missing?: number[], lockfile?: boolean, server?: number }} options
 *   losses: per commit after the first, the throughput 'work' loses in it (0.03 = 3% fewer ops/s; 0 = untouched);
 *   tags: commit index (0 = the first) → tag name; config: benchgate.yml; work: the first commit's loop length;
 *   broken: commit indexes that do not install (a postinstall that fails, as a broken build step does);
 *   missing: commit indexes without bench/work.bench.js ('steady' alone, in bench/steady.bench.js), as before a
 *   bench file was written or while it was renamed; lockfile: every commit that installs has the same
 *   package-lock.json (one registry dependency, tinybench, unused by the bench files), as most commits of a real history do;
 *   server: each commit also has server.js, an HTTP server whose every request (but /health) loops `server` times
 *   the commit's length: the same steps as 'work', for a load test (declared in config) to bisect
 * @returns {{ dir: string, commits: string[] }} the repository and its commits, oldest first
 */
const MANIFEST = { name: 'chain', private: true, type: 'module' };
const LOCKFILE = `${JSON.stringify(
  {
    name: 'chain',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'chain', devDependencies: { tinybench: '6.2.3' } },
      'node_modules/tinybench': {
        version: '6.2.3',
        resolved: 'https://registry.npmjs.org/tinybench/-/tinybench-6.2.3.tgz',
        integrity: 'sha512-Al01C2JIBnO2CXCAPbpAl6sUiOZHeThGtHYNTa51JRw9PyWOCdr+9Ong05R4qg/Sk3+H645E8ov1h2c58ityNw==',
        dev: true,
        license: 'MIT',
        engines: { node: '>=20.0.0' },
      },
    },
  },
  null,
  2,
)}\n`;

export function makeChainRepo(options) {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'benchgate-chain-')));
  const git = (...args) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
  const write = (file, text) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  const base = options.work ?? 2000;
  git('init', '-q', '-b', 'main');
  write('benchgate.yml', options.config);
  const loop = 'const loop = (n) => { let s = 0; for (let i = 0; i < n; i++) s += i; return s; };';
  const commits = [];
  let length = base;
  for (let i = 0; i <= options.losses.length; i++) {
    if (i > 0) length = length / (1 - options.losses[i - 1]);
    write('src/length.js', `export const LENGTH = ${Math.round(length)};\n`);
    // A broken install: a local dependency (so that there is an install) and a postinstall that fails.
    const broken = options.broken?.includes(i);
    write(
      'package.json',
      broken
        ? `${JSON.stringify({ name: 'chain', private: true, type: 'module', scripts: { postinstall: 'node -e "console.error(\'postinstall: toolchain missing\'); process.exit(1)"' }, dependencies: { tiny: 'file:./vendor/tiny' } })}\n`
        : '{ "name": "chain", "private": true, "type": "module" }\n',
    );
    if (broken) write('vendor/tiny/package.json', '{ "name": "tiny", "version": "1.0.0" }\n');
    else rmSync(path.join(dir, 'vendor'), { recursive: true, force: true });
    if (options.lockfile && !broken) {
      write('package.json', `${JSON.stringify({ ...MANIFEST, devDependencies: { tinybench: '6.2.3' } }, null, 2)}\n`);
      write('package-lock.json', LOCKFILE);
    } else rmSync(path.join(dir, 'package-lock.json'), { force: true });
    // 'work' loops over its length; 'steady' never changes: a control the history must keep flat.
    if (options.missing?.includes(i)) {
      rmSync(path.join(dir, 'bench/work.bench.js'), { force: true });
      write('bench/steady.bench.js', `${loop}\nexport default { steady: () => loop(${base}) };\n`);
    } else {
      rmSync(path.join(dir, 'bench/steady.bench.js'), { force: true });
      write(
        'bench/work.bench.js',
        [
          "import { LENGTH } from '../src/length.js';",
          loop,
          `export default { work: () => loop(LENGTH), steady: () => loop(${base}) };`,
          '',
        ].join('\n'),
      );
    }
    if (options.server)
      write(
        'server.js',
        [
          "import http from 'node:http';",
          "import { LENGTH } from './src/length.js';",
          loop,
          `const server = http.createServer((req, res) => res.end(req.url === '/health' ? 'ok' : String(loop(LENGTH * ${options.server}))));`,
          'server.listen(Number(process.env.PORT), process.env.HOST);',
          '',
        ].join('\n'),
      );
    git('add', '-A');
    const loss = i === 0 ? 0 : options.losses[i - 1];
    git(
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      i === 0 ? 'first' : loss ? `step ${i}: work costs ${Math.round(loss * 1000) / 10}% more` : `step ${i}: untouched`,
    );
    commits.push(git('rev-parse', 'HEAD'));
    if (options.tags?.[i]) git('tag', options.tags[i]);
  }
  return { dir, commits };
}
