import { median, medianAbsoluteDeviation } from 'simple-statistics';
import { optimalRepetitions, varianceComponents } from '../../stats/components.js';
import { formatDuration, formatFixed, formatShortPercent } from '../../util/format.js';

/**
 * How a duet load test spends its time, chosen per run from what the run measures (docs/http.md, "The schedule"):
 * how long a fresh pair of servers is loaded before it is measured, and how many blocks each pair is measured in.
 *
 * Why: a framework's variance is not a bare server's (docs/evaluation.md, "Where a framework's variance lives").
 * Under half a shared core, hapi's and fastify's JIT settles 2 to 5 seconds into a pair, and a block in that time
 * reads ±15% where a settled one reads ±1%, so the warm-up is learned, not fixed; after it, pairs and blocks add
 * variance in proportions that differ by server, and a pair costs its start and warm-up, so the blocks per pair are
 * Kalibera & Jones' optimum for the components and costs measured so far (stats/components.ts).
 *
 * The first PILOT_ROUNDS rounds are the pilot: the configured warm-up, then PILOT_BLOCKS blocks, whose series shows
 * where the warm-up ends (a pilot round's own figure is the median of its second half, settled by then in every
 * server measured). Every round after that is the warm-up found, then the blocks chosen; the choice is made again
 * before every round from all rounds so far, as the components' estimates firm up.
 */
export const PILOT_ROUNDS = 2;
export const PILOT_BLOCKS = 10;
/**
 * The fewest blocks a pair is measured in, and the most. Three, not two: the round's figure is the median of its
 * blocks, and a JIT transient the learned warm-up did not reach (fastify's and hapi's land 2 to 4 s into a pair, in
 * a different block each pair, ±13-17% off the pair's level) moves a median of two by half its size, a median of
 * three no more than the other two blocks differ. Replayed on the nested experiment's blocks (docs/evaluation.md,
 * "Three blocks a pair"), a pair of three blocks costs a second more and spreads 2.3-2.4% where two spread 3.6-3.7%
 * (fastify) and 1.5-1.6% where two spread 2.7-2.8% (hapi 21): the variance for the time spent halves (fastify) or
 * falls to a third (hapi 21); a bare server or express, which have no such transient, pay up to 40% more.
 */
export const MIN_BLOCKS = 3;
export const MAX_BLOCKS = 6;
/** A block farther than this many robust SDs of the settled blocks from its pair's settled level is still warming up. */
const TRANSIENT_SDS = 4;
/** ... and farther than this (log units): a block within 1.5% of its level is settled, however quiet the rest. */
const TRANSIENT_FLOOR = 0.015;

/** What the next round of a load test is to do. */
export interface DuetPlan {
  /** Load before the measured blocks (the configured warm-up, plus the warm-up the pilot found). */
  warmupMs: number;
  blocks: number;
  /** The round's figure is the median of its blocks from this index on (the pilot's settled half; 0 after it). */
  figureFrom: number;
}

/** What a measured duet round tells the planner: each block's ln(head / base), and what the round cost. */
export interface RoundSeries {
  /** Per measured block (paused blocks left out), of requests/s and of requests per CPU-second (where read). */
  requests: readonly number[];
  cpu: readonly number[] | undefined;
  /**
   * The learned warm-up's blocks (after the configured warm-up, before the measured ones), the same two figures; a
   * block either server was silent in is left out (it has no ratio).
   */
  warmup?: { requests: readonly number[]; cpu: readonly number[] | undefined };
  /** The first measured block in the round's figure: the plan's, less where paused blocks were left out. */
  figureFrom?: number;
  /** Wall time of the whole round (start, checks, warm-up, blocks, stop), and of its measured blocks. */
  roundMs: number;
  blocksMs: number;
}

/** The schedule a load test ran with and why, for the log and the report. */
export interface ScheduleChoice {
  warmupMs: number;
  /** Of which the pilot added (0: the configured warm-up was enough). */
  learnedWarmupMs: number;
  blocks: number;
  blockMs: number;
  /** The figure the schedule was chosen for. */
  figure: 'requests' | 'cpu';
  /** A pair's start, checks, warm-up and stop; one block (ms). */
  pairCostMs: number;
  blockCostMs: number;
  /** The variance components, as SDs of ln(head / base): between pairs, and between blocks within a pair. */
  pairSd: number;
  blockSd: number;
  /** Kalibera & Jones' optimum, before it was rounded and bounded (Infinity: pairs added no variance seen). */
  optimum: number;
  /** The pairs the components were read from. */
  pairs: number;
  /**
   * The most blocks per pair that let the rounds still needed fit in the time left (TimeLeft), when that bound is
   * below the optimum; absent when the optimum fits.
   */
  timeBound?: number;
}

