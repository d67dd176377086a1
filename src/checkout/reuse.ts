/**
 * Installs reused between revisions that install the same thing: head after base in one compare (most pull
 * requests do not touch dependencies), every step of a bisect, drift or record after the first with the same
 * dependency set, and, with a cache folder (`--install-cache`), across runs. npm has no way to say "this tree is
 * already what that manifest installs", so this is written here: a key of what decides the install's content,
 * and a copy of node_modules.
 *
 * - With a lockfile (npm's, pnpm's or yarn's), the key is the lockfile and package.json: reused within a run and,
 *   with a cache folder, across runs.
 * - Without one, the key is what decides the install then: the manifest's dependency fields with `overrides`,
 *   `resolutions`, its `pnpm` settings and `packageManager`, the project's .npmrc (and .yarnrc, .yarnrc.yml,
 *   .pnpmfile.cjs), the install command, and Node's version, platform and architecture. The packages resolved
 *   for one commit of a run are what another commit with the same declared ranges resolves in the same run (the
 *   registry moves between runs, not within minutes of one), so such an install is reused within the run only,
 *   never kept for a later one.
 *
 * Reused only where node_modules is all the install writes and depends on: no workspaces (node_modules in several
 * folders), no lifecycle script of the project's own (prepare, postinstall ... build from the revision's
 * sources), and no dependency from the revision's own tree (file:, link:, a path). A package manager that writes
 * no node_modules (yarn's Plug'n'Play) leaves nothing to copy, so nothing is reused.
 */
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';

const LOCKFILES = ['npm-shrinkwrap.json', 'package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'bun.lockb'];
const OWN_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'];
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];
/** Without a lockfile: the manifest's fields that decide what an install resolves, beside the dependencies. */
const RESOLUTION_FIELDS = ['overrides', 'resolutions', 'pnpm', 'packageManager', 'bundleDependencies', 'bundledDependencies'];
/** Without a lockfile: the project's files that steer its package manager. */
const SETTINGS_FILES = ['.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs'];
/** Kept in a cache folder: the most recently used installs, the others removed. */
const KEEP = 8;

export type InstallKey =
  | {
      key: string;
      /** For the log: what made two installs the same. */
      same: string;
      /** False without a lockfile: reused within this run only. */
      acrossRuns: boolean;
    }
  | { key: undefined; reason: string };

/** A project's file as bytes, or undefined when it has none: from a checkout, or from a commit (bisect's plan). */
export type ProjectFiles = (file: string) => Buffer | undefined;

/** The files of a checked-out project. */
export function filesIn(root: string): ProjectFiles {
  return (file) => (existsSync(path.join(root, file)) ? readFileSync(path.join(root, file)) : undefined);
}

/** The files a project's install depends on, for a reader that fetches them one by one (a commit's). */
export const INSTALL_FILES = ['package.json', ...LOCKFILES, ...SETTINGS_FILES];

/** What decides the content of node_modules after `command` in `root`, or why an install there is not reused. */
export function installKey(root: string, command: string): InstallKey {
  return installKeyOf(filesIn(root), command);
}

/**
 * An install command that works in another folder too (`npm install && cd benchmarks && npm install`, `--prefix`):
 * what it writes there is not in the project's node_modules, so its install is never reused.
 */
