import { filesIn, type ProjectFiles } from './reuse.js';

/**
 * The install command a revision needs when the config does not name one:
 * the package manager its lockfile belongs to, in its reproducible mode.
 */
export function detectInstall(root: string): string | undefined {
  return detectInstallOf(filesIn(root));
}

export function detectInstallOf(read: ProjectFiles): string | undefined {
  const has = (file: string) => read(file) !== undefined;
  if (has('pnpm-lock.yaml')) return 'pnpm install --frozen-lockfile';
  if (has('yarn.lock')) return 'yarn install --immutable';
  if (has('package-lock.json') || has('npm-shrinkwrap.json')) return 'npm ci --no-audit --no-fund';
  if (hasDependencies(read)) return 'npm install --no-audit --no-fund --no-package-lock';
  return undefined;
}

function hasDependencies(read: ProjectFiles): boolean {
  try {
    const manifest = JSON.parse(read('package.json')?.toString('utf8') ?? '') as Record<string, unknown>;
    return ['dependencies', 'devDependencies', 'optionalDependencies'].some((field) => {
      const deps = manifest[field];
      return typeof deps === 'object' && deps !== null && Object.keys(deps).length > 0;
    });
  } catch {
    return false;
  }
}
