import { median } from 'simple-statistics';
import { roundSpread } from '../../stats/power.js';

/** What one process told about one task's noise and cost (alternate isolation). */
export interface TaskRound {
  /** The round's figure: the median over blocks of the per-block log ratios. */
  logRatio: number;
  blocks: number;
  /** Variance of one block's log ratio inside the process (robust: (1.4826 MAD)²). */
  blockVariance: number;
  /** Time the timed blocks took, in ms (warm-up and probe not included). */
  measureMs: number;
}

/** One measured round: how long the whole process took, and each task's figures. */
export interface RoundRecord {
  durationMs: number;
  tasks: ReadonlyMap<string, TaskRound>;
}

export interface AllocationBounds {
  /** The fewest blocks per task and process, so the median over blocks stays stable. */
  minBlocks: number;
  /** The longest measuring time per task and process (micro.task-time). */
  maxTaskMs: number;
  /**
   * Rounds that must fit in `timeMs`, and a confirmation of `confirmRounds` rounds after them (each
   * process the overhead and two tasks' time: a suspect and room for one more): before the first look,
   * the rounds it needs, so that a loaded machine still reaches a verdict in the time limit.
   */
  fit?: { timeMs: number; rounds: number; confirmRounds: number };
}

/** One task's noise as the rounds so far show it, in squared log-ratio units. */
export interface TaskNoise {
  /** σ²_b: the variance of the per-process offset, the part that only more processes average away. */
  between: number;
  /** σ²_w: the variance one block adds to the round's median (π/2 × the block variance); a round of n blocks gets σ²_w / n. */
  within: number;
  /** ms per block. */
  blockMs: number;
}

export interface Allocation {
  /** Measuring time per task and process, in ms, by benchmark id. */
  taskTimeMs: Record<string, number>;
  /** The per-process cost that does not depend on the task times (start, loading, each task's probe and warm-up), in ms. */
  overheadMs: number;
  /** A round's predicted length with these task times, in ms. */
  roundMs: number;
  noise: Record<string, TaskNoise>;
}

/** Rounds needed before the spread across processes says anything. */
export const PILOT_ROUNDS = 3;

/** Asymptotic variance of a sample median over that of the mean, for normal data (Kendall & Stuart, vol. 1, §10.10). */
const MEDIAN_EFFICIENCY = Math.PI / 2;

/**
 * Split each process's time between tasks by where their noise is. A round's figure for task j,
 * measured over n_j blocks of b_j ms, has variance a_j + c_j / n_j (a_j = σ²_b between processes,
 * c_j = σ²_w within); a round costs D = O + Σ b_j n_j (O: what a process costs whatever the task
 * times). With R = T / D rounds in a fixed time T, task j's variance of the mean is (a_j + c_j/n_j) D / T.
 * We minimize Σ_j ln of it (each benchmark's relative gain counts alike, however noisy it is):
 * setting the derivative in n_j to 0 gives c_j / (n_j (a_j n_j + c_j)) = m b_j / D (m tasks), i.e.
 * with λ = m / D, a_j n_j² + c_j n_j − c_j / (λ b_j) = 0, and λ is found by bisection so that
 * λ (O + Σ b_j n_j(λ)) = m. For one task this is Cochran's optimum for two-stage sampling,
 * n = √(O c / (b a)) (Cochran, Sampling Techniques, 3rd ed., §10.6). Each n_j is then held within
 * [minBlocks, maxTaskMs / b_j]: between-process noise (large a_j) gives short task times and more
 * processes per second, within-process noise (large c_j) long ones. T drops out: the optimum is the
 * same whatever the time, so the rounds themselves stay the decision rule's and the time limit's,
 * unless `bounds.fit` says the rounds the rule needs would not fit: then λ is raised until they do
 * (a bound D ≤ D_max adds its multiplier μ to m / D, so the optimum keeps the same form with a larger λ),
 * down to minBlocks per task. Only the `open` tasks (those the next round runs) share the round. Undefined before PILOT_ROUNDS
 * rounds, or when no open task has both kinds of figures.
 */
