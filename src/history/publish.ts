import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { UserError } from '../util/errors.js';
import type { HistoryRecord } from './record.js';
import { siteFiles, type SiteOptions } from './site.js';

/** Left in a published folder: a folder with it may be written over; one without it (and not empty) is someone else's. */
const MARKER = '.benchgate-site';

/**
 * Writes the site of `records` into `out`: the data files, the feed and the page, and the page's script and
 * styles from `assets` (dist/site). A folder published before is replaced whole (no stale benchmark stays);
 * a folder holding anything else is refused, never cleared.
 */
export function writeSite(
  out: string,
  records: readonly HistoryRecord[],
  options: SiteOptions & { assets: string },
): { files: number; bytes: number } {
  if (!existsSync(path.join(options.assets, 'site.js')))
    throw new Error(`the page's script is missing from ${options.assets}: build benchgate (npm run build) first.`);
  if (existsSync(out)) {
    const entries = readdirSync(out);
    if (entries.length > 0 && !entries.includes(MARKER))
      throw new UserError(`${out} is not empty and was not written by benchgate publish: choose an empty or new folder.`);
    for (const entry of entries) rmSync(path.join(out, entry), { recursive: true, force: true });
  }
  const files = siteFiles(records, options);
  let bytes = 0;
  for (const file of files) {
    const target = path.join(out, file.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.text);
    bytes += Buffer.byteLength(file.text);
  }
  mkdirSync(path.join(out, 'assets'), { recursive: true });
  for (const asset of ['site.js', 'site.css']) cpSync(path.join(options.assets, asset), path.join(out, 'assets', asset));
  writeFileSync(path.join(out, MARKER), 'Written by benchgate publish: the next publish to this folder replaces it whole.\n');
  return { files: files.length + 2, bytes };
}
