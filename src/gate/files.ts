import type { Revision } from '../checkout/revisions.js';
import { DEFAULTS, type Config } from '../config/types.js';
import { conventionalBenchFiles } from '../measure/micro/conventions.js';
import { discoverBenchFiles, isDefaultPattern } from '../measure/micro/discover.js';
import { type RevisionInventory, assertInstalled, loadInventory } from '../measure/micro/inventory.js';
import { UserError } from '../util/errors.js';
import type { GateOptions } from './options.js';
import type { RunContext } from './plan.js';

/**
 * Each revision's bench files, read from the checkouts before anything is installed; undefined when neither has any
 * (HTTP only), an error when there is nothing to measure at all. Where the default pattern matches nothing and no
 * load test is declared, the places projects keep benchmarks in are looked at (conventions.ts).
 */
export async function findBenchFiles({
  config,
  tree,
  options,
}: {
  config: Config;
  tree: { base: Revision; head: Revision };
  options: Pick<GateOptions, 'log'>;
}): Promise<{ base: string[]; head: string[] } | undefined> {
  const [base, head] = await Promise.all([tree.base, tree.head].map((revision) => discoverBenchFiles(revision.root, config.micro.files)));
  if (base!.length > 0 || head!.length > 0) {
    options.log(`bench files: ${describeFiles(base!, head!)}`);
    return { base: base!, head: head! };
  }
  if (config.http.length > 0) return undefined;
  const [atBase, atHead] = [tree.base, tree.head].map((revision) => conventionalBenchFiles(revision.root));
  if (isDefaultPattern(config.micro.files) && (atBase || atHead)) {
    const where = atHead?.where ?? atBase!.where;
    options.log(
      `bench files: none matches micro.files' default pattern (${DEFAULTS.files.join(', ')}); found ${where}: ${describeFiles(atBase?.files ?? [], atHead?.files ?? [])} (to choose others, set micro.files in benchgate.yml or pass --files)`,
    );
    return { base: atBase?.files ?? [], head: atHead?.files ?? [] };
  }
  const candidates = atHead ?? atBase;
  const hint = candidates
    ? `These look like bench files (${candidates.where}): ${candidates.files.join(', ')}. Run with --files '${candidates.files[0]}' (repeatable), or set micro.files in benchgate.yml.`
    : `Nothing in the usual places either (${CONVENTIONAL_PLACES}). Name yours with --files '<glob>' (repeatable, e.g. --files 'bench/**/*.js') or micro.files in benchgate.yml, add a bench file (the README's quick start), or declare http benchmarks.`;
  throw new UserError(
    `No bench files match ${config.micro.files.join(', ')} in base or head, and benchgate.yml declares no http load tests. ${hint}`,
  );
}

/** One revision's bench files as a run finds them (`benchgate list`): micro.files, or by convention where it finds none. */
export async function benchFilesOf(root: string, config: Config): Promise<string[]> {
  const files = await discoverBenchFiles(root, config.micro.files);
  if (files.length || config.http.length || !isDefaultPattern(config.micro.files)) return files;
  return conventionalBenchFiles(root)?.files ?? [];
}

const CONVENTIONAL_PLACES =
  'a bench, benchmark or perf script run by node; bench.js or benchmark.js at the root; bench/, benchmark/ or benchmarks/';

/**
 * Load each revision's bench files once before measuring (a second or two): a revision that is
 * not installed stops the run here with the package and the command, not after rounds of import
 * errors; and the log says which harness (and which copy of it) each revision's files use.
 */
export async function checkBenchFiles(
  run: Pick<RunContext, 'config' | 'tree' | 'options'>,
  files: { base: string[]; head: string[] },
): Promise<RevisionInventory[]> {
  const { tree, config, options } = run;
  const inventory = await loadInventory(
    [
      { revision: tree.base, files: files.base },
      { revision: tree.head, files: files.head },
    ],
    { runnerPath: options.runnerPath, stallTimeoutMs: config.micro.taskTimeoutMs },
  );
  assertInstalled(inventory, config.install);
  for (const { revision, files: loads } of inventory) {
    const copies = [
      ...new Set(loads.flatMap((load) => load.harnesses?.map((h) => `${h.harness}${h.version ? ` ${h.version}` : ''}`) ?? [])),
    ];
    if (copies.length) options.log(`${revision.label} bench files use ${copies.join(', ')}`);
    for (const load of loads) for (const note of load.notes ?? []) options.log(`${revision.label}: ${load.file}: ${note}`);
  }
  return inventory;
}
function describeFiles(base: string[], head: string[]): string {
  const all = [...new Set([...base, ...head])].sort();
  return all.map((file) => (base.includes(file) ? (head.includes(file) ? file : `${file} (base only)`) : `${file} (head only)`)).join(', ');
}
