// countTask (src/measure/counts/task.ts) on a task whose cost a call is scripted: a plateau before V8's optimizing
// compiler takes the task, the compilation's one block, then the optimized level. What callgrind counts is replaced by
// the script, so every block's figure is known.
import { describe, expect, it } from 'vitest';
import { REQUEST_BLOCKS } from '../../src/measure/counts/server.js';
import { countTask, type BlockCounter } from '../../src/measure/counts/task.js';

/**
 * Blocks whose instructions are scripted: `cost(block, calls, first)` for a block of `calls` calls (`block` counts the
 * blocks that made calls; `first`: the first block of a run, as Counter.blocks starts each run after a young
 * collection), the marker's own call (300 instructions) on top; an empty block is the marker alone.
 */
function blocksOf(cost: (block: number, calls: number, first: boolean) => number) {
  let block = 0;
  let calls = 0;
  const loop = (n: number) => {
    calls = n;
  };
  const counter: BlockCounter = {
    async blocks(count, run) {
      const spent: number[] = [];
      for (let k = 0; k < count; k++) {
        calls = 0;
        await run();
        spent.push(300 + (calls > 0 ? cost(block++, calls, k === 0) : 0));
      }
      return spent;
    },
  };
  return { loop, counter };
}

/**
 * A task costing `before(block)` a call until call `compiledAt`, one compilation of 20M instructions, then `after`;
 * every block after the first of a run of blocks pays `collection` more, as a task that fills the young generation
 * once a block does.
 */
function scripted(compiledAt: number, before: (block: number) => number, after = 2290, collection = 0) {
  let made = 0;
  return blocksOf((block, calls, first) => {
    let cost = 0;
    for (let i = 0; i < calls; i++) cost += made + i < compiledAt ? before(block) : after;
    if (made < compiledAt && made + calls >= compiledAt) cost += 20_000_000;
    made += calls;
    return first ? cost : cost + collection;
  });
}

