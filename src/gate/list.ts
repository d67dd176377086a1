import { checkout, workingTree } from '../checkout/revisions.js';
import { measureFor } from '../config/budgets.js';
import { loadConfig } from '../config/load.js';
import { taskIds } from '../measure/micro/protocol.js';
import { loadInventory, withInstallHints } from '../measure/micro/inventory.js';
import { benchPackages } from '../measure/micro/conventions.js';
import { benchFilesOf, isHelperLoad } from './files.js';
import type { Listing } from '../report/listing.js';
import { allowChildVariables, killStrays } from '../util/processes.js';
import { type GateOptions, withOverrides } from './options.js';

/** Check out (base and head, or only the working tree without a base), install, build, and load every bench file once. */
export async function listBenchmarks(options: Omit<GateOptions, 'base' | 'probePath'> & { base?: string | undefined }): Promise<Listing> {
  const config = withOverrides(loadConfig({ root: options.cwd, file: options.configFile }), options.overrides);
  allowChildVariables({ trusted: options.childEnv, fromConfig: config.env });
  const found = new Map<string, { files: string[]; byConvention?: true }>();
  // Neither revision named: the working tree as it is, with nothing checked out.
  const tree =
    options.base === undefined && options.head === undefined
      ? { base: undefined, head: await workingTree(options.cwd), dispose: () => undefined }
      : await checkout({
          cwd: options.cwd,
          // Only --head: it is checked out, installed and built like any revision (its twin at base goes unused).
          base: options.base ?? options.head!,
          head: options.head,
          install: config.install,
          build: config.build,
          installs: options.installs,
          log: options.log,
          onCleanup: options.onCleanup,
          // Each revision's bench files, found before it is installed: a package of their own is installed with it.
          beforeInstall: async ({ base, head }) => {
            for (const revision of [base, head]) found.set(revision.root, await benchFilesOf(revision.root, config));
          },
          packages: (revision) => benchPackages(revision.root, found.get(revision.root)?.files ?? []),
        });
  try {
    const revisions = options.base === undefined || !tree.base ? [tree.head] : [tree.base, tree.head];
    const byRoot = new Map(
      await Promise.all(
        revisions.map(
          async (revision) => [revision.root, found.get(revision.root) ?? (await benchFilesOf(revision.root, config))] as const,
        ),
      ),
    );
    const loaded = await loadInventory(
      revisions.map((revision) => ({ revision, files: byRoot.get(revision.root)!.files })),
      { runnerPath: options.runnerPath, stallTimeoutMs: config.micro.taskTimeoutMs },
    );
    const inventory = withInstallHints(loaded, config.install);
    // What each task is measured in, where it is not time: what micro.measure and micro.measures make of its id.
    const measures = Object.fromEntries(
      inventory
        .flatMap(({ files }) => files.flatMap(taskIds))
        .map((id) => [id, measureFor(id, config.micro)] as const)
        .filter(([, measure]) => measure !== 'time'),
    );
    return {
      ...(Object.keys(measures).length ? { measures } : {}),
      ...(config.http.length ? { http: config.http.map((test) => test.id) } : {}),
      revisions: inventory.map(({ revision, files }) => {
        // Files found by convention that declare no task are left out, as compare leaves them out: named, not errors.
        const leftOut = byRoot.get(revision.root)!.byConvention ? files.filter(isHelperLoad).map((f) => f.file) : [];
        return {
          label: revision.label,
          ref: revision.ref,
          sha: revision.sha,
          root: revision.root,
          files: files.filter((f) => !leftOut.includes(f.file)),
          ...(leftOut.length ? { leftOut } : {}),
        };
      }),
    };
  } finally {
    killStrays();
    tree.dispose();
  }
}
