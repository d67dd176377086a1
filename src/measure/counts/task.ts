/**
 * Inside a benchmark process run under callgrind (callgrind.ts): one task's instructions per call at full tiering,
 * in steady state. The process reads its own counters: each call of `os.getPriority()` makes callgrind dump the
 * counts since the last dump (`--dump-before=uv_os_getpriority`) to `<prefix>.<n>` before the call returns, and the
 * file's `totals:` line is what ran in between. Nothing here reads a clock: every decision is made from counts, so a
 * rerun with the same seeds makes the same decisions and reads the same figures.
 *
 * Written by hand: no library drives callgrind from inside the measured process.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';
import { median } from 'simple-statistics';
import type { CountedFigure } from '../../config/types.js';
import { CYCLE_WEIGHTS, functionCosts, INSTRUCTIONS, type FunctionCost } from './functions.js';

/**
 * A block of calls is sized to at least this many instructions (an empty block's cost, the marker's, is taken off):
 * large against what one call's count may vary by, small enough that a task costs seconds under the simulator.
 */
export const BLOCK_INSTRUCTIONS = 1_000_000;
/** The measured window: this many blocks after steady state, every instruction in them (collections included) counted. */
export const MEASURED_BLOCKS = 7;
/** Steady state: the floor of the last STEADY_RUN blocks within STEADY_TOLERANCE of the run's before them. */
const STEADY_RUN = 2;
const STEADY_TOLERANCE = 0.005;
/**
 * Warm-up blocks before steady state is looked for. A task can sit on a plateau before V8's optimizing compiler takes
 * it: the suite's `relative time` read 3,562-3,595 instructions a call in pairs of blocks for 4 to 8 blocks, then a
 * compilation (40k a call in one block), then 2,290. The pairs' floors moved by under 1% from process to process (where
 * memory lay: callgrind.ts unrandomized), so steady state was called after 4, 6 or 8 blocks, and the compilation fell
 * inside the measured window or before it: the same code under the same seed read 2,290 or 3,570 from run to run. Ten
 * blocks put it before the first look; a shift inside the window (countTask) catches a later one.
 */
const MIN_WARMUP_BLOCKS = 10;
/** The most warm-up blocks before the task is measured as it is, said unsteady. */
export const MAX_WARMUP_BLOCKS = 60;
/** The most calls in a block (a task of a few instructions). */
const MAX_BLOCK_CALLS = 1 << 24;

/**
 * The marker and the dumps it makes. Blocks run back to back, each ended by a mark, so callgrind's dump at that mark
 * holds the block's calls and one marker call; a mark before the first closes what ran before (reading the last
 * dumps, a message sent), which nobody reads. The dumps are read after the last block.
 */
/** What countTask reads blocks from: a process's own counter (Counter), or a server's (measure/counts/server.ts). */
export interface BlockCounter {
  /** `count` blocks of `run()` back to back: each block's instructions, its marker's cost included. */
  blocks(count: number, run: () => unknown): Promise<number[]>;
}

/** How large a block is and how long a warm-up may take: a call's and a request's differ by orders of magnitude. */
export interface BlockSizes {
  /** A block holds at least this many instructions (its marker's cost taken off). */
  blockInstructions: number;
  /** The fewest warm-up blocks before steady state is looked for. */
  minWarmupBlocks: number;
  /** The most warm-up blocks before the task is measured as it is, said unsteady. */
  maxWarmupBlocks: number;
  /** The fewest calls in a block (a power of two): a server's first requests cost many times its steady ones. */
  minBatch: number;
  /** The most calls in a block (a power of two): a block of requests that cost next to nothing must still end. */
  maxBatch: number;
  /** Steady when the floor of the last blocks is within this of the floor of those before them (relative). */
  tolerance: number;
  /**
   * Steady also needs the level to have held for this many times the blocks that came before its last fall (the
   * floor of all blocks so far falling beyond `tolerance`: a new level): a level that held for 20 blocks after 20 is
   * no proof that it holds, where a compilation 10,000 requests in makes the next. 0: the pairs alone decide.
   */
  holdAfterFall: number;
  /** Blocks counted after steady state. */
  measuredBlocks: number;
  /**
   * The figure: the measured blocks' median (a rare collection in one block does not move it), or their window (every
   * instruction over all of them a call: where collections fall in many blocks, the median flips between blocks
   * with one and blocks without), less the blocks of a collection's work (COLLECTION_SHARE).
   */
  estimate: 'median' | 'window';
}

