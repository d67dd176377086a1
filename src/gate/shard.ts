import { configHash } from '../config/hash.js';
import type { Config } from '../config/types.js';
import { estimatedRoundMs, plannedFigures } from '../measure/http/schedule.js';
import type { RevisionInventory } from '../measure/micro/inventory.js';
import { type FileCensus, type ShardSpec, planSuite } from '../measure/shard.js';
import type { ShardInfo } from '../report/model.js';
import type { RunContext } from './plan.js';

/**
 * A sharded run: a census of the whole suite (every bench file loaded once per revision, no task
 * run), the split that every shard plans alike from it, and this shard's part: its bench files and
 * its load tests. The config keeps only this shard's load tests; the family stays the whole suite's.
 */
export function planShard(
  spec: ShardSpec,
  { config, options }: Pick<RunContext, 'config' | 'tree' | 'options'>,
  files: { base: string[]; head: string[] } | undefined,
  inventory: RevisionInventory[],
): { config: Config; files: { base: string[]; head: string[] } | undefined; shard: ShardInfo } {
  const census = censusOf(files, inventory);
  const suite = planSuite(
    census,
    config.http,
    { taskTimeMs: config.micro.taskTimeMs, httpRoundMs: estimatedRoundMs, httpFigures: plannedFigures },
    spec.count,
  );
  const assigned = suite.shards[spec.index - 1]!;
  const mine = new Set(assigned);
  options.log(
    `shard ${spec.index}/${spec.count}: ` +
      `${assigned.length ? assigned.join(', ') : 'nothing (more shards than bench files and load tests)'}; judged ` +
      `as a family of ${suite.familySize} budgeted figures, the whole suite's`,
  );
  const own = files && { base: files.base.filter((f) => mine.has(f)), head: files.head.filter((f) => mine.has(f)) };
  return {
    config: Object.freeze({ ...config, http: config.http.filter((b) => mine.has(b.id)) }),
    files: own && (own.base.length > 0 || own.head.length > 0) ? own : undefined,
    shard: {
      index: spec.index,
      count: spec.count,
      assigned,
      suite: suite.units,
      familySize: suite.familySize,
      configHash: configHash(config),
    },
  };
}
/** Which tasks every bench file declares at each revision (undefined where it did not load): what a shard splits. */
function censusOf(files: { base: string[]; head: string[] } | undefined, inventory: RevisionInventory[]): FileCensus[] {
  if (!files) return [];
  const tasksAt = (label: string) =>
    new Map(
      inventory
        .filter((side) => side.revision.label === label)
        .flatMap((side) => side.files.map((f) => [f.file, f.error ? undefined : f.tasks])),
    );
  const [base, head] = [tasksAt('base'), tasksAt('head')];
  return [...new Set([...files.base, ...files.head])].sort().map((file) => ({ file, base: base.get(file), head: head.get(file) }));
}
