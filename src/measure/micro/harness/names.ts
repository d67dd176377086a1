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
 * Names padded to one width for aligned output (find-my-way's `name.padEnd(longest, '.')`): when two or more
 * names of the longest length end in dots, those dots are padding, not part of the names. The same holds
 * for the suites at each depth (a worker's `new Bench({ name: scenario.padEnd(longest, '.') })`).
 */
export function withoutPadding<T extends NamedTask>(tasks: T[]): T[] {
  const names = unpadded(tasks.map((task) => task.name));
  const depth = Math.max(0, ...tasks.map((task) => task.suites.length));
  // A suite holds many tasks: its name counts once.
  const suites = Array.from({ length: depth }, (_, d) => unpadded([...new Set(tasks.flatMap((task) => task.suites[d] ?? []))]));
  return tasks.map((task) => {
    const suitesOf = task.suites.map((suite, d) => suites[d]!.get(suite) ?? suite);
    const name = names.get(task.name) ?? task.name;
    return name === task.name && suitesOf.every((suite, d) => suite === task.suites[d]) ? task : { ...task, suites: suitesOf, name };
  });
}

/** Each name of a list as it is without its padding dots (as withoutPadding reads them). */
function unpadded(names: string[]): Map<string, string> {
  const longest = Math.max(0, ...names.map((name) => name.length));
  const padded = names.filter((name) => name.length === longest && name.endsWith('.'));
  return new Map(padded.length < 2 ? [] : padded.map((name) => [name, name.replace(/\.+$/, '') || name]));
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
  // Each part of a 'suite > task' name on its own: a worker's suite is padded as its tasks are (fast-json-stringify's
  // `new Bench({ name: scenario.padEnd(longest, '.') })`, one scenario a worker, so one suite and no padding alone).
  return name
    .replace(/ \(\d+\)$/, '')
    .split(' > ')
    .map((part) => part.replace(/\.+$/, ''))
    .join(' > ');
}

/** A declared name as the capture keeps it: trailing spaces dropped (a name of only spaces stays as it is). */
export function trimmedName(name: unknown): string {
  return String(name).trimEnd() || String(name);
}