/**
 * A server's window (BlockSizes.estimate 'window') is the mean of its measured blocks within this share above their
 * floor: the requests' own work, the blocks that hold a collection's marking or compaction left out. A server's heap
 * runs a cycle of collections tens of blocks long (`fixtures/http-lifecycle` on Node 24: a mark-compact every 40 blocks
 * of 256 requests, 5 to 11 times a block's cost, and marking steps at 1.4-1.7 times in the blocks before it), so a
 * window of 16 blocks holds a different part of it from seed to seed: the same code read 232.2k and 330.8k
 * instructions a request with all its blocks in (one mark-compact in the second window), 230k and 245.5k with the
 * mark-compact left out (two marking blocks in the second). Within 10% of the floor: 227k-236k, both. Collections
 * are what time sees and counts do not weigh in a load test (docs/counts.md).
 */
export const COLLECTION_SHARE = 0.1;

/** A micro-benchmark task's blocks. */
export const CALL_BLOCKS: BlockSizes = {
  blockInstructions: BLOCK_INSTRUCTIONS,
  minWarmupBlocks: MIN_WARMUP_BLOCKS,
  maxWarmupBlocks: MAX_WARMUP_BLOCKS,
  minBatch: 1,
  maxBatch: MAX_BLOCK_CALLS,
  tolerance: STEADY_TOLERANCE,
  holdAfterFall: 0,
  measuredBlocks: MEASURED_BLOCKS,
  estimate: 'median',
};

export class Counter implements BlockCounter {
  private dumps = 0;

  constructor(
    private readonly prefix: string,
    private readonly figure: CountedFigure = 'instructions',
  ) {}

  /** Make callgrind dump the counts since the previous mark; the dump's number. */
  mark(): number {
    os.getPriority();
    return ++this.dumps;
  }

  /** The instructions of the segment that dump `n` ended (its file is removed). */
  read(n: number): number {
    const file = `${this.prefix}.${n}`;
    // Parsed after the last task, not here: a parse in the measured process would move its collections.
    this.recorded?.push(file);
    return readDump(file, this.figure, this.recorded !== undefined);
  }

  /**
   * `count` blocks of `run()` back to back after a young collection (so where their scavenges fall depends on them
   * alone, not on what the process allocated before): each block's instructions, its marker's call included.
   */
  async blocks(count: number, run: () => unknown): Promise<number[]> {
    const first = await this.marked(count, run);
    return Array.from({ length: count }, (_, k) => this.read(first + 1 + k));
  }

  /** While set, each block's dump is kept, in order, to be read function by function later (a profile's blocks). */
  private recorded: string[] | undefined;

  /** Keep the next blocks' dumps (written with `--compress-strings=no`, callgrindArgs' `functions`). */
  record(): void {
    this.recorded = [];
  }

  /** The dumps kept since `record()` (the caller reads and removes them); recording stops. */
  takeRecorded(): string[] {
    const recorded = this.recorded ?? [];
    this.recorded = undefined;
    return recorded;
  }

  /** Runs `count` marked blocks after a young collection; the number of the mark before the first (its dump removed). */
  private async marked(count: number, run: () => unknown): Promise<number> {
    youngCollection();
    const first = this.mark();
    for (let k = 0; k < count; k++) {
      await run();
      this.mark();
    }
    rmSync(`${this.prefix}.${first}`, { force: true });
    // A dump beyond the last mark: the task itself called os.getPriority(), and every number after it would be off.
    if (existsSync(`${this.prefix}.${this.dumps + 1}`))
      throw new Error('the task calls os.getPriority(), the marker counts mode dumps at: it cannot be counted (measure it in time)');
    return first;
  }
}

/**
 * A counted task's profile, from the blocks its count read (countTask's last empty blocks, then its measured ones,
 * recorded function by function): each function's median over the measured blocks (a compilation or collection that
 * falls in one block moves none, as the count's median over blocks does not move), less its median over the empty
 * ones (the marker's own call), per call, on its own and with what it calls. Functions that cost less than half an
 * instruction a call both ways are left out.
 */
