import os from 'node:os';
import { mean, median } from 'simple-statistics';
import { lookRounds } from '../../stats/decision.js';
import { reversedAt } from '../../stats/solo.js';
import { MAX_PROCESSES_PER_ROUND, type Isolation } from '../../config/types.js';
import { busyBetween, sampleCpu, type RoundConditions } from '../conditions.js';
import { firstGroup, wholeGroup } from '../confirmation.js';
import type { Revision, RevisionLabel } from '../../checkout/revisions.js';
import { UserError } from '../../util/errors.js';
import { formatDuration } from '../../util/format.js';
import type { BenchmarkSamples, Measurement, MeasureProgress } from '../types.js';
import {
  ID_SEPARATOR,
  taskIds,
  type FileLoad,
  type IsolatedFiles,
  type MeasureSettings,
  type MicroJob,
  type SideJob,
  type TaskOutcome,
} from './protocol.js';
import { runBenchmarkProcess, type ProcessOutcome } from './spawn.js';
import {
  allocateTaskTimes,
  processesPerRound,
  type Allocation,
  type AllocationBounds,
  type RoundRecord,
  type TaskRound,
} from './allocate.js';

/** The fewest blocks an allocated task time may leave a task, so the median over blocks stays stable. */
export const MIN_ALLOCATED_BLOCKS = 20;

export interface MicroPlan {
  base: Revision;
  head: Revision;
  /** Bench files found in each revision, relative to its project root. */
  baseFiles: string[];
  headFiles: string[];
  isolation: Isolation;
  /** Tasks never run nor reported (measured elsewhere: micro.measures counts them). */
  skip?: readonly string[];
  /**
   * Bench files new at head whose copy base runs (gate/files.ts borrowNewFiles): a task of one that throws at base is
   * an error there (its row reads new) and goes on at head alone, so its row still has head's figure.
   */
  borrowed?: readonly string[];
  settings: MeasureSettings;
  stallTimeoutMs: number;
  /** Rounds asked for; raised to minimumRounds once the first round shows how many benchmarks compare. */
  rounds: number;
  /** The fewest rounds whose intervals can reach their level when `benchmarks` micro-benchmarks compare (the decision rule's). */
  minimumRounds: (benchmarks: number) => number;
  timeLimitMs: number;
  runnerPath: string;
  /**
   * Adaptive rounds: after `rounds`, every `lookEvery` rounds, `decided` names the benchmarks that need
   * no more rounds (they are left out of later rounds), until all are decided or `maxRounds`. Then
   * `toConfirm` names the regressions that a fresh group of `confirmRounds` rounds must reproduce.
   */
  adaptive?: {
    maxRounds: number;
    lookEvery: number;
    decided: (benchmarks: BenchmarkSamples[]) => Set<string>;
    toConfirm: (benchmarks: BenchmarkSamples[]) => Set<string>;
    confirmRounds: number;
    /**
     * The fresh rounds a regression is confirmed with first (the gate's, from stats/power.ts roundsToConfirm), given
     * the whole group's size (confirmation.ts firstGroup): where they do not show it, the fresh group goes on to the
     * whole. Absent: the whole group at once.
     */
    confirmSize?: (samples: BenchmarkSamples, full: number) => number;
    /** The rounds of the early look (the rule's earlyRounds), before the planned ones; none when absent. */
    earlyLook?: number;
  };
  onProgress?: (progress: MeasureProgress) => void;
  log: (line: string) => void;
  now?: () => number;
  /** Choose each task's time per process from the noise of the rounds so far (default; alternate isolation only). */
  allocate?: boolean;
  /**
   * Whether a benchmark's figure resolves its budget after `rounds` rounds when a round spreads `spread`
   * (log units) and `benchmarks` compare (the decision rule's level at that look). With it, and an
   * allocation, a round may run several processes (processesPerRound); without it, one.
   */
  resolves?: (id: string, spread: number, rounds: number, benchmarks: number) => boolean;
  /** The most processes a round may run (micro.processes; default 8). */
  maxProcesses?: number;
  /** Runs one benchmark process (default: runBenchmarkProcess with runnerPath); tests pass a fake. */
  spawn?: (job: MicroJob) => Promise<ProcessOutcome>;
}

