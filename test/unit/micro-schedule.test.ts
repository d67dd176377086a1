import { fakeRevision } from '../fakes.js';
import { describe, expect, it } from 'vitest';
import type { MicroJob, TaskOutcome } from '../../src/measure/micro/protocol.js';
import { measureMicro, type MicroPlan } from '../../src/measure/micro/schedule.js';
import type { ProcessOutcome } from '../../src/measure/micro/spawn.js';
import type { BenchmarkSamples } from '../../src/measure/types.js';
import { UserError } from '../../src/util/errors.js';
import { roundOf } from '../../src/util/format.js';
import { decisionRule } from '../../src/stats/decision.js';

/** One look at 95%: the family is the benchmarks that compare. */
const oneLook = decisionRule({ confidence: 0.95, rounds: 10, maxRounds: 10, lookEvery: 5 });

/**
 * The micro-benchmark scheduler on fake benchmark processes and a fake clock: every
 * process answers at once with the log ratio the test scripts, and takes `roundMs` of
 * the fake clock, so the round counts below follow from the plan alone.
 */
const FILE = 'bench/a.bench.js';
const id = (task: string) => `${FILE} > ${task}`;

const revision = fakeRevision;

interface Fake {
  jobs: MicroJob[];
  spawn: (job: MicroJob) => Promise<ProcessOutcome>;
  now: () => number;
}

/**
 * Processes that measure `tasks` (names in FILE): head is exp(ratio) times base. In a job with one
 * side (process isolation), base picks batch 64 and head 32 unless the job fixes one.
 */
function fakeProcesses(
  tasks: string[],
  options: {
    ratio?: (task: string, job: number) => number;
    roundMs?: number;
    fail?: (job: MicroJob, n: number) => ProcessOutcome | undefined;
  } = {},
): Fake {
  let clock = 0;
  const jobs: MicroJob[] = [];
  return {
    jobs,
    now: () => clock,
    async spawn(job) {
      const n = jobs.push(structuredClone(job)) - 1;
      clock += options.roundMs ?? 100;
      const failure = options.fail?.(job, n);
      if (failure) return failure;
      const ratio = options.ratio ?? (() => -0.1);
      const both = job.sides.length === 2;
      const outcomes: TaskOutcome[] = tasks
        .filter((task) => !job.skip.includes(id(task)) && !job.decided?.includes(id(task)))
        .map((task) => {
          const r = ratio(task, n);
          const outcome: TaskOutcome = {
            id: id(task),
            batch: job.batches[id(task)] ?? (job.sides[0]!.revision === 'base' ? 64 : 32),
            blocks: 10,
          };
          for (const side of job.sides)
            outcome[side.revision] = { opsPerSec: side.revision === 'base' ? 1000 : 1000 * Math.exp(r), calls: 1000 };
          if (both) outcome.logRatio = r;
          return outcome;
        });
      return {
        ok: true,
        files: job.sides.map((side) => ({ revision: side.revision, file: FILE, tasks })),
        tasks: outcomes,
        durationMs: options.roundMs ?? 100,
      };
    },
  };
}

function planFor(fake: Fake, over: Partial<MicroPlan> = {}): MicroPlan {
  return {
    base: revision('base'),
    head: revision('head'),
    baseFiles: [FILE],
    headFiles: [FILE],
    isolation: 'alternate',
    settings: { taskTimeMs: 100, blockMs: 1, warmupBlocks: 0, minSampleMs: 0.02, minBlocks: 10 },
    stallTimeoutMs: 1000,
    rounds: 10,
    minimumRounds: (benchmarks) => oneLook.minimumRounds(benchmarks),
    timeLimitMs: 1e9,
    runnerPath: '/nonexistent/runner.js',
    log: () => {},
    spawn: fake.spawn,
    now: fake.now,
    ...over,
  };
}

const adaptive = (over: Partial<NonNullable<MicroPlan['adaptive']>> = {}): NonNullable<MicroPlan['adaptive']> => ({
  maxRounds: 10,
  lookEvery: 5,
  decided: () => new Set(),
  toConfirm: () => new Set(),
  confirmRounds: 0,
  ...over,
});

const byId = (benchmarks: BenchmarkSamples[]) => Object.fromEntries(benchmarks.map((b) => [b.id.slice(FILE.length + 3), b]));

/** `fake`, with task `name`'s outcome in each process it answers replaced by what `as` makes of it for that job. */
function withTask(fake: Fake, name: string, as: (task: TaskOutcome, job: MicroJob) => TaskOutcome): Fake {
  const spawn = fake.spawn;
  fake.spawn = async (job) => {
    const outcome = await spawn(job);
    if (!outcome.ok) return outcome;
    return { ...outcome, tasks: outcome.tasks.map((task) => (task.id === id(name) ? as(task, job) : task)) };
  };
  return fake;
}

