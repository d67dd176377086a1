import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import { formatDuration } from '../util/format.js';
import { runShell } from '../util/processes.js';
import { isRevisionName } from '../config/revision.js';
import { git as defaultGit, GitError, gitSync, type Git } from './git.js';
import { claimFolder } from './folder.js';
import { detectInstall } from './install.js';
import { installKey, Installs } from './reuse.js';

export type RevisionLabel = 'base' | 'head';

/** One side of the comparison, checked out, installed and built. */
export interface Revision {
  readonly label: RevisionLabel;
  /** The ref as the user gave it, or "working tree". */
  readonly ref: string;
  readonly sha: string;
  /** The project directory inside this revision's checkout: bench files, install and build live here. */
  readonly root: string;
  /** The temporary worktree benchgate created for it, if any. */
  readonly worktree: string | undefined;
  /** The working tree has uncommitted changes that are part of the measurement. */
  readonly dirty: boolean;
}

export interface CheckoutOptions {
  /** The project directory in the user's checkout (where benchgate.yml lives). */
  cwd: string;
  base: string;
  /** A ref, or undefined for the working tree as it is (uncommitted changes included). */
  head?: string | undefined;
  install: string | false | undefined;
  build: string | undefined;
  log: (line: string) => void;
  /** Registers a cleanup for SIGINT/SIGTERM (from the moment a worktree may exist); returns its deregistration. */
  onCleanup?: ((cleanup: () => void) => () => void) | undefined;
  git?: Git;
  /** Bound on each install and build command (install-timeout); default DEFAULT_COMMAND_TIMEOUT_MS. */
  commandTimeoutMs?: number;
  /** Installs to reuse and to add to (a bisect's steps share one); default: this checkout's own (head reuses base's). */
  installs?: Installs | undefined;
  /**
   * Called once both revisions are checked out, before anything is installed or built: what can be known from the
   * files alone (the config at base, the bench files) is checked here, so a run with nothing to measure costs no install.
   */
  beforeInstall?: ((tree: { base: Revision; head: Revision }) => Promise<void> | void) | undefined;
  /** Folders (relative to a revision's project) of packages of their own to install after its install and build. */
  packages?: ((revision: Revision) => string[]) | undefined;
}

export interface Checkout {
  readonly base: Revision;
  readonly head: Revision;
  /** Remove the worktrees; synchronous so it can run from a signal handler. Safe to call twice. */
  dispose(): void;
}

/**
 * Check out base and head side by side: each revision other than the working
 * tree gets a detached git worktree in a temporary directory; each is installed
 * and built. On any failure the worktrees created so far are removed before the error propagates.
 */
