import { type RoundConditions, spikedRounds } from '../measure/conditions.js';
import type { HttpMeasurement } from '../measure/http/schedule.js';
import type { Measurement } from '../measure/types.js';
import type { Report } from '../report/model.js';
import { formatShare } from '../util/format.js';
import type { RunContext } from './plan.js';

/** How the run went: rounds, looks, levels, time, profiling, and the machine's conditions. */
export function runInfo(
  run: RunContext,
  micro: Measurement | undefined,
  http: HttpMeasurement | undefined,
  judged: { intervalLevel: number; figures: number },
  profile: { dir?: string; benchmarks: number; durationMs: number } | undefined,
): NonNullable<Report['run']> {
  const { config, plan } = run;
  const conditions = [...(micro?.conditions ?? []), ...(http?.conditions ?? [])];
  const spiked = spikedRounds(conditions);
  return {
    rounds: micro?.rounds ?? 0,
    plannedRounds: micro?.plannedRounds ?? 0,
    ...(micro
      ? {
          maxRounds: Math.max(config.maxRounds, micro.plannedRounds),
          looks: plan.rule.looks,
          confirmRounds: micro.confirmRounds ?? 0,
          ...(micro.processes ? { processes: micro.processes } : {}),
        }
      : {}),
    ...(http
      ? {
          httpRounds: http.rounds,
          httpMode: http.mode ?? config.httpMode,
          ...(http.confirmRounds ? { httpConfirmRounds: http.confirmRounds } : {}),
          ...(http.cpus ? { httpCpus: http.cpus } : {}),
        }
      : {}),
    limited: Boolean(micro?.limited || http?.limited),
    isolation: config.micro.isolation,
    confidence: config.confidence,
    intervalConfidence: judged.intervalLevel,
    figures: judged.figures,
    timeLimitMs: config.timeLimitMs,
    measureMs: (micro?.durationMs ?? 0) + (http?.durationMs ?? 0),
    totalMs: run.now() - run.begun,
    ...(profile ? { profile } : {}),
    conditions: {
      busy: conditions.map((c) => c.busy),
      spikedRounds: spiked,
      ...(spiked.length ? { note: spikeNote(conditions, spiked) } : {}),
    },
  };
}
/** "the machine was much busier in rounds 3 and 7 (CPU 97%, 95% against a median of 58%)…" */
function spikeNote(conditions: RoundConditions[], spiked: number[]): string {
  const busy = conditions.map((c) => c.busy);
  const median = [...busy].sort((a, b) => a - b)[Math.floor(busy.length / 2)]!;
  const pct = (x: number) => formatShare(x, 0);
  const which = spiked.length === 1 ? `round ${spiked[0]}` : `rounds ${spiked.slice(0, -1).join(', ')} and ${spiked.at(-1)}`;
  return (
    `the machine was much busier in ${which} (CPU ${spiked.map((r) => pct(busy[r - 1]!)).join(', ')} ` +
    `against a median of ${pct(median)}): other jobs ran beside benchgate. Their samples still ` +
    `count (the intervals are robust to a few odd rounds), but a surprising verdict is worth a re-run.`
  );
}
