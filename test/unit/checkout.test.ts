import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { detectInstall } from '../../src/checkout/install.js';
import { installKey, Installs } from '../../src/checkout/reuse.js';
import { installPlan } from '../../src/history/anchor.js';
import { checkout, hasChanges, installHint, type Checkout, type CheckoutOptions } from '../../src/checkout/revisions.js';
import { UserError } from '../../src/util/errors.js';
import { CLAIM_FILE } from '../../src/checkout/folder.js';

/** Real git in temp directories: a repository with main (v1) and feature (v2) branches. */
const temps: string[] = [];
const open: Checkout[] = [];
afterEach(() => {
  for (const tree of open.splice(0)) tree.dispose();
});
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  temps.push(dir);
  return dir;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: 'pipe',
  }).trim();
}

function write(dir: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
}

function repository(files: Record<string, string> = {}): string {
  const dir = tempDir('benchgate-checkout-');
  git(dir, 'init', '-q', '-b', 'main');
  write(dir, { 'src/version.js': 'export const version = 1;\n', ...files });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'v1');
  git(dir, 'checkout', '-q', '-b', 'feature');
  write(dir, { 'src/version.js': 'export const version = 2;\n' });
  git(dir, 'commit', '-q', '-am', 'v2');
  return dir;
}

async function checkOut(options: Partial<CheckoutOptions> & { cwd: string }): Promise<Checkout> {
  const tree = await checkout({ base: 'main', install: false, build: undefined, log: () => {}, ...options });
  open.push(tree);
  return tree;
}

/** Worktrees git knows of, besides the repository's own. */
const worktrees = (repo: string) =>
  git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter((line) => line.startsWith('worktree ') && line !== `worktree ${repo}`);

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the checkout to fail');
}