describe('planning micro-benchmark rounds', () => {
  it('raises the rounds until each interval can reach its share of the confidence', async () => {
    // 3 benchmarks at 95%: each one-sided bound at 0.05/3; the widest bound of n rounds has
    // confidence 1 - 1/2^n, so 2^n > 3 / 0.05 = 60: 6 rounds, not the 2 asked for.
    const fake = fakeProcesses(['a', 'b', 'c']);
    const result = await measureMicro(planFor(fake, { rounds: 2 }));
    expect(result.plannedRounds).toBe(6);
    expect(result.rounds).toBe(6);
    expect(fake.jobs).toHaveLength(6);
  });

  it("asks the plan's rule, with the benchmarks that compare: the HTTP figures and every look count", async () => {
    // 3 benchmarks + 9 HTTP figures = 12: 2^n > 12 / 0.05 = 240, so 8 rounds.
    const withHttp = await measureMicro(
      planFor(fakeProcesses(['a', 'b', 'c']), { rounds: 2, minimumRounds: (n) => oneLook.minimumRounds(n + 9) }),
    );
    expect(withHttp.plannedRounds).toBe(8);
    // 3 benchmarks, 7 looks: the look at 10 spends 3.2% of 0.05/3 (5.3e-4 < 2^-10), so the first look is the one at 15.
    const fake = fakeProcesses(['a', 'b', 'c']);
    const sevenLooks = decisionRule({ confidence: 0.95, rounds: 10, maxRounds: 40, lookEvery: 5 });
    const looked = await measureMicro(
      planFor(fake, {
        rounds: 2,
        minimumRounds: (n) => sevenLooks.minimumRounds(n),
        adaptive: adaptive({ maxRounds: 2, decided: (b) => new Set(b.map((x) => x.id)) }),
      }),
    );
    expect(looked.plannedRounds).toBe(15);
    expect(fake.jobs).toHaveLength(15);
  });

  it('leaves a benchmark that failed in the first round out of the family', async () => {
    // 4 tasks, one broken at head: 3 in the family, 2^n > 60, so 6 (4 would need 7).
    const fake = withTask(fakeProcesses(['a', 'b', 'c', 'broken']), 'broken', (task) => ({
      ...task,
      error: { revision: 'head', message: 'TypeError: boom' },
      logRatio: undefined,
    }));
    const result = await measureMicro(planFor(fake, { rounds: 2 }));
    expect(result.plannedRounds).toBe(6);
    expect(byId(result.benchmarks).broken!.error).toBe('at head: TypeError: boom');
    // …and it is not run again.
    expect(fake.jobs.slice(1).every((job) => job.skip.includes(id('broken')))).toBe(true);
  });

  it('alternates which revision a process loads first, round by round', async () => {
    const fake = fakeProcesses(['a']);
    await measureMicro(planFor(fake, { rounds: 6 }));
    expect(fake.jobs.map((job) => job.sides.map((s) => s.revision).join(','))).toEqual([
      'base,head',
      'head,base',
      'base,head',
      'head,base',
      'base,head',
      'head,base',
    ]);
  });

  it("reverses the tasks' order in two rounds of every four, so with a process a round each order meets each revision loaded first", async () => {
    const fake = fakeProcesses(['a', 'b']);
    await measureMicro(planFor(fake, { rounds: 8 }));
    expect(fake.jobs.map((job) => `${job.reverse ? 'reversed' : 'declared'} ${job.sides[0]!.revision}`)).toEqual([
      'declared base',
      'declared head',
      'reversed base',
      'reversed head',
      'declared base',
      'declared head',
      'reversed base',
      'reversed head',
    ]);
    // A pair in process isolation shares its order.
    const pairs = fakeProcesses(['a'], { ratio: () => Math.log(0.8) });
    await measureMicro(planFor(pairs, { rounds: 4, isolation: 'process' }));
    expect(pairs.jobs.slice(0, 8).map((job) => Boolean(job.reverse))).toEqual([false, false, false, false, true, true, true, true]);
  });

  it("in process isolation, runs a pair of processes per round in AB BA order, the second with the first one's batch sizes", async () => {
    const fake = fakeProcesses(['a'], { ratio: () => Math.log(0.8) });
    const result = await measureMicro(planFor(fake, { rounds: 6, isolation: 'process' }));
    expect(fake.jobs).toHaveLength(12);
    expect(fake.jobs.slice(0, 4).map((job) => job.sides.map((s) => s.revision).join(','))).toEqual(['base', 'head', 'head', 'base']);
    // Base chose 64 calls per sample in the first process; head measured with the same.
    expect(fake.jobs[1]!.batches).toEqual({ [id('a')]: 64 });
    const [a] = result.benchmarks;
    expect(a!.logRatios).toHaveLength(6);
    for (const ratio of a!.logRatios) expect(ratio).toBeCloseTo(Math.log(0.8), 12);
    expect(a!.base!.opsPerSec).toEqual(Array(6).fill(1000));
  });
});

