import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
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
}): Promise<FoundFiles | undefined> {
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
      `bench files: none matches micro.files' default pattern (${DEFAULTS.files.join(', ')}); ` +
        `found ${where}: ${describeFiles(atBase?.files ?? [], atHead?.files ?? [])} (to choose others, set micro.files in benchgate.yml or pass --files)`,
    );
    return { base: atBase?.files ?? [], head: atHead?.files ?? [], byConvention: true };
  }
  const candidates = atHead ?? atBase;
  const hint = candidates
    ? `These look like bench files (${candidates.where}): ${candidates.files.join(', ')}. ` +
      `Run with --files '${candidates.files[0]}' (repeatable), or set micro.files in benchgate.yml.`
    : `Nothing in the usual places either (${CONVENTIONAL_PLACES}). Name yours with --files '<glob>' (repeatable, e.g. --files 'bench/**/*.js') ` +
      "or micro.files in benchgate.yml, add a bench file (the README's quick start), or declare http benchmarks.";
  throw new UserError(
    `No bench files match ${config.micro.files.join(', ')} in base or head, and benchgate.yml declares no http load tests. ${hint}`,
  );
}

/** One revision's bench files as a run finds them (`benchgate list`): micro.files, or by convention where it finds none. */
export async function benchFilesOf(root: string, config: Config): Promise<{ files: string[]; byConvention?: true }> {
  const files = await discoverBenchFiles(root, config.micro.files);
  if (files.length || config.http.length || !isDefaultPattern(config.micro.files)) return { files };
  const found = conventionalBenchFiles(root);
  return found ? { files: found.files, byConvention: true } : { files: [] };
}

/** A file found by convention that loaded without a task benchgate can time (a helper, a runner): left out, not an error. */
export function isHelperLoad(load: { error?: string | undefined }): boolean {
  return load.error !== undefined && NO_TASK.test(load.error);
}

const CONVENTIONAL_PLACES =
  'a bench, benchmark or perf script run by node; bench.js or benchmark.js at the root; bench/, benchmark/ or benchmarks/';

/**
 * Each revision's bench files; `byConvention`: found where projects keep benchmarks, not by micro.files. `borrowed`:
 * head's new bench files, copied into base's checkout (borrowNewFiles), among `base`.
 */
export interface FoundFiles {
  base: string[];
  head: string[];
  byConvention?: true;
  borrowed?: string[];
}

/**
 * A bench file new at head (a pull request that adds a benchmark with the change it measures, or a bisect whose good
 * commit came before the project's benchmarks) has no base to compare with: its rows would read `new`. Head's copy is
 * put in base's checkout (always a worktree of this run's own, never the user's tree) at the same path, so base runs
 * the same benchmark code against its own code: the change is the code's, as for every other row. Where base cannot
 * load it (it imports what base lacks), checkBenchFiles takes it back; where a task of it fails at base only, the row
 * reads `new` (borrowedRow). Written by hand: no harness compares a benchmark added with the change.
 */
export function borrowNewFiles(found: FoundFiles, tree: { base: Revision; head: Revision }, log: (line: string) => void): FoundFiles {
  if (tree.base.worktree === undefined) return found;
  const borrowed = found.head.filter((file) => !found.base.includes(file) && !existsSync(path.join(tree.base.root, file)));
  if (!borrowed.length) return found;
  for (const file of borrowed) {
    mkdirSync(path.dirname(path.join(tree.base.root, file)), { recursive: true });
    copyFileSync(path.join(tree.head.root, file), path.join(tree.base.root, file));
  }
  log(
    `bench files: ${borrowed.join(', ')} ${borrowed.length > 1 ? 'are' : 'is'} new at head: base runs head's copy against its own code ` +
      "(put in base's checkout), so its rows compare the code, not read new",
  );
  return { ...found, base: [...found.base, ...borrowed].sort(), borrowed };
}

/**
 * A row of a borrowed bench file: said so; one whose task base could not run (an error at base alone: it calls what
 * base does not have) reads `new`, as it would have without the copy, never an error that fails the run.
 */
export function borrowedRow(borrowed: readonly string[] | undefined) {
  return <
    T extends { file: string | null; verdict: string; error?: string | undefined; errorAt?: string | undefined; note?: string | undefined },
  >(
    row: T,
  ): T => {
    if (!borrowed?.length || row.file === null || !borrowed.includes(row.file)) return row;
    if (row.verdict === 'error' && row.error !== undefined && row.errorAt === 'base') {
      const rest = { ...row };
      delete rest.error;
      delete rest.errorAt;
      return {
        ...rest,
        verdict: 'new',
        beyondBudget: null,
        note: `new at head: base could not run head's copy of its bench file (${row.error.split('\n')[0]})`,
      };
    }
    const said = "new at head: base ran head's copy of its bench file";
    return { ...row, note: row.note ? `${said}; ${row.note}` : said };
  };
}

