import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The file in a claimed folder that names the process holding it. */
export const CLAIM_FILE = 'benchgate.pid';

export interface ClaimedFolder {
  path: string;
  /** The repository's own folder (the same in every run of it); false: a folder of this run's own (taken beside it). */
  stable: boolean;
}

/**
 * The folder a run's worktrees go in: the same for every run of one repository (`benchgate-` and a hash of its path,
 * in `tmp`), so a rerun checks each revision out at the same path as the run before it. Counts depend on those paths:
 * the suite fixture's A/A in counts, its 24 tasks under 3 seeds at both revisions, read 120 of 144 figures within 0.01%
 * between two runs in folders of random names (`cookies > sign` 2.7% apart, `relative time` 2%), and 142 of 144 to the
 * instruction in one folder, the other two a task that reads the clock (docs/counts.md). The process repeats, neighbours
 * and load or not; what moves a figure is where its files load from (the same seed, 3 checkout folders of one length:
 * `sign` 29,306 / 28,543 / 28,531 instructions a call).
 *
 * Claimed whole, with a file naming this process, by renaming a folder made beside it onto its name (atomic: two runs
 * never both hold it). Held by a live process (a run of this repository beside this one, or this run's own earlier
 * checkout), this run takes a folder of its own (`stable` false); held by a process that is gone (a run killed before
 * its cleanup), `abandon` removes what it left (its worktrees) and the folder is taken over.
 *
 * Written by hand: no library claims a folder by a process's life.
 */
export function claimFolder(key: string, tmp: string, abandon: (folder: string) => void): ClaimedFolder {
  const stable = path.join(tmp, `benchgate-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`);
  // A folder of this run's own, claim file and all: renamed onto the stable name, or this run's folder where it cannot be.
  const own = mkdtempSync(path.join(tmp, 'benchgate-'));
  writeFileSync(path.join(own, CLAIM_FILE), `${process.pid}\n`);
  const claimed = () => {
    try {
      renameSync(own, stable);
      return true;
    } catch {
      return false;
    }
  };
  if (claimed()) return { path: stable, stable: true };
  if (holderLives(stable)) return { path: own, stable: false };
  abandon(stable);
  return claimed() ? { path: stable, stable: true } : { path: own, stable: false };
}

/**
 * Whether the process a claimed folder names is alive (signal 0 reaches it, or exists but is not ours to signal). A
 * folder that names no process (unreadable, or not claimed this way) is held: only a claim proven dead is taken over.
 * A pid the system has given to another process since reads as alive: this run then takes a folder of its own.
 */
function holderLives(folder: string): boolean {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(path.join(folder, CLAIM_FILE), 'utf8'), 10);
  } catch {
    return true;
  }
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