describe('adaptive rounds', () => {
  it('looks at the results after the planned rounds, then every lookEvery rounds, until max-rounds', async () => {
    const looks: number[] = [];
    const fake = fakeProcesses(['a']);
    const result = await measureMicro(
      planFor(fake, {
        adaptive: adaptive({
          maxRounds: 20,
          decided: (benchmarks) => {
            looks.push(benchmarks[0]!.logRatios.length);
            return new Set();
          },
        }),
      }),
    );
    expect(looks).toEqual([10, 15, 20]);
    expect(result.rounds).toBe(20);
    expect(result.limited).toBe(false);
  });

  it('says how the rounds in its progress bound the run: at least before the tasks are found, at most past the plan', async () => {
    // 3 benchmarks: the first round finds them, and they raise the 2 rounds asked for to 6; adaptive rounds up to 12.
    const shown: string[] = [];
    await measureMicro(
      planFor(fakeProcesses(['a', 'b', 'c']), {
        rounds: 2,
        onProgress: (p) => shown.push(roundOf(p)),
        adaptive: adaptive({ maxRounds: 12 }),
      }),
    );
    expect(shown).toEqual([
      'round 1 of at least 2',
      ...[2, 3, 4, 5, 6].map((n) => `round ${n} of 6`),
      ...[7, 8, 9, 10, 11, 12].map((n) => `round ${n} of at most 12`),
    ]);
  });

  it('says which: rounds added up to max-rounds, or none when max-rounds is the planned rounds', async () => {
    for (const [maxRounds, said] of [
      [20, 'after 10 rounds, 1 benchmark(s) have no verdict yet: adding rounds for them (up to 20)'],
      [10, 'after 10 rounds, 1 benchmark(s) have no verdict yet: max-rounds (10) leaves none to add'],
    ] as const) {
      const lines: string[] = [];
      const result = await measureMicro(
        planFor(fakeProcesses(['a']), { log: (line) => lines.push(line), adaptive: adaptive({ maxRounds, decided: () => new Set() }) }),
      );
      expect(result.rounds).toBe(maxRounds);
      expect(lines).toContain(said);
    }
  });

  it('looks early too, after the early look’s rounds: a benchmark decided there stops measuring at round 3', async () => {
    const fake = fakeProcesses(['a', 'b']);
    const looks: number[] = [];
    const lines: string[] = [];
    const result = await measureMicro(
      planFor(fake, {
        log: (line) => lines.push(line),
        adaptive: adaptive({
          maxRounds: 20,
          earlyLook: 3,
          // a is a step far beyond its budget: decided at the early look; b needs the planned looks.
          decided: (benchmarks) => {
            looks.push(benchmarks.find((b) => b.id === id('b'))!.logRatios.length);
            return new Set(looks.length >= 3 ? [id('a'), id('b')] : [id('a')]);
          },
        }),
      }),
    );
    expect(looks).toEqual([3, 10, 15]);
    expect(byId(result.benchmarks).a!.logRatios).toHaveLength(3);
    expect(byId(result.benchmarks).b!.logRatios).toHaveLength(15);
    expect(lines).toContain('after 3 rounds, 1 benchmark(s) decided at the early look (a step far from its budget); 1 go on');
  });

  it('stops measuring a decided benchmark, and stops when every benchmark is decided', async () => {
    const fake = fakeProcesses(['a', 'b']);
    let look = 0;
    const result = await measureMicro(
      planFor(fake, {
        adaptive: adaptive({ maxRounds: 40, decided: () => new Set(++look === 1 ? [id('a')] : [id('a'), id('b')]) }),
      }),
    );
    // a was decided at round 10, b at round 15: the run ends there, 25 rounds early.
    expect(result.rounds).toBe(15);
    expect(fake.jobs).toHaveLength(15);
    // A decided benchmark is not measured, but not skipped either: it still warms up before the tasks after it.
    expect(fake.jobs.slice(10).every((job) => job.decided?.includes(id('a')) && !job.decided.includes(id('b')))).toBe(true);
    expect(fake.jobs.every((job) => job.skip.length === 0)).toBe(true);
    expect(byId(result.benchmarks).a!.logRatios).toHaveLength(10);
    expect(byId(result.benchmarks).b!.logRatios).toHaveLength(15);
  });

  it('confirms a regression with as many fresh rounds as it took to find it, measuring only the suspect', async () => {
    const fake = fakeProcesses(['a', 'b']);
    let look = 0;
    const result = await measureMicro(
      planFor(fake, {
        adaptive: adaptive({
          maxRounds: 40,
          decided: () => new Set(++look === 1 ? [id('b')] : [id('a'), id('b')]),
          toConfirm: () => new Set([id('a')]),
          confirmRounds: 10,
        }),
      }),
    );
    const { a, b } = byId(result.benchmarks);
    // a took 15 rounds to decide: 15 fresh ones, not the 10 of the first look.
    expect(result.rounds).toBe(15);
    expect(result.confirmRounds).toBe(15);
    expect(a!.confirmation).toHaveLength(15);
    expect(a!.logRatios).toHaveLength(15);
    expect(b!.confirmation).toBeUndefined();
    expect(fake.jobs).toHaveLength(30);
    expect(fake.jobs.slice(15).every((job) => job.decided?.includes(id('b')) && !job.decided.includes(id('a')))).toBe(true);
  });

  it('confirms a regression the early look decided with a fresh group as large: 3 rounds, or more beside a later one', async () => {
    // a and b are steps far beyond their budget, decided at the early look; alone, their fresh group is 3 rounds.
    const alone = fakeProcesses(['a', 'b']);
    const early = await measureMicro(
      planFor(alone, {
        adaptive: adaptive({
          maxRounds: 40,
          earlyLook: 3,
          decided: () => new Set([id('a'), id('b')]),
          toConfirm: (bs) => new Set(bs.map((b) => b.id)),
          confirmRounds: 10,
        }),
      }),
    );
    expect(early.rounds).toBe(3);
    expect(early.confirmRounds).toBe(3);
    expect(byId(early.benchmarks).a!.confirmation).toHaveLength(3);
    expect(alone.jobs).toHaveLength(6);
    // Beside a regression the planned looks found (c, at round 10), the fresh group is the larger one, for every suspect.
    const mixed = fakeProcesses(['a', 'c']);
    let look = 0;
    const later = await measureMicro(
      planFor(mixed, {
        adaptive: adaptive({
          maxRounds: 40,
          earlyLook: 3,
          decided: () => new Set(++look === 1 ? [id('a')] : [id('a'), id('c')]),
          toConfirm: () => new Set([id('a'), id('c')]),
          confirmRounds: 10,
        }),
      }),
    );
    expect(later.rounds).toBe(10);
    expect(later.confirmRounds).toBe(10);
    expect(byId(later.benchmarks).a!.logRatios).toHaveLength(3);
    expect(byId(later.benchmarks).a!.confirmation).toHaveLength(10);
  });

  it("goes on to the first look's size where the 3 fresh rounds of an early step do not show it again", async () => {
    const fake = fakeProcesses(['a']);
    const lines: string[] = [];
    const result = await measureMicro(
      planFor(fake, {
        log: (line) => lines.push(line),
        adaptive: adaptive({
          maxRounds: 40,
          earlyLook: 3,
          decided: () => new Set([id('a')]),
          // A regression at the end of the first group; after its 3 fresh rounds, not one any more.
          toConfirm: (bs) => new Set(bs.filter((b) => (b.confirmation?.length ?? 0) < 3).map((b) => b.id)),
          confirmRounds: 10,
        }),
      }),
    );
    expect(result.rounds).toBe(3);
    expect(result.confirmRounds).toBe(10);
    expect(byId(result.benchmarks).a!.confirmation).toHaveLength(10);
    expect(lines).toContain('1 regression(s) from the early look not shown again in 3 fresh rounds: the fresh group goes on to 10');
  });

  it('confirms a regression on the fewer fresh rounds its loss needs, and goes on to the first group where they do not show it', async () => {
    const sized = fakeProcesses(['a']);
    const lines: string[] = [];
    const result = await measureMicro(
      planFor(sized, {
        log: (line) => lines.push(line),
        adaptive: adaptive({
          maxRounds: 40,
          decided: () => new Set([id('a')]),
          toConfirm: () => new Set([id('a')]),
          confirmRounds: 10,
          confirmSize: (_samples, full) => (full === 10 ? 6 : full),
        }),
      }),
    );
    expect(result.confirmRounds).toBe(6);
    expect(byId(result.benchmarks).a!.confirmation).toHaveLength(6);
    // Shown again in them: whole at 6 for the final judgement.
    expect(byId(result.benchmarks).a!.confirmationPlanned).toBe(6);
    expect(lines).toContain('confirming 1 regression(s) with 6 fresh rounds');
    // Not shown again in those 6: the fresh group goes on to the first group's 10.
    const notShown = fakeProcesses(['a']);
    const more: string[] = [];
    const longer = await measureMicro(
      planFor(notShown, {
        log: (line) => more.push(line),
        adaptive: adaptive({
          maxRounds: 40,
          decided: () => new Set([id('a')]),
          toConfirm: (bs) => new Set(bs.filter((b) => (b.confirmation?.length ?? 0) < 6).map((b) => b.id)),
          confirmRounds: 10,
          confirmSize: () => 6,
        }),
      }),
    );
    expect(longer.confirmRounds).toBe(10);
    expect(byId(longer.benchmarks).a!.confirmation).toHaveLength(10);
    // The size it went on to: a group the time limit stopped short of it would be cut.
    expect(byId(longer.benchmarks).a!.confirmationPlanned).toBe(10);
    expect(more).toContain('1 regression(s) not shown again in 6 fresh rounds: the fresh group goes on to 10');
  });

  it('confirms nothing when confirmation is off', async () => {
    let asked = false;
    const result = await measureMicro(
      planFor(fakeProcesses(['a']), {
        adaptive: adaptive({
          toConfirm: () => {
            asked = true;
            return new Set([id('a')]);
          },
          confirmRounds: 0,
        }),
      }),
    );
    expect(asked).toBe(false);
    expect(result.confirmRounds).toBe(0);
    expect(result.benchmarks[0]!.confirmation).toBeUndefined();
  });
});

