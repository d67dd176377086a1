import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type MeasuredCost, agreement } from '../explain/agreement.js';
import { explainCounts, withCounted } from '../explain/counts.js';
import { type Explanation, type ProfileTarget, explain } from '../explain/run.js';
import { findCallgrind } from '../measure/counts/callgrind.js';
import { pinLoadGenerator } from '../measure/http/pinning.js';
import type { HttpMeasurement } from '../measure/http/schedule.js';
import type { Measurement } from '../measure/types.js';
import type { ReportBenchmark } from '../report/model.js';
import { COUNT_STALL_MS } from './counts.js';
import type { StageShare } from './measures.js';
import type { RunContext } from './plan.js';

/** The most benchmarks profiled in one run: each costs a few seconds. */
const MAX_PROFILED = 10;
/**
 * After the verdicts, outside the measured rounds: a CPU profile of each revision for the regressions (or all, or
 * none); the micro-benchmarks counted (`counted`: what the counts measured) profiled in instructions.
 */
export async function explainStage(
  run: RunContext,
  judged: ReportBenchmark[],
  micro: Measurement | undefined,
  http: HttpMeasurement | undefined,
  counted?: StageShare,
): Promise<{ benchmarks: ReportBenchmark[]; profile?: { dir?: string; benchmarks: number } }> {
  const { options, config, tree } = run;
  const mode = options.profile ?? 'regressions';
  const targets: (ProfileTarget & { counted: boolean })[] = judged
    .filter((b) => b.change && (b.verdict === 'regression' || mode === 'always') && mode !== 'never')
    .slice(0, MAX_PROFILED)
    .map((b) => ({ id: b.id, kind: b.kind, file: b.file, counted: !!counted && b.kind === 'micro' && !!b.counts && !!b.file }));
  if (!targets.length) return { benchmarks: judged };
  // Micro-benchmarks judged in counts are profiled in counts: their functions in instructions a call, under callgrind.
  const inCounts =
    counted && targets.some((t) => t.counted)
      ? await explainCounts({
          targets: targets.filter((t) => t.counted).map((t) => ({ id: t.id, file: t.file! })),
          files: counted.files,
          skip: counted.skip,
          base: tree.base,
          head: tree.head,
          runnerPath: options.runnerPath,
          valgrind: findCallgrind().path,
          figure: config.micro.count,
          stallTimeoutMs: Math.max(config.micro.taskTimeoutMs, COUNT_STALL_MS),
          tempDir: run.socketDir,
          log: options.log,
        })
      : new Map<string, Explanation>();
  const timed = targets.filter((t) => !t.counted);
  const dir = path.resolve(options.cwd, options.profileDir ?? path.join('.benchgate', 'profiles'));
  // The default folder is in the user's working tree: ignored by git from inside (a `*` that ignores itself too),
  // so a run leaves no untracked folder behind and needs no line in the project's .gitignore.
  if (options.profileDir === undefined) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, '.gitignore'), "# benchgate's profiles: not part of the project\n*\n");
  }
  const warmups = new Map(http?.benchmarks.map((b) => [b.id, b.http?.schedule?.warmupMs]));
  const common = {
    base: tree.base,
    head: tree.head,
    http: config.http,
    dir,
    runnerPath: options.runnerPath,
    probePath: options.probePath,
    socketDir: run.socketDir,
    stallTimeoutMs: config.micro.taskTimeoutMs,
    log: options.log,
    // Profiled as measured: both revisions in one process, unless the file was measured in isolates or processes of its own.
    shared: (file: string) => micro?.isolation === 'alternate' && !micro.isolatedFiles?.includes(file),
  };
  const explanations: Map<string, Explanation> = timed.some((t) => t.kind !== 'http')
    ? await explain({ ...common, targets: timed.filter((t) => t.kind !== 'http') })
    : new Map<string, Explanation>();
  for (const [id, explanation] of inCounts) explanations.set(id, explanation);
  // Load tests measured in a duet are profiled in one: both servers pinned to the shared core again (only while they
  // are: a micro profile's process would inherit the pinning), after the warm-up their rounds ran (the learned one).
  const loads = timed.filter((t) => t.kind === 'http');
  const pinning = http?.mode === 'duet' && loads.length ? pinLoadGenerator(options.log, true) : undefined;
  const duet = (id: string) => {
    const declared = config.http.find((b) => b.id === id);
    return pinning?.sharedCpu !== undefined && declared
      ? { serverPrefix: pinning.serverPrefix, warmupMs: warmups.get(id) ?? declared.warmupMs }
      : undefined;
  };
  if (loads.length)
    for (const [id, explanation] of await explain({ ...common, targets: loads, duet }).finally(() => pinning?.release()))
      explanations.set(id, explanation);
  const benchmarks = judged.map((b) => (explanations.has(b.id) ? { ...b, profile: withAgreement(explanations.get(b.id)!, b) } : b));
  // The folder only when it holds a profile: an output or a line pointing at nothing would mislead.
  return {
    benchmarks,
    profile: { ...(benchmarks.some((b) => b.profile && 'files' in b.profile) ? { dir } : {}), benchmarks: targets.length },
  };
}
/** A profile, with whether it agrees with what the rounds measured of its benchmark's cost per operation. */
function withAgreement(profile: Explanation, benchmark: ReportBenchmark): Explanation {
  if ('measure' in profile) {
    // Seed 1's counts, which the profiled process repeated.
    const { base, head, seeds } = benchmark.counts ?? {};
    const at = seeds?.indexOf(profile.seed) ?? -1;
    const counted = base && head && at >= 0 ? { base: base.seeds[at], head: head.seeds[at] } : undefined;
    return withCounted(
      profile,
      counted?.base !== undefined && counted.head !== undefined ? (counted as { base: number; head: number }) : undefined,
    );
  }
  const measured = measuredCost(benchmark);
  const agreed = 'error' in profile || !measured ? undefined : agreement(profile, measured);
  return agreed ? { ...profile, agreement: agreed } : profile;
}
/**
 * What the rounds measured of a benchmark's cost per operation: a micro task's time a call (from its calls per
 * second), an HTTP server's main-thread CPU a request (what its profile samples). The changes are of cost, so
 * the inverse of throughput's: -20% of calls per second is +25% of time a call.
 */
function measuredCost(b: ReportBenchmark): MeasuredCost | undefined {
  const cost = (throughput: number) => 1 / (1 + throughput) - 1;
  const ofCost = (c: { estimate: number; low: number; high: number }) => ({
    estimate: cost(c.estimate),
    low: cost(c.high),
    high: cost(c.low),
  });
  const rounds = (of: number[]) => of.map(cost);
  if (b.kind === 'http') {
    const cpu = b.http?.cpu;
    return cpu?.change
      ? { baseUs: cpu.base.mainUs, headUs: cpu.head.mainUs, change: ofCost(cpu.change), rounds: rounds(cpu.rounds) }
      : undefined;
  }
  if (!b.base || !b.head || !b.change) return undefined;
  // head's own median: the table's head column is base's moved by the change, which would only restate it.
  const headOps = b.head.measured ?? b.head.opsPerSec;
  return { baseUs: 1e6 / b.base.opsPerSec, headUs: 1e6 / headOps, change: ofCost(b.change), rounds: rounds(b.rounds) };
}