export function allocateTaskTimes(
  rounds: readonly RoundRecord[],
  bounds: AllocationBounds,
  open?: ReadonlySet<string>,
): Allocation | undefined {
  const noise = estimateNoise(rounds);
  const ids = Object.keys(noise).filter((id) => !open || open.has(id));
  if (ids.length === 0) return undefined;
  // The latest rounds: once decided tasks leave, their probes and warm-ups leave the overhead too.
  const overheadMs = median(
    rounds.slice(-PILOT_ROUNDS).map((round) => Math.max(0, round.durationMs - sum([...round.tasks.values()].map((t) => t.measureMs)))),
  );
  const blocksAt = (lambda: number) =>
    Object.fromEntries(
      ids.map((id) => {
        const { between: a, within: c, blockMs: b } = noise[id]!;
        const upper = Math.max(bounds.minBlocks, bounds.maxTaskMs / b);
        return [id, clamp(optimalBlocks(a, c, b, lambda), bounds.minBlocks, upper)];
      }),
    );
  const roundMsOf = (blocks: Record<string, number>) => overheadMs + sum(ids.map((id) => noise[id]!.blockMs * blocks[id]!));
  // λ (O + Σ b n(λ)) − m rises from −m (λ → 0) to +∞: bisect on log λ.
  let [low, high] = [-40, 40];
  for (let i = 0; i < 200; i++) {
    const mid = (low + high) / 2;
    if (Math.exp(mid) * roundMsOf(blocksAt(Math.exp(mid))) < ids.length) low = mid;
    else high = mid;
  }
  let lambda = (low + high) / 2;
  // Before the first look: the time the rounds the rule needs, and a confirmation, take at these task times.
  const fitMs = (blocks: Record<string, number>) => {
    if (!bounds.fit) return 0;
    const typical = median(ids.map((id) => noise[id]!.blockMs * blocks[id]!));
    return bounds.fit.rounds * roundMsOf(blocks) + bounds.fit.confirmRounds * (overheadMs + 2 * typical);
  };
  if (bounds.fit && fitMs(blocksAt(Math.exp(lambda))) > bounds.fit.timeMs) {
    // Both fall as λ rises: bisect on log λ above the optimum's for the largest task times that fit.
    [low, high] = [lambda, 40];
    for (let i = 0; i < 200; i++) {
      const mid = (low + high) / 2;
      if (fitMs(blocksAt(Math.exp(mid))) > bounds.fit.timeMs) low = mid;
      else high = mid;
    }
    lambda = high;
  }
  const blocks = blocksAt(Math.exp(lambda));
  return {
    taskTimeMs: Object.fromEntries(ids.map((id) => [id, blocks[id]! * noise[id]!.blockMs])),
    overheadMs,
    roundMs: roundMsOf(blocks),
    noise: Object.fromEntries(ids.map((id) => [id, noise[id]!])),
  };
}

/** The positive root of a n² + c n − c / (λ b) = 0 (n = 1 / (λ b) when a is 0; no within noise needs no blocks). */
function optimalBlocks(a: number, c: number, b: number, lambda: number): number {
  if (!(c > 0)) return 0;
  const k = c / (lambda * b);
  if (!(a > 0)) return k / c;
  // The root written as 2k / (c + √(c² + 4ak)), which does not cancel when a n² is small.
  return (2 * k) / (c + Math.sqrt(c * c + 4 * a * k));
}

/**
 * Each task's σ²_w (the mean over rounds of π/2 × its block variance) and σ²_b by the method of moments:
 * the spread of its per-round figures squared, less the part the rounds' own blocks explain
 * (mean of σ²_w / n), floored at 0. Tasks missing from a round, or without within-process figures, are left out.
 */
