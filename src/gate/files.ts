import { discoverBenchFiles } from '../measure/micro/discover.js';
import { type RevisionInventory, assertInstalled, loadInventory } from '../measure/micro/inventory.js';
import { UserError } from '../util/errors.js';
import type { RunContext } from './plan.js';

/** Each revision's bench files; undefined when neither has any (HTTP only), an error when there is nothing to measure at all. */
export async function findBenchFiles({
  config,
  tree,
  options,
}: Pick<RunContext, 'config' | 'tree' | 'options'>): Promise<{ base: string[]; head: string[] } | undefined> {
  const [base, head] = await Promise.all([tree.base, tree.head].map((revision) => discoverBenchFiles(revision.root, config.micro.files)));
  if (base!.length > 0 || head!.length > 0) {
    options.log(`bench files: ${describeFiles(base!, head!)}`);
    return { base: base!, head: head! };
  }
  if (config.http.length === 0) {
    throw new UserError(
      `No bench files match ${config.micro.files.join(', ')} in base or head, and benchgate.yml declares no http load tests. Add a bench file (see the README's quick start), set micro.files, or declare http benchmarks.`,
    );
  }
  return undefined;
}
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