/** What one round yields, whichever way it was measured. */
interface RoundOutcome {
  ok: true;
  files: FileLoad[];
  tasks: TaskOutcome[];
  isolated?: IsolatedFiles | undefined;
}

type RoundFailure = Extract<ProcessOutcome, { ok: false }>;

/**
 * How a round is measured. This is the seam for other measuring strategies
 * (CPU-time clocks, other isolation modes): the scheduler and the statistics
 * only see per-round log ratios and ops/s.
 */
interface RoundStrategy {
  /** `order`: the processes (or pairs) run before this one, which alternate the revision loaded first. */
  run(order: number, job: Omit<MicroJob, 'sides'>): Promise<RoundOutcome | RoundFailure>;
}

/** Both revisions in one process, alternating blocks; which revision is imported first alternates by round. */
function alternateStrategy(plan: MicroPlan, spawn: (job: MicroJob) => Promise<ProcessOutcome>): RoundStrategy {
  const sides: SideJob[] = [
    { revision: 'base', root: plan.base.root, files: plan.baseFiles },
    { revision: 'head', root: plan.head.root, files: plan.headFiles },
  ];
  return {
    async run(order, job) {
      return spawn({ ...job, sides: order % 2 === 0 ? sides : [...sides].reverse() });
    },
  };
}

/** One revision per process, a pair of processes per round in AB BA order; the pair's ratio is the sample. */
function processStrategy(plan: MicroPlan, spawn: (job: MicroJob) => Promise<ProcessOutcome>): RoundStrategy {
  const base: SideJob = { revision: 'base', root: plan.base.root, files: plan.baseFiles };
  const head: SideJob = { revision: 'head', root: plan.head.root, files: plan.headFiles };
  return {
    async run(order, job) {
      const outcomes: RoundOutcome[] = [];
      const batches = { ...job.batches };
      for (const side of order % 2 === 0 ? [base, head] : [head, base]) {
        const outcome = await spawn({ ...job, batches, sides: [side] });
        if (!outcome.ok) return outcome;
        outcomes.push(outcome);
        // The second process of the first pair uses the batch sizes the first one chose: the same for both revisions.
        for (const task of outcome.tasks) batches[task.id] ??= task.batch;
      }
      const isolated = outcomes.find((o) => o.isolated)?.isolated;
      return { ok: true, files: outcomes.flatMap((o) => o.files), tasks: mergePair(outcomes.flatMap((o) => o.tasks)), isolated };
    },
  };
}

/** The log's line for bench files measured in isolates of their own (isolates.ts). */
export function isolationLine({ files, pinned, reason }: IsolatedFiles): string {
  const list = files.length > 3 ? `${files.slice(0, 3).join(', ')} and ${files.length - 3} more` : files.join(', ');
  const why = reason ? `; every file, because ${reason}` : '';
  return pinned
    ? `${list}: measured in isolates of their own (a worker thread per revision and per worker the file starts), taking turns on one CPU${why}`
    : `${list}: measured in isolates of their own${why}, but the benchmark process could not be pinned to one CPU ` +
        `(taskset is missing or not permitted): its threads may run on different cores, whose speeds differ, which adds noise`;
}

/**
 * After the first round, the first look's rounds at its pace: where they need more than twice the time limit (a suite
 * that starts a worker per scenario: 15-50 s a round), said now, not after minutes of rounds that will end unmeasured.
 * Twice, because later rounds may be shorter (task times are sized after the third); not that much shorter.
 */
function warnIfPaceCannotFit(roundMs: number, plannedRounds: number, timeLimitMs: number, log: (line: string) => void): void {
  const needs = roundMs * plannedRounds;
  if (!(needs > 2 * timeLimitMs)) return;
  log(
    `warning: round 1 took ${formatDuration(roundMs)}: at that pace the first look's ${plannedRounds} rounds need about ${formatDuration(needs)}, ` +
      `and time-limit is ${formatDuration(timeLimitMs)} (later rounds may be shorter, not by half): what it leaves unmeasured fails the run: ` +
      `raise time-limit to about ${formatDuration(needs)}, or measure fewer files a run (--files, --shard)`,
  );
}

