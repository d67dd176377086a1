import { taskIds, type FileLoad } from '../measure/micro/protocol.js';
import { terminalText } from './escape.js';

/** What `benchgate list` shows: each revision's bench files, their harness and task ids, measured never. */
export interface Listing {
  /** leftOut: files found by convention that declare no task benchgate can time (helpers), left out as compare does. */
  revisions: { label: string; ref: string; sha: string; root: string; files: FileLoad[]; leftOut?: string[] }[];
  /** The tasks measured other than in time (micro.measure, micro.measures), by id: counts or both. */
  measures?: Record<string, string>;
  /** The HTTP load tests benchgate.yml declares, by id (`http > name`): listed, not started. */
  http?: string[];
}

/** A bench file of some revision did not load (`list` then exits 2, as compare would). */
export function loadFailed(listing: Listing): boolean {
  return listing.revisions.some((revision) => revision.files.some((file) => file.error));
}

/** Nothing a compare could measure: no task in any revision and no HTTP load test (`list` then exits as compare would). */
export function listsNothing(listing: Listing): boolean {
  return !listing.http?.length && listing.revisions.every((revision) => revision.files.every((file) => file.tasks.length === 0));
}

/**
 * Per revision, each bench file with the harness (and the copy's version) it used, then its
 * task ids below it as they appear in reports (`file > suite > task`), or why it did not load.
 */
export function renderListing(listing: Listing): string {
  const lines: string[] = [];
  for (const revision of listing.revisions) {
    const tasks = revision.files.reduce((sum, file) => sum + file.tasks.length, 0);
    lines.push(
      `${revision.label} (${terminalText(revision.ref)}, ${revision.sha.slice(0, 7)}): ${revision.files.length} ` +
        `bench file${revision.files.length === 1 ? '' : 's'}, ${tasks} task${tasks === 1 ? '' : 's'}`,
    );
    if (revision.files.length === 0 && !revision.leftOut?.length && !listing.http?.length)
      lines.push(
        '  no bench file matches micro.files, nor any in the usual places (bench/, benchmark/, benchmarks/, bench.js, benchmark.js, a bench script): ' +
          "name yours with --files '<glob>' or micro.files",
      );
    for (const file of revision.files) {
      // One label a copy (a file and a helper it imports resolve the same one: reselect's testUtils and vitest); two
      // installed copies of one version are said as such.
      const byPath = [...new Map((file.harnesses ?? []).map((h) => [h.path, `${h.harness}${h.version ? ` ${h.version}` : ''}`])).values()];
      const copies = [...new Set(byPath)].map((label) => {
        const count = byPath.filter((other) => other === label).length;
        return count > 1 ? `${label} (${count} copies)` : label;
      });
      const how = file.workerOf
        ? `a worker of ${file.workerOf}`
        : file.error
          ? 'did not load'
          : file.harness === 'default export' || copies.length === 0
            ? (file.harness ?? '')
            : copies.join(', ');
      lines.push(`  ${terminalText(file.file)}  [${terminalText(how)}]`);
      if (file.error) for (const line of file.error.split('\n')) lines.push(`      ${terminalText(line)}`);
      for (const id of taskIds(file)) {
        const measure = listing.measures?.[id];
        lines.push(`    ${terminalText(id)}${measure ? `  [${measure}]` : ''}`);
      }
      for (const note of file.notes ?? []) lines.push(`    note: ${terminalText(note)}`);
    }
    if (revision.leftOut?.length) {
      const declare = revision.leftOut.length === 1 ? 'it declares' : 'they declare';
      const files = revision.leftOut.map((file) => terminalText(file)).join(', ');
      lines.push(`  left out: ${files} (found by convention, ${declare} no task benchgate can time)`);
    }
  }
  if (listing.http?.length) {
    lines.push(`http load tests in benchgate.yml (started by compare, not here): ${listing.http.length}`);
    for (const id of listing.http) lines.push(`  ${terminalText(id)}`);
  } else if (listsNothing(listing) && !loadFailed(listing))
    lines.push('nothing to measure: no task in any bench file, and benchgate.yml declares no http load tests');
  return lines.join('\n');
}
