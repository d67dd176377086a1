/**
 * Counts of an HTTP server (a load test's `measure: counts`): the server of one revision started under callgrind,
 * driven by the load test's own requests one at a time (a cycle of its `requests`, in order, each answered before the
 * next is sent), in blocks ended by a marker the probe calls in the server (`mark`, os.getPriority()): the same blocks,
 * steady state and figures as a micro-benchmark's task (task.ts countTask), a cycle in place of a call. Every status
 * is checked as in time mode: a server that answers what its request does not expect is an error, never a count.
 *
 * Written by hand: no library drives a server under callgrind.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Revision } from '../../checkout/revisions.js';
import { describeExpected, expectsStatus } from '../../config/status.js';
import type { CountedFigure, HttpBenchmarkConfig, HttpRequestConfig } from '../../config/types.js';
import { messageOf, UserError } from '../../util/errors.js';
import { formatDuration, formatPath } from '../../util/format.js';
import { ASSIGNMENTS, hasShellOperator, ServerProcess, runsNode } from '../http/server.js';
import { callgrindArgs, COUNTED_ENV, instrumentOn, lateOrFromStart, NotInstrumented, unrandomized } from './callgrind.js';
import type { SideCounts } from './schedule.js';
import { countTask, readDump, type BlockCounter, type BlockSizes, type CountFigures } from './task.js';

/**
 * A server's blocks: a request is 10^4-10^6 instructions, its first ones cost several times its steady ones, and a
 * server reaches its steady state after thousands of requests (a node http server's floor still fell from 104.6k to
 * 101.1k instructions a request between its 4,000th and 8,000th), with timers that run by the wall clock (node's Date
 * header, once a second): blocks of at least 256 requests and 20 M instructions, up to 120 warm-up blocks, steady within
 * 1% and only once the level has held for as many blocks as came before its last fall (`fixtures/http-lifecycle` on
 * Node 24: base's floor fell from 107k to 94k near its 40th block; its head's pairs agreed at 241k from its 20th, and
 * a seed that stopped there read 265.5k where one that went on read 232.0k, the same code). A framework's collections
 * fall in many blocks (hapi: 119k instructions a request in blocks without one, 205-213k in three of seven with one), so
 * the median of a few blocks flips between the two from process to process: the figure is the window, every
 * instruction of 16 blocks (4,096 requests or more) a request, less the blocks that hold a collection's work (task.ts
 * COLLECTION_SHARE: a window holds a different part of the heap's cycle from seed to seed).
 */
export const REQUEST_BLOCKS: BlockSizes = {
  blockInstructions: 20_000_000,
  minWarmupBlocks: 4,
  maxWarmupBlocks: 120,
  minBatch: 256,
  maxBatch: 8192,
  tolerance: 0.01,
  holdAfterFall: 1,
  measuredBlocks: 16,
  estimate: 'window',
};

/**
 * Requests sent before the first block, with callgrind's instrumentation still off (a server started `late`), where a
 * request costs a third to a tenth of an instrumented one while V8 compiles the server's code. fastify's route
 * (2026-11-30, 3 seeds, two servers at once): 6 servers in 106-138 s without it, 88-123 s with 4,096 (alternated in one
 * hour: 113-148 s against 100-113 s); 8,192 was no faster. The blocks' rules for steady state are the same after it,
 * and its level as low or lower. Not the probe's marks: sent uncounted too, the heap's first mark-compact came inside
 * the window instead of before it, where the rules did not see it (docs/counts.md). A number of requests, not a time:
 * the same at every seed and rerun.
 */
export const PREWARM_REQUESTS = 4096;

/** The cycles of a load test's requests that hold PREWARM_REQUESTS requests (a cycle is sent whole). */
export function prewarmCycles(benchmark: HttpBenchmarkConfig): number {
  return Math.ceil(PREWARM_REQUESTS / benchmark.requests.length);
}

/** Node's start under callgrind takes 12 s and a framework's modules more: the ready check waits at least this long. */
const READY_UNDER_CALLGRIND_MS = 180_000;