export async function checkout(options: CheckoutOptions): Promise<Checkout> {
  const run = options.git ?? defaultGit;
  const repoRoot = await findRepoRoot(run, options.cwd);
  const projectDir = path.relative(repoRoot, realpathSync(options.cwd));
  const baseSha = await resolveRef(run, repoRoot, options.base, '--base');
  const headSha =
    options.head === undefined ? await resolveRef(run, repoRoot, 'HEAD', 'HEAD') : await resolveRef(run, repoRoot, options.head, '--head');

  // The repository's own folder, so a rerun checks out where this run does (counts depend on the paths: folder.ts).
  // A killed run's folder: removed whole, and git's record of the worktrees it held pruned (removeWorktrees).
  const folder = claimFolder(repoRoot, os.tmpdir(), (stale) => removeWorktrees(repoRoot, [], stale));
  if (!folder.stable)
    options.log(
      `checkout: ${folder.path}, a folder of this run's own (another run of this repository holds its usual one): ` +
        'counts may read other figures than in a run there',
    );
  const temp = folder.path;
  const created: string[] = [];
  const dispose = () => {
    forget?.();
    removeWorktrees(repoRoot, created, temp);
  };
  const forget = options.onCleanup?.(dispose);
  try {
    const addWorktree = async (label: RevisionLabel, sha: string): Promise<string> => {
      const dir = path.join(temp, label);
      await run(['worktree', 'add', '--detach', '--force', dir, sha], repoRoot);
      created.push(dir);
      return dir;
    };
    const baseTree = await addWorktree('base', baseSha);
    const base: Revision = {
      label: 'base',
      ref: options.base,
      sha: baseSha,
      root: path.join(baseTree, projectDir),
      worktree: baseTree,
      dirty: false,
    };
    let head: Revision;
    if (options.head === undefined) {
      head = await describeWorkingTree(run, options.cwd, headSha);
    } else {
      const headTree = await addWorktree('head', headSha);
      head = { label: 'head', ref: options.head, sha: headSha, root: path.join(headTree, projectDir), worktree: headTree, dirty: false };
    }
    await options.beforeInstall?.({ base, head });
    const installs = options.installs ?? new Installs();
    await prepare(base, options, installs);
    if (head.worktree !== undefined && head.sha === base.sha && needsPreparing(base, options)) {
      await copyPrepared(run, base, head, options.log);
    } else {
      await prepare(head, options, installs);
    }
    return { base, head, dispose };
  } catch (error) {
    dispose();
    throw error;
  }
}

/** The user's working tree as the head revision, uncommitted changes included: never checked out, never installed. */
async function describeWorkingTree(run: Git, cwd: string, sha: string): Promise<Revision> {
  return { label: 'head', ref: 'working tree', sha, root: realpathSync(cwd), worktree: undefined, dirty: await hasChanges(cwd, run) };
}

/**
 * Whether the working tree differs from its commit, changed or untracked files (benchgate's own output aside): in the
 * folder `cwd` (the project), or anywhere in its repository (`repository`: a monorepo's other packages too).
 */
export async function hasChanges(cwd: string, run: Git = defaultGit, scope: 'folder' | 'repository' = 'folder'): Promise<boolean> {
  // benchgate's own output (.benchgate/profiles) is not a change to the project.
  const where = scope === 'repository' ? ':/' : '.';
  const status = await run(['status', '--porcelain', '--untracked-files=normal', '--', where, ':(exclude).benchgate'], cwd);
  return status.length > 0;
}

/** The working tree alone (`benchgate list` without revisions): no worktree, no install, no build. */
export async function workingTree(cwd: string, run: Git = defaultGit): Promise<Revision> {
  const repoRoot = await findRepoRoot(run, cwd);
  return describeWorkingTree(run, cwd, await resolveRef(run, repoRoot, 'HEAD', 'HEAD'));
}

async function findRepoRoot(run: Git, cwd: string): Promise<string> {
  try {
    return realpathSync(await run(['rev-parse', '--show-toplevel'], cwd));
  } catch (error) {
    if (error instanceof GitError) throw new UserError(`${cwd} is not inside a git repository: benchgate compares git revisions.`);
    throw error;
  }
}