/** Join each task's base and head outcomes from two processes into one, with the pair's log ratio. */
function mergePair(tasks: TaskOutcome[]): TaskOutcome[] {
  const merged = new Map<string, TaskOutcome>();
  for (const task of tasks) {
    const seen = merged.get(task.id);
    if (!seen) {
      merged.set(task.id, { ...task });
      continue;
    }
    Object.assign(seen, {
      base: seen.base ?? task.base,
      head: seen.head ?? task.head,
      error: seen.error ?? task.error,
      blocks: seen.blocks + task.blocks,
    });
    if (seen.base && seen.head && !seen.error) seen.logRatio = Math.log(seen.head.opsPerSec / seen.base.opsPerSec);
  }
  return [...merged.values()];
}

/**
 * A process of one revision runs in that revision's project directory, so a bench file that reads a
 * relative path reads its own revision's file; one that loads both revisions runs in head's.
 */
export function workingDirectory(job: MicroJob, plan: Pick<MicroPlan, 'head'>): string {
  return job.sides.length === 1 ? job.sides[0]!.root : plan.head.root;
}

/**
 * Run the micro-benchmark rounds: one benchmark process per round (two in
 * process isolation), until the planned rounds are done or the next round would
 * not fit in the time limit. A task that hangs or crashes its process gets an
 * error and is left out of later attempts, so the other tasks still get verdicts.
 */
/** Said where the rounds past the first look stop: a confirmation's time is kept back too. */
const KEPT_BACK = ', and the time kept back to confirm a regression,';