/**
 * The most a server may be counted for: its start, warm-up and blocks take 1-2 minutes under the simulator; one that
 * has not reached a figure by then (a request of millions of instructions, a warm-up that never settles) is an error,
 * never a wait without end.
 */
export const SERVER_COUNT_LIMIT_MS = 15 * 60_000;

/** A request the simulator keeps longer than this is a server that does not answer. */
const REQUEST_TIMEOUT_MS = 120_000;

/** V8 flags for a server counted under callgrind, beyond callgrindArgs': no collections timed by the wall clock. */
const SERVER_FLAGS = ['--no-memory-reducer'];

/** A command's leading assignments, its `node`, and the rest. */
const NODE_COMMAND = new RegExp(String.raw`^(\s*${ASSIGNMENTS})((?:\S*\/)?node)(?=\s|$)(.*)$`, 's');

/**
 * The load test's `start` run under callgrind: its `node` (with any `VAR=value` before it) becomes valgrind running that
 * node. Only a command that starts node itself can be counted: `npm start` would count npm, and a shell script's node
 * is out of reach; so `npm start` and `npm run <script>` are read from the revision's package.json (`root`), and
 * counted where that script starts node itself.
 */
export function callgrindCommand(
  benchmark: Pick<HttpBenchmarkConfig, 'start' | 'where'>,
  valgrind: string,
  dumpPrefix: string,
  seed: number,
  figure: CountedFigure = 'instructions',
  root?: string,
  late = false,
) {
  const script = root === undefined ? undefined : npmScript(benchmark.start, root);
  const start = script ?? benchmark.start;
  const parts = NODE_COMMAND.exec(start);
  if (!runsNode(start) || !parts || /^\s*taskset\b/.test(start) || hasShellOperator(parts[3]!))
    throw new UserError(
      `${benchmark.where}.start: measure: counts runs the server under callgrind, and '${benchmark.start}' ` +
        `${script === undefined ? '' : `(the script '${script}') `}does not start node itself: ` +
        "write the command that starts it (as 'node server.js'), or measure this load test in time (measure: time).",
    );
  const [, env, node, rest] = parts;
  const args = [...callgrindArgs(dumpPrefix, seed, node, figure, { late }), ...SERVER_FLAGS].map(shellWord);
  const prefix = unrandomized()
    .map((word) => `${shellWord(word)} `)
    .join('');
  return `${env}${prefix}${shellWord(valgrind)} ${args.join(' ')}${rest}`;
}

/** The script `npm start` or `npm run <name>` runs, from the package.json in `root`; undefined for any other command. */
function npmScript(start: string, root: string): string | undefined {
  const named = /^\s*npm\s+(?:start|(?:run|run-script)\s+([\w:.-]+))\s*$/.exec(start);
  if (!named) return undefined;
  try {
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, unknown> };
    const script = manifest.scripts?.[named[1] ?? 'start'];
    // npm's default start, where package.json has none: `node server.js`.
    if (script === undefined && !named[1] && existsSync(path.join(root, 'server.js'))) return 'node server.js';
    return typeof script === 'string' ? script : undefined;
  } catch {
    return undefined;
  }
}

/** A word for the shell: as it is when it needs no quoting, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w./=,:@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

export interface ServerCountPlan {
  benchmark: HttpBenchmarkConfig;
  revision: Revision;
  seed: number;
  valgrind: string;
  probePath: string;
  socketDir: string;
  /** The dumps' path prefix (a file of the run's temp folder). */
  dumpPrefix: string;
  /** What is counted: instructions (default) or estimated cycles. */
  figure?: CountedFigure | undefined;
  /** The most this server may be counted for (default SERVER_COUNT_LIMIT_MS). */
  limitMs?: number | undefined;
  log?: (line: string) => void;
}