describe('the time limit', () => {
  it('starts no round that would end past the limit, and says the plan was cut', async () => {
    // Rounds of 1 s against 5.5 s: after 5 rounds the sixth would end at 6 s.
    const lines: string[] = [];
    const result = await measureMicro(
      planFor(fakeProcesses(['a'], { roundMs: 1000 }), { timeLimitMs: 5500, log: (line) => lines.push(line) }),
    );
    expect(result.rounds).toBe(5);
    expect(result.plannedRounds).toBe(10);
    expect(result.limited).toBe(true);
    expect(result.durationMs).toBe(5000);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^time limit of 6s: stopping after 5 rounds \(\d+s measured: the next round(, and the time kept back to confirm a regression,)? would not fit\)$/,
      ),
    );
  });

  it('warns after the first round when the first look at its pace needs more than twice the limit', async () => {
    // A worker per scenario: rounds of 30 s against 2 minutes, 10 planned rounds (5 minutes at that pace).
    const lines: string[] = [];
    await measureMicro(planFor(fakeProcesses(['a'], { roundMs: 30_000 }), { timeLimitMs: 120_000, log: (line) => lines.push(line) }));
    const warning = lines.filter((line) => line.startsWith('warning: round 1 took'));
    expect(warning).toEqual([
      "warning: round 1 took 30s: at that pace the first look's 10 rounds need about 5m, and time-limit is 2m (later rounds may be shorter, not by half): " +
        'what it leaves unmeasured fails the run: raise time-limit to about 5m, or measure fewer files a run (--files, --shard)',
    ]);
    // A pace within twice the limit (20 s × 10 rounds against 2 minutes) is not warned of: later rounds may be shorter.
    const quiet: string[] = [];
    await measureMicro(planFor(fakeProcesses(['a'], { roundMs: 20_000 }), { timeLimitMs: 120_000, log: (line) => quiet.push(line) }));
    expect(quiet.filter((line) => line.startsWith('warning: round 1 took'))).toEqual([]);
  });

  it('always runs the first round, whatever the limit', async () => {
    const result = await measureMicro(planFor(fakeProcesses(['a'], { roundMs: 1000 }), { timeLimitMs: 1 }));
    expect(result.rounds).toBe(1);
    expect(result.limited).toBe(true);
  });

  it('keeps back the time a confirmation needs before adding rounds', async () => {
    // Rounds of 1 s, 26.95 s in all. An extra round k starts only if k s + 1 s + max(10, k) s (the
    // confirmation it may need) fit: 12 + 1 + 12 does, 13 + 1 + 13 does not. So 13 rounds, then
    // all 13 confirmation rounds, which end at 26 s. (Without the reserve: 26 rounds, no confirmation.)
    const fake = fakeProcesses(['a'], { roundMs: 1000 });
    const result = await measureMicro(
      planFor(fake, {
        timeLimitMs: 26_950,
        adaptive: adaptive({ maxRounds: 40, toConfirm: () => new Set([id('a')]), confirmRounds: 10 }),
      }),
    );
    expect(result.rounds).toBe(13);
    expect(result.limited).toBe(false); // the planned 10 all ran
    expect(result.confirmRounds).toBe(13);
    expect(result.benchmarks[0]!.confirmation).toHaveLength(13);
  });

  it('cuts the confirmation short at the limit too', async () => {
    // No extra rounds: 10 rounds of 1 s, then confirmation rounds while they fit in 14.5 s.
    const result = await measureMicro(
      planFor(fakeProcesses(['a'], { roundMs: 1000 }), {
        timeLimitMs: 14_500,
        adaptive: adaptive({ toConfirm: () => new Set([id('a')]), confirmRounds: 10 }),
      }),
    );
    expect(result.rounds).toBe(10);
    expect(result.confirmRounds).toBe(4);
    expect(result.benchmarks[0]!.confirmation).toHaveLength(4);
  });
});

