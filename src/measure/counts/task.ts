/**
 * Inside a benchmark process run under callgrind (callgrind.ts): one task's instructions per call at full tiering,
 * in steady state. The process reads its own counters: each call of `os.getPriority()` makes callgrind dump the
 * counts since the last dump (`--dump-before=uv_os_getpriority`) to `<prefix>.<n>` before the call returns, and the
 * file's `totals:` line is what ran in between. Nothing here reads a clock: every decision is made from counts, so a
 * rerun with the same seeds makes the same decisions and reads the same figures.
 *
 * Written by hand: no library drives callgrind from inside the measured process.
 */
import { readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';

/** A block of calls is sized to at least this many instructions, so a marker's own cost (a few thousand) stays below 0.1%. */
export const BLOCK_INSTRUCTIONS = 4_000_000;
/** The measured window: this many blocks after steady state, every instruction in them (collections included) counted. */
export const MEASURED_BLOCKS = 8;
/** Steady state: the floor of the last STEADY_RUN blocks within STEADY_TOLERANCE of the run's before them. */
const STEADY_RUN = 3;
const STEADY_TOLERANCE = 0.005;
/** The most warm-up blocks before the task is measured as it is, said unsteady. */
export const MAX_WARMUP_BLOCKS = 60;
/** The most calls in a block (a task of a few instructions). */
const MAX_BLOCK_CALLS = 1 << 24;

/**
 * The marker and the dumps it makes. A block is `mark()`, the calls, `mark()`: callgrind dumps at the second mark what
 * ran since the first, the calls and one marker call; what reading and removing a dump costs falls before a block's
 * first mark, in a segment nobody reads.
 */
export class Counter {
  private dumps = 0;

  constructor(private readonly prefix: string) {}

  /** Make callgrind dump the counts since the previous mark; the dump's number. */
  mark(): number {
    os.getPriority();
    return ++this.dumps;
  }

  /** The instructions of the segment that dump `n` ended (read once; the dump and every one before it are removed). */
  read(n: number): number {
    const file = `${this.prefix}.${n}`;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new Error(
        `callgrind wrote no dump at the marker (${file}): this node binary may not export uv_os_getpriority, or the process is not under callgrind`,
      );
    }
    for (let k = n; k > 0 && k >= n - 2; k--) rmSync(`${this.prefix}.${k}`, { force: true });
    const totals = /^(?:totals|summary):\s+(\d+)/m.exec(text);
    if (!totals) throw new Error(`callgrind's dump ${file} has no totals line`);
    return Number(totals[1]);
  }

  /** The instructions of `run()`, its marker's call included. */
  async block(run: () => unknown): Promise<number> {
    youngCollection();
    this.mark();
    await run();
    return this.read(this.mark());
  }
}

/**
 * V8's collector, without exposing `gc` to the bench files: each block starts with an empty young generation, so
 * where its scavenges fall depends on the block alone, never on what the process allocated before (a message sent,
 * a dump read). A young collection only: a full one may flush compiled code (CodSpeed's phantom regressions).
 */
const collect = (() => {
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as (options: { type: 'minor'; execution: 'sync' }) => void;
})();

function youngCollection(): void {
  collect({ type: 'minor', execution: 'sync' });
}

export interface CountFigures {
  /** Instructions per call over the measured window (collections and all). */
  instructions: number;
  /** The fewest instructions per call of one measured block: the code path without a collection in it. */
  floor: number;
  calls: number;
  /** Calls per block. */
  batch: number;
  warmupBlocks: number;
  /** False when no steady state was found within MAX_WARMUP_BLOCKS: measured as it was then. */
  steady: boolean;
}

/**
 * `loop(n)` makes n calls of the task (already warmed by one call and compiled per side, as time mode's loop is).
 * The block doubles until it holds BLOCK_INSTRUCTIONS; blocks then run until their floor stops falling (the optimizing
 * compiler is done with the task), and MEASURED_BLOCKS more are counted.
 */
export async function countTask(loop: (n: number) => unknown, counter: Counter): Promise<CountFigures> {
  let batch = 1;
  for (;;) {
    // The fewer of two blocks: a block's first run may hold a compilation the next ones do not.
    const spent = Math.min(await counter.block(() => loop(batch)), await counter.block(() => loop(batch)));
    if (spent >= BLOCK_INSTRUCTIONS || batch >= MAX_BLOCK_CALLS) break;
    // Powers of two only: revisions and seeds whose costs are near land on the same block, so collections fall alike.
    batch *= 2;
  }
  const perCall: number[] = [];
  let steady = false;
  while (perCall.length < MAX_WARMUP_BLOCKS) {
    perCall.push((await counter.block(() => loop(batch))) / batch);
    if (perCall.length >= 2 * STEADY_RUN) {
      const last = Math.min(...perCall.slice(-STEADY_RUN));
      const before = Math.min(...perCall.slice(-2 * STEADY_RUN, -STEADY_RUN));
      if (Math.abs(last - before) <= STEADY_TOLERANCE * before) {
        steady = true;
        break;
      }
    }
  }
  let total = 0;
  let floor = Number.POSITIVE_INFINITY;
  for (let block = 0; block < MEASURED_BLOCKS; block++) {
    const spent = await counter.block(() => loop(batch));
    total += spent;
    floor = Math.min(floor, spent / batch);
  }
  const calls = batch * MEASURED_BLOCKS;
  return { instructions: total / calls, floor, calls, batch, warmupBlocks: perCall.length, steady };
}
