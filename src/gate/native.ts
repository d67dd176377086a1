import type { RevisionInventory } from '../measure/micro/inventory.js';
import { NATIVE_RUN_TIMEOUT_MS, nativeRunLimits, nativeTargets, runNativeCheck } from '../measure/native/check.js';
import type { ReportBenchmark } from '../report/model.js';
import { type NativeCheckInfo, nativeEntries } from '../report/native.js';
import { describeFailure, messageOf } from '../util/errors.js';
import { formatDuration } from '../util/format.js';
import type { RunContext } from './plan.js';

/**
 * compare --native-check, after the verdicts and outside the measured rounds: each bench file that holds a
 * compared benchmark runs as its author runs it, and its harness's figures go beside benchgate's. Information
 * only: whatever happens here (a run that fails or hangs, the check itself failing) leaves the verdicts as they are.
 */
export async function nativeStage(
  run: RunContext,
  files: { base: string[]; head: string[] },
  inventory: RevisionInventory[],
  judged: ReportBenchmark[],
): Promise<{ benchmarks: ReportBenchmark[]; info: NativeCheckInfo }> {
  const { options, tree } = run;
  const runTimeoutMs = options.nativeCheck?.runTimeoutMs ?? NATIVE_RUN_TIMEOUT_MS;
  try {
    const compared = judged.filter((b) => b.kind === 'micro' && b.file).map((b) => b.file!);
    const targets = nativeTargets(compared, tree, files, inventory);
    options.log(
      `native check: ${targets.length} bench file(s), each run as its author ` +
        `runs it${options.nativeCheck!.runs ? `, ${options.nativeCheck!.runs} times per revision` : ''}, ` +
        `at most ${formatDuration(runTimeoutMs)} a run`,
    );
    const results = await runNativeCheck(targets, {
      observerPath: options.nativeCheck!.observerPath,
      // The gate's temp folder: removed at its end, and by the signal trap.
      tempDir: run.socketDir,
      runTimeoutMs,
      ...nativeRunLimits(options.nativeCheck!.runs),
      log: options.log,
    });
    const { byId, files: described } = nativeEntries(results, judged);
    return {
      benchmarks: judged.map((b) => (byId.has(b.id) ? { ...b, native: byId.get(b.id)! } : b)),
      info: { runTimeoutMs, files: described },
    };
  } catch (error) {
    options.log(`native check failed (the comparison stands): ${messageOf(error)}`);
    return { benchmarks: judged, info: { runTimeoutMs, files: [], error: describeFailure(error) } };
  }
}