describe('checking out base and head', () => {
  it('puts base in a temporary worktree and measures the working tree as head, clean', async () => {
    const repo = repository();
    const tree = await checkOut({ cwd: repo });
    expect(tree.base).toMatchObject({ label: 'base', ref: 'main', sha: git(repo, 'rev-parse', 'main'), dirty: false });
    // The repository's own folder (a hash of its path): the same in every run, so a rerun counts at the same paths.
    expect(tree.base.worktree).toMatch(new RegExp(`^${os.tmpdir()}/benchgate-[0-9a-f]{12}/base$`));
    expect(tree.base.root).toBe(tree.base.worktree);
    expect(readFileSync(path.join(tree.base.root, 'src/version.js'), 'utf8')).toContain('version = 1');
    expect(tree.head).toEqual({
      label: 'head',
      ref: 'working tree',
      sha: git(repo, 'rev-parse', 'HEAD'),
      root: repo,
      worktree: undefined,
      dirty: false,
    });
    expect(worktrees(repo)).toEqual([`worktree ${tree.base.worktree}`]);
  });

  it('checks out at the same paths in every run of a repository, and in a folder of its own beside a run that holds them', async () => {
    const repo = repository();
    git(repo, 'checkout', '-q', 'main');
    const first = await checkOut({ cwd: repo, head: 'feature' });
    const folder = path.dirname(first.base.worktree!);
    expect(readFileSync(path.join(folder, CLAIM_FILE), 'utf8').trim()).toBe(String(process.pid));
    // Held (this process lives): the next checkout goes elsewhere, and says why.
    const lines: string[] = [];
    const beside = await checkOut({ cwd: repo, head: 'feature', log: (line) => lines.push(line) });
    expect(path.dirname(beside.base.worktree!)).not.toBe(folder);
    expect(lines.join('\n')).toContain("a folder of this run's own (another run of this repository holds its usual one)");
    beside.dispose();
    first.dispose();
    expect(existsSync(folder)).toBe(false);
    // Released: the next run checks out where the first one did, base and head alike.
    const again = await checkOut({ cwd: repo, head: 'feature' });
    expect([again.base.worktree, again.head.worktree]).toEqual([first.base.worktree, first.head.worktree]);
    // Another repository has a folder of its own.
    const other = await checkOut({ cwd: repository() });
    expect(path.dirname(other.base.worktree!)).not.toBe(folder);
  });

  it('takes over the folder of a run killed before its cleanup: its worktrees removed, the checkout fresh', async () => {
    const repo = repository();
    const killed = await checkOut({ cwd: repo });
    const folder = path.dirname(killed.base.worktree!);
    write(killed.base.root, { 'left-over.txt': 'from the killed run\n' });
    // Its claim names a process that has exited (a run killed by SIGKILL, whose cleanup never ran).
    const gone = execFileSync(process.execPath, ['-p', 'process.pid'], { encoding: 'utf8' }).trim();
    writeFileSync(path.join(folder, CLAIM_FILE), `${gone}\n`);
    const tree = await checkOut({ cwd: repo });
    expect(tree.base.worktree).toBe(killed.base.worktree);
    expect(readFileSync(path.join(folder, CLAIM_FILE), 'utf8').trim()).toBe(String(process.pid));
    expect(existsSync(path.join(tree.base.root, 'left-over.txt'))).toBe(false);
    expect(readFileSync(path.join(tree.base.root, 'src/version.js'), 'utf8')).toContain('version = 1');
    expect(worktrees(repo)).toEqual([`worktree ${tree.base.worktree}`]);
  });

  it("marks uncommitted changes of the working tree as part of the measurement, but not benchgate's own output", async () => {
    const repo = repository();
    write(repo, { '.benchgate/profiles/x.cpuprofile': '{}' });
    expect((await checkOut({ cwd: repo })).head.dirty).toBe(false);
    write(repo, { 'src/version.js': 'export const version = 3;\n' });
    expect((await checkOut({ cwd: repo })).head.dirty).toBe(true);
  });

  it('checks out a named head in its own worktree', async () => {
    const repo = repository();
    git(repo, 'checkout', '-q', 'main');
    const tree = await checkOut({ cwd: repo, head: 'feature' });
    expect(tree.head).toMatchObject({ label: 'head', ref: 'feature', sha: git(repo, 'rev-parse', 'feature'), dirty: false });
    expect(tree.head.worktree).toBe(path.join(path.dirname(tree.base.worktree!), 'head'));
    expect(readFileSync(path.join(tree.head.root, 'src/version.js'), 'utf8')).toContain('version = 2');
    expect(worktrees(repo)).toHaveLength(2);
  });

  it('finds the project at the same place in each revision (a package in a monorepo)', async () => {
    const repo = repository({ 'packages/api/package.json': '{}\n' });
    const tree = await checkOut({ cwd: path.join(repo, 'packages/api') });
    expect(tree.base.root).toBe(path.join(tree.base.worktree!, 'packages/api'));
    expect(tree.head.root).toBe(path.join(repo, 'packages/api'));
  });

  it("installs a bench package in base's checkout, and says the working tree's is used as the user installed it", async () => {
    // A bench package with no lockfile: npm install (its one dependency a local folder, so nothing is fetched).
    const repo = repository({
      'examples/bench/package.json': '{ "name": "bench", "private": true, "dependencies": { "lib": "file:./lib" } }\n',
      'examples/bench/lib/package.json': '{ "name": "lib", "version": "1.0.0" }\n',
    });
    const lines: string[] = [];
    const tree = await checkOut({ cwd: repo, packages: () => ['examples/bench'], log: (line) => lines.push(line) });
    expect(lines).toContain(
      'install base: examples/bench/, the package its bench files are in: npm install --no-audit --no-fund --no-package-lock',
    );
    expect(lines.filter((line) => line.startsWith('install head:'))).toEqual([
      'install head: examples/bench/, the package its bench files are in, is used as installed in your working tree ' +
        "(benchgate installs only its own checkouts): if it installs the project's build, install it again after building",
    ]);
    // Installed in base's checkout; nothing installed in the user's tree.
    expect(existsSync(path.join(tree.base.root, 'examples/bench/node_modules/lib/package.json'))).toBe(true);
    expect(existsSync(path.join(repo, 'examples/bench/node_modules'))).toBe(false);
    expect(tree.head.worktree).toBeUndefined();
  });

  it('removes the worktrees and their folder on dispose, and a second dispose does nothing', async () => {
    const repo = repository();
    git(repo, 'checkout', '-q', 'main');
    const tree = await checkout({ cwd: repo, base: 'main', head: 'feature', install: false, build: undefined, log: () => {} });
    const temp = path.dirname(tree.base.worktree!);
    tree.dispose();
    expect(worktrees(repo)).toEqual([]);
    expect(existsSync(temp)).toBe(false);
    expect(() => tree.dispose()).not.toThrow();
    expect(worktrees(repo)).toEqual([]);
  });
});

