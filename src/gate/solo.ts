import { measureMicro } from '../measure/micro/schedule.js';
import type { ReportBenchmark } from '../report/model.js';
import { judgedWithSolo } from '../report/solo-verdict.js';
import type { SoloCheckInfo } from '../report/solo.js';
import { describeFailure, messageOf } from '../util/errors.js';
import { microProcesses } from './micro.js';
import type { RunContext } from './plan.js';

/**
 * compare --solo-check, after the verdicts and outside the measured rounds: the compared micro-benchmarks' bench
 * files measured once more with one revision per process (pairs of fresh processes, AB BA), as production runs one
 * revision; each benchmark's solo change goes beside its shared-process one, with the speed levels its processes
 * fell on. A benchmark whose solo interval lies apart from its shared one (or whose revision sat on speed levels alone,
 * the solo estimate outside the shared interval) is judged on both (judgedWithSolo); a check that fails leaves the
 * verdicts as they are.
 */
export async function soloStage(
  run: RunContext,
  files: { base: string[]; head: string[] },
  judged: ReportBenchmark[],
  processes: number,
  skip: readonly string[] = [],
): Promise<{ benchmarks: ReportBenchmark[]; info: SoloCheckInfo }> {
  const { options } = run;
  const started = run.now();
  const compared = new Set(judged.filter((b) => b.kind === 'micro' && b.file && b.change && !b.counts).map((b) => b.file!));
  const info = { processes, durationMs: 0 };
  if (!compared.size) return { benchmarks: judged, info };
  options.log(`solo check: ${compared.size} bench file(s), each revision alone in ${processes} fresh processes (AB BA pairs)`);
  try {
    const solo = await measureMicro({
      ...microProcesses(run, {
        base: files.base.filter((file) => compared.has(file)),
        head: files.head.filter((file) => compared.has(file)),
      }),
      isolation: 'process',
      // The counted tasks of those files (micro.measures) are not timed here either.
      skip,
      rounds: processes,
      minimumRounds: () => processes,
      // Its own time: the verdicts are in, and the check runs every pair it was asked for.
      timeLimitMs: Number.POSITIVE_INFINITY,
    });
    const byId = new Map(solo.benchmarks.map((b) => [b.id, b]));
    const benchmarks = judged.map((b) => {
      const samples = byId.get(b.id);
      // A counted row keeps its counts' verdict: the solo check times what was timed.
      return samples && !b.counts ? judgedWithSolo(b, samples) : b;
    });
    return { benchmarks, info: { ...info, durationMs: run.now() - started } };
  } catch (error) {
    options.log(`solo check failed (the comparison stands): ${messageOf(error)}`);
    return { benchmarks: judged, info: { ...info, durationMs: run.now() - started, error: describeFailure(error) } };
  }
}
