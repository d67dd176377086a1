import { measureFor } from '../config/budgets.js';
import type { MeasureKind, MicroConfig } from '../config/types.js';
import type { RevisionInventory } from '../measure/micro/inventory.js';
import { taskIds } from '../measure/micro/protocol.js';

/** The bench files one micro stage measures, and the tasks declared there that it leaves to the other stage. */
export interface StageShare {
  files: { base: string[]; head: string[] };
  /** Task ids the stage skips: never run, never reported (the other stage measures them). */
  skip: string[];
  /** Task ids the stage alone measures: budgeted figures the other stage's family must count. */
  only: number;
}

/**
 * Which micro-benchmarks the timed rounds and the counts measure (micro.measure, per pattern micro.measures): each
 * task id the bench files declare (at either revision, from the inventory loaded before measuring) goes to time, to
 * counts, or to both; a file whose tasks all go to one stage is not loaded by the other. Undefined: that stage has
 * nothing to measure. A task the inventory did not see (none: it loads the same files) would be measured by both and
 * its rows joined by joinCounted, which reads micro.measures again.
 */
export function splitByMeasure(
  micro: Pick<MicroConfig, 'measure' | 'measures'>,
  inventory: readonly RevisionInventory[],
  files: { base: string[]; head: string[] } | undefined,
): { timed: StageShare | undefined; counted: StageShare | undefined } {
  if (!files) return { timed: undefined, counted: undefined };
  const declared = new Map<string, string[]>();
  // A file another bench file runs as a worker (benchmark/bench-thread.js) is measured through its owner: it goes
  // where its owner goes, never to a stage on its own (alone it would load as a bench file of its own).
  const ownerOf = new Map<string, string>();
  for (const side of inventory)
    for (const load of side.files) {
      if (load.workerOf) ownerOf.set(load.file, load.workerOf);
      const ids = declared.get(load.file) ?? [];
      for (const id of taskIds(load)) if (!ids.includes(id)) ids.push(id);
      declared.set(load.file, ids);
    }
  const share = (keep: (measure: MeasureKind) => boolean): StageShare | undefined => {
    const skip: string[] = [];
    let only = 0;
    const used = new Set<string>();
    for (const file of new Set([...files.base, ...files.head])) {
      if (ownerOf.has(file)) continue;
      const ids = declared.get(file);
      // A file that declared nothing (it failed to load): the stage loads it, and its error is the row.
      if (!ids?.length) {
        if (keep(micro.measure)) used.add(file);
        continue;
      }
      for (const id of ids) {
        const measure = measureFor(id, micro);
        if (!keep(measure)) skip.push(id);
        else {
          used.add(file);
          if (measure !== 'both') only++;
        }
      }
    }
    for (const [worker, owner] of ownerOf) if (used.has(owner)) used.add(worker);
    if (!used.size) return undefined;
    return { files: { base: files.base.filter((f) => used.has(f)), head: files.head.filter((f) => used.has(f)) }, skip, only };
  };
  return { timed: share((measure) => measure !== 'counts'), counted: share((measure) => measure !== 'time') };
}
