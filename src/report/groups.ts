import { ID_SEPARATOR } from '../measure/micro/protocol.js';

/** Rows of one file under its heading; `file` is undefined for a row shown by its whole id (no file in it). */
export interface IdGroup<T> {
  file: string | undefined;
  rows: { item: T; name: string }[];
}

/** The bench file (or `http`) an id starts with: "bench/lookup.bench.js" of "bench/lookup.bench.js > suite > task". */
export function fileOf(id: string): string | undefined {
  const at = id.indexOf(ID_SEPARATOR);
  return at > 0 ? id.slice(0, at) : undefined;
}

/**
 * Whether a table reads better grouped by file: when a file holds several of its benchmarks and there
 * are more than three rows, or ids are too long for their column (`crowded`). One to three short
 * ids stay as they are, whole on their rows.
 */
export function groupingHelps(ids: readonly unknown[], crowded = false): boolean {
  const files = ids.map((id) => fileOf(String(id))).filter((file) => file !== undefined);
  return new Set(files).size < files.length && (ids.length > 3 || crowded);
}

/**
 * Items grouped by file, each row named by the rest of its id ("suite > task"). Files come in the order
 * of their first item and rows keep their order, so a table sorted worst first still leads with its worst.
 * Ids with no file in them (a bench file that failed to load is its own id) come first, whole, where
 * they cannot read as part of the group above them.
 */
export function groupByFile<T extends { id: unknown }>(items: readonly T[]): IdGroup<T>[] {
  const loose: IdGroup<T>[] = [];
  const groups: IdGroup<T>[] = [];
  const byFile = new Map<string, IdGroup<T>>();
  for (const item of items) {
    const id = String(item.id);
    const file = fileOf(id);
    if (file === undefined) {
      loose.push({ file: undefined, rows: [{ item, name: id }] });
      continue;
    }
    let group = byFile.get(file);
    if (!group) {
      group = { file, rows: [] };
      byFile.set(file, group);
      groups.push(group);
    }
    group.rows.push({ item, name: id.slice(file.length + ID_SEPARATOR.length) });
  }
  return [...loose, ...groups];
}

/** No grouping: one group per item, named by its whole id. */
export function ungrouped<T extends { id: unknown }>(items: readonly T[]): IdGroup<T>[] {
  return items.map((item) => ({ file: undefined, rows: [{ item, name: String(item.id) }] }));
}