/**
 * What the run's time limit leaves a load test: the rounds it still needs (to its first look, and a confirmation as
 * long as the first group) and the time left for them.
 */
export interface TimeLeft {
  rounds: number;
  ms: number;
}

/**
 * "3 blocks of 1.0s per pair after a 5.0s warm-up (4.0s learned): a pair costs …": the choice and why, for the log
 * and the reports. A report read back may hold anything: every figure is formatted or '–'.
 */
export function describeSchedule(choice: ScheduleChoice): string {
  const d = formatDuration;
  const optimum = typeof choice.optimum === 'number' && choice.optimum === Infinity ? '∞' : formatFixed(choice.optimum, 1);
  const bounded =
    choice.timeBound !== undefined
      ? `, bounded to ${formatFixed(choice.blocks, 0)} so that the ${formatFixed(choice.timeBound, 0)} rounds still needed ` +
        '(to the first look and a confirmation) fit in the time limit'
      : !(choice.optimum >= MIN_BLOCKS && choice.optimum <= MAX_BLOCKS)
        ? `, bounded to ${MIN_BLOCKS}–${MAX_BLOCKS}`
        : '';
  const learned = choice.learnedWarmupMs > 0 ? ` (${d(choice.learnedWarmupMs)} of it learned from the pilot's blocks)` : '';
  return (
    `${formatFixed(choice.blocks, 0)} blocks of ${d(choice.blockMs)} per pair of servers after a ` +
    `${d(choice.warmupMs)} warm-up${learned}, for ${choice.figure === 'cpu' ? 'requests per CPU-second' : 'requests/s'}: ` +
    `a pair costs ${d(choice.pairCostMs)} (start, warm-up, stop), a block ${d(choice.blockCostMs)}; ` +
    `pairs differ by ${sd(choice.pairSd)}, blocks within a pair by ${sd(choice.blockSd)} (from ` +
    `${formatFixed(choice.pairs, 0)} pairs): Kalibera & Jones' optimum √(${d(choice.pairCostMs)} / ${d(choice.blockCostMs)} ` +
    `× (${sd(choice.blockSd)} / ${sd(choice.pairSd)})²) = ${optimum} blocks per pair${bounded}`
  );
}

/** A spread in log units as a percentage: 0.0123 → "1.2%". */
const sd = (x: number) => formatShortPercent(x, 1);

export class DuetPlanner {
  private readonly rounds: { series: RoundSeries; figureFrom: number }[] = [];
  private warmupBlocks: number | undefined;
  private choice: ScheduleChoice | undefined;

  constructor(
    private readonly config: { warmupMs: number; blockMs: number; id: string },
    private readonly log: (line: string) => void,
    /** What the time limit leaves (measuredHttp's deadline): blocks per pair are bounded so the rounds still needed fit. */
    private readonly timeLeft?: () => TimeLeft,
  ) {}

  /** The plan of the next round. */
  next(): DuetPlan {
    if (this.rounds.length < PILOT_ROUNDS)
      return { warmupMs: this.config.warmupMs, blocks: PILOT_BLOCKS, figureFrom: Math.floor(PILOT_BLOCKS / 2) };
    return { warmupMs: this.warmupMs(), blocks: this.choice?.blocks ?? MIN_BLOCKS, figureFrom: 0 };
  }

  /** A round's series, measured with the plan next() gave it. */
  record(series: RoundSeries, plan: DuetPlan): void {
    this.rounds.push({ series, figureFrom: plan.figureFrom });
    if (this.rounds.length === PILOT_ROUNDS) this.learnWarmup();
    if (this.rounds.length >= PILOT_ROUNDS) this.choose();
  }

  /** The schedule chosen so far (undefined before the pilot ends). */
  get schedule(): ScheduleChoice | undefined {
    return this.choice;
  }

  private warmupMs(): number {
    return this.config.warmupMs + (this.warmupBlocks ?? 0) * this.config.blockMs;
  }

  /** The figure the schedule serves: requests per CPU-second where read (always at a fixed rate), else requests/s. */
  private figure(): 'requests' | 'cpu' {
    return this.rounds.every((r) => r.series.cpu !== undefined) ? 'cpu' : 'requests';
  }

  private seriesOf(round: { series: RoundSeries }): readonly number[] {
    return (this.figure() === 'cpu' ? round.series.cpu : round.series.requests) ?? [];
  }