/**
 * Instructions per request (CountFigures per cycle divided by the cycle's requests) of one revision under one seed.
 * The server starts with callgrind's instrumentation off (callgrindArgs' `late`: node's start and the project's
 * modules run about 3x faster), turned on once it is ready and idle, before the first request counted; where
 * valgrind's vgdb cannot do that here, it is started again with callgrind on from its start (the same counts,
 * slower), and so is every server after it in this run.
 */
export function countServer(plan: ServerCountPlan): Promise<ServerFigures> {
  unrandomized(plan.log);
  return lateOrFromStart(plan.valgrind, (late) => countServerOnce(plan, late), plan.log, 'server');
}

/**
 * A server's figures and what its time went to, for the log: its start under the simulator (node's own start, the
 * project's modules), the requests sent uncounted, and the counted blocks (the warm-up's and the window's). Read by the
 * clock for the log alone: nothing is decided by it.
 */
export interface ServerFigures extends CountFigures {
  phasesMs?: { start: number; uncounted: number; blocks: number };
  /** Requests sent again on a new connection after the server closed a kept-alive one under them (send). */
  resent?: number;
}

async function countServerOnce(plan: ServerCountPlan, late: boolean): Promise<ServerFigures> {
  const { benchmark, revision } = plan;
  const began = Date.now();
  const server = await ServerProcess.start({
    command: callgrindCommand(benchmark, plan.valgrind, plan.dumpPrefix, plan.seed, plan.figure, revision.root, late),
    cwd: revision.root,
    readyPath: benchmark.ready,
    readyTimeoutMs: Math.max(benchmark.readyTimeoutMs, READY_UNDER_CALLGRIND_MS),
    probePath: plan.probePath,
    socketDir: plan.socketDir,
    label: `${revision.label} (${revision.ref} @ ${revision.sha.slice(0, 7)}) under callgrind`,
    probe: true,
    env: COUNTED_ENV,
  });
  const agent = countingAgent();
  try {
    const counter = new ServerCounter(server, plan.dumpPrefix, plan.figure);
    await counter.hello();
    const limitMs = plan.limitMs ?? SERVER_COUNT_LIMIT_MS;
    const ends = Date.now() + limitMs;
    const bound = () => {
      if (Date.now() >= ends)
        throw new Error(
          `${server.label} was not counted within ${formatDuration(limitMs)} under callgrind (a request of millions of ` +
            'instructions, or a warm-up that never settles): measure this load test in time (measure: time)',
        );
    };
    let resent = 0;
    const cycle = async (n: number) => {
      bound();
      for (let i = 0; i < n; i++) {
        for (const request of benchmark.requests) if ((await send(server.port, agent, request, server)).resent) resent++;
        bound();
      }
    };
    const ready = Date.now();
    // One cycle first: a server that answers what its requests do not expect fails here, before anything is counted.
    await cycle(1);
    // The warm-up's first requests with the instrumentation off (PREWARM_REQUESTS), the same whether started late or not.
    await cycle(prewarmCycles(benchmark) - 1);
    if (late) {
      // The probe's pid is node's, under valgrind: it waits for a request, so nothing it runs depends on when.
      const problem =
        server.cpuPid === undefined
          ? 'the server under callgrind has no known pid'
          : await instrumentOn(plan.valgrind, server.cpuPid, plan.dumpPrefix);
      if (problem) throw new NotInstrumented(`${server.label}: ${problem}`);
    }
    const counting = Date.now();
    const figures = await countTask(cycle, counter, REQUEST_BLOCKS);
    const phasesMs = { start: ready - began, uncounted: counting - ready, blocks: Date.now() - counting };
    // Nothing beyond the marker's own cost: the requests were served elsewhere (a cluster worker), where callgrind is not.
    if (!(figures.instructions >= 1))
      throw new Error(
        `${server.label}: counted no instructions a request beyond an empty block: its requests are served by another ` +
          'process (a cluster worker?), which callgrind does not follow: measure this load test in time (measure: time)',
      );
    const perRequest = (x: number) => x / benchmark.requests.length;
    return {
      ...figures,
      instructions: perRequest(figures.instructions),
      floor: perRequest(figures.floor),
      window: perRequest(figures.window),
      calls: figures.calls * benchmark.requests.length,
      phasesMs,
      ...(resent ? { resent } : {}),
    };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

/**
 * A server's counter: marks made by the probe in the server's process (callgrind dumps there, to the plan's prefix),
 * read here once the block's dumps are written.
 */
class ServerCounter implements BlockCounter {
  private dumps = 0;

  constructor(
    private readonly server: ServerProcess,
    private readonly prefix: string,
    private readonly figure: CountedFigure = 'instructions',
  ) {}

  /** The probe must answer: without it no mark is made, and nothing could be counted. */
  async hello(): Promise<void> {
    const reply = await this.server.probe<{ ok?: boolean }>('hello', 60_000);
    if (!reply?.ok)
      throw new Error(`${this.server.label}: benchgate's probe did not load in the server (NODE_OPTIONS must reach its node)`);
  }

  private async mark(young = false): Promise<number> {
    const reply = await this.server.probe<{ ok?: boolean }>(young ? 'mark young' : 'mark', REQUEST_TIMEOUT_MS);
    this.server.checkAlive('while counted');
    if (!reply?.ok) throw new Error(`${this.server.label}: the probe did not mark a block`);
    return ++this.dumps;
  }

  async blocks(count: number, run: () => unknown): Promise<number[]> {
    const first = await this.mark(true);
    for (let k = 0; k < count; k++) {
      await run();
      await this.mark();
    }
    rmSync(`${this.prefix}.${first}`, { force: true });
    if (existsSync(`${this.prefix}.${this.dumps + 1}`))
      throw new Error('the server calls os.getPriority(), the marker counts mode dumps at: it cannot be counted (measure it in time)');
    return Array.from({ length: count }, (_, k) => readDump(`${this.prefix}.${first + 1 + k}`, this.figure));
  }
}

/**
 * The counting client's one kept-alive connection. With a timeout of its own, node's agent closes an idle connection a
 * second before the server's `Keep-Alive: timeout=` says, by the client's clock (without one it keeps it until the
 * server's close arrives, which can cross the next request: send); each request sets its own timeout while it runs
 * (sendOnce).
 */
export function countingAgent(): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets: 1, timeout: REQUEST_TIMEOUT_MS });
}