describe('countTask', () => {
  it('counts the level after a compilation that comes once the pairs of blocks agree, whatever their small differences', async () => {
    // The suite's `relative time`: 3,562-3,595 instructions a call in pairs, a compilation, then 2,290. Steady state was
    // called after 4, 6 or 8 blocks as the pairs' floors moved by under 1%, so the compilation fell inside the window or
    // before it, and the same code read 2,290 or 3,570 from run to run.
    // 1,026 calls size the block (2 of one call, 2 of 512); then pairs of 512. A compilation at the window's fourth
    // block (warm-up block 13) leaves its median on the plateau unless the window is measured again.
    const plateaus = [
      () => 3562,
      (block: number) => [3570, 3570, 3562, 3562][block % 4]!,
      (block: number) => [3595, 3595, 3575, 3575][block % 4]!,
    ];
    for (const [at, plateau] of plateaus.entries())
      for (const compiledAt of [6 * 512 + 200, 8 * 512 + 100, 11 * 512 + 300, 1026 + 13 * 512 + 100, 14 * 512 + 10]) {
        const { loop, counter } = scripted(compiledAt, plateau);
        const figures = await countTask(loop, counter);
        expect(figures.batch, `plateau ${at}, compiled at call ${compiledAt}`).toBe(512);
        expect(figures.instructions, `plateau ${at}, compiled at call ${compiledAt}`).toBeCloseTo(2290, 0);
        expect(figures.steady).toBe(true);
      }
  });

  it('says a task whose level still moves at the warm-up bound unsteady', async () => {
    // A compilation every 7 blocks, each a level lower: no window of 7 blocks lies on one level.
    const { loop, counter } = scripted(Number.POSITIVE_INFINITY, (block) => 4000 - 20 * Math.floor(block / 3));
    const figures = await countTask(loop, counter);
    expect(figures.steady).toBe(false);
    // It ran to the warm-up's bound (60 blocks, a window of 7 or a pair short of it at most), not past it by more than a pair.
    expect(figures.warmupBlocks).toBeGreaterThanOrEqual(53);
    expect(figures.warmupBlocks).toBeLessThanOrEqual(62);
  });

  it('settles a task whose later blocks each pay a collection: only a fall is a compilation the window held', async () => {
    // Every block after the first of a run costs 2% more (a scavenge a block): the window's last blocks read dearer
    // than its first in every window, which is no level to wait out.
    const { loop, counter } = scripted(Number.POSITIVE_INFINITY, () => 3000, 3000, 3000 * 512 * 0.02);
    const figures = await countTask(loop, counter);
    expect(figures.steady).toBe(true);
    expect(figures.warmupBlocks).toBeLessThanOrEqual(12);
    expect(figures.instructions).toBeCloseTo(3060, 0);
  });

  it("reads a server's window alike wherever it falls in the heap's cycle of collections: the requests' own work", async () => {
    // http-lifecycle's head: requests of 225k-227k instructions (a scavenge every other block, 1%), a cycle of 40
    // blocks ending in a mark-compact (250M instructions, 4 times a block of 256 requests) after two blocks of marking
    // (1.4 and 1.7 times): a window of 16 blocks holds none, some or all of that, as it falls.
    const figures: number[] = [];
    const left: number[] = [];
    for (const offset of [0, 5, 13, 21, 29, 37, 39]) {
      const { loop, counter } = blocksOf((block, calls) => {
        const phase = (block + offset) % 40;
        const request = (block % 2 ? 227_400 : 224_900) * (phase === 37 ? 1.4 : phase === 38 ? 1.7 : 1);
        return calls * request + (phase === 39 ? 250e6 : 0);
      });
      const counted = await countTask(loop, counter, REQUEST_BLOCKS);
      figures.push(counted.instructions);
      left.push(counted.collectionBlocks);
    }
    // Some windows held a collection's blocks and some did not (else this test shows nothing)...
    expect(left.some((n) => n > 0) && left.some((n) => n === 0), left.join(' ')).toBe(true);
    // ... and every one reads the requests' own work, 226.15k (within which blocks it holds of the two), not up to 245k (marking in) or 290k (a mark-compact in).
    for (const figure of figures) expect(Math.abs(figure / 226_150 - 1), String(figure)).toBeLessThan(0.001);
  });

  it("keeps every block of a window whose blocks mostly lie beyond the floor's share: no collection moves most blocks", async () => {
    // hapi's head at 6b67d24: blocks on levels of their own, 15 of 16 more than 10% above the lowest. Four levels in
    // turn, none a collection: the window is all of them (the mean, 227.5k), not the lowest block's luck (180k).
    const { loop, counter } = blocksOf((block, calls) => calls * [180_000, 230_000, 250_000, 250_000][block % 4]!);
    const counted = await countTask(loop, counter, { ...REQUEST_BLOCKS, holdAfterFall: 0, tolerance: 0.5 });
    expect(counted.collectionBlocks).toBe(0);
    expect(counted.instructions).toBeCloseTo(227_500, -2);
  });

  it("waits out a server's level until it has held as long as the warm-up before it, and reads the level after a late fall", async () => {
    // http-lifecycle's head on Node 24: requests fall in cost for 20 blocks, hold at 241k, and fall to 228k after
    // block `late` (a compilation thousands of requests in). Its pairs agree from block 22: a window there read 241k.
    const falling = (late: number) => (block: number, calls: number) =>
      calls * (block < 20 ? 241_000 * (1 + (20 - block) / 10) : block < late ? 241_000 : 228_000);
    for (const late of [30, 36, 44]) {
      const { loop, counter } = blocksOf(falling(late));
      const counted = await countTask(loop, counter, REQUEST_BLOCKS);
      expect(counted.instructions, `fell at block ${late}`).toBeCloseTo(228_000, -2);
      expect(counted.steady).toBe(true);
    }
    // The pairs alone (holdAfterFall 0) stop on the plateau: what the rule is for.
    const { loop, counter } = blocksOf(falling(44));
    expect((await countTask(loop, counter, { ...REQUEST_BLOCKS, holdAfterFall: 0 })).instructions).toBeCloseTo(241_000, -2);
  });
});