describe('a working tree with changes', () => {
  it("sees the project's folder, or the whole repository (a monorepo's other package), benchgate's own output aside", async () => {
    const repo = tempDir('benchgate-changes-');
    git(repo, 'init', '-q');
    write(repo, { 'pkg/index.js': 'module.exports = 1\n', 'shared/x.js': 'module.exports = 2\n' });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'one');
    const pkg = path.join(repo, 'pkg');
    write(pkg, { '.benchgate/profiles/a.cpuprofile': '{}' });
    expect([await hasChanges(pkg), await hasChanges(pkg, undefined, 'repository')]).toEqual([false, false]);
    write(repo, { 'shared/x.js': 'module.exports = 3\n' });
    expect([await hasChanges(pkg), await hasChanges(pkg, undefined, 'repository')]).toEqual([false, true]);
    write(repo, { 'pkg/new.js': '' });
    expect([await hasChanges(pkg), await hasChanges(pkg, undefined, 'repository')]).toEqual([true, true]);
  });
});

describe('refusing bad revisions', () => {
  it('refuses a ref that git would read as an option, before running git with it', async () => {
    const repo = repository();
    for (const [option, ref] of [
      ['base', '--output=/tmp/pwned'],
      ['head', '-c'],
    ] as const) {
      const error = await failure(checkOut({ cwd: repo, [option]: ref }));
      expect(error).toBeInstanceOf(UserError);
      expect(error.message).toBe(
        `--${option} '${ref}' is not a git revision: give a branch, tag or commit sha (e.g. main, origin/main, v1.2.0).`,
      );
    }
    expect(worktrees(repo)).toEqual([]);
  });

  it('names a ref that does not resolve, where it looked, and how to fetch it', async () => {
    const repo = repository();
    const error = await failure(checkOut({ cwd: repo, base: 'no-such-branch' }));
    expect(error).toBeInstanceOf(UserError);
    expect(error.message).toBe(
      `--base 'no-such-branch' does not resolve to a commit in ${repo}. Check the name, or fetch it first (e.g. git fetch origin no-such-branch).`,
    );
    expect(worktrees(repo)).toEqual([]);
  });

  it('says when the folder is not in a git repository', async () => {
    const dir = tempDir('benchgate-nogit-');
    const error = await failure(checkOut({ cwd: dir }));
    expect(error).toBeInstanceOf(UserError);
    expect(error.message).toBe(`${dir} is not inside a git repository: benchgate compares git revisions.`);
  });
});