/**
 * One request on the kept-alive connection, its body read whole; a status its request does not expect throws. A
 * server closes a connection idle for its keep-alive timeout (node's 5 s and a second of buffer, by the wall clock),
 * which a server under the simulator reaches while vgdb turns its instrumentation on. countingAgent closes it 2 s
 * before, by benchgate's clock, but where benchgate's process was held back beyond that (a loaded machine), the close
 * can cross the next request, which then fails with a reset before any answer (Node 24, a CI run: "read ECONNRESET"
 * on the counted load test's fixture). Such a request had no answer, and most likely never reached the route: it is
 * sent again, once, on a new connection (node's documented remedy, `request.reusedSocket`); where the server had
 * served it before the reset, its block holds one request's work more. A server that dies or resets a new connection
 * still fails the count. Whether it was sent again is returned: the server's log line says how many were
 * (countServers).
 */
export async function send(
  port: number,
  agent: http.Agent,
  request: HttpRequestConfig,
  server: Pick<ServerProcess, 'label' | 'checkAlive'>,
): Promise<{ resent: boolean }> {
  try {
    await sendOnce(port, agent, request, server);
    return { resent: false };
  } catch (error) {
    if (!(error instanceof ClosedIdle)) throw error;
    await sendOnce(port, agent, request, server, false);
    return { resent: true };
  }
}

/** A request that failed on a reused connection before any answer came: the server had closed it. */
class ClosedIdle extends Error {}