export async function measureMicro(plan: MicroPlan): Promise<Measurement> {
  const now = plan.now ?? Date.now;
  const started = now();
  const spawn =
    plan.spawn ??
    ((job: MicroJob) =>
      runBenchmarkProcess(job, { runnerPath: plan.runnerPath, stallTimeoutMs: plan.stallTimeoutMs, cwd: workingDirectory(job, plan) }));
  const strategy = plan.isolation === 'process' ? processStrategy(plan, spawn) : alternateStrategy(plan, spawn);
  const samples = new Map<string, BenchmarkSamples>();
  const batches: Record<string, number> = {};
  const skip = new Set<string>(plan.skip);
  const errors = new Map<string, TaskError>();
  const headAlone = new HeadAlone(plan.borrowed);
  let plannedRounds = plan.rounds;
  let rounds = 0;
  // Benchmark processes (pairs in process isolation) run so far, which alternate the revision loaded first,
  // and how many the next round runs (more than one only with an allocation, see processesPerRound).
  let processes = 0;
  let perRound = 1;
  let family = 0;
  let isolatedFiles: string[] | undefined;
  // The regressions of the last look (the confirmation's tasks).
  let suspects = new Set<string>();
  // Alternate isolation: each round's within-process figures, from which the task times are chosen (allocate.ts).
  const records: RoundRecord[] = [];
  let allocation: Allocation | undefined;
  let lastProcessMs = 0;
  let limited = false;
  const conditions: RoundConditions[] = [];
  const adaptive = plan.adaptive;
  const decided = new Set<string>();
  // A confirmation runs as many rounds as the first group did (at least the first look's), so the time it needs grows with the rounds.
  const confirmationRounds = (done: number) => wholeGroup(adaptive?.confirmRounds ?? 0, plannedRounds, done);
  // One process of a confirmation: it measures only the regressions (the last look's, and room for one more),
  // so with an allocation it costs the process's fixed part and their task times, not a whole round.
  const confirmProcessMs = (fallback: number) => {
    if (!allocation) return fallback;
    const times = Object.values(allocation.taskTimeMs);
    const typical = times.length ? median(times) : 0;
    // A suspect's time in one process: its latest round's (decided, it has left the allocation).
    const measured = (id: string) => records.findLast((record) => record.tasks.has(id))?.tasks.get(id)?.measureMs ?? typical;
    return allocation.overheadMs + typical + [...suspects].reduce((sum, id) => sum + measured(id), 0);
  };
  // Time kept back for confirming regressions, once a round's length is known.
  const reserve = (roundMs: number, done: number) => confirmationRounds(done) * perRound * confirmProcessMs(roundMs / perRound);

  // `unmeasured`: the tasks this round does not measure (decided, or not under confirmation); they still warm up
  // where a measured task after them shares their code (MicroJob.decided), so its neighbours never change.
  const runOne = async (round: number, unmeasured: Set<string>, into: 'main' | 'confirmation') => {
    const cpuBefore = sampleCpu();
    const load1 = os.loadavg()[0] ?? 0;
    const taskTimes = allocation?.taskTimeMs;
    const outcomes: RoundOutcome[] = [];
    const skipNow = new Set(skip);
    const decidedNow = [...unmeasured].filter((id) => !skip.has(id));
    for (let p = 0; p < perRound; p++) {
      const processStarted = now();
      const job = {
        settings: plan.settings,
        batches,
        skip: [...skipNow],
        ...headAlone.job(),
        decided: decidedNow,
        isolates: plan.isolation === 'thread' ? ('files' as const) : ('workers' as const),
        ...(taskTimes ? { taskTimes } : {}),
      };
      // The tasks' order: declared in two rounds, reversed in the next two (MicroJob.reverse), every process of a round
      // alike (a round's processes are averaged: two orders in one round would hide their groups in a mean), so with
      // one process a round each order meets each revision loaded first; a pair in process isolation shares its order.
      const outcome = await runRound(
        strategy,
        round,
        processes++,
        reversedAt(round) ? { ...job, reverse: true } : job,
        errors,
        skipNow,
        plan.log,
      );
      lastProcessMs = now() - processStarted;
      if (into === 'main' && plan.isolation === 'alternate') records.push(roundRecord(lastProcessMs, outcome.tasks));
      outcomes.push(outcome);
    }
    const outcome = meanOfProcesses(outcomes);
    // Failed in this round: an error, or a decided task that failed while warming up (never run again).
    for (const id of skipNow) skip.add(id);
    if (round === 0) {
      const isolated = outcomes.find((o) => o.isolated)?.isolated;
      if (isolated) plan.log(isolationLine(isolated));
      isolatedFiles = isolated?.files;
      await explainLoadErrors(outcome.files, plan, spawn, errors, skip);
      family = comparable(outcome.tasks, errors);
      plannedRounds = Math.max(plannedRounds, plan.minimumRounds(family));
    }
    for (const task of outcome.tasks) {
      batches[task.id] ??= task.batch;
      record(samples, task, errors, skip, into, headAlone);
    }
    conditions.push({ busy: busyBetween(cpuBefore, sampleCpu()), load1 });
  };

  const maxRounds = () => Math.max(plannedRounds, adaptive?.maxRounds ?? plannedRounds);
  // Once task times are allocated, the rounds before (at the full task time) no longer say how long the next one takes.
  const roundLength = (elapsed: number) => (allocation ? lastProcessMs * perRound : rounds ? elapsed / rounds : 0);
  // The rounds of the next look: the first one, then every lookEvery, up to max-rounds.
  const nextLook = () =>
    adaptive ? (lookRounds(plannedRounds, maxRounds(), adaptive.lookEvery).find((n) => n > rounds) ?? maxRounds()) : plannedRounds;
  // With an allocation, the processes of the next rounds: as many as the budgets need at the next look and the time allows.
  const replan = () => {
    if (!allocation || !plan.resolves || rounds >= maxRounds()) return;
    const next = processesPerRound(allocation, {
      maxProcesses: plan.maxProcesses ?? MAX_PROCESSES_PER_ROUND,
      enough: (id, spread) => plan.resolves!(id, spread, nextLook(), family),
      remainingMs: plan.timeLimitMs - (now() - started),
      roundsToGo: Math.max(0, maxRounds() - rounds),
      confirmMs: confirmProcessMs(allocation.roundMs),
      confirmRounds: confirmationRounds(nextLook()),
      ...(perRound > 1 ? { current: perRound } : {}),
    });
    if (next !== perRound)
      plan.log(
        `from round ${rounds + 1}: ${next} process${next > 1 ? 'es' : ''} per round ` +
          `(between-process noise; what the budgets need at round ${nextLook()} and the time allows)`,
      );
    perRound = next;
  };
  for (let round = 0; round < maxRounds(); round++) {
    const elapsed = now() - started;
    const roundMs = roundLength(elapsed);
    if (rounds > 0 && elapsed + roundMs + (round >= plannedRounds ? reserve(roundMs, rounds) : 0) > plan.timeLimitMs) {
      limited = round < plannedRounds;
      plan.log(
        `time limit of ${Math.round(plan.timeLimitMs / 1000)}s: stopping after ${rounds} round${rounds === 1 ? '' : 's'} ` +
          `(${Math.round(elapsed / 1000)}s measured: the next round${round >= plannedRounds ? KEPT_BACK : ''} would not fit)`,
      );
      break;
    }
    const target = round < plannedRounds ? plannedRounds : maxRounds();
    plan.onProgress?.({
      round: round + 1,
      rounds: target,
      ...(round === 0 ? { bound: 'at least' as const } : round >= plannedRounds ? { bound: 'at most' as const } : {}),
      elapsedMs: elapsed,
      remainingMs: Math.min(roundMs * (target - round), plan.timeLimitMs - elapsed),
    });
    await runOne(round, decided, 'main');
    rounds++;
    if (rounds === 1) warnIfPaceCannotFit(now() - started, plannedRounds, plan.timeLimitMs, plan.log);
    // Before the first look, its rounds and a confirmation must fit in the time left.
    const fit =
      rounds < plannedRounds
        ? { timeMs: plan.timeLimitMs - (now() - started), rounds: plannedRounds - rounds, confirmRounds: confirmationRounds(plannedRounds) }
        : undefined;
    const measured = new Set([...samples.keys()].filter((id) => !skip.has(id) && !decided.has(id)));
    allocation = reallocate(plan, records, allocation, measured, fit);
    if (!adaptive) continue;
    // The planned looks, and the early look (a step far beyond or within its budget is decided from its first rounds).
    const look = (rounds >= plannedRounds && (rounds - plannedRounds) % adaptive.lookEvery === 0) || rounds === adaptive.earlyLook;
    if (look) {
      for (const id of adaptive.decided([...samples.values()])) {
        // Decided at the early look: a regression among them is confirmed by a fresh group as large (its rounds).
        const entry = samples.get(id);
        if (entry && !decided.has(id) && rounds === adaptive.earlyLook && rounds < plannedRounds) entry.endedEarly = true;
        decided.add(id);
      }
      if (adaptive.confirmRounds > 0) suspects = adaptive.toConfirm([...samples.values()]);
    }
    replan();
    if (!look) continue;
    const open = [...samples.values()].filter((b) => !b.error && !errors.has(b.id) && b.base && b.head && !decided.has(b.id));
    if (open.length === 0) break;
    if (rounds === adaptive.earlyLook && rounds < plannedRounds && decided.size > 0)
      plan.log(
        `after ${rounds} rounds, ${decided.size} benchmark(s) decided at the early look (a step far from its budget); ${open.length} go on`,
      );
    if (rounds === plannedRounds)
      plan.log(
        `after ${rounds} rounds, ${open.length} benchmark(s) have no verdict yet: ` +
          (rounds < maxRounds() ? `adding rounds for them (up to ${maxRounds()})` : `max-rounds (${maxRounds()}) leaves none to add`),
      );
  }

  // A regression must reproduce in a fresh group of processes before it can fail the build.
  let confirmRounds = 0;
  const confirming = adaptive && adaptive.confirmRounds > 0 ? adaptive.toConfirm([...samples.values()]) : new Set<string>();
  // As many fresh rounds as the first group took to find it (at least the first look's): a small loss that
  // needed 25 rounds to stand out needs as many to show again, and fewer would let most of them through. So the
  // fresh group starts smaller only where the loss shows how few would do: a step the early look found far beyond
  // its budget, with the early look's rounds; a loss far enough beyond its budget for its spread, with as many as
  // it needs (confirmSize). Where those do not show it again, it goes on to the first group's size (the other
  // suspects' rounds are never cut short).
  const endedEarly = (id: string) => samples.get(id)?.endedEarly === true;
  const fullGroup = (id: string) => confirmationRounds(samples.get(id)?.logRatios.length ?? 0);
  const groupOf = (id: string) => {
    const entry = samples.get(id);
    if (endedEarly(id)) return adaptive!.earlyLook!;
    return firstGroup(entry && adaptive?.confirmSize?.(entry, fullGroup(id)), fullGroup(id));
  };
  const confirmTarget = adaptive && confirming.size > 0 ? Math.max(...[...confirming].map(groupOf)) : 0;
  if (confirming.size > 0) {
    plan.log(`confirming ${confirming.size} regression(s) with ${confirmTarget} fresh rounds`);
    // The suspects alone share the fresh processes (they were decided, so the last allocation left them out).
    allocation = reallocate(plan, records, allocation, confirming);
    suspects = confirming;
    // An empty fresh group per suspect, until its rounds come: a confirmation that no round fits in is no confirmation
    // (analyze); one the time limit stops short of the size it would go on to is none either.
    for (const id of confirming) {
      const entry = samples.get(id);
      if (entry) {
        entry.confirmation ??= [];
        entry.confirmationPlanned = fullGroup(id);
      }
    }
    const confirmUpTo = async (target: number, measuring: Set<string>) => {
      const others = new Set([...samples.keys()].filter((id) => !measuring.has(id)));
      for (let i = confirmRounds; i < target; i++) {
        const elapsed = now() - started;
        const roundMs = roundLength(elapsed);
        if (elapsed + roundMs > plan.timeLimitMs) return;
        plan.onProgress?.({
          round: i + 1,
          rounds: target,
          elapsedMs: elapsed,
          remainingMs: Math.min(roundMs * (target - i), plan.timeLimitMs - elapsed),
        });
        await runOne(rounds + i, others, 'confirmation');
        confirmRounds++;
      }
    };
    await confirmUpTo(confirmTarget, confirming);
    // The regressions their first fresh rounds did not show again: the fresh group goes on to the first group's size.
    // Those it showed again are whole as they are (a figure they did not reproduce was measured, not cut).
    const shown = adaptive!.toConfirm([...samples.values()]);
    if (confirmRounds === confirmTarget)
      for (const id of confirming) {
        const entry = samples.get(id);
        if (entry && shown.has(id)) entry.confirmationPlanned = confirmRounds;
      }
    const goOn = new Set([...confirming].filter((id) => fullGroup(id) > confirmRounds && !shown.has(id) && !skip.has(id)));
    const longer = goOn.size > 0 ? Math.max(...[...goOn].map(fullGroup)) : 0;
    if (longer > confirmRounds && confirmRounds === confirmTarget) {
      plan.log(
        `${goOn.size} regression(s)${[...goOn].every(endedEarly) ? ' from the early look' : ''} not shown again in ${confirmRounds} ` +
          `fresh rounds: the fresh group goes on to ${longer}`,
      );
      allocation = reallocate(plan, records, allocation, goOn);
      suspects = goOn;
      await confirmUpTo(longer, goOn);
    }
  }
  for (const [id, { message, at }] of errors) {
    const entry = samples.get(id) ?? emptySamples(id);
    entry.error = message;
    if (at) entry.errorAt = at;
    samples.set(id, entry);
  }
  return {
    benchmarks: [...samples.values()],
    rounds,
    plannedRounds,
    limited,
    durationMs: now() - started,
    isolation: plan.isolation,
    ...(isolatedFiles ? { isolatedFiles } : {}),
    conditions,
    confirmRounds,
    processes,
  };
}