export function functionsPerCall(empty: Map<string, FunctionCost>[], measured: Map<string, FunctionCost>[], batch: number): FunctionCost[] {
  if (!measured.length) return [];
  const medianOf = (of: Map<string, FunctionCost>[], key: string, cost: 'self' | 'inclusive') =>
    of.length ? median(of.map((costs) => costs.get(key)?.[cost] ?? 0)) : 0;
  const perCall: FunctionCost[] = [];
  for (const key of new Set(measured.flatMap((costs) => [...costs.keys()]))) {
    const cost = measured.find((costs) => costs.has(key))!.get(key)!;
    const self = (medianOf(measured, key, 'self') - medianOf(empty, key, 'self')) / batch;
    const inclusive = (medianOf(measured, key, 'inclusive') - medianOf(empty, key, 'inclusive')) / batch;
    if (self >= 0.5 || inclusive >= 0.5) perCall.push({ ...cost, self, inclusive });
  }
  return perCall.sort((a, b) => b.self - a.self);
}

/** The dumps a count's figure comes from: its last empty blocks, its measured blocks, and the calls in each. */
export interface ProfileDumps {
  empty: string[];
  measured: string[];
  batch: number;
}

/** A count's kept dumps read function by function (functionsPerCall) in the figure counted, then removed. */
export function profileDumps(dumps: ProfileDumps, figure: CountedFigure = 'instructions'): FunctionCost[] {
  const weights = figure === 'cycles' ? CYCLE_WEIGHTS : INSTRUCTIONS;
  const read = (files: string[]) =>
    files.map((file) => {
      const costs = functionCosts(readFileSync(file, 'utf8'), weights);
      rmSync(file, { force: true });
      return costs;
    });
  return functionsPerCall(read(dumps.empty), read(dumps.measured), dumps.batch);
}

/**
 * The figure of the segment a callgrind dump holds, from its `events:` and `totals:` lines: its instructions, or its
 * estimated cycles (CYCLE_WEIGHTS; the dump must hold the cache model's events). The file is removed.
 */
export function readDump(file: string, figure: CountedFigure = 'instructions', keep = false): number {
  let text: string;
  try {
    text = dumpHeader(file);
  } catch {
    throw new Error(
      `callgrind wrote no dump at the marker (${file}): this node binary may not export uv_os_getpriority, or the process is not under callgrind`,
    );
  }
  if (!keep) rmSync(file, { force: true });
  const totals = /^(?:totals|summary):((?:\s+\d+)+)/m.exec(text);
  if (!totals) throw new Error(`callgrind's dump ${file} has no totals line`);
  const values = totals[1]!.trim().split(/\s+/).map(Number);
  const events = /^events:(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/) ?? ['Ir'];
  if (figure === 'instructions') return values[Math.max(0, events.indexOf('Ir'))]!;
  if (!events.includes('D1mr'))
    throw new Error(`callgrind's dump ${file} has no cache events (events: ${events.join(' ')}): cycles need --cache-sim=yes`);
  return events.reduce((sum, event, i) => sum + (CYCLE_WEIGHTS[event] ?? 0) * (values[i] ?? 0), 0);
}

/** One buffer for every dump's header: reading a dump allocates nothing that depends on its size (below). */
const HEADER = Buffer.alloc(16_384);

/**
 * A dump's header, to its `summary:` line: what a block cost is there, and reading no more keeps what the measured
 * process allocates the same whatever the body holds (a profile's dumps name every function in full, and a process
 * that read them whole collected elsewhere than its seed's). A dump with no summary in its head is read whole.
 */
function dumpHeader(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const read = readSync(fd, HEADER, 0, HEADER.length, 0);
    const summary = HEADER.subarray(0, read).indexOf('\nsummary:');
    const end = summary < 0 ? -1 : HEADER.subarray(0, read).indexOf('\n', summary + 1);
    if (end >= 0) return HEADER.toString('latin1', 0, end);
  } finally {
    closeSync(fd);
  }
  return readFileSync(file, 'utf8');
}