function sendOnce(
  port: number,
  agent: http.Agent,
  request: HttpRequestConfig,
  server: Pick<ServerProcess, 'label' | 'checkAlive'>,
  mayRetry = true,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const label = `${request.method} ${formatPath(request.path)}`;
    const outgoing = http.request(
      { host: '127.0.0.1', port, method: request.method, path: request.path, headers: request.headers, agent },
      (response) => {
        response.resume();
        response.on('error', reject);
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (expectsStatus(request.status, status)) resolve();
          else reject(new Error(`${server.label} answered ${label} with ${status} (expected ${describeExpected(request.status)})`));
        });
      },
    );
    // Set on the request itself: a reused connection keeps the idle timeout countingAgent's keep-alive gave it (a second
    // less than the server's hint) through the next request otherwise, a `timeout` option equal to the agent's included.
    outgoing.setTimeout(REQUEST_TIMEOUT_MS, () =>
      outgoing.destroy(new Error(`${server.label} did not answer ${label} within ${REQUEST_TIMEOUT_MS / 1000}s`)),
    );
    let answered = false;
    outgoing.on('response', () => (answered = true));
    outgoing.on('error', (error) => {
      try {
        server.checkAlive(`answering ${label}`);
        const code = (error as NodeJS.ErrnoException).code;
        if (mayRetry && outgoing.reusedSocket && !answered && (code === 'ECONNRESET' || code === 'EPIPE'))
          reject(new ClosedIdle(error.message));
        else reject(error);
      } catch (crashed) {
        reject(crashed instanceof Error ? crashed : new Error(String(crashed)));
      }
    });
    outgoing.end(request.body);
  });
}

export interface ServerCountsPlan {
  base: Revision;
  head: Revision;
  benchmarks: readonly HttpBenchmarkConfig[];
  seeds: readonly number[];
  valgrind: string;
  probePath: string;
  socketDir: string;
  figure?: CountedFigure | undefined;
  /** Servers at once (default: the machine's cores): counts do not move with neighbours. */
  parallel?: number | undefined;
  /** No server starts after this (the run's time limit): a seed left uncounted at a revision is dropped at both. */
  deadline?: number | undefined;
  now?: () => number;
  log: (line: string) => void;
  /** Counts one revision under one seed (default: countServer); tests pass a fake. */
  count?: (plan: ServerCountPlan) => Promise<ServerFigures>;
}

export interface CountedServer {
  benchmark: HttpBenchmarkConfig;
  /** Per revision, a figure per seed counted at both, in seed order; undefined with an error. */
  base: SideCounts | undefined;
  head: SideCounts | undefined;
  /** The seeds both revisions were counted under. */
  seeds: number[];
  error?: string;
  /** The time limit started no seed of it at both revisions (its error says so). */
  unstarted?: boolean;
  processes: number;
}

/** What a server's time went to, as its log line says it (ServerFigures). */
function phases(ms: ServerFigures['phasesMs']): string {
  if (!ms) return '';
  return ` (its start ${formatDuration(ms.start)}, the uncounted requests ${formatDuration(ms.uncounted)}, the blocks ${formatDuration(ms.blocks)})`;
}

/** The requests a server's count sent again (send), for its log line: each may have been served twice. */
function resends(count: number | undefined): string {
  if (!count) return '';
  return (
    `; ${count} request(s) sent again on a new connection, the server having closed a kept-alive one under them ` +
    "(a block may hold one request's work more)"
  );
}