/**
 * One round's outcome from its processes: each task's figure is the mean of its per-process log
 * ratios (each already a median over blocks, so one odd block cannot sway it), its throughputs their
 * geometric means; an error in any process is the task's error.
 */
function meanOfProcesses(outcomes: RoundOutcome[]): RoundOutcome {
  if (outcomes.length === 1) return outcomes[0]!;
  const byId = new Map<string, TaskOutcome[]>();
  for (const outcome of outcomes) for (const task of outcome.tasks) byId.set(task.id, [...(byId.get(task.id) ?? []), task]);
  const tasks = [...byId.values()].map((seen) => {
    const task: TaskOutcome = { ...seen[0]!, blocks: seen.reduce((sum, t) => sum + t.blocks, 0) };
    const error = seen.find((t) => t.error)?.error;
    if (error) return { ...task, error };
    for (const side of ['base', 'head'] as const) {
      const figures = seen.map((t) => t[side]).filter((f) => f !== undefined);
      if (figures.length) task[side] = { ...figures[0]!, opsPerSec: Math.exp(mean(figures.map((f) => Math.log(f.opsPerSec)))) };
    }
    const ratios = seen.map((t) => t.logRatio).filter((r) => r !== undefined);
    if (ratios.length) task.logRatio = mean(ratios);
    return task;
  });
  return { ok: true, files: outcomes[0]!.files, tasks };
}

