import os from 'node:os';

/** What the machine was doing: the whole machine's CPU busy share between two samples (0 to 1). */
export interface CpuSample {
  busy: number;
  total: number;
}

export function sampleCpu(): CpuSample {
  let busy = 0;
  let total = 0;
  for (const cpu of os.cpus()) {
    const { user, nice, sys, irq, idle } = cpu.times;
    busy += user + nice + sys + irq;
    total += user + nice + sys + irq + idle;
  }
  return { busy, total };
}

/** One CPU's times so far (os.cpus(), from /proc/stat on Linux); undefined for a CPU the machine does not have. */
export function sampleCore(index: number): CpuSample | undefined {
  const cpu = os.cpus()[index];
  if (!cpu) return undefined;
  const { user, nice, sys, irq, idle } = cpu.times;
  return { busy: user + nice + sys + irq, total: user + nice + sys + irq + idle };
}

/** Share of all cores busy between two samples, 0 to 1. */
export function busyBetween(start: CpuSample, end: CpuSample): number {
  const total = end.total - start.total;
  return total > 0 ? (end.busy - start.busy) / total : 0;
}

/** One round's conditions. */
export interface RoundConditions {
  /** Whole-machine CPU busy share during the round, 0 to 1 (benchgate's own processes included). */
  busy: number;
  /** 1-minute load average at the round's start. */
  load1: number;
}

/**
 * Rounds that ran while the machine was much busier than in the run's typical
 * round: 20 points of CPU above the median round. Their samples are kept (the
 * statistics are robust to outlier rounds), but the report names them.
 */
export function spikedRounds(rounds: readonly RoundConditions[]): number[] {
  if (rounds.length < 3) return [];
  const sorted = rounds.map((r) => r.busy).sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return rounds.flatMap((r, i) => (r.busy > median + 0.2 ? [i + 1] : []));
}