describe('failing benchmark processes', () => {
  it('blames the task a crashed process was running and measures the others without it', async () => {
    const fake = fakeProcesses(['a', 'quits'], {
      fail: (job) =>
        job.skip.includes(id('quits'))
          ? undefined
          : {
              ok: false,
              message: "exited with code 7 while running 'bench/a.bench.js > quits'",
              id: id('quits'),
              revision: 'head',
              durationMs: 1,
            },
    });
    const result = await measureMicro(planFor(fake, { rounds: 6 }));
    const { a, quits } = byId(result.benchmarks);
    expect(quits!.error).toBe("at head: exited with code 7 while running 'bench/a.bench.js > quits'");
    // Which revision failed is said as a field too, not left to the message's wording (gate/files.ts reads it).
    expect(quits!.errorAt).toBe('head');
    expect(a!.logRatios).toHaveLength(6);
    // One failed attempt, then every round without it.
    expect(fake.jobs).toHaveLength(7);
    expect(fake.jobs.slice(1).every((job) => job.skip.includes(id('quits')))).toBe(true);
  });

  it("names the revision of a task that threw at one revision alone (errorAt), as the report's row does", async () => {
    const fake = withTask(fakeProcesses(['a', 'b']), 'b', (task) => ({
      id: task.id,
      batch: task.batch,
      blocks: 0,
      error: { revision: 'base', message: 'TypeError: f is not a function' },
    }));
    const { a, b } = byId((await measureMicro(planFor(fake, { rounds: 4 }))).benchmarks);
    expect(b).toMatchObject({ error: 'at base: TypeError: f is not a function', errorAt: 'base' });
    // Not a file new at head: the task is left out at both revisions from then on.
    expect(b!.head).toBeUndefined();
    expect(a!.error).toBeUndefined();
    expect(a!.errorAt).toBeUndefined();
    expect(a!.logRatios.length).toBeGreaterThanOrEqual(4);
  });

  it('goes on measuring at head alone a task of a bench file new at head that throws at base (MicroPlan.borrowed)', async () => {
    const fake = withTask(fakeProcesses(['a', 'b']), 'b', (task, job): TaskOutcome => {
      // Base's copy calls what base lacks; head's runs. A job that leaves base out measures head alone.
      if (job.headAlone?.includes(id('b'))) return { id: task.id, batch: task.batch, blocks: 10, head: { opsPerSec: 500, calls: 1000 } };
      return { id: task.id, batch: task.batch, blocks: 0, error: { revision: 'base', message: 'TypeError: f is not a function' } };
    });
    const { a, b } = byId((await measureMicro(planFor(fake, { rounds: 4, borrowed: [FILE] }))).benchmarks);
    expect(b).toMatchObject({ error: 'at base: TypeError: f is not a function', errorAt: 'base', base: undefined });
    expect(b!.head!.opsPerSec.length).toBeGreaterThanOrEqual(3);
    expect(b!.head!.opsPerSec.every((x) => x === 500)).toBe(true);
    expect(b!.logRatios).toEqual([]);
    // The first round ran it at both; every later one at head alone, never skipped.
    expect(fake.jobs[0]!.headAlone).toBeUndefined();
    expect(fake.jobs.slice(1).every((job) => job.headAlone?.includes(id('b')) && !job.skip.includes(id('b')))).toBe(true);
    expect(a!.logRatios.length).toBeGreaterThanOrEqual(4);
  });

  it('ends a task of a bench file new at head that throws at head alone too: an error at head, which fails the run', async () => {
    const fake = withTask(fakeProcesses(['a', 'b']), 'b', (task, job) => {
      const revision = job.headAlone?.includes(id('b')) ? ('head' as const) : ('base' as const);
      return { id: task.id, batch: task.batch, blocks: 0, error: { revision, message: `RangeError: at ${revision}` } };
    });
    const { b } = byId((await measureMicro(planFor(fake, { rounds: 4, borrowed: [FILE] }))).benchmarks);
    expect(b).toMatchObject({ error: 'at head: RangeError: at head', errorAt: 'head' });
    expect(fake.jobs.at(-1)!.skip).toContain(id('b'));
  });

  it('stops warming up a decided task that crashes its process, and keeps the verdict its rounds gave', async () => {
    // a is decided at the first look (round 10); from then on it only warms up before b, and that crashes the process.
    const fake = fakeProcesses(['a', 'b'], {
      fail: (job) =>
        job.decided?.includes(id('a')) && !job.skip.includes(id('a'))
          ? { ok: false, message: "exited with code 7 while running 'bench/a.bench.js > a'", id: id('a'), revision: 'base', durationMs: 1 }
          : undefined,
    });
    const lines: string[] = [];
    let look = 0;
    const result = await measureMicro(
      planFor(fake, {
        log: (line) => lines.push(line),
        adaptive: adaptive({ maxRounds: 20, decided: () => new Set(++look === 1 ? [id('a')] : [id('a'), id('b')]) }),
      }),
    );
    const { a, b } = byId(result.benchmarks);
    expect(a!.error).toBeUndefined();
    expect(a!.logRatios).toHaveLength(10);
    expect(b!.logRatios).toHaveLength(15);
    // One failed attempt at round 11, then rounds that no longer run a at all.
    expect(fake.jobs).toHaveLength(16);
    expect(fake.jobs.slice(11).every((job) => job.skip.includes(id('a')))).toBe(true);
    expect(lines).toContain(
      "round 11: bench/a.bench.js > a, already decided, failed while warming up and is no longer run (exited with code 7 while running 'bench/a.bench.js > a')",
    );
  });

  it('fails the run when a process dies outside any task', async () => {
    const fake = fakeProcesses(['a'], {
      fail: () => ({ ok: false, message: 'could not start the benchmark process: ENOENT', durationMs: 1 }),
    });
    const run = measureMicro(planFor(fake, { rounds: 6 }));
    await expect(run).rejects.toBeInstanceOf(UserError);
    await expect(run).rejects.toThrow('Round 1: could not start the benchmark process: ENOENT');
  });
});