export function estimateNoise(rounds: readonly RoundRecord[]): Record<string, TaskNoise> {
  const ids = [...new Set(rounds.flatMap((round) => [...round.tasks.keys()]))];
  const out: Record<string, TaskNoise> = {};
  for (const id of ids) {
    const seen = rounds.map((round) => round.tasks.get(id)).filter((t): t is TaskRound => t !== undefined && usable(t));
    if (seen.length < PILOT_ROUNDS) continue;
    const within = mean(seen.map((t) => MEDIAN_EFFICIENCY * t.blockVariance));
    const explained = mean(seen.map((t) => (MEDIAN_EFFICIENCY * t.blockVariance) / t.blocks));
    const spread = roundSpread(seen.map((t) => t.logRatio));
    out[id] = {
      between: Math.max(0, spread * spread - explained),
      within,
      blockMs: sum(seen.map((t) => t.measureMs)) / sum(seen.map((t) => t.blocks)),
    };
  }
  return out;
}

function usable(t: TaskRound): boolean {
  return Number.isFinite(t.logRatio) && t.blocks > 0 && t.measureMs > 0 && Number.isFinite(t.blockVariance) && t.blockVariance >= 0;
}

const sum = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0);
const mean = (xs: readonly number[]) => sum(xs) / xs.length;
const clamp = (x: number, low: number, high: number) => Math.min(high, Math.max(low, x));

export interface ProcessPlan {
  /** The most processes a round may take (micro.processes). */
  maxProcesses: number;
  /** Whether a task's figure, with this spread per round (log units), resolves its budget at the next look. */
  enough: (id: string, spread: number) => boolean;
  /** The time left until the limit, in ms. */
  remainingMs: number;
  /** Main rounds still to run until max-rounds (the spending function's horizon). */
  roundsToGo: number;
  /** A confirmation round's length at one process per round, and how many rounds a confirmation may take. */
  confirmMs: number;
  confirmRounds: number;
  /**
   * The processes rounds run so far, once any round ran several: kept where the budgets now need one fewer (an
   * estimate of the noise that moves by a process either way between rounds, which made a run read 4, 3, 4, 3).
   * More where they need more, fewer where the time forces it or they need two fewer.
   */
  current?: number;
}

/**
 * How many benchmark processes each round runs, when the noise is per process. A round of k processes
 * has its tasks' figures averaged over them, so a task's per-round variance (a + c / n) becomes
 * (a + c / n) / k: the between-process part that only more processes average away falls as 1/k, and
 * the decision rule (its rounds, looks and spending, which count rounds) is unchanged. k is the
 * fewest processes that let every open task resolve its budget at the next look (`enough`), bounded by
 * the time: all rounds still to run and a confirmation, each k times as long, must fit in what is
 * left. It is chosen from the noise and the clock, never from which way a figure leans, so each
 * round's figure stays symmetric about the true change given the rounds before it, which is all the
 * signed-rank test needs (its rounds need not share one spread). 1 when the time allows no more, or
 * when the allocation has no noise figures.
 */
export function processesPerRound(allocation: Allocation, plan: ProcessPlan): number {
  const ids = Object.keys(allocation.taskTimeMs);
  const spreadAt = (id: string, k: number) => {
    const { between, within, blockMs } = allocation.noise[id]!;
    const blocks = Math.max(1, allocation.taskTimeMs[id]! / blockMs);
    return Math.sqrt((between + within / blocks) / k);
  };
  let needed = 1;
  while (needed < plan.maxProcesses && !ids.every((id) => plan.enough(id, spreadAt(id, needed)))) needed++;
  const perProcess = plan.roundsToGo * allocation.roundMs + plan.confirmRounds * plan.confirmMs;
  const fits = perProcess > 0 ? Math.floor(plan.remainingMs / perProcess) : plan.maxProcesses;
  const wanted = plan.current !== undefined && needed === plan.current - 1 ? plan.current : needed;
  return Math.max(1, Math.min(wanted, fits));
}