describe('installing and building', () => {
  it("gives corepack's signature failure its fix, whatever variables the command sets first", () => {
    const output = 'Internal Error: No compatible signature found in package metadata\n    at ...';
    for (const command of ['corepack pnpm install --frozen-lockfile', 'YARN_NODE_LINKER=node-modules corepack yarn install --immutable'])
      expect(installHint(command, output)).toMatch(/update corepack .* COREPACK_INTEGRITY_KEYS=0/);
    expect(installHint('npm ci', output)).toBeUndefined();
    expect(installHint('corepack pnpm install', 'ERR_PNPM_OUTDATED_LOCKFILE')).toBeUndefined();
  });

  it('picks the install command from the lockfile, in its reproducible mode', () => {
    const project = (files: Record<string, string>) => {
      const dir = tempDir('benchgate-install-');
      write(dir, files);
      return dir;
    };
    const manifest = (deps: object) => JSON.stringify({ name: 'x', ...deps });
    // pnpm and yarn installed (a runner with both on PATH), corepack too.
    const all = () => true;
    expect(detectInstall(project({ 'package.json': manifest({}), 'pnpm-lock.yaml': '' }), all)).toBe('pnpm install --frozen-lockfile');
    // yarn's lockfile: classic (v1 header) or berry (__metadata, or a .yarnrc.yml), each in its frozen mode.
    expect(detectInstall(project({ 'package.json': manifest({}), 'yarn.lock': '# yarn lockfile v1\n' }), all)).toBe(
      'yarn install --frozen-lockfile',
    );
    expect(detectInstall(project({ 'package.json': manifest({}), 'yarn.lock': '__metadata:\n  version: 8\n' }), all)).toBe(
      'YARN_NODE_LINKER=node-modules yarn install --immutable',
    );
    expect(detectInstall(project({ 'package.json': manifest({}), 'yarn.lock': '', '.yarnrc.yml': '' }), all)).toBe(
      'YARN_NODE_LINKER=node-modules yarn install --immutable',
    );
    expect(detectInstall(project({ 'package.json': manifest({}), 'package-lock.json': '{}' }), all)).toBe('npm ci --no-audit --no-fund');
    expect(detectInstall(project({ 'package.json': manifest({}), 'npm-shrinkwrap.json': '{}' }), all)).toBe('npm ci --no-audit --no-fund');
    // pnpm's lockfile wins over a stray package-lock.json, yarn's too.
    expect(detectInstall(project({ 'pnpm-lock.yaml': '', 'yarn.lock': '', 'package-lock.json': '{}' }), all)).toBe(
      'pnpm install --frozen-lockfile',
    );
    expect(detectInstall(project({ 'yarn.lock': '', 'package-lock.json': '{}' }), all)).toBe('yarn install --frozen-lockfile');
    // packageManager names the tool: corepack runs that version, whatever else is on PATH (nanoid's pnpm, a berry yarn).
    const named = (pm: string, lock: string, text = '') => project({ 'package.json': manifest({ packageManager: pm }), [lock]: text });
    expect(detectInstall(named('pnpm@9.15.9', 'pnpm-lock.yaml'), all)).toBe('corepack pnpm install --frozen-lockfile');
    expect(detectInstall(named('yarn@4.5.3+sha512.abc', 'yarn.lock'), all)).toBe(
      'YARN_NODE_LINKER=node-modules corepack yarn install --immutable',
    );
    expect(detectInstall(named('yarn@1.22.22', 'yarn.lock'), all)).toBe('corepack yarn install --frozen-lockfile');
    // The tool not installed: corepack's own version of it; neither it nor corepack: a clear error, before installing.
    const only =
      (...commands: string[]) =>
      (command: string) =>
        commands.includes(command);
    expect(detectInstall(project({ 'pnpm-lock.yaml': '' }), only('corepack'))).toBe('corepack pnpm install --frozen-lockfile');
    // No packageManager: the major that wrote the lockfile (corepack's newest refuses an older lockfile in frozen mode).
    const lock = (file: string, text: string) => detectInstall(project({ [file]: text }), only('corepack'));
    expect(lock('pnpm-lock.yaml', "lockfileVersion: '9.0'\n")).toBe('corepack pnpm install --frozen-lockfile');
    expect(lock('pnpm-lock.yaml', "lockfileVersion: '6.0'\n")).toBe('corepack pnpm@8 install --frozen-lockfile');
    expect(lock('pnpm-lock.yaml', 'lockfileVersion: 5.4\n')).toBe('corepack pnpm@7 install --frozen-lockfile');
    expect(lock('pnpm-lock.yaml', 'lockfileVersion: 5.3\n')).toBe('corepack pnpm@6 install --frozen-lockfile');
    expect(lock('yarn.lock', '# yarn lockfile v1\n')).toBe('corepack yarn@1 install --frozen-lockfile');
    expect(lock('yarn.lock', '__metadata:\n  version: 6\n')).toBe('YARN_NODE_LINKER=node-modules corepack yarn@3 install --immutable');
    expect(lock('yarn.lock', '__metadata:\n  version: 8\n')).toBe('YARN_NODE_LINKER=node-modules corepack yarn install --immutable');
    // packageManager names the version: corepack reads it there, never a major of ours beside it.
    expect(detectInstall(named('pnpm@8.15.9', 'pnpm-lock.yaml', "lockfileVersion: '6.0'\n"), all)).toBe(
      'corepack pnpm install --frozen-lockfile',
    );
    expect(() => detectInstall(project({ 'pnpm-lock.yaml': '' }), only())).toThrow(
      /lockfile is pnpm's, and pnpm is not installed: install pnpm, or corepack .*"packageManager": "pnpm@<version>".*or set install in benchgate\.yml/,
    );
    expect(() => detectInstall(project({ 'bun.lock': '' }), only('corepack'))).toThrow(/bun is not installed: install bun first/);
    expect(detectInstall(project({ 'bun.lock': '' }), only('bun'))).toBe('bun install --frozen-lockfile');
    // yarn 2+ with neither it nor corepack: the command the error offers links into node_modules, as ours would.
    expect(() => detectInstall(named('yarn@4.5.3', 'yarn.lock'), only())).toThrow(
      /the command it would run: YARN_NODE_LINKER=node-modules yarn install --immutable\)/,
    );
    // No lockfile: install the dependencies there are, without writing a lockfile; none, nothing to install.
    expect(detectInstall(project({ 'package.json': manifest({ devDependencies: { tinybench: '^6' } }) }))).toBe(
      'npm install --no-audit --no-fund --no-package-lock',
    );
    expect(detectInstall(project({ 'package.json': manifest({ dependencies: {} }) }))).toBeUndefined();
    expect(detectInstall(project({ 'package.json': 'not json' }))).toBeUndefined();
    expect(detectInstall(project({}))).toBeUndefined();
  });

  it("installs in the worktrees only, never in the working tree (it is the user's), and builds both", async () => {
    const repo = repository();
    const lines: string[] = [];
    const tree = await checkOut({ cwd: repo, install: 'touch installed', build: 'touch built', log: (line) => lines.push(line) });
    expect(existsSync(path.join(tree.base.root, 'installed'))).toBe(true);
    expect(existsSync(path.join(repo, 'installed'))).toBe(false);
    expect(existsSync(path.join(tree.base.root, 'built'))).toBe(true);
    expect(existsSync(path.join(repo, 'built'))).toBe(true);
    expect(lines.filter((line) => !line.includes(': done in '))).toEqual([
      'install base: touch installed',
      'build base: touch built',
      'build head: touch built',
    ]);
  });

  it('runs the detected install when the config names none, and none with install: false', async () => {
    // A package-lock.json in the repository: base gets `npm ci`, here stood in for by a PATH entry.
    const repo = repository({ 'package-lock.json': '{}\n', 'package.json': '{ "name": "x" }\n' });
    const bin = tempDir('benchgate-bin-');
    writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\necho "$@" > npm-args\n', { mode: 0o755 });
    const pathBefore = process.env.PATH;
    process.env.PATH = `${bin}:${pathBefore}`;
    try {
      const detected = await checkOut({ cwd: repo, install: undefined });
      expect(readFileSync(path.join(detected.base.root, 'npm-args'), 'utf8').trim()).toBe('ci --no-audit --no-fund');
      const skipped = await checkOut({ cwd: repo, install: false });
      expect(existsSync(path.join(skipped.base.root, 'npm-args'))).toBe(false);
    } finally {
      process.env.PATH = pathBefore;
    }
  });

  it('removes the worktrees and their folder when an install fails, and says which and why', async () => {
    const repo = repository();
    git(repo, 'checkout', '-q', 'main');
    const where = path.join(tempDir('benchgate-where-'), 'pwd');
    const error = await failure(
      checkOut({ cwd: repo, head: 'feature', install: `pwd > ${where}; echo npm ERR! could not reach the registry >&2; exit 3` }),
    );
    expect(error).toBeInstanceOf(UserError);
    const base = readFileSync(where, 'utf8').trim();
    expect(error.message).toBe(
      `The install of base (main @ ${git(repo, 'rev-parse', '--short=7', 'main')}) failed: \`pwd > ${where}; echo npm ERR! could not reach the registry >&2; exit 3\` exited with code 3 in ${base}.\nLast lines of its output:\n  npm ERR! could not reach the registry`,
    );
    // Head's worktree was made before base's install ran; both are gone, and the folder that held them.
    expect(worktrees(repo)).toEqual([]);
    expect(existsSync(path.dirname(base))).toBe(false);
  });

  it("says what to do when corepack cannot verify the package manager it fetches, before corepack's own stack", async () => {
    const repo = repository();
    // corepack's own failure (an older corepack, or a mirror that serves no signatures), as rou3's pnpm install read it.
    const install =
      'corepack --version > /dev/null 2>&1; echo "Error: No compatible signature found in package metadata" >&2; ' +
      'echo "    at verifySignature (corepack.cjs:21999:63)" >&2; exit 1';
    const error = await failure(checkOut({ cwd: repo, install }));
    expect(error).toBeInstanceOf(UserError);
    const [first] = error.message.split('\n');
    expect(first).toMatch(/exited with code 1 in .*\. corepack could not verify the package manager's signature: update corepack/);
    expect(first).toContain('COREPACK_INTEGRITY_KEYS=0');
    // The same output from a command that is not corepack's is not explained as corepack's.
    const other = await failure(checkOut({ cwd: repository(), install: install.replace('corepack --version', 'true') }));
    expect(other.message).not.toContain('corepack could not verify');
  });
});

