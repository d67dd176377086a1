import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The install command a revision needs when the config does not name one:
 * the package manager its lockfile belongs to, in its reproducible mode.
 */
export function detectInstall(root: string): string | undefined {
  const has = (file: string) => existsSync(path.join(root, file));
  if (has('pnpm-lock.yaml')) return 'pnpm install --frozen-lockfile';
  if (has('yarn.lock')) return 'yarn install --immutable';
  if (has('package-lock.json') || has('npm-shrinkwrap.json')) return 'npm ci --no-audit --no-fund';
  if (hasDependencies(root)) return 'npm install --no-audit --no-fund --no-package-lock';
  return undefined;
}

function hasDependencies(root: string): boolean {
  try {
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    return ['dependencies', 'devDependencies', 'optionalDependencies'].some((field) => {
      const deps = manifest[field];
      return typeof deps === 'object' && deps !== null && Object.keys(deps).length > 0;
    });
  } catch {
    return false;
  }
}
