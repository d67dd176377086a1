/**
 * Installs reused between revisions whose npm lockfile and package.json are the same: head after base in one
 * compare (most pull requests do not touch dependencies), every step of a bisect or drift after the first with
 * that lockfile, and, with a cache folder (`--install-cache`), across runs. npm has no way to say "this tree is
 * already what that lockfile installs", so this is written here: a key of what decides the install's content,
 * and a copy of node_modules.
 *
 * Reused only where node_modules is all the install writes and depends on: an npm lockfile (package-lock.json
 * or npm-shrinkwrap.json; pnpm's and yarn's trees are theirs to cache), no workspaces (node_modules in several
 * folders), no lifecycle script of the project's own (prepare, postinstall ... build from the revision's
 * sources), and no dependency from the revision's own tree (file:, link:, a path).
 */
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';

const LOCKFILES = ['npm-shrinkwrap.json', 'package-lock.json'];
const OWN_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'];
const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'];
/** Kept in a cache folder: the most recently used installs, the others removed. */
const KEEP = 8;

export type InstallKey = { key: string; lockfile: string } | { key: undefined; reason: string };

/** What decides the content of node_modules after `command` in `root`, or why an install there is not reused. */
export function installKey(root: string, command: string): InstallKey {
  const lockfile = LOCKFILES.find((name) => existsSync(path.join(root, name)));
  if (!lockfile) return { key: undefined, reason: 'no npm lockfile' };
  let manifestText: string;
  let manifest: Record<string, unknown>;
  try {
    manifestText = readFileSync(path.join(root, 'package.json'), 'utf8');
    manifest = JSON.parse(manifestText) as Record<string, unknown>;
  } catch {
    return { key: undefined, reason: 'package.json unreadable' };
  }
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
  for (const part of ['benchgate-install-1', process.version, process.platform, process.arch, command, lockfile]) hash.update(`${part}\0`);
  hash.update(readFileSync(path.join(root, lockfile)));
  hash.update('\0');
  hash.update(manifestText);
  return { key: hash.digest('hex').slice(0, 32), lockfile };
}

/**
 * The installs of one run (and of other runs, with a folder). Without a folder an entry is the revision's own
 * node_modules, valid while its checkout lives (a compare's head after its base); with one, a copy kept there.
 */
export class Installs {
  private readonly seen = new Map<string, { from: string; what: string }>();

  constructor(private readonly folder?: string) {}

  /** A node_modules installed for `key`, and where it came from, if one is known. */
  find(key: string): { from: string; what: string } | undefined {
    const known = this.seen.get(key);
    if (known && existsSync(known.from)) return known;
    if (!this.folder) return undefined;
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

  /** `root`'s node_modules was installed for `key` (by `what`, for the log of a later reuse). */
  remember(key: string, root: string, what: string): void {
    const installed = path.join(root, 'node_modules');
    if (!existsSync(installed)) return;
    if (!this.folder) {
      this.seen.set(key, { from: installed, what });
      return;
    }
    const entry = path.join(this.folder, key);
    if (existsSync(entry)) return;
    // Copied beside the entry, then renamed: a run reading the folder at the same time never sees half a copy.
    const partial = path.join(this.folder, `.${key}.${randomBytes(4).toString('hex')}`);
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
    this.evict();
  }

  /** Keep the KEEP most recently used entries of the folder. */
  private evict(): void {
    const folder = this.folder!;
    const entries = readdirSync(folder)
      .filter((name) => !name.startsWith('.'))
      .map((name) => ({ name, used: statSync(path.join(folder, name)).mtimeMs }))
      .sort((a, b) => b.used - a.used);
    for (const { name } of entries.slice(KEEP)) rmSync(path.join(folder, name), { recursive: true, force: true });
  }
}
