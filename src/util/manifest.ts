import { readFileSync } from 'node:fs';
import path from 'node:path';

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