  /**
   * The warm-up, from the pilot's series: a block is still warming when it lies farther from its pair's settled
   * level (the median of the pair's second half) than TRANSIENT_SDS robust SDs of the settled blocks (and than
   * TRANSIENT_FLOOR); the warm-up ends after the last such block of any pilot pair, in the first half. A transient
   * in the second half is not a warm-up the pilot can bound: it is said, and the warm-up is the first half.
   */
  private learnWarmup(): void {
    const half = Math.floor(PILOT_BLOCKS / 2);
    const figure = this.figure();
    const pilots = this.rounds.map((r) => (figure === 'cpu' ? r.series.cpu! : r.series.requests));
    const deviations = pilots.map((xs) => {
      const level = median(xs.slice(half).length ? [...xs.slice(half)] : [...xs]);
      return xs.map((x) => x - level);
    });
    const settled = deviations.flatMap((d) => d.slice(half));
    const spread = settled.length >= 3 ? 1.4826 * medianAbsoluteDeviation(settled) : 0;
    const limit = Math.max(TRANSIENT_SDS * spread, TRANSIENT_FLOOR);
    let last = -1;
    let late = false;
    for (const d of deviations)
      d.forEach((x, i) => {
        if (Math.abs(x) <= limit) return;
        if (i < half) last = Math.max(last, i);
        else late = true;
      });
    this.warmupBlocks = last + 1;
    const what = figure === 'cpu' ? 'requests per CPU-second' : 'requests/s';
    this.log(
      `${this.config.id}: warm-up: ${
        last < 0
          ? `the pilot's ${PILOT_ROUNDS} pairs were settled from their first block (${what} within ` +
            `${sd(limit)} of each pair's level): the configured ${formatDuration(this.config.warmupMs)} is kept`
          : `the pilot's ${PILOT_ROUNDS} pairs settled after ${last + 1} block(s) (a block ` +
            `${sd(Math.max(...deviations.map((d) => Math.max(...d.slice(0, last + 1).map(Math.abs)))))} off its pair's level, where settled ` +
            `blocks spread ${sd(spread)}): each pair is loaded ${formatDuration(this.warmupMs())} before it is measured`
      }${
        late
          ? `; a block in the second half was off its level too (a late JIT or GC transient): ` +
            `the round's figure is a median of its blocks, which such a block does not move much`
          : ''
      }`,
    );
  }

  /** Kalibera & Jones' blocks per pair for the components and costs so far, rounded and bounded. */
  private choose(): void {
    const groups = this.rounds.map((r) => this.seriesOf(r).slice(r.figureFrom)).filter((g) => g.length >= 2);
    if (groups.length < 2) return;
    const components = varianceComponents(groups);
    const [blockVar, pairVar] = components.variances as [number, number];
    const measured = this.rounds.slice(PILOT_ROUNDS);
    const blockCostMs = median(this.rounds.map((r) => r.series.blocksMs / Math.max(1, this.seriesOf(r).length)));
    // A pair's cost: what a round took besides its measured blocks, with the warm-up the pilot found (the pilot's own
    // rounds measured blocks that later rounds spend on warming up, so their cost is read as a later round's would be).
    const pairCostMs = median(
      (measured.length ? measured : this.rounds).map((r) =>
        measured.length
          ? r.series.roundMs - r.series.blocksMs
          : r.series.roundMs - r.series.blocksMs + (this.warmupBlocks ?? 0) * blockCostMs,
      ),
    );
    const optimum = optimalRepetitions(pairCostMs, blockCostMs, pairVar, blockVar);
    const best = Math.min(MAX_BLOCKS, Math.max(MIN_BLOCKS, Number.isFinite(optimum) ? Math.round(optimum) : MAX_BLOCKS));
    // Kalibera & Jones' optimum lets the pairs be as few as the precision needs; the first look and a confirmation need
    // a number of them whatever the blocks, so when the time left cannot hold them at the optimum, fewer blocks a pair
    // (the variance per time is convex in the blocks: the bound is the constrained optimum), at least MIN_BLOCKS.
    const left = this.timeLeft?.();
    const fit = left && left.rounds > 0 ? Math.floor((left.ms / left.rounds - pairCostMs) / blockCostMs) : Infinity;
    const blocks = Math.max(MIN_BLOCKS, Math.min(best, fit));
    const [pairSd, blockSd] = [Math.sqrt(pairVar), Math.sqrt(blockVar)];
    const changed = this.choice?.blocks !== blocks;
    this.choice = {
      warmupMs: this.warmupMs(),
      learnedWarmupMs: (this.warmupBlocks ?? 0) * this.config.blockMs,
      blocks,
      blockMs: this.config.blockMs,
      figure: this.figure(),
      pairCostMs,
      blockCostMs,
      pairSd,
      blockSd,
      optimum,
      pairs: this.rounds.length,
      ...(blocks < best && left ? { timeBound: left.rounds } : {}),
    };
    if (changed) this.log(`${this.config.id}: schedule: ${describeSchedule(this.choice)}`);
  }
}
