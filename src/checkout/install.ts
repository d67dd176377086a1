import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import { filesIn, type ProjectFiles } from './reuse.js';

/** Whether a command is on PATH (an executable file of that name in one of its folders). */
export type OnPath = (command: string) => boolean;

/**
 * The install command a revision needs when the config does not name one:
 * the package manager its lockfile belongs to, in its reproducible mode.
 */
export function detectInstall(root: string, onPath: OnPath = isOnPath): string | undefined {
  return detectInstallOf(filesIn(root), onPath);
}

/**
 * pnpm and yarn run through corepack (shipped with Node 20 and 22, and on GitHub's runners) where package.json's
 * `packageManager` names them, at that version, or where the tool is not installed (corepack's own default version,
 * said in the command); yarn's lockfile says classic (`--frozen-lockfile`) or berry (`--immutable`). bun has no
 * corepack: it must be installed. Where neither the tool nor corepack is there, a clear error says what to do.
 */
export function detectInstallOf(read: ProjectFiles, onPath: OnPath = isOnPath): string | undefined {
  const has = (file: string) => read(file) !== undefined;
  const manager = packageManager(read);
  const through = (tool: 'pnpm' | 'yarn', args: string, env = '') => {
    if (manager?.name === tool || !onPath(tool)) {
      if (!onPath('corepack')) throw missingTool(tool, `${env}${tool} ${args}`);
      // No packageManager: corepack's default is its newest major, which refuses an older lockfile in frozen mode;
      // the major that wrote the lockfile reads it.
      const major = manager?.name === tool ? undefined : lockfileMajor(tool, read);
      return `${env}corepack ${tool}${major ? `@${major}` : ''} ${args}`;
    }
    return `${env}${tool} ${args}`;
  };
  if (has('pnpm-lock.yaml')) return through('pnpm', 'install --frozen-lockfile');
  // yarn 2+ links packages by Plug'n'Play unless told otherwise (no node_modules, a .pnp.cjs that only `yarn node` loads):
  // benchgate's runners load bench files with Node's own resolution, so the install links into node_modules, in the open.
  if (has('yarn.lock'))
    return isYarnBerry(read, manager)
      ? through('yarn', 'install --immutable', `${YARN_NODE_MODULES} `)
      : through('yarn', 'install --frozen-lockfile');
  if (has('bun.lock') || has('bun.lockb')) {
    if (!onPath('bun')) throw missingTool('bun', 'bun install --frozen-lockfile');
    return 'bun install --frozen-lockfile';
  }
  if (has('package-lock.json') || has('npm-shrinkwrap.json')) return 'npm ci --no-audit --no-fund';
  if (hasDependencies(read)) return 'npm install --no-audit --no-fund --no-package-lock';
  return undefined;
}

/** yarn 2+'s setting for a layout Node resolves from (its environment form, over any .yarnrc.yml). */
export const YARN_NODE_MODULES = 'YARN_NODE_LINKER=node-modules';

function missingTool(tool: string, command: string): UserError {
  const how =
    tool === 'bun'
      ? 'install bun first (in a workflow: the oven-sh/setup-bun step)'
      : `install ${tool}, or corepack (npm install -g corepack; Node 20 and 22 ship it), ` +
        `and name the version in package.json ("packageManager": "${tool}@<version>")`;
  return new UserError(
    `The project's lockfile is ${tool}'s, and ${tool} is not installed: ${how}, or set install in benchgate.yml (the command it would run: ${command}).`,
  );
}

/**
 * The package manager that runs a project's scripts, where it is not npm: package.json's packageManager, else the one its
 * lockfile belongs to (as detectInstallOf reads them, pnpm's first).
 */
export function scriptRunner(read: ProjectFiles): 'pnpm' | 'yarn' | 'bun' | undefined {
  const named = packageManager(read)?.name;
  if (named) return named === 'npm' ? undefined : (named as 'pnpm' | 'yarn' | 'bun');
  if (read('pnpm-lock.yaml') !== undefined) return 'pnpm';
  if (read('yarn.lock') !== undefined) return 'yarn';
  return read('bun.lock') !== undefined || read('bun.lockb') !== undefined ? 'bun' : undefined;
}

function packageManager(read: ProjectFiles): { name: string; version: string } | undefined {
  const field = manifest(read)?.packageManager;
  const match = typeof field === 'string' ? /^(npm|pnpm|yarn|bun)@(\d[^+\s]*)/.exec(field) : null;
  return match ? { name: match[1]!, version: match[2]! } : undefined;
}

/**
 * The major version of the tool that writes the project's lockfile, where that is not corepack's default (the newest):
 * pnpm's lockfileVersion 5.3 is pnpm 6's, 5.4 pnpm 7's, 6.x pnpm 8's (9.0: pnpm 9 and 10, the default); yarn's
 * `__metadata` version 4-5 is yarn 2's, 6 yarn 3's (8: yarn 4), and a classic lockfile is yarn 1's.
 */
function lockfileMajor(tool: 'pnpm' | 'yarn', read: ProjectFiles): number | undefined {
  if (tool === 'pnpm') {
    const version = /^lockfileVersion:\s*['"]?(\d+)\.(\d+)/m.exec(read('pnpm-lock.yaml')?.toString('utf8') ?? '');
    if (!version) return undefined;
    const [major, minor] = [Number(version[1]), Number(version[2])];
    if (major === 5) return minor >= 4 ? 7 : 6;
    if (major === 6) return 8;
    return undefined;
  }
  const lock = read('yarn.lock')?.toString('utf8') ?? '';
  const metadata = /^__metadata:\s*\n\s+version:\s*(\d+)/m.exec(lock);
  if (!metadata) return isYarnBerry(read, undefined) ? undefined : 1;
  const version = Number(metadata[1]);
  return version <= 5 ? 2 : version <= 7 ? 3 : undefined;
}

/** yarn 2+ (berry): named so in packageManager, or its lockfile's `__metadata` header, or its .yarnrc.yml. */
function isYarnBerry(read: ProjectFiles, manager: { name: string; version: string } | undefined): boolean {
  if (manager?.name === 'yarn') return !manager.version.startsWith('1.');
  if (read('.yarnrc.yml') !== undefined) return true;
  return /^__metadata:/m.test(read('yarn.lock')?.toString('utf8') ?? '');
}

function manifest(read: ProjectFiles): Record<string, unknown> | undefined {
  try {
    return JSON.parse(read('package.json')?.toString('utf8') ?? '') as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Whether a package.json declares any dependency (dependencies, devDependencies or optionalDependencies). */
export function hasDependencies(read: ProjectFiles): boolean {
  const found = manifest(read);
  return ['dependencies', 'devDependencies', 'optionalDependencies'].some((field) => {
    const deps = found?.[field];
    return typeof deps === 'object' && deps !== null && Object.keys(deps).length > 0;
  });
}

function isOnPath(command: string): boolean {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      // not in this folder
    }
  }
  return false;
}