/** A round's within-process figures, for the tasks that have them. */
function roundRecord(durationMs: number, tasks: TaskOutcome[]): RoundRecord {
  const figures = new Map<string, TaskRound>();
  for (const task of tasks) {
    const { logRatio, blockVariance, measureMs, blocks } = task;
    if (task.error || logRatio === undefined || blockVariance === undefined || measureMs === undefined) continue;
    figures.set(task.id, { logRatio, blockVariance, measureMs, blocks });
  }
  return { durationMs, tasks: figures };
}

/**
 * The task times for the next round, from every round so far (alternate isolation only; process
 * isolation has no blocks to weigh). Logged the first time: what the rounds showed and what changed.
 */
function reallocate(
  plan: MicroPlan,
  records: RoundRecord[],
  before: Allocation | undefined,
  open: Set<string>,
  fit?: AllocationBounds['fit'],
): Allocation | undefined {
  if (plan.allocate === false) return undefined;
  const next = allocateTaskTimes(
    records,
    { minBlocks: Math.max(MIN_ALLOCATED_BLOCKS, plan.settings.minBlocks), maxTaskMs: plan.settings.taskTimeMs, ...(fit ? { fit } : {}) },
    open,
  );
  if (!next) return before;
  if (!before) plan.log(describeAllocation(next, records, plan.settings.taskTimeMs));
  return next;
}