/** Every counted load test, each revision under each seed in a server of its own, side by side. */
export async function countServers(plan: ServerCountsPlan): Promise<CountedServer[]> {
  const now = plan.now ?? Date.now;
  const count = plan.count ?? countServer;
  // A start command that cannot be counted at a revision (one that does not start node itself) fails its load test
  // before any server starts, and no job of it is made: the others are counted.
  const refused = new Map<HttpBenchmarkConfig, string>();
  for (const benchmark of plan.benchmarks)
    for (const revision of [plan.base, plan.head])
      try {
        if (!refused.has(benchmark)) callgrindCommand(benchmark, plan.valgrind, 'check', 1, plan.figure, revision.root);
      } catch (error) {
        refused.set(benchmark, messageOf(error));
      }
  const jobs = plan.benchmarks
    .filter((benchmark) => !refused.has(benchmark))
    .flatMap((benchmark) => plan.seeds.flatMap((seed) => [plan.base, plan.head].map((revision) => ({ benchmark, seed, revision }))));
  const results = new Map<(typeof jobs)[number], ServerFigures | Error | 'skipped'>();
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      const job = jobs[index]!;
      // A load test that failed already is not started again under other seeds.
      const failedBefore = jobs.slice(0, index).some((j) => j.benchmark === job.benchmark && results.get(j) instanceof Error);
      if (failedBefore || (plan.deadline !== undefined && now() > plan.deadline)) {
        results.set(job, 'skipped');
        continue;
      }
      plan.log(`counts: ${job.benchmark.id}, ${job.revision.label} under seed ${job.seed} (a server under callgrind)`);
      const dumpPrefix = path.join(plan.socketDir, `callgrind-server.${index}`);
      try {
        const started = now();
        const figures = await count({ ...plan, benchmark: job.benchmark, revision: job.revision, seed: job.seed, dumpPrefix });
        results.set(job, figures);
        // What the server's time went to: a warm-up of many blocks is what makes a counted load test long.
        plan.log(
          `counts: ${job.benchmark.id}, ${job.revision.label} under seed ${job.seed}: ${Math.round(figures.instructions)} instructions ` +
            `a request, after ${(prewarmCycles(job.benchmark) * job.benchmark.requests.length).toLocaleString('en-US')} requests ` +
            `uncounted and ${figures.warmupBlocks} warm-up block(s) of ${figures.batch} cycle(s) of requests` +
            `${figures.collectionBlocks ? `, ${figures.collectionBlocks} measured block(s) of a collection's work left out` : ''}` +
            `${figures.steady ? '' : ' (no steady state)'}, in ${formatDuration(now() - started)}${phases(figures.phasesMs)}${resends(figures.resent)}`,
        );
      } catch (error) {
        results.set(job, error instanceof Error ? error : new Error(String(error)));
        // Said when it happens, as a figure is: the row keeps the message, the log the server and seed it came from.
        plan.log(`counts: ${job.benchmark.id}, ${job.revision.label} under seed ${job.seed} failed: ${messageOf(error).split('\n')[0]}`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.parallel ?? os.availableParallelism(), jobs.length)) }, worker));
  return plan.benchmarks.map((benchmark) => {
    const refusal = refused.get(benchmark);
    if (refusal !== undefined) return { benchmark, base: undefined, head: undefined, seeds: [], error: refusal, processes: 0 };
    const own = jobs.filter((job) => job.benchmark === benchmark);
    const processes = own.filter((job) => results.get(job) !== 'skipped').length;
    const failure = own.map((job) => results.get(job)).find((r): r is Error => r instanceof Error);
    if (failure) return { benchmark, base: undefined, head: undefined, seeds: [], error: messageOf(failure), processes };
    const counted = (seed: number, revision: Revision) => results.get(own.find((j) => j.seed === seed && j.revision === revision)!);
    // Paired by seed: a seed the time limit left uncounted at either revision is left out at both.
    const seeds = plan.seeds.filter((seed) => counted(seed, plan.base) !== 'skipped' && counted(seed, plan.head) !== 'skipped');
    const side = (revision: Revision): SideCounts => {
      const figures = seeds.map((seed) => counted(seed, revision) as CountFigures);
      return { instructions: figures.map((f) => f.instructions), unsteady: seeds.filter((_, i) => !figures[i]!.steady) };
    };
    if (!seeds.length)
      return {
        benchmark,
        base: undefined,
        head: undefined,
        seeds,
        processes,
        error: 'the time limit started no seed at both revisions',
        unstarted: true,
      };
    return { benchmark, base: side(plan.base), head: side(plan.head), seeds, processes };
  });
}