/**
 * V8's collector, without exposing `gc` to the bench files: each block starts with an empty young generation, so
 * where its scavenges fall depends on the block alone, never on what the process allocated before (a message sent,
 * a dump read). A young collection only: a full one may flush compiled code (CodSpeed's phantom regressions).
 */
let collector: ((options: { type: 'minor' | 'major'; execution: 'sync' }) => void) | undefined;

/** Made on first use, in counts mode only: a flag set at import would give time mode's workers a global `gc`. */
function collect(options: { type: 'minor' | 'major'; execution: 'sync' }): void {
  if (!collector) {
    v8.setFlagsFromString('--expose-gc');
    collector = vm.runInNewContext('gc') as typeof collector;
  }
  collector!(options);
}

function youngCollection(): void {
  collect({ type: 'minor', execution: 'sync' });
}

/**
 * A full collection before a task is set up: the heap it starts from (and any marking in progress) no longer carries
 * what the tasks before it left, which differ between revisions that share no process. Before its warm-up, so the
 * code it measures is compiled after it.
 */
export function fullCollection(): void {
  collect({ type: 'major', execution: 'sync' });
}

export interface CountFigures {
  /** Instructions per call: the median of the measured blocks, or their window (BlockSizes.estimate). */
  instructions: number;
  /** The fewest instructions per call of one measured block. */
  floor: number;
  /** Instructions per call over the measured window, the blocks of a collection's work left out (COLLECTION_SHARE). */
  window: number;
  /** Measured blocks left out of the window as a collection's work (COLLECTION_SHARE). */
  collectionBlocks: number;
  calls: number;
  /** Calls per block. */
  batch: number;
  warmupBlocks: number;
  /** False when no steady state was found within MAX_WARMUP_BLOCKS: measured as it was then. */
  steady: boolean;
  /** Asked for (countTask's `profile`): the dumps of the blocks the figure comes from, kept for profileDumps. */
  dumps?: ProfileDumps;
}

/**
 * `loop(n)` makes n calls of the task (already warmed by one call and compiled per side, as time mode's loop is).
 * The block grows by powers of two until it holds BLOCK_INSTRUCTIONS (an empty block's cost, the marker's, taken off);
 * blocks then run in pairs, at least minWarmupBlocks, until their floor stops falling (the optimizing compiler is done
 * with the task), and measuredBlocks more are counted. Where the window's last blocks lie lower than its first ones (a
 * compilation after the pairs had agreed), the window was warm-up: steady state is looked for after it.
 */
