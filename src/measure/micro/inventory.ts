import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Revision } from '../../checkout/revisions.js';
import { UserError } from '../../util/errors.js';
import { detectInstall, YARN_NODE_MODULES } from '../../checkout/install.js';
import type { FileLoad } from './protocol.js';
import { benchPackages } from './conventions.js';
import { runBenchmarkProcess } from './spawn.js';

/** What one revision's bench files declare, loaded in one benchmark process without measuring. */
export interface RevisionInventory {
  revision: Revision;
  files: FileLoad[];
}

export interface InventoryOptions {
  runnerPath: string;
  stallTimeoutMs: number;
}

/**
 * Load each revision's bench files once, in a process of its own, and report
 * what each declares (harness, copy, tasks) or why it failed to load. Takes a
 * second or two: it is the check before measuring, and `benchgate list`.
 */
export async function loadInventory(
  sides: { revision: Revision; files: string[] }[],
  options: InventoryOptions,
): Promise<RevisionInventory[]> {
  return Promise.all(
    sides.map(async ({ revision, files }) => {
      if (files.length === 0) return { revision, files: [] };
      const outcome = await runBenchmarkProcess(
        { kind: 'load', sides: [{ revision: revision.label, root: revision.root, files }] },
        { runnerPath: options.runnerPath, stallTimeoutMs: options.stallTimeoutMs, cwd: revision.root },
      );
      if (!outcome.ok) throw new UserError(`${describeRevision(revision)}: loading its bench files failed: ${outcome.message}`);
      return { revision, files: outcome.files };
    }),
  );
}

/** `Cannot find package 'tinybench' imported from …` (ESM) or `Cannot find module 'tinybench'` (CommonJS), for a package name. */
const MISSING_PACKAGE = /Cannot find (?:package|module) '((?:@[^/'\s]+\/)?[^./'\s][^/'\s]*)(?:\/[^'\s]*)?'/;

/**
 * The package a load error says is missing, or undefined. Paths inside the project are named relative to it in load
 * errors ('bench/node_modules/dequal/dist/index.js': a linked package's unbuilt main), which reads like a package
 * 'bench': a first part that is a folder of the project is such a path, not a package.
 */
function missingPackage(error: string | undefined, root: string): string | undefined {
  const name = error ? MISSING_PACKAGE.exec(error)?.[1] : undefined;
  if (!name) return undefined;
  return existsSync(path.join(root, name)) && !existsSync(path.join(root, 'node_modules', name)) ? undefined : name;
}

/**
 * A bench file whose import of a package does not resolve means the revision is
 * not installed (or its install left it out): measuring would give every
 * benchmark the same import error, round after round. Say so before measuring,
 * with the package and the command that fixes it.
 */
export function assertInstalled(inventory: RevisionInventory[], install: string | false | undefined): void {
  for (const { revision, files } of inventory) {
    const missing = files.flatMap((file) => {
      const name = missingPackage(file.error, revision.root);
      // A package that is there (a path inside it that is not: dequal's `lodash/isequal`) is the file's own error.
      return name && !packageFound(revision.root, file.file, name) ? [{ file: file.file, name }] : [];
    });
    if (missing.length === 0) continue;
    const names = [...new Set(missing.map((m) => m.name))];
    const where = missing.map((m) => `${m.file} imports '${m.name}'`).join('; ');
    const command = installCommand(revision, install);
    const fix =
      plugAndPlay(revision.root) ??
      (revision.worktree === undefined
        ? `Install it first: run \`${command}\` in ${revision.root}, then run benchgate again.`
        : install === false
          ? `benchgate.yml sets install: false, so nothing was installed in this checkout: set install to the command that installs it (e.g. ${command}).`
          : `benchgate installed this checkout with \`${command}\`, which left ${names.length > 1 ? 'them' : 'it'} out: ` +
            `check that the package is in ${revision.label}'s package.json and lockfile, or set install in benchgate.yml.`);
    throw new UserError(
      `${describeRevision(revision)} is not installed: ${where}, and ${names.map((n) => `'${n}'`).join(', ')} ` +
        `${names.length > 1 ? 'are' : 'is'} not found from ${revision.root}. ${fix}`,
    );
  }
}

/**
 * `benchgate list` of the working tree before it is installed: each file that imports a package not found says which
 * and the command that installs it, where the raw "Cannot find module 'benchmark'" said neither.
 */
export function withInstallHints(inventory: RevisionInventory[], install: string | false | undefined): RevisionInventory[] {
  return inventory.map(({ revision, files }) => ({
    revision,
    files: files.map((file) => {
      const name = missingPackage(file.error, revision.root);
      const pnp = name ? plugAndPlay(revision.root) : undefined;
      if (pnp) return { ...file, error: `it imports '${name}', not found from ${revision.root}: ${pnp}` };
      if (!name || revision.worktree !== undefined) return file;
      // A bench file in a package of its own (fast-uri's benchmark/, with tinybench in its package.json): that
      // package is installed too (compare installs it after the project), and the hint names both.
      const [own] = benchPackages(revision.root, [file.file]);
      const command = installCommand(revision, install);
      const ownCommand = own ? (detectInstall(path.join(revision.root, own)) ?? 'npm install') : undefined;
      const where = own
        ? `${path.join(revision.root, own)} (the bench file's own package): run \`${command}\` in ${revision.root} and \`${ownCommand}\` in ${own}`
        : `${revision.root}: run \`${command}\` there`;
      return { ...file, error: `it imports '${name}', which is not installed in ${where} first, then list again` };
    }),
  }));
}

/**
 * Why a package of a yarn 2+ project is not found, where it was linked by Plug'n'Play (a .pnp.cjs, no node_modules):
 * only `yarn node` resolves from that map, and benchgate's runners load bench files as `node` does.
 */
function plugAndPlay(root: string): string | undefined {
  // A zero-install repository commits its .pnp.cjs: only where no node_modules was linked beside it is it the cause.
  if (!existsSync(path.join(root, '.pnp.cjs')) || existsSync(path.join(root, 'node_modules'))) return undefined;
  return (
    "it was installed by yarn's Plug'n'Play (.pnp.cjs, no node_modules), which only `yarn node` resolves from, and " +
    "benchgate loads bench files with Node's own resolution: install into node_modules " +
    `(\`${YARN_NODE_MODULES} yarn install\`, what benchgate runs for yarn 2+ where install is not set, or nodeLinker: node-modules in .yarnrc.yml).`
  );
}

/** The command that installs a revision, as a message names it: the config's, or the one its lockfile calls for. */
function installCommand(revision: Revision, install: string | false | undefined): string {
  return typeof install === 'string' ? install : (detectInstall(revision.root) ?? 'npm install');
}

/** Whether `name` is installed where `file` (relative to `root`) resolves packages from: a node_modules at or above it. */
function packageFound(root: string, file: string, name: string): boolean {
  for (let dir = path.dirname(path.join(root, file)); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'node_modules', name))) return true;
    if (dir === root || path.dirname(dir) === dir || !dir.startsWith(root)) return false;
  }
}

function describeRevision(revision: Revision): string {
  return revision.ref === 'working tree' ? `${revision.label} (the working tree)` : `${revision.label} (${revision.ref})`;
}