/** "after 3 rounds: between-process noise dominates in 15 of 18 tasks; task time 400ms → 20–85ms, a round ≈7.1s → 1.9s" */
function describeAllocation(allocation: Allocation, records: RoundRecord[], taskTimeMs: number): string {
  const noise = Object.entries(allocation.noise);
  const times = Object.values(allocation.taskTimeMs);
  // At the configured task time: whether more blocks per process could still help.
  const between = noise.filter(([, n]) => n.between >= n.within / Math.max(1, taskTimeMs / n.blockMs)).length;
  const ms = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(1)}s` : `${Math.round(x)}ms`);
  const [low, high] = [Math.min(...times), Math.max(...times)];
  const last = records.at(-1)!.durationMs;
  return (
    `after ${records.length} rounds: between-process noise dominates in ${between} of ${noise.length} tasks; task time ` +
    `${ms(taskTimeMs)} → ${low === high ? ms(low) : `${ms(low)}–${ms(high)}`}, a round ≈${ms(last)} → ${ms(allocation.roundMs)}`
  );
}

/** One process (a pair in process isolation) of round `round`; `order` (the processes before it) picks which revision loads first. */
async function runRound(
  strategy: RoundStrategy,
  round: number,
  order: number,
  job: Omit<MicroJob, 'sides'>,
  errors: Map<string, TaskError>,
  skip: Set<string>,
  log: (line: string) => void,
): Promise<RoundOutcome> {
  for (;;) {
    const outcome = await strategy.run(order, { ...job, skip: [...skip] });
    if (outcome.ok) return outcome;
    // Each retry leaves out one more task, so this ends; a failure no task can be blamed for ends the run.
    if (!outcome.id || skip.has(outcome.id)) {
      throw new UserError(`Round ${round + 1}: ${outcome.message}`);
    }
    skip.add(outcome.id);
    // A decided task that fails while it only warms up keeps its verdict: it is no longer run (its neighbours
    // after it lose its warm-up from here on, which the log says).
    if (job.decided?.includes(outcome.id)) {
      log(`round ${round + 1}: ${outcome.id}, already decided, failed while warming up and is no longer run (${outcome.message})`);
      continue;
    }
    // Blame the task it was running, and run the round again without it.
    errors.set(outcome.id, taskError(outcome.message, outcome.revision));
  }
}

/** A task's failure, and the revision it failed at where it was one (the report's errorAt). */
interface TaskError {
  message: string;
  at?: RevisionLabel | undefined;
}

function taskError(message: string, at: RevisionLabel | undefined): TaskError {
  return { message: at ? `at ${at}: ${message}` : message, at };
}

/** Benchmarks that exist on both sides and have not failed: the family the confidence is shared across. */
function comparable(tasks: TaskOutcome[], errors: Map<string, TaskError>): number {
  return tasks.filter((task) => task.base && task.head && !task.error && !errors.has(task.id)).length;
}

/**
 * Tasks of bench files new at head (MicroPlan.borrowed) that threw at base: base's copy calls what base does not have.
 * They are that error at base, and are measured at head alone from then on (MicroJob.headAlone); one that throws at
 * head too is skipped as any other. Written by hand: no harness runs a task at one revision of two.
 */
class HeadAlone {
  private readonly ids = new Set<string>();
  constructor(private readonly files: readonly string[] = []) {}

  /** Whether a task's failure leaves it to head alone (true), or ends it (false). */
  failed(id: string, at: RevisionLabel): boolean {
    if (at === 'base' && !this.ids.has(id) && this.files.includes(fileOfTask(id))) {
      this.ids.add(id);
      return true;
    }
    this.ids.delete(id);
    return false;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  job(): Pick<MicroJob, 'headAlone'> {
    return this.ids.size ? { headAlone: [...this.ids] } : {};
  }
}

function record(
  samples: Map<string, BenchmarkSamples>,
  task: TaskOutcome,
  errors: Map<string, TaskError>,
  skip: Set<string>,
  into: 'main' | 'confirmation',
  headAlone: HeadAlone,
): void {
  if (errors.has(task.id) && !headAlone.has(task.id)) return;
  if (task.error) {
    errors.set(task.id, taskError(task.error.message, task.error.revision));
    if (!headAlone.failed(task.id, task.error.revision)) skip.add(task.id);
    return;
  }
  const entry = samples.get(task.id) ?? emptySamples(task.id);
  if (into === 'confirmation') {
    if (task.logRatio !== undefined) (entry.confirmation ??= []).push(task.logRatio);
    return;
  }
  entry.batch = task.batch;
  if (task.base) (entry.base ??= { opsPerSec: [] }).opsPerSec.push(task.base.opsPerSec);
  if (task.head) (entry.head ??= { opsPerSec: [] }).opsPerSec.push(task.head.opsPerSec);
  if (task.logRatio !== undefined) entry.logRatios.push(task.logRatio);
  samples.set(task.id, entry);
}

function emptySamples(id: string): BenchmarkSamples {
  return { id, kind: 'micro', file: fileOfTask(id), logRatios: [], base: undefined, head: undefined };
}

/** The bench file a task's id starts with (a file's own id, as a load error's, is the file). */
function fileOfTask(id: string): string {
  const separator = id.indexOf(ID_SEPARATOR);
  return separator > 0 ? id.slice(0, separator) : id;
}

/**
 * A bench file that failed to load: its tasks of the other revision are errors
 * too (a broken file is not a removed benchmark). When it loaded for the other
 * revision in the same process, check it alone: if it loads then, the code
 * cannot be loaded twice in one process, and the message says what to do.
 */
async function explainLoadErrors(
  files: FileLoad[],
  plan: MicroPlan,
  spawn: (job: MicroJob) => Promise<ProcessOutcome>,
  errors: Map<string, TaskError>,
  skip: Set<string>,
): Promise<void> {
  for (const failed of files.filter((file) => file.error)) {
    const other = files.find((file) => file.file === failed.file && file.revision !== failed.revision && !file.error);
    let message = `${failed.file} failed to load at ${failed.revision}: ${failed.error}`;
    if (other && plan.isolation === 'alternate') {
      const side = failed.revision === 'base' ? plan.base : plan.head;
      const alone = await spawn({
        sides: [{ revision: failed.revision, root: side.root, files: [failed.file] }],
        settings: { ...plan.settings, taskTimeMs: 0, minBlocks: 1, warmupBlocks: 0 },
        batches: {},
        skip: [],
      });
      if (alone.ok && alone.files.every((file) => !file.error)) {
        message =
          `${failed.file} loads alone at ${failed.revision} but not in the same process as the other ` +
          `revision (${failed.error?.split('\n')[0]}). This code cannot be loaded twice in one process ` +
          `(global patching, native addons that load once): set micro.isolation: process in benchgate.yml.`;
      }
    }
    plan.log(message);
    const ids = other ? taskIds({ file: failed.file, tasks: other.tasks }) : [failed.file];
    for (const id of ids) {
      errors.set(id, { message, at: other ? failed.revision : undefined });
      skip.add(id);
    }
  }
}