async function resolveRef(run: Git, repoRoot: string, ref: string, flag: string): Promise<string> {
  if (!isRevisionName(ref))
    throw new UserError(`${flag} '${ref}' is not a git revision: give a branch, tag or commit sha (e.g. main, origin/main, v1.2.0).`);
  try {
    return await run(['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`], repoRoot);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    const hint = flag === 'HEAD' ? 'Make a first commit.' : `Check the name, or fetch it first (e.g. git fetch origin ${ref}).`;
    throw new UserError(`${flag} '${ref}' does not resolve to a commit in ${repoRoot}. ${hint}`);
  }
}

/** install-timeout's default: generous, since a cold npm install of a large project takes minutes. */
const DEFAULT_COMMAND_TIMEOUT_MS = 15 * 60_000;

/** Install and build one revision; the working tree is built but never re-installed (it is the user's). */
async function prepare(revision: Revision, options: CheckoutOptions, installs: Installs): Promise<void> {
  const describe = `${revision.label} (${revision.ref} @ ${revision.sha.slice(0, 7)})`;
  if (!existsSync(revision.root)) {
    throw new UserError(`The project directory ${path.basename(revision.root)} does not exist in ${describe}.`);
  }
  const install =
    revision.worktree === undefined
      ? undefined
      : options.install === undefined
        ? detectInstall(revision.root)
        : options.install || undefined;
  for (const [step, command] of [
    ['install', install],
    ['build', options.build],
  ] as const) {
    if (!command) continue;
    const reuse = step === 'install' ? installKey(revision.root, command) : undefined;
    const from = reuse?.key === undefined ? undefined : restore(installs, reuse.key, revision.root);
    if (from && reuse?.key !== undefined) {
      options.log(`install ${revision.label}: reused the install of ${from} (${reuse.same})`);
      continue;
    }
    // Why head installs again after base, where nothing is reused: the log says, as a user asks.
    if (reuse && reuse.key === undefined && revision.label === 'head')
      options.log(`install ${revision.label}: installed anew, never reused (${reuse.reason}: node_modules may not be all it writes)`);
    options.log(`${step} ${revision.label}: ${command}`);
    await runStep(step, command, revision.root, { label: revision.label, describe }, options);
    if (reuse?.key !== undefined) installs.remember(reuse.key, revision.root, describe, reuse.acrossRuns);
  }
  await installPackages(revision, options, describe);
}

/** One install or build command in `cwd`: done, or a UserError with its last lines of output. */
async function runStep(
  step: string,
  command: string,
  cwd: string,
  { label, describe }: { label: string; describe: string },
  options: CheckoutOptions,
): Promise<void> {
  const started = Date.now();
  const limit = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const result = await runShell(command, { cwd, timeoutMs: limit });
  if (result.code !== 0) {
    const how = result.timedOut
      ? `did not finish within install-timeout (${formatDuration(limit)}) and was killed`
      : result.signal
        ? `was killed by ${result.signal}`
        : `exited with code ${result.code}`;
    const tail = result.tail.lines(20);
    const hint = installHint(command, tail);
    throw new UserError(
      `The ${step} of ${describe} failed: \`${command}\` ${how} in ${cwd}.${hint ? ` ${hint}` : ''}\nLast lines of its output:\n${indent(tail)}`,
    );
  }
  options.log(`${step} ${label}: done in ${((Date.now() - started) / 1000).toFixed(1)}s`);
}

/**
 * What to do about an install that failed for a reason outside the project, where its output says which. corepack
 * checks the package manager it downloads against npm's signing keys; a corepack older than the keys the registry now
 * signs with, or a registry mirror that serves no signatures, stops it with "No compatible signature found" and a
 * stack trace of its own (rou3, ohash and destr here, pnpm through corepack 0.34 and this machine's registry).
 */
export function installHint(command: string, output: string): string | undefined {
  // The command may set variables first (yarn 2+: YARN_NODE_LINKER=node-modules corepack yarn ...).
  if (/^(?:\w+=\S*\s+)*corepack\b/.test(command) && /no compatible signature|signature.*(?:mismatch|verif)/i.test(output))
    return (
      "corepack could not verify the package manager's signature: update corepack (npm install -g corepack@latest), " +
      'or, behind a registry mirror you trust that serves no signatures, set COREPACK_INTEGRITY_KEYS=0 in the environment.'
    );
  return undefined;
}

/**
 * The packages of their own that bench files live in (uuid's examples/benchmark, whose package.json depends on the
 * project as built): each installed in its folder, after the project's own install and build, with the command its
 * lockfile calls for. A worktree's only: the user's working tree is never installed.
 */
async function installPackages(revision: Revision, options: CheckoutOptions, describe: string): Promise<void> {
  if (revision.worktree === undefined) {
    // The user's own tree is used as installed; a package that installs the build (uuid's file:…/uuid.tgz) keeps the
    // copy of its last install, which may be older than the build just made: said, so a stale head is never silent.
    for (const dir of options.packages?.(revision) ?? [])
      options.log(
        `install ${revision.label}: ${dir}/, the package its bench files are in, is used as installed in your working tree ` +
          `(benchgate installs only its own checkouts): if it installs the project's build, install it again after building`,
      );
    return;
  }
  for (const dir of options.packages?.(revision) ?? []) {
    const folder = path.join(revision.root, dir);
    const command = detectInstall(folder);
    if (!command) continue;
    options.log(`install ${revision.label}: ${dir}/, the package its bench files are in: ${command}`);
    await runStep('install', command, folder, { label: revision.label, describe: `${describe}, in ${dir}/` }, options);
  }
}

function needsPreparing(revision: Revision, options: CheckoutOptions): boolean {
  return (
    Boolean(options.build) ||
    Boolean(options.packages?.(revision).length) ||
    Boolean(revision.worktree === undefined ? undefined : (options.install ?? detectInstall(revision.root)))
  );
}

/**
 * head is base's commit (an A/A compare, `--base X --head X`): what base's install and build wrote in its checkout
 * (node_modules, a build folder, a nested benchmark package's install: every file git does not track) is linked into
 * head's, where installing and building the same commit again would only take as long and give the same files. Hard
 * links (`cp -al`, one inode for two names: a tree of 20,000 files in seconds) where the filesystem allows, a copy
 * otherwise; the files git tracks are head's own checkout already.
 */
async function copyPrepared(run: Git, base: Revision, head: Revision, log: (line: string) => void): Promise<void> {
  const started = Date.now();
  const listed = await Promise.all(
    [
      ['--others', '--exclude-standard', '--directory'],
      ['--others', '--ignored', '--exclude-standard', '--directory'],
    ].map((args) => run(['ls-files', '-z', ...args], base.worktree!)),
  );
  const entries = [
    ...new Set(
      listed
        .flatMap((out) => out.split('\0'))
        .map((entry) => entry.replace(/\/$/, ''))
        .filter(Boolean),
    ),
  ];
  let how = 'linked';
  for (const entry of entries) {
    const from = path.join(base.worktree!, entry);
    const to = path.join(head.worktree!, entry);
    mkdirSync(path.dirname(to), { recursive: true });
    try {
      execFileSync('cp', ['-al', '--no-target-directory', from, to], { stdio: 'ignore' });
    } catch {
      rmSync(to, { recursive: true, force: true });
      cpSync(from, to, { recursive: true, force: true, verbatimSymlinks: true });
      how = 'copied';
    }
  }
  log(
    `install head: the same commit as base: what base's install and build wrote ${how} ` +
      `(${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}, ${((Date.now() - started) / 1000).toFixed(1)}s), not installed or built again`,
  );
}

/** A known install of `key` copied into `root`: what it came from, or undefined to install (none, or the copy failed). */
function restore(installs: Installs, key: string, root: string): string | undefined {
  const found = installs.find(key);
  if (!found) return undefined;
  try {
    installs.restore(found, root);
    return found.what;
  } catch {
    rmSync(path.join(root, 'node_modules'), { recursive: true, force: true });
    return undefined;
  }
}

function indent(text: string): string {
  return text
    ? text
        .split('\n')
        .map((line) => `  ${line}`)
        .join('\n')
    : '  (no output)';
}

function removeWorktrees(repoRoot: string, dirs: string[], temp: string): void {
  // A worktree git cannot remove is removed by hand below; prune then drops git's record of it.
  for (const dir of dirs.splice(0)) gitSync(['worktree', 'remove', '--force', '--force', dir], repoRoot);
  rmSync(temp, { recursive: true, force: true });
  gitSync(['worktree', 'prune'], repoRoot);
}
