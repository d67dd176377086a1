/**
 * How a task's name becomes the name in its benchmark id, from what its harness declared: one rule for the
 * capture (capture.ts) and for the figures a harness reports when a bench file runs natively (measure/native).
 */

/** A task as named by its harness: its suites (describe, group, a named Suite or Bench) and its own name. */
export interface NamedTask {
  suites: string[];
  name: string;
}

/**
 * Names padded to one width for aligned output (find-my-way's `name.padEnd(longest, '.')`): when two
 * or more names of the longest length end in dots, those dots are padding, not part of the names.
 */
export function withoutPadding<T extends NamedTask>(tasks: T[]): T[] {
  const longest = Math.max(0, ...tasks.map((task) => task.name.length));
  const padded = tasks.filter((task) => task.name.length === longest && task.name.endsWith('.'));
  if (padded.length < 2) return tasks;
  return tasks.map((task) => (task.name.length === longest ? { ...task, name: task.name.replace(/\.+$/, '') || task.name } : task));
}

/** Two tasks of one file with one id get ' (2)', ' (3)': every id names one task. */
export function uniqueNames<T extends NamedTask>(tasks: T[]): T[] {
  const seen = new Map<string, number>();
  return tasks.map((task) => {
    const key = [...task.suites, task.name].join('\u0000');
    const count = (seen.get(key) ?? 0) + 1;
    seen.set(key, count);
    return count === 1 ? task : { ...task, name: `${task.name} (${count})` };
  });
}

/**
 * A task's name without what depends on the other tasks of its file: padding dots (withoutPadding strips them
 * only when two names share the padding) and a ' (2)' (uniqueNames). How an isolate that loads one worker's
 * scenario (measure/micro/isolates.ts) checks a task against the one the whole file declared.
 */
export function ownName(name: string): string {
  return name.replace(/ \(\d+\)$/, '').replace(/\.+$/, '');
}

/** A declared name as the capture keeps it: trailing spaces dropped (a name of only spaces stays as it is). */
export function trimmedName(name: unknown): string {
  return String(name).trimEnd() || String(name);
}