describe('measuring time allocated by where the noise is', () => {
  /**
   * Processes that cost 800 ms of the fake clock to start and load, plus each task's measuring time
   * (the job's taskTimes, else task-time), in blocks of 2 ms. `offsets` are the per-process offsets of
   * every task's figure, round after round; `blockSpread` its spread from block to block.
   */
  function noisyProcesses(tasks: string[], noise: { offsets: number[]; blockSpread: number }): Fake {
    let clock = 0;
    const jobs: MicroJob[] = [];
    return {
      jobs,
      now: () => clock,
      async spawn(job) {
        const n = jobs.push(structuredClone(job)) - 1;
        const outcomes: TaskOutcome[] = tasks
          .filter((task) => !job.skip.includes(id(task)) && !job.decided?.includes(id(task)))
          .map((task) => {
            const measureMs = job.taskTimes?.[id(task)] ?? job.settings.taskTimeMs;
            return {
              id: id(task),
              batch: 1,
              blocks: measureMs / 2,
              measureMs,
              base: { opsPerSec: 1000, calls: 1000 },
              head: { opsPerSec: 1000, calls: 1000 },
              logRatio: noise.offsets[n % noise.offsets.length]!,
              blockVariance: noise.blockSpread ** 2,
            };
          });
        const durationMs = 800 + outcomes.reduce((sum, t) => sum + t.measureMs!, 0);
        clock += durationMs;
        return { ok: true, files: job.sides.map((side) => ({ revision: side.revision, file: FILE, tasks })), tasks: outcomes, durationMs };
      },
    };
  }
  const tasks = ['route a', 'route b', 'route c', 'route d'];
  const perProcess = { offsets: [-0.01, 0, 0.01], blockSpread: 0.005 };
  const perBlock = { offsets: [0, 0, 0], blockSpread: 0.05 };
  const settings = { taskTimeMs: 400, blockMs: 1, warmupBlocks: 0, minSampleMs: 0.02, minBlocks: 10 };
  const run = (fake: Fake, over: Partial<MicroPlan> = {}) =>
    measureMicro(planFor(fake, { settings, timeLimitMs: 60_000, adaptive: adaptive({ maxRounds: 200 }), ...over }));

  it('runs many short processes when the noise is per process, and more rounds fit in the time limit', async () => {
    const lines: string[] = [];
    const fake = noisyProcesses(tasks, perProcess);
    const result = await run(fake, { log: (line) => lines.push(line) });
    // Three rounds at task-time, then 20 blocks (40 ms) per task: the fewest allowed.
    expect(fake.jobs.slice(0, 3).every((job) => job.taskTimes === undefined)).toBe(true);
    for (const job of fake.jobs.slice(3)) expect(Object.values(job.taskTimes!)).toEqual([40, 40, 40, 40]);
    expect(lines).toContain(
      'after 3 rounds: between-process noise dominates in 4 of 4 tasks; task time 400ms → 40ms, a round ≈2.4s → 960ms',
    );
    const fixed = await run(noisyProcesses(tasks, perProcess), { allocate: false });
    // 60 s: 3 rounds of 2.4 s, then 55 of 0.96 s; at task-time throughout, 25 rounds.
    expect(fixed.rounds).toBe(25);
    expect(result.rounds).toBe(58);
    expect(result.durationMs).toBeLessThanOrEqual(60_000);
  });

  it('keeps the whole task time when the noise is within the process', async () => {
    const fake = noisyProcesses(tasks, perBlock);
    const result = await run(fake);
    for (const job of fake.jobs.slice(3)) expect(Object.values(job.taskTimes!)).toEqual([400, 400, 400, 400]);
    expect(result.rounds).toBe(25);
  });

  it('gives the fresh processes of a confirmation to the suspects alone, decided as they were', async () => {
    const fake = noisyProcesses(tasks, perBlock);
    const decidedAll = () => new Set(tasks.map(id));
    await run(fake, {
      adaptive: adaptive({ maxRounds: 10, decided: decidedAll, toConfirm: () => new Set([id('route a')]), confirmRounds: 10 }),
    });
    const confirmation = fake.jobs.slice(10);
    expect(confirmation).toHaveLength(10);
    // Within-process noise: the suspect keeps the whole task time, and the allocation names only it.
    for (const job of confirmation) expect(job.taskTimes).toEqual({ [id('route a')]: 400 });
  });

  it('runs several processes per round when one cannot resolve the budget, as many as the time allows, and averages them', async () => {
    const lines: string[] = [];
    const fake = noisyProcesses(tasks, { ...perProcess, offsets: [-0.01, 0, 0.01, 0.03] });
    // One process spreads ≈2%: a spread of 0.4% needs 8 processes or more. Three rounds of 2.4 s, then
    // processes of 0.96 s: 9 rounds to go to max-rounds in 52.8 s leave 6 processes per round, and the
    // last round the 6.72 s left: 7.
    const result = await run(fake, {
      adaptive: adaptive({ maxRounds: 12 }),
      resolves: (_, spread) => spread <= 0.004,
      log: (line) => lines.push(line),
    });
    expect(lines.filter((line) => line.includes('per round'))).toEqual([
      'from round 4: 6 processes per round (between-process noise; what the budgets need at round 10 and the time allows)',
      'from round 12: 7 processes per round (between-process noise; what the budgets need at round 12 and the time allows)',
    ]);
    expect(result.rounds).toBe(12);
    expect(fake.jobs).toHaveLength(3 + 8 * 6 + 7);
    expect(result.processes).toBe(fake.jobs.length);
    expect(result.durationMs).toBeLessThanOrEqual(60_000);
    // Which revision loads first alternates process by process, so each round of 6 is balanced.
    fake.jobs.forEach((job, n) => expect(job.sides[0]!.revision).toBe(n % 2 ? 'head' : 'base'));
    // A round's figure is the mean of its processes' figures (process n has offset n mod 4).
    const offset = (n: number) => [-0.01, 0, 0.01, 0.03][n % 4]!;
    const processesOf = (round: number) =>
      round < 3 ? [round] : Array.from({ length: round === 11 ? 7 : 6 }, (_, p) => 3 + (round - 3) * 6 + p);
    const expected = Array.from({ length: 12 }, (_, round) => {
      const group = processesOf(round).map(offset);
      return group.reduce((sum, x) => sum + x, 0) / group.length;
    });
    for (const benchmark of result.benchmarks)
      expect(benchmark.logRatios.map((r) => r.toFixed(12))).toEqual(expected.map((r) => r.toFixed(12)));
    // Every process of a round runs the tasks in one order (a mean over two orders would hide their groups): declared in
    // rounds 1-2, 5-6, 9-10, reversed in 3-4, 7-8, 11-12.
    for (let round = 0; round < 12; round++)
      for (const n of processesOf(round))
        expect(Boolean(fake.jobs[n]!.reverse), `round ${round + 1}`).toBe(Math.floor(round / 2) % 2 === 1);
  });

  it('runs one process per round when one resolves every budget', async () => {
    const lines: string[] = [];
    const fake = noisyProcesses(tasks, perProcess);
    const result = await run(fake, { adaptive: adaptive({ maxRounds: 12 }), resolves: () => true, log: (line) => lines.push(line) });
    expect(result.rounds).toBe(12);
    expect(fake.jobs).toHaveLength(12);
    expect(lines.some((line) => line.includes('per round'))).toBe(false);
  });

  it('keeps back for a confirmation only what its processes cost: the suspects, not a whole round', async () => {
    // 20 tasks at 100 ms: three rounds of 2.8 s, then 40 ms per task, a round of 1.6 s; a confirmation
    // process measures the suspect (and room for one more): 0.8 s + 2 × 40 ms.
    const many = Array.from({ length: 20 }, (_, i) => `route ${i}`);
    const fake = noisyProcesses(many, perProcess);
    const result = await run(fake, {
      settings: { ...settings, taskTimeMs: 100 },
      adaptive: adaptive({ maxRounds: 200, toConfirm: () => new Set([id('route 0')]), confirmRounds: 10 }),
    });
    // The main rounds that fit when a confirmation of max(10, rounds) rounds is kept back at `confirmMs` a round.
    const fitting = (confirmMs: number) => {
      let done = 3;
      while (8_400 + (done - 3) * 1_600 + 1_600 + Math.max(10, done) * confirmMs <= 60_000) done++;
      return done;
    };
    expect(result.rounds).toBe(fitting(880));
    expect(result.rounds).toBeGreaterThan(fitting(1_600) + 3);
    // The confirmation then ran as many rounds as the first group, inside the limit.
    expect(result.confirmRounds).toBe(result.rounds);
    expect(result.durationMs).toBeLessThanOrEqual(60_000);
  });

  it('leaves process isolation at task-time: a pair of processes has no blocks to weigh', async () => {
    const fake = noisyProcesses(tasks, perProcess);
    await run(fake, { isolation: 'process', timeLimitMs: 20_000 });
    expect(fake.jobs.every((job) => job.taskTimes === undefined)).toBe(true);
  });
});
