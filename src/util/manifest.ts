import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Whether `file` is a file (not a folder, not missing). */
export function isFile(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.isFile() === true;
}

/** The string scripts of the package.json in `root`, by name (none where it is missing or malformed). */
export function manifestScripts(root: string): Record<string, string> {
  try {
    const scripts = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: unknown }).scripts;
    if (typeof scripts !== 'object' || scripts === null) return {};
    return Object.fromEntries(Object.entries(scripts).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return {};
  }
}

/**
 * The nearest package.json above `file` (its own folder first) that `accept` takes, with its folder: how the
 * package a resolved file belongs to is found (a package's dist/ may hold a package.json of its own, with only
 * a "type", that is not it). Unreadable or malformed manifests are passed over.
 */
export function nearestManifest(
  file: string,
  accept: (manifest: Record<string, unknown>) => boolean,
): { dir: string; manifest: Record<string, unknown> } | undefined {
  for (let dir = path.dirname(file); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    let manifest: unknown;
    try {
      manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    if (typeof manifest === 'object' && manifest !== null && accept(manifest as Record<string, unknown>))
      return { dir, manifest: manifest as Record<string, unknown> };
  }
  return undefined;
}
