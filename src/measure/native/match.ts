/**
 * A native run's tasks by benchmark id: named as benchgate names the tasks it captures (harness/names.ts:
 * suites and name joined by ' > ', padding dots dropped, a repeated name numbered), under the file's path.
 */
import { trimmedName, uniqueNames, withoutPadding } from '../micro/harness/names.js';
import { ID_SEPARATOR } from '../micro/protocol.js';
import type { NativeRecord } from './figures.js';

/** Each record of one run with the benchmark id benchgate gives the same task. */
export function nativeIds(file: string, records: readonly NativeRecord[]): { id: string; record: NativeRecord }[] {
  const named = uniqueNames(withoutPadding(records.map((record) => ({ record, suites: record.suites, name: trimmedName(record.name) }))));
  return named.map(({ record, suites, name }) => ({ id: [file, ...suites, name].join(ID_SEPARATOR), record }));
}

/**
 * One run's records matched to the ids benchgate compared in this file; the names that match none are
 * listed (as the harness named them, suites included), never dropped silently.
 */
export function matchRun(
  file: string,
  records: readonly NativeRecord[],
  ids: ReadonlySet<string>,
): { matched: Map<string, NativeRecord>; unmatched: string[] } {
  const matched = new Map<string, NativeRecord>();
  const unmatched: string[] = [];
  for (const { id, record } of nativeIds(file, records)) {
    if (ids.has(id)) matched.set(id, record);
    else unmatched.push(id.slice(file.length + ID_SEPARATOR.length));
  }
  return { matched, unmatched };
}