const ELSEWHERE = /(^|[;&|(]\s*)cd\s|\s--prefix[\s=]|\s-C\s|\s--dir[\s=]|\s--cwd[\s=]/;

export function installKeyOf(read: ProjectFiles, command: string): InstallKey {
  if (ELSEWHERE.test(command)) return { key: undefined, reason: `\`${command}\` installs in another folder too` };
  const lockfile = LOCKFILES.find((name) => read(name) !== undefined);
  let manifestText: string;
  let manifest: Record<string, unknown>;
  try {
    manifestText = read('package.json')?.toString('utf8') ?? '';
    manifest = JSON.parse(manifestText) as Record<string, unknown>;
  } catch {
    return { key: undefined, reason: 'package.json unreadable' };
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest))
    return { key: undefined, reason: 'package.json is not an object' };
  if (manifest.workspaces !== undefined) return { key: undefined, reason: 'workspaces' };
  const scripts = (manifest.scripts ?? {}) as Record<string, unknown>;
  const own = OWN_SCRIPTS.find((name) => typeof scripts[name] === 'string');
  if (own) return { key: undefined, reason: `its own ${own} script` };
  for (const field of DEPENDENCY_FIELDS) {
    const deps = manifest[field];
    if (typeof deps !== 'object' || deps === null) continue;
    for (const [name, spec] of Object.entries(deps as Record<string, unknown>))
      if (typeof spec === 'string' && /^(file:|link:|\.{0,2}\/)/.test(spec)) return { key: undefined, reason: `'${name}' from ${spec}` };
  }
  const hash = createHash('sha256');
  const part = (text: string | Buffer) => {
    hash.update(text);
    hash.update('\0');
  };
  for (const text of [process.version, process.platform, process.arch, command]) part(text);
  if (lockfile) {
    part('benchgate-install-1');
    part(lockfile);
    part(read(lockfile)!);
    part(manifestText);
    return { key: hash.digest('hex').slice(0, 32), same: `the same ${lockfile} and package.json`, acrossRuns: true };
  }
  part('benchgate-install-deps-1');
  part(JSON.stringify([...DEPENDENCY_FIELDS, ...RESOLUTION_FIELDS].map((field) => [field, manifest[field] ?? null])));
  for (const file of SETTINGS_FILES) part(read(file) ?? `no ${file}`);
  // A distinct prefix: such a key is never looked for in a cache folder, nor written there.
  return { key: `run-${hash.digest('hex').slice(0, 28)}`, same: 'the same dependency set, no lockfile', acrossRuns: false };
}

/**
 * The installs of one run (and of other runs, with a folder). Without a folder an entry is the revision's own
 * node_modules, valid while its checkout lives (a compare's head after its base); with one, a copy kept there.
 */
export class Installs {
  private readonly seen = new Map<string, { from: string; what: string }>();

  /**
   * @param folder where installs are kept (--install-cache, across runs; or a folder of this run's)
   * @param runFolder a folder of this run's, removed at its end, for installs that must not outlive it (no
   *   lockfile); without one they are reused in place, from the checkout that made them, while it lives
   */
  constructor(
    private readonly folder?: string,
    private readonly runFolder?: string,
  ) {}

  /** A node_modules installed for `key`, and where it came from, if one is known. */
  find(key: string): { from: string; what: string } | undefined {
    const known = this.seen.get(key);
    if (known && existsSync(known.from)) return known;
    if (!this.folder || key.startsWith('run-')) return undefined;
    const kept = path.join(this.folder, key, 'node_modules');
    if (!existsSync(kept)) return undefined;
    const now = new Date();
    utimesSync(path.join(this.folder, key), now, now);
    return { from: kept, what: `an earlier run, kept in ${this.folder}` };
  }

  /** Put a copy of a known install in `root`. */
  restore(found: { from: string }, root: string): void {
    cpSync(found.from, path.join(root, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  }

  /** `root`'s node_modules was installed for `key` (by `what`, for the log of a later reuse); `acrossRuns`: it may be kept for later runs. */
  remember(key: string, root: string, what: string, acrossRuns = true): void {
    const installed = path.join(root, 'node_modules');
    if (!existsSync(installed)) return;
    const folder = acrossRuns ? this.folder : this.runFolder;
    if (!folder) {
      this.seen.set(key, { from: installed, what });
      return;
    }
    const entry = path.join(folder, key);
    if (existsSync(entry)) return;
    // Copied beside the entry, then renamed: a run reading the folder at the same time never sees half a copy.
    const partial = path.join(folder, `.${key}.${randomBytes(4).toString('hex')}`);
    mkdirSync(partial, { recursive: true });
    try {
      cpSync(installed, path.join(partial, 'node_modules'), { recursive: true, verbatimSymlinks: true });
      renameSync(partial, entry);
      this.seen.set(key, { from: path.join(entry, 'node_modules'), what });
    } catch {
      // Another run kept the same install first: theirs is as good.
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
    if (folder === this.folder) this.evict(folder);
  }

  /** Keep the KEEP most recently used entries of the folder. */
  private evict(folder: string): void {
    const entries = readdirSync(folder)
      .filter((name) => !name.startsWith('.'))
      .map((name) => ({ name, used: statSync(path.join(folder, name)).mtimeMs }))
      .sort((a, b) => b.used - a.used);
    for (const { name } of entries.slice(KEEP)) rmSync(path.join(folder, name), { recursive: true, force: true });
  }
}