export async function countTask(
  loop: (n: number) => unknown,
  counter: BlockCounter,
  sizes = CALL_BLOCKS,
  profile = false,
): Promise<CountFigures> {
  const blocks = (count: number, calls: number) => counter.blocks(count, () => loop(calls));
  // What a block costs with no call in it (the marker's own call, the loop's entry): taken off every block.
  const empty = async () => Math.min(...(await blocks(3, 0)));
  let overhead = await empty();
  let batch = sizes.minBatch;
  for (;;) {
    // The fewer of two blocks: a block's first run may hold a compilation the next ones do not.
    const spent = Math.min(...(await blocks(2, batch))) - overhead;
    // The largest block costs less than an instruction a call beyond an empty one: nothing is counted (the caller says
    // why, as a server whose requests another process serves, where a primary's timers leave a few instructions), and
    // no warm-up would change it: said now, not after a minute of blocks. (A loop's own step costs more than that.)
    if (spent < batch && batch >= sizes.maxBatch)
      return { instructions: 0, floor: 0, window: 0, collectionBlocks: 0, calls: 2 * batch, batch, warmupBlocks: 0, steady: false };
    if (spent >= sizes.blockInstructions || batch >= sizes.maxBatch) break;
    // Powers of two only, so revisions and seeds of near costs land on the same block and collections fall alike;
    // at least double, at most to the power that would hold a block's instructions at this cost.
    const wanted = spent > 0 ? (batch * sizes.blockInstructions) / spent : batch * 64;
    batch = Math.min(sizes.maxBatch, Math.max(batch * 2, 2 ** Math.ceil(Math.log2(wanted))));
  }
  const perCall: number[] = [];
  const floor = (values: number[]) => Math.min(...values);
  const agree = (a: number, b: number) => Math.abs(a - b) <= sizes.tolerance * Math.min(a, b);
  /** The blocks counted when the floor of all blocks so far last fell beyond tolerance (0: never after the first pair). */
  const lastFall = () => {
    let lowest = Number.POSITIVE_INFINITY;
    let at = 0;
    for (let end = STEADY_RUN; end <= perCall.length; end += STEADY_RUN) {
      const pair = floor(perCall.slice(end - STEADY_RUN, end));
      if (pair >= lowest) continue;
      if (lowest !== Number.POSITIVE_INFINITY && !agree(pair, lowest)) at = end;
      lowest = pair;
    }
    return at;
  };
  // Steady: the floor of the last pair of blocks within tolerance of the pair's before them, after the fewest warm-up
  // blocks, and the level held long enough after its last fall (BlockSizes.holdAfterFall).
  const settled = () =>
    perCall.length >= Math.max(2 * STEADY_RUN, sizes.minWarmupBlocks, Math.ceil((1 + sizes.holdAfterFall) * lastFall())) &&
    agree(floor(perCall.slice(-STEADY_RUN)), floor(perCall.slice(-2 * STEADY_RUN, -STEADY_RUN)));
  const profiling = profile && counter instanceof Counter;
  let steady: boolean;
  let window: { measured: number[]; dumps?: ProfileDumps };
  for (;;) {
    steady = false;
    while (perCall.length < sizes.maxWarmupBlocks) {
      perCall.push(...(await blocks(STEADY_RUN, batch)).map((spent) => (spent - overhead) / batch));
      if (settled()) {
        steady = true;
        break;
      }
    }
    window = await measureWindow();
    // The window's last blocks on a lower level than its first ones (a compilation the warm-up did not wait for): its
    // blocks were warm-up, and steady state is looked for again after them, within the warm-up's bound. Only a fall:
    // collections raise a block's count, and the window's first block starts after a young collection, so a task that
    // fills the young generation once a block reads its later blocks dearer in every window, and would never settle.
    const { measured } = window;
    const [first, last] = [floor(measured.slice(0, STEADY_RUN)), floor(measured.slice(-STEADY_RUN))];
    const shifted = last < first && !agree(first, last);
    if (!steady || !shifted || perCall.length + measured.length >= sizes.maxWarmupBlocks) {
      if (shifted) steady = false;
      break;
    }
    perCall.push(...measured);
    if (window.dumps) for (const file of [...window.dumps.empty, ...window.dumps.measured]) rmSync(file, { force: true });
  }
  /** The last empty blocks (the marker's cost) and the measured ones; a profile (Counter.record) keeps their dumps. */
  async function measureWindow(): Promise<{ measured: number[]; dumps?: ProfileDumps }> {
    try {
      if (profiling) counter.record();
      overhead = await empty();
      const emptyDumps = profiling ? counter.takeRecorded() : [];
      if (profiling) counter.record();
      const measured = (await blocks(sizes.measuredBlocks, batch)).map((spent) => (spent - overhead) / batch);
      return { measured, ...(profiling ? { dumps: { empty: emptyDumps, measured: counter.takeRecorded(), batch } } : {}) };
    } finally {
      // A block that threw leaves no recording on for the tasks after it.
      if (profiling) counter.takeRecorded();
    }
  }
  const { measured, dumps } = window;
  const lowest = floor(measured);
  // (A task that costs nothing beyond an empty block has no scale to judge a block by: every block kept.) Where most
  // blocks lie beyond the share, collections are not what moves them (hapi's head at 6b67d24: 15 of 16 blocks, a level
  // of its own in each): the floor is one block's luck, and every block is kept.
  const near = lowest > 0 ? measured.filter((x) => x <= (1 + COLLECTION_SHARE) * lowest) : measured;
  const kept = 2 * near.length >= measured.length ? near : measured;
  const whole = kept.reduce((sum, x) => sum + x, 0) / kept.length;
  return {
    instructions: sizes.estimate === 'window' ? whole : median(measured),
    floor: lowest,
    window: whole,
    collectionBlocks: measured.length - kept.length,
    calls: batch * sizes.measuredBlocks,
    batch,
    warmupBlocks: perCall.length,
    steady,
    ...(dumps ? { dumps } : {}),
  };
}