/** A file that loads without declaring anything benchgate can time: what a helper script in bench/ does. */
const NO_TASK = /^(Error: )?it (declares no task|measures in (child processes|worker threads))/;

/**
 * Load each revision's bench files once before measuring (a second or two): a revision that is
 * not installed stops the run here with the package and the command, not after rounds of import
 * errors; and the log says which harness (and which copy of it) each revision's files use.
 */
export async function checkBenchFiles(
  run: Pick<RunContext, 'config' | 'tree' | 'options'>,
  found: FoundFiles,
): Promise<{ inventory: RevisionInventory[]; files: FoundFiles }> {
  const checked = await loadAndCheck(run, found);
  const { inventory, files } = withoutHelpers(checked.inventory, checked.files, run.options.log);
  if (files.base.length === 0 && files.head.length === 0)
    throw new UserError(
      `No bench files: the files found where projects keep benchmarks (${[...new Set([...found.base, ...found.head])].join(', ')}) ` +
        "declare no task benchgate can time. Name yours with --files '<glob>' (repeatable) or micro.files in benchgate.yml.",
    );
  return { inventory, files };
}

/**
 * Files found by convention that load but declare no task (a script that runs the benchmark of a branch in child
 * processes, a shared setup): left out, and said, where a file micro.files names stays an error row.
 */
function withoutHelpers(
  inventory: RevisionInventory[],
  found: FoundFiles,
  log: (line: string) => void,
): { inventory: RevisionInventory[]; files: FoundFiles } {
  if (!found.byConvention) return { inventory, files: found };
  const helpers = new Set(inventory.flatMap(({ files }) => files.filter(isHelperLoad).map((f) => f.file)));
  if (helpers.size === 0) return { inventory, files: found };
  log(`bench files: left out ${[...helpers].sort().join(', ')}: found by convention, they declare no task benchgate can time`);
  const keep = (file: string) => !helpers.has(file);
  return {
    inventory: inventory.map(({ revision, files }) => ({ revision, files: files.filter((f) => keep(f.file)) })),
    files: { base: found.base.filter(keep), head: found.head.filter(keep), byConvention: true },
  };
}

async function loadAndCheck(
  run: Pick<RunContext, 'config' | 'tree' | 'options'>,
  found: FoundFiles,
): Promise<{ inventory: RevisionInventory[]; files: FoundFiles }> {
  const { tree, config, options } = run;
  const loaded = await loadInventory(
    [
      { revision: tree.base, files: found.base },
      { revision: tree.head, files: found.head },
    ],
    { runnerPath: options.runnerPath, stallTimeoutMs: config.micro.taskTimeoutMs },
  );
  const { inventory, files } = takeBackUnloaded(loaded, found, tree.base, options.log);
  assertInstalled(inventory, config.install);
  for (const { revision, files: loads } of inventory) {
    const copies = [
      ...new Set(loads.flatMap((load) => load.harnesses?.map((h) => `${h.harness}${h.version ? ` ${h.version}` : ''}`) ?? [])),
    ];
    if (copies.length) options.log(`${revision.label} bench files use ${copies.join(', ')}`);
    for (const load of loads) for (const note of load.notes ?? []) options.log(`${revision.label}: ${load.file}: ${note}`);
  }
  return { inventory, files };
}

/** Borrowed files base cannot load (they import what only head has): taken out of base's checkout and files, and said. */
function takeBackUnloaded(
  inventory: RevisionInventory[],
  found: FoundFiles,
  base: Revision,
  log: (line: string) => void,
): { inventory: RevisionInventory[]; files: FoundFiles } {
  const failed = new Map(
    inventory
      .filter(({ revision }) => revision === base)
      .flatMap(({ files }) => files.filter((load) => load.error !== undefined && found.borrowed?.includes(load.file)))
      .map((load) => [load.file, load.error!.split('\n')[0]!]),
  );
  if (!failed.size) return { inventory, files: found };
  for (const [file, error] of failed) {
    rmSync(path.join(base.root, file), { force: true });
    log(`bench files: base cannot load head's copy of ${file} (${error}): its rows read new`);
  }
  const keep = (file: string) => !failed.has(file);
  return {
    inventory: inventory.map((side) => (side.revision === base ? { ...side, files: side.files.filter((f) => keep(f.file)) } : side)),
    files: { ...found, base: found.base.filter(keep), borrowed: found.borrowed!.filter(keep) },
  };
}
function describeFiles(base: string[], head: string[]): string {
  const all = [...new Set([...base, ...head])].sort();
  return all.map((file) => (base.includes(file) ? (head.includes(file) ? file : `${file} (base only)`) : `${file} (head only)`)).join(', ');
}
