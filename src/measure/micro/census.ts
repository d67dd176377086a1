import type { Revision } from '../../checkout/revisions.js';
import { UserError } from '../../util/errors.js';
import type { FileCensus } from '../shard.js';
import type { MeasureSettings, MicroJob } from './protocol.js';
import { runBenchmarkProcess, type ProcessOutcome } from './spawn.js';

export interface CensusPlan {
  base: Revision;
  head: Revision;
  baseFiles: readonly string[];
  headFiles: readonly string[];
  settings: MeasureSettings;
  runnerPath: string;
  stallTimeoutMs: number;
  /** Runs one benchmark process (default: runBenchmarkProcess); tests pass a fake. */
  spawn?: (job: MicroJob, cwd: string) => Promise<ProcessOutcome>;
}

/**
 * Which tasks every bench file declares at each revision: one process per revision loads them all
 * and runs none. A sharded run needs this of the whole suite, not only of its own files, to split
 * the suite as the other shards do and to judge at the whole family's level.
 */
export async function censusBenchFiles(plan: CensusPlan): Promise<FileCensus[]> {
  const spawn =
    plan.spawn ??
    ((job: MicroJob, cwd: string) => runBenchmarkProcess(job, { runnerPath: plan.runnerPath, stallTimeoutMs: plan.stallTimeoutMs, cwd }));
  const list = async (revision: Revision, files: readonly string[]) => {
    if (files.length === 0) return new Map<string, string[] | undefined>();
    const outcome = await spawn(
      {
        sides: [{ revision: revision.label, root: revision.root, files: [...files] }],
        settings: plan.settings,
        batches: {},
        skip: [],
        listOnly: true,
      },
      revision.root,
    );
    if (!outcome.ok) throw new UserError(`Listing the tasks of the bench files at ${revision.label} failed: ${outcome.message}`);
    return new Map(outcome.files.map((f) => [f.file, f.error ? undefined : f.tasks]));
  };
  const [base, head] = await Promise.all([list(plan.base, plan.baseFiles), list(plan.head, plan.headFiles)]);
  return [...new Set([...plan.baseFiles, ...plan.headFiles])].sort().map((file) => ({ file, base: base.get(file), head: head.get(file) }));
}