describe('installs reused', () => {
  // An "install" that writes node_modules from the lockfile's text and counts its runs in a file outside the repo.
  const installer = () => {
    const bin = tempDir('benchgate-bin-');
    const counter = path.join(bin, 'runs');
    writeFileSync(counter, '');
    const command = `mkdir -p node_modules/dep/.bin && cp package-lock.json node_modules/dep/lock.json && ln -sf ../lock.json node_modules/dep/.bin/link && echo run >> ${counter}`;
    return { command, runs: () => readFileSync(counter, 'utf8').split('\n').filter(Boolean).length };
  };
  const npmProject = (extra: Record<string, unknown> = {}) => ({
    'package-lock.json': '{ "lockfileVersion": 3, "packages": { "node_modules/dep": { "version": "1.0.0" } } }\n',
    'package.json': `${JSON.stringify({ name: 'x', dependencies: { dep: '1.0.0' }, ...extra })}\n`,
  });

  it('installs and builds the same commit once when head is base (an A/A compare), even where installs are never reused', async () => {
    const { command, runs } = installer();
    // A prepare script: no install of it is ever reused between commits, but the same commit is the same tree.
    const repo = repository(npmProject({ scripts: { prepare: 'node -e 0' } }));
    const lines: string[] = [];
    const tree = await checkOut({
      cwd: repo,
      head: 'main',
      install: command,
      build: 'mkdir -p out && echo $PWD > out/built',
      log: (line) => lines.push(line),
    });
    expect(runs()).toBe(1);
    expect(lines.filter((line) => line.startsWith('build '))).toEqual([
      'build base: mkdir -p out && echo $PWD > out/built',
      expect.stringMatching(/^build base: done in /),
    ]);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^install head: the same commit as base: what base's install and build wrote linked \(2 entries, \d+\.\ds\), not installed or built again$/,
      ),
    );
    // head's own tree, with base's install and build output in it; its worktree is still its own (git knows it).
    expect(tree.head.root).not.toBe(tree.base.root);
    expect(readFileSync(path.join(tree.head.root, 'node_modules/dep/lock.json'), 'utf8')).toBe(npmProject()['package-lock.json']);
    expect(realpathSync(path.join(tree.head.root, 'node_modules/dep/.bin/link'))).toBe(
      realpathSync(path.join(tree.head.root, 'node_modules/dep/lock.json')),
    );
    expect(existsSync(path.join(tree.head.root, 'out/built'))).toBe(true);
    expect(git(tree.head.root, 'rev-parse', '--show-toplevel')).toBe(realpathSync(tree.head.worktree!));
    tree.dispose();
  });

  it('copies base’s install to head when the lockfile and package.json are the same, and installs head when they differ', async () => {
    const { command, runs } = installer();
    const repo = repository(npmProject());
    const lines: string[] = [];
    const tree = await checkOut({ cwd: repo, head: 'feature', install: command, log: (line) => lines.push(line) });
    expect(runs()).toBe(1);
    const copy = path.join(tree.head.root, 'node_modules/dep');
    expect(readFileSync(path.join(copy, 'lock.json'), 'utf8')).toBe(npmProject()['package-lock.json']);
    // Symbolic links stay relative: they point into head's own copy, never back into base's.
    expect(realpathSync(path.join(copy, '.bin/link'))).toBe(realpathSync(path.join(copy, 'lock.json')));
    expect(lines).toContainEqual(
      `install head: reused the install of base (main @ ${tree.base.sha.slice(0, 7)}) (the same package-lock.json and package.json)`,
    );
    tree.dispose();

    // head's lockfile changes: its own install runs.
    git(repo, 'checkout', '-q', 'feature');
    write(repo, { 'package-lock.json': npmProject()['package-lock.json'].replace('1.0.0', '1.0.1') });
    git(repo, 'commit', '-q', '-am', 'bump dep');
    const { command: second, runs: secondRuns } = installer();
    const bumped = await checkOut({ cwd: repo, head: 'feature', install: second });
    expect(secondRuns()).toBe(2);
    expect(readFileSync(path.join(bumped.head.root, 'node_modules/dep/lock.json'), 'utf8')).toContain('1.0.1');
  });

  it('never reuses an install whose command installs in another folder too (a bench folder of its own)', () => {
    const root = tempDir('benchgate-project-');
    write(root, npmProject());
    expect(installKey(root, 'npm install && cd benchmarks && npm install')).toEqual({
      key: undefined,
      reason: '`npm install && cd benchmarks && npm install` installs in another folder too',
    });
    expect(installKey(root, 'npm ci --prefix bench').key).toBeUndefined();
    expect(installKey(root, 'npm ci --no-audit').key).toMatch(/^[0-9a-f]{32}$/);
  });

  it.each([
    ['its own prepare script', { scripts: { prepare: 'node build.js' } }],
    ['workspaces', { workspaces: ['packages/*'] }],
    ["'local' from file:../local", { dependencies: { local: 'file:../local' } }],
  ])('never reuses an install when the project has %s: install writes outside node_modules', async (reason, extra) => {
    const root = tempDir('benchgate-project-');
    write(root, npmProject(extra));
    expect(installKey(root, 'npm ci')).toEqual({ key: undefined, reason });
    const { command, runs } = installer();
    const repo = repository(npmProject(extra));
    const lines: string[] = [];
    await checkOut({ cwd: repo, head: 'feature', install: command, log: (line) => lines.push(line) });
    expect(runs()).toBe(2);
    // The log says why head installed again.
    expect(lines).toContain(`install head: installed anew, never reused (${reason}: node_modules may not be all it writes)`);
  });

  it('keys an install by the command, the lockfile and package.json, for later runs too (npm, pnpm and yarn lockfiles)', () => {
    const root = tempDir('benchgate-project-');
    write(root, npmProject());
    const first = installKey(root, 'npm ci');
    expect(first).toEqual({
      key: expect.stringMatching(/^[0-9a-f]{32}$/),
      same: 'the same package-lock.json and package.json',
      acrossRuns: true,
    });
    expect(installKey(root, 'npm ci --omit=dev').key).not.toBe(first.key);
    write(root, { 'package.json': npmProject({ description: 'changed' })['package.json'] });
    expect(installKey(root, 'npm ci').key).not.toBe(first.key);
    for (const lockfile of ['yarn.lock', 'pnpm-lock.yaml']) {
      const other = tempDir('benchgate-project-');
      write(other, { [lockfile]: 'lock\n', 'package.json': '{}' });
      const key = installKey(other, 'install');
      expect(key).toMatchObject({ same: `the same ${lockfile} and package.json`, acrossRuns: true });
      write(other, { [lockfile]: 'lock 2\n' });
      expect(installKey(other, 'install').key).not.toBe(key.key);
    }
  });

  it('keys an install without a lockfile by its dependency set, for this run only', () => {
    const root = tempDir('benchgate-project-');
    const manifest = (extra: Record<string, unknown> = {}) => ({
      'package.json': `${JSON.stringify({ name: 'x', version: '1.0.0', dependencies: { dep: '^1.0.0' }, ...extra })}\n`,
    });
    write(root, manifest());
    const key = installKey(root, 'npm install');
    expect(key).toEqual({
      key: expect.stringMatching(/^run-[0-9a-f]{28}$/),
      same: 'the same dependency set, no lockfile',
      acrossRuns: false,
    });
    // What does not change the install (another version, description or script) keeps the key: each commit of a range has its own.
    write(root, manifest({ version: '1.0.1', description: 'x', scripts: { test: 'node test.js' } }));
    expect(installKey(root, 'npm install').key).toBe(key.key);
    // What does changes it: a range, an override, the package manager, the project's .npmrc, the command.
    for (const changed of [
      manifest({ dependencies: { dep: '^1.1.0' } }),
      manifest({ devDependencies: { tool: '1' } }),
      manifest({ overrides: { dep: '1.0.0' } }),
      manifest({ packageManager: 'pnpm@9.0.0' }),
    ]) {
      write(root, changed);
      expect(installKey(root, 'npm install').key, changed['package.json']).not.toBe(key.key);
    }
    write(root, { ...manifest(), '.npmrc': 'registry=https://registry.example/\n' });
    expect(installKey(root, 'npm install').key).not.toBe(key.key);
    rmSync(path.join(root, '.npmrc'));
    expect(installKey(root, 'npm install').key).toBe(key.key);
    expect(installKey(root, 'npm install --omit=dev').key).not.toBe(key.key);
  });

  it("counts a range's dependency sets from its commits' own files, before any is checked out", async () => {
    const dir = tempDir('benchgate-plan-');
    git(dir, 'init', '-q', '-b', 'main');
    const commitWith = (files: Record<string, string>, message: string) => {
      write(dir, files);
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '-m', message);
      return git(dir, 'rev-parse', 'HEAD');
    };
    const manifest = (extra: Record<string, unknown>) => ({
      'app/package.json': `${JSON.stringify({ name: 'x', dependencies: { dep: '^1.0.0' }, ...extra })}\n`,
    });
    const commits = [
      commitWith(manifest({ version: '1.0.0' }), 'one'),
      commitWith(manifest({ version: '1.0.1' }), 'a version bump: the same set'),
      commitWith({ 'app/src.js': 'x\n' }, 'code only'),
      commitWith(manifest({ version: '1.0.1', dependencies: { dep: '^1.1.0' } }), 'a new range'),
      commitWith(manifest({ version: '1.0.1', dependencies: { dep: '^1.1.0' }, scripts: { prepare: 'tsc' } }), 'its own prepare'),
    ];
    // The project is app/: its files are read there, at each commit.
    const plan = await installPlan(commits, path.join(dir, 'app'), undefined);
    expect(plan).toEqual({ sets: 2, unshared: [{ commit: commits[4], reason: 'its own prepare script' }], none: 0 });
    expect(await installPlan(commits, path.join(dir, 'app'), false)).toEqual({ sets: 0, unshared: [], none: 5 });
  });

  it('keeps an install without a lockfile in the run’s folder, never in the cache for later runs', () => {
    const cache = tempDir('benchgate-cache-');
    const run = tempDir('benchgate-run-');
    const root = tempDir('benchgate-project-');
    write(root, { 'node_modules/x/index.js': 'x\n' });
    const installs = new Installs(cache, run);
    installs.remember('run-abc', root, 'base (main @ 1234567)', false);
    installs.remember('lockkey', root, 'base (main @ 1234567)', true);
    expect(readdirSync(cache)).toEqual(['lockkey']);
    expect(readdirSync(run)).toEqual(['run-abc']);
    // This run finds both (the run's copy outlives the checkout that made it); a later run only the cached one.
    rmSync(path.join(root, 'node_modules'), { recursive: true });
    expect(installs.find('run-abc')).toEqual({ from: path.join(run, 'run-abc', 'node_modules'), what: 'base (main @ 1234567)' });
    const later = new Installs(cache, tempDir('benchgate-run-'));
    expect(later.find('run-abc')).toBeUndefined();
    expect(later.find('lockkey')?.from).toBe(path.join(cache, 'lockkey', 'node_modules'));
  });

  it('keeps installs in a folder for later runs (another Installs, worktrees gone), the 8 most recently used', async () => {
    const folder = tempDir('benchgate-cache-');
    const { command, runs } = installer();
    const repo = repository(npmProject());
    const first = await checkOut({ cwd: repo, head: 'feature', install: command, installs: new Installs(folder) });
    first.dispose();
    const lines: string[] = [];
    const later = await checkOut({
      cwd: repo,
      head: 'feature',
      install: command,
      installs: new Installs(folder),
      log: (l) => lines.push(l),
    });
    expect(runs()).toBe(1);
    expect(existsSync(path.join(later.base.root, 'node_modules/dep/lock.json'))).toBe(true);
    expect(lines).toContainEqual(
      `install base: reused the install of an earlier run, kept in ${folder} (the same package-lock.json and package.json)`,
    );
    // Nine more installs kept: the least recently used go, never a half-written copy left behind.
    const installs = new Installs(folder);
    for (let i = 0; i < 9; i++) {
      const root = tempDir('benchgate-project-');
      write(root, { 'node_modules/x/index.js': `${i}\n` });
      installs.remember(`key${i}`, root, `root ${i}`);
    }
    const kept = readdirSync(folder);
    expect(kept).toHaveLength(8);
    expect(kept).toContain('key8');
    expect(kept.some((name) => name.startsWith('.'))).toBe(false);
  });
});
