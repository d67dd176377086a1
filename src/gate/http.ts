import { DEFAULTS, type HttpMode } from '../config/types.js';
import { cpuReadable } from '../measure/http/cpu.js';
import { probeInstructions } from '../measure/http/instructions.js';
import { pinLoadGenerator } from '../measure/http/pinning.js';
import { type HttpMeasurement, measureHttp } from '../measure/http/schedule.js';
import type { BenchmarkSamples, Measurement } from '../measure/types.js';
import { analyze } from '../stats/analyze.js';
import { type RunContext, settled, timeHint } from './plan.js';

/** The HTTP load tests, after the micro-benchmarks: each look uses the whole run's figures (micro measured, HTTP planned). */
export async function measureHttpStage(run: RunContext, micro: Measurement | undefined): Promise<HttpMeasurement> {
  const { config, plan, options } = run;
  const figures = plan.familyFigures ?? plan.otherFigures + comparableMicro(micro);
  const judged = (samples: BenchmarkSamples) => analyze([samples], { ...plan.analyzeOptions, figures })[0]!;
  const pinning = config.httpPin ? pinLoadGenerator(options.log, config.httpMode === 'duet') : undefined;
  // A duet needs both servers on one core of their own: without pinning, they would not share one speed.
  const mode: HttpMode = config.httpMode === 'duet' && pinning?.sharedCpu === undefined ? 'live' : config.httpMode;
  if (mode !== config.httpMode)
    options.log(
      `http-mode duet needs the servers pinned to one core of their own (http-pin: true, taskset, 2+ cores): ` +
        `${config.httpPin ? 'pinning is not available here' : 'http-pin is false'}, so the load tests alternate (live)`,
    );
  options.log(`http load tests: ${config.http.map((b) => b.name).join(', ')} (${mode} servers${pinning ? ', pinned' : ''})`);
  // Hardware instruction counts where the machine has them (reported beside CPU per request, not gated).
  const instructions = cpuReadable() ? probeInstructions() : "the servers' CPU cannot be read here";
  options.log(
    typeof instructions === 'string'
      ? `instructions per request: not counted: ${instructions}`
      : 'instructions per request: counted with perf (hardware counters), reported beside CPU per request',
  );
  try {
    const measured = await measureHttp({
      base: run.tree.base,
      head: run.tree.head,
      benchmarks: config.http,
      mode,
      rounds: Math.max(plan.rounds, plan.rule.minimumRounds(figures)),
      adaptive: {
        maxRounds: config.maxRounds,
        lookEvery: DEFAULTS.lookEvery,
        decided: (samples) => settled(judged(samples)),
        toConfirm: (samples) => config.confirm && judged(samples).verdict === 'regression',
        confirmRounds: config.confirm ? plan.rounds : 0,
        // Sized from the throughput figures that failed (analyze's confirmFirst); a whole group where only a latency did.
        confirmSize: (samples, full) => Math.min(full, judged(samples).confirmFirst ?? full),
        earlyLook: plan.rule.earlyRounds,
      },
      deadline: run.started + config.timeLimitMs,
      probePath: options.probePath,
      socketDir: run.socketDir,
      ...(pinning ? { serverPrefix: pinning.serverPrefix } : {}),
      ...(pinning?.sharedCpu !== undefined ? { sharedCpu: pinning.sharedCpu } : {}),
      ...(typeof instructions === 'string' ? {} : { instructions }),
      log: options.log,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      now: run.now,
    });
    if (measured.limited)
      options.log(`the time limit cut the load tests short of ${measured.plannedRounds} rounds: ${timeHint('http', measured, run)}`);
    return { ...measured, mode, ...(pinning ? { cpus: pinning.split } : {}) };
  } finally {
    pinning?.release();
  }
}
function comparableMicro(micro: Measurement | undefined): number {
  return micro ? micro.benchmarks.filter((b) => !b.error && b.logRatios.length > 0).length : 0;
}
