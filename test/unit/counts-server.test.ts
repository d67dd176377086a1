// A load test counted under callgrind (measure/counts/server.ts): the command that wraps its node, and how the seeds of
// each revision's servers pair, where callgrind is not what answers.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { callgrindArgs } from '../../src/measure/counts/callgrind.js';
import {
  callgrindCommand,
  countingAgent,
  countServer,
  countServers,
  PREWARM_REQUESTS,
  prewarmCycles,
  send,
  type CountedServer,
  type ServerCountPlan,
} from '../../src/measure/counts/server.js';
import { readDump, type CountFigures } from '../../src/measure/counts/task.js';
import type { Config, ExpectedStatus } from '../../src/config/types.js';
import { serverRow } from '../../src/gate/counts.js';
import { formatResolvable, resolvesLegend } from '../../src/report/format.js';
import type { ReportBenchmark } from '../../src/report/model.js';
import { fakeLoadTest, fakeRevision } from '../fakes.js';

const where = 'benchgate.yml: http[0] (todos)';

describe('callgrindCommand', () => {
  it("runs the command's own node under valgrind, with V8's predictable flags before the user's", () => {
    const command = callgrindCommand({ start: 'node server.js', where }, 'valgrind', '/tmp/run/cg', 2);
    expect(command).toMatch(
      /^(?:setarch \S+ -R )?valgrind --tool=callgrind .*--callgrind-out-file=\/tmp\/run\/cg .*--dump-before=uv_os_getpriority /,
    );
    expect(command).toMatch(/ node --predictable --predictable-gc-schedule --hash-seed=2 --random-seed=2 --no-memory-reducer server\.js$/);
  });

  it('keeps variables set before node and the flags after it, and quotes a word with a space', () => {
    const command = callgrindCommand(
      { start: 'NODE_ENV=production node --max-old-space-size=100 dist/index.js', where },
      '/usr/bin/valgrind',
      '/tmp/my run/cg',
      1,
    );
    expect(command).toMatch(/^NODE_ENV=production (?:setarch \S+ -R )?\/usr\/bin\/valgrind --tool=callgrind /);
    expect(command).toContain(" '--callgrind-out-file=/tmp/my run/cg' ");
    expect(command).toMatch(/ node --predictable .*--no-memory-reducer --max-old-space-size=100 dist\/index\.js$/);
    expect(callgrindCommand({ start: './bin/node app.js', where }, 'valgrind', '/t/cg', 1)).toMatch(
      / \.\/bin\/node --predictable .* app\.js$/,
    );
  });

  it("reads npm start and npm run <script> from the revision's package.json, counted where the script starts node", () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'benchgate-npm-start-'));
    try {
      writeFileSync(
        path.join(root, 'package.json'),
        JSON.stringify({
          scripts: { start: 'NODE_ENV=production node app.js --port $PORT', dev: 'nodemon app.js', both: 'node a.js & node b.js' },
        }),
      );
      expect(callgrindCommand({ start: 'npm start', where }, 'valgrind', '/t/cg', 1, 'instructions', root)).toMatch(
        /^NODE_ENV=production (?:setarch \S+ -R )?valgrind --tool=callgrind .* node --predictable .*--no-memory-reducer app\.js --port \$PORT$/,
      );
      for (const start of ['npm run dev', 'npm run both', 'npm run missing'])
        expect(() => callgrindCommand({ start, where }, 'valgrind', '/t/cg', 1, 'instructions', root), start).toThrow(
          /\.start: measure: counts runs the server under callgrind, and 'npm run \w+' (\(the script '.*'\) )?does not start node itself/,
        );
      // npm's own default where package.json has no start script: node server.js.
      writeFileSync(path.join(root, 'package.json'), '{}');
      writeFileSync(path.join(root, 'server.js'), '');
      expect(callgrindCommand({ start: 'npm start', where }, 'valgrind', '/t/cg', 1, 'instructions', root)).toMatch(
        / node --predictable .* server\.js$/,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('keeps a quoted script\'s semicolons, pipes and parentheses, which end no command (node -e "…; …")', () => {
    const start = `node -e "const f = require('./fastify')(); f.get('/', (q, r) => r.send('ok')); f.listen({ port: +process.env.PORT })" 2>&1`;
    expect(callgrindCommand({ start, where }, 'valgrind', '/t/cg', 1)).toMatch(
      / node --predictable .*--no-memory-reducer -e "const f = require\('\.\/fastify'\)\(\); f\.get\('\/', .* f\.listen\(\{ port: \+process\.env\.PORT \}\)" 2>&1$/,
    );
    expect(callgrindCommand({ start: "node -e 'a|b; c'", where }, 'valgrind', '/t/cg', 1)).toMatch(/ -e 'a\|b; c'$/);
  });

  it('refuses a command that does not start node itself, naming the field', () => {
    for (const start of [
      'npm start',
      'sh -c "node server.js"',
      'taskset -c 1 node server.js',
      'nodemon server.js',
      // Words after node's would reach the second program: an operator outside the quotes ends node's command.
      'node a.js; node b.js',
      'node "a.js" && echo up',
      'node -e "x" | tee log',
      'node server.js &',
      'node -e "unclosed',
      'node server.js `echo --inspect`',
    ])
      expect(() => callgrindCommand({ start, where }, 'valgrind', '/t/cg', 1), start).toThrow(
        /benchgate\.yml: http\[0\] \(todos\)\.start: measure: counts runs the server under callgrind, .* does not start node itself/,
      );
  });
});

const steady = (instructions: number): CountFigures => ({
  instructions,
  floor: instructions,
  window: instructions,
  collectionBlocks: 0,
  calls: 1792,
  batch: 256,
  warmupBlocks: 10,
  steady: true,
});

const plan = {
  base: fakeRevision('base'),
  head: fakeRevision('head'),
  seeds: [1, 2, 3],
  valgrind: 'valgrind',
  probePath: '/nowhere/probe.cjs',
  socketDir: '/nowhere',
  log: () => undefined,
};

describe('countServers', () => {
  it("pairs each revision's figures by seed, in seed order, a server per revision and seed", async () => {
    const started: string[] = [];
    const lines: string[] = [];
    let clock = 0;
    const [counted] = await countServers({
      ...plan,
      log: (line) => lines.push(line),
      // A clock of its own, read as a server starts and as it ends: each server takes 65 s of it.
      now: () => (clock += 65_000),
      benchmarks: [fakeLoadTest('todos', { measure: 'counts' })],
      parallel: 1,
      count: async (job: ServerCountPlan) => {
        started.push(`${job.revision.label}:${job.seed}`);
        const figures = { ...steady((job.revision.label === 'base' ? 100 : 120) + job.seed), steady: job.seed !== 2 };
        // Seed 3's servers say what their time went to (a real server does), head's under seed 1 that it sent 2
        // requests again (send); the others neither.
        if (job.seed === 1 && job.revision.label === 'head') return { ...figures, resent: 2 };
        return job.seed === 3 ? { ...figures, phasesMs: { start: 7_400, uncounted: 8_800, blocks: 48_800 } } : figures;
      },
    });
    expect(started).toEqual(['base:1', 'head:1', 'base:2', 'head:2', 'base:3', 'head:3']);
    expect(counted).toMatchObject({
      seeds: [1, 2, 3],
      base: { instructions: [101, 102, 103], unsteady: [2] },
      head: { instructions: [121, 122, 123], unsteady: [2] },
      processes: 6,
    });
    expect(counted!.error).toBeUndefined();
    // Each server's figure and what its time went to, as it ends.
    expect(lines).toContain(
      'counts: http > todos, head under seed 2: 122 instructions a request, after 4,096 requests uncounted and 10 warm-up block(s) of 256 cycle(s) of requests (no steady state), in 1m05s',
    );
    expect(lines).toContain(
      'counts: http > todos, base under seed 3: 103 instructions a request, after 4,096 requests uncounted and 10 warm-up block(s) ' +
        'of 256 cycle(s) of requests, in 1m05s (its start 7.4s, the uncounted requests 8.8s, the blocks 49s)',
    );
    expect(lines.find((line) => line.includes('head under seed 1:'))).toMatch(
      /, in 1m05s; 2 request\(s\) sent again on a new connection, the server having closed a kept-alive one under them/,
    );
    expect(lines.filter((line) => line.includes('sent again'))).toHaveLength(1);
  });

  it('leaves a seed the time limit did not start at one revision out at both', async () => {
    let clock = 0;
    const [counted] = await countServers({
      ...plan,
      benchmarks: [fakeLoadTest('todos', { measure: 'counts' })],
      parallel: 1,
      now: () => clock,
      deadline: 4,
      count: async (job: ServerCountPlan) => {
        clock += 1;
        return steady(job.revision.label === 'base' ? 100 : 120);
      },
    });
    // Five servers started by the deadline: base and head under seeds 1 and 2, base under seed 3.
    expect(counted).toMatchObject({ seeds: [1, 2], base: { instructions: [100, 100] }, head: { instructions: [120, 120] }, processes: 5 });
  });

  it('fails a load test whose start command cannot be counted before any server starts, and counts the others', async () => {
    const started: string[] = [];
    const [shell, fine] = await countServers({
      ...plan,
      benchmarks: [
        fakeLoadTest('shell', { measure: 'counts', start: 'node a.js && node b.js' }),
        fakeLoadTest('fine', { measure: 'counts' }),
      ],
      parallel: 1,
      count: async (job: ServerCountPlan) => {
        started.push(`${job.benchmark.name}:${job.revision.label}:${job.seed}`);
        return steady(100);
      },
    });
    expect(shell).toMatchObject({ base: undefined, head: undefined, seeds: [], processes: 0 });
    expect(shell!.error).toMatch(
      /\.start: measure: counts runs the server under callgrind, and 'node a\.js && node b\.js' does not start node itself/,
    );
    expect(started.filter((s) => s.startsWith('shell'))).toEqual([]);
    expect(fine).toMatchObject({ seeds: [1, 2, 3], processes: 6 });
  });

  it('fails a load test whose server failed under any seed, with its message, and starts it under no further seed', async () => {
    const started: string[] = [];
    const lines: string[] = [];
    const [broken, fine] = await countServers({
      ...plan,
      benchmarks: [fakeLoadTest('broken', { measure: 'counts' }), fakeLoadTest('fine', { measure: 'counts' })],
      parallel: 1,
      log: (line) => lines.push(line),
      count: async (job: ServerCountPlan) => {
        started.push(`${job.benchmark.name}:${job.revision.label}:${job.seed}`);
        if (job.benchmark.name === 'broken' && job.revision.label === 'head')
          throw new Error('head answered GET /todos with 500 (expected 2xx)');
        return steady(100);
      },
    });
    expect(broken).toMatchObject({ error: 'head answered GET /todos with 500 (expected 2xx)', base: undefined, head: undefined });
    expect(started.filter((s) => s.startsWith('broken'))).toEqual(['broken:base:1', 'broken:head:1']);
    // Said in the log when it happens, with the server and seed (a CI run's log once showed a server start and no end).
    expect(lines).toContain('counts: http > broken, head under seed 1 failed: head answered GET /todos with 500 (expected 2xx)');
    expect(fine).toMatchObject({ seeds: [1, 2, 3], processes: 6 });
  });
});

describe('countServer with a valgrind that is not one', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'benchgate-count-server-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  // Drops its own options and runs node plainly: the probe's marks then make no dump.
  const fake = path.join(root, 'fake-valgrind');
  writeFileSync(fake, '#!/bin/sh\nwhile [ "${1#--}" != "$1" ]; do shift; done\nexec "$@"\n');
  chmodSync(fake, 0o755);
  writeFileSync(
    path.join(root, 'server.js'),
    "require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), process.env.HOST);\n",
  );
  const probePath = fileURLToPath(new URL('../../dist/probe.cjs', import.meta.url));

  /**
   * A valgrind that runs node plainly with `os.getPriority` (the marker) replaced by `marker`'s source, which finds
   * the dumps' prefix callgrind was given in FAKE_DUMP_PREFIX.
   */
  const fakeMarkingValgrind = (name: string, marker: string) => {
    const module = path.join(root, `${name}.cjs`);
    writeFileSync(module, marker);
    const valgrind = path.join(root, `fake-valgrind-${name}`);
    writeFileSync(
      valgrind,
      '#!/bin/sh\nfor a in "$@"; do case "$a" in --callgrind-out-file=*) FAKE_DUMP_PREFIX="${a#*=}";; esac; done\n' +
        `export FAKE_DUMP_PREFIX; export NODE_OPTIONS="$NODE_OPTIONS --require ${module}"\n` +
        'while [ "${1#--}" != "$1" ]; do shift; done\nexec "$@"\n',
    );
    chmodSync(valgrind, 0o755);
    return valgrind;
  };

  /** A countServer job of one request answered `status`, run through `valgrind` (default: the fake above). */
  const job = (over: { status?: ExpectedStatus[]; valgrind?: string; limitMs?: number; start?: string } = {}) => ({
    ...plan,
    benchmark: fakeLoadTest('todos', {
      measure: 'counts',
      ...(over.start === undefined ? {} : { start: over.start }),
      ready: undefined,
      requests: [{ method: 'GET', path: '/', headers: {}, body: undefined, status: over.status ?? ['2xx'] }],
    }),
    revision: { ...fakeRevision('base'), root },
    seed: 1,
    valgrind: over.valgrind ?? fake,
    probePath,
    socketDir: root,
    dumpPrefix: path.join(root, 'cg'),
    ...(over.limitMs === undefined ? {} : { limitMs: over.limitMs }),
  });

  it('fails with the marker that made no dump, and stops its server', async () => {
    await expect(countServer(job())).rejects.toThrow(/callgrind wrote no dump at the marker/);
  });

  it("starts the counted server with libuv's pool of one thread (COUNTED_ENV), over benchgate's environment", async () => {
    const seen = path.join(root, 'pool-seen');
    const recording = path.join(root, 'fake-valgrind-pool');
    writeFileSync(recording, `#!/bin/sh\necho "pool=$UV_THREADPOOL_SIZE" >> ${seen}\nexec ${fake} "$@"\n`);
    chmodSync(recording, 0o755);
    const before = process.env.UV_THREADPOOL_SIZE;
    process.env.UV_THREADPOOL_SIZE = '4';
    try {
      await expect(countServer(job({ valgrind: recording }))).rejects.toThrow(/callgrind wrote no dump at the marker/);
    } finally {
      if (before === undefined) delete process.env.UV_THREADPOOL_SIZE;
      else process.env.UV_THREADPOOL_SIZE = before;
    }
    const pools = readFileSync(seen, 'utf8').trim().split('\n');
    expect(pools.length).toBeGreaterThan(0);
    expect(new Set(pools)).toEqual(new Set(['pool=1']));
    // The load test's own setting before its node still wins (and the server starts: `exec` comes after it).
    rmSync(seen);
    await expect(countServer(job({ valgrind: recording, start: 'UV_THREADPOOL_SIZE=3 node server.js' }))).rejects.toThrow(
      /callgrind wrote no dump at the marker/,
    );
    expect(new Set(readFileSync(seen, 'utf8').trim().split('\n'))).toEqual(new Set(['pool=3']));
  });

  it('stops counting a server at its time bound, with an error that says so, and stops its server', async () => {
    await expect(countServer(job({ limitMs: 0 }))).rejects.toThrow(
      /was not counted within 0ms under callgrind .*measure this load test in time/,
    );
  });

  it('fails a server that answers a status its request does not expect, naming the request', async () => {
    await expect(countServer(job({ status: [404] }))).rejects.toThrow(/answered GET \/ with 200 \(expected 404\)/);
  });

  it("warms up uncounted in whole cycles of the load test's requests: at least PREWARM_REQUESTS, less than a cycle more", () => {
    const request = { method: 'GET' as const, path: '/', headers: {}, body: undefined, status: ['2xx'] as ExpectedStatus[] };
    expect(prewarmCycles(fakeLoadTest('one', { requests: [request] }))).toBe(PREWARM_REQUESTS);
    // 4,096 requests in cycles of 3: 1,366 cycles (4,098 requests), not 1,365 (4,095).
    expect(prewarmCycles(fakeLoadTest('three', { requests: [request, request, request] }))).toBe(1366);
  });

  it('sends its first PREWARM_REQUESTS requests before the first mark (uncounted, the instrumentation off where started late)', async () => {
    // The server counts what it served; the fake callgrind's first mark writes that count beside its dumps.
    const counting = path.join(root, 'counting-server.js');
    writeFileSync(
      counting,
      'let served = 0; globalThis.servedSoFar = () => served;\n' +
        "require('node:http').createServer((q, s) => { served++; s.end('ok'); }).listen(Number(process.env.PORT), process.env.HOST);\n",
    );
    const marking = fakeMarkingValgrind(
      'first-mark',
      "const fs = require('node:fs'); const os = require('node:os'); let marked = false;\n" +
        'os.getPriority = () => {\n' +
        '  if (!marked) fs.writeFileSync(`${process.env.FAKE_DUMP_PREFIX}.served`, String(globalThis.servedSoFar()));\n' +
        '  marked = true; return 0;\n' +
        '};\n',
    );
    await expect(countServer(job({ valgrind: marking, start: `node ${counting}` }))).rejects.toThrow(/callgrind wrote no dump/);
    expect(Number(readFileSync(path.join(root, 'cg.served'), 'utf8'))).toBe(PREWARM_REQUESTS);
  });

  it('fails a server whose requests cost nothing beyond the marker (served by a process callgrind does not follow), never a zero', async () => {
    // Each mark writes a dump of 30M instructions and a few more each time (a block's later than the empty ones, but
    // far under one instruction a request), whatever the block sent: what callgrind reads where another process (a cluster worker) serves the requests. The marks are
    // counted in a file of their own.
    const dumping = fakeMarkingValgrind(
      'dumps',
      "const fs = require('node:fs'); const os = require('node:os'); let n = 0;\n" +
        'os.getPriority = () => {\n' +
        '  const prefix = process.env.FAKE_DUMP_PREFIX; n++;\n' +
        '  fs.writeFileSync(`${prefix}.${n}`, `version: 1\\nevents: Ir\\ntotals: ${30000000 + n}\\n`);\n' +
        '  fs.writeFileSync(`${prefix}.marks`, String(n)); return 0;\n' +
        '};\n',
    );
    await expect(countServer(job({ valgrind: dumping }))).rejects.toThrow(
      /counted no instructions a request beyond an empty block: its requests are served by another process/,
    );
    // Said once the largest block showed it: the empty blocks (a mark and 3), then two blocks at 256 and at 8,192
    // requests (a mark and 2 each): 10 marks, where a warm-up and 16 measured blocks would add 25 or more.
    expect(Number(readFileSync(path.join(root, 'cg.marks'), 'utf8'))).toBe(10);
  });
});

describe('readDump (micro.count: instructions or cycles)', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'benchgate-dump-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const dump = (name: string, text: string) => {
    const file = path.join(root, name);
    writeFileSync(file, text);
    return file;
  };
  const cacheDump =
    'version: 1\ncreator: callgrind-3.19.0\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\nfn=(1) x\n0 5 1 1\ntotals: 1000 400 200 3 20 7 1 2 4\n';

  it('reads the instructions of a plain dump and of one with the cache model, wherever Ir stands', () => {
    expect(readDump(dump('a.1', 'events: Ir\nsummary: 12345\ntotals: 12345\n'))).toBe(12345);
    expect(readDump(dump('b.1', cacheDump))).toBe(1000);
    expect(readDump(dump('c.1', 'events: Dr Ir\ntotals: 7 99\n'))).toBe(99);
  });

  it("estimates cycles with KCachegrind's weights: Ir + 10 x first-level misses + 100 x last-level misses", () => {
    // 1000 + 10 x (3 + 20 + 7) + 100 x (1 + 2 + 4): reads and writes of data (Dr, Dw) weigh nothing of their own.
    expect(readDump(dump('d.1', cacheDump), 'cycles')).toBe(1000 + 300 + 700);
  });

  it('refuses cycles from a dump without the cache model, and removes each dump it read', () => {
    const file = dump('e.1', 'events: Ir\ntotals: 500\n');
    expect(() => readDump(file, 'cycles')).toThrow(/has no cache events \(events: Ir\): cycles need --cache-sim=yes/);
    expect(() => readDump(path.join(root, 'b.1'))).toThrow(/callgrind wrote no dump at the marker/);
  });

  it('runs the cache model only where cycles are counted', () => {
    expect(callgrindArgs('/t/cg', 1, 'node', 'cycles')).toContain('--cache-sim=yes');
    expect(callgrindArgs('/t/cg', 1, 'node')).not.toContain('--cache-sim=yes');
    expect(callgrindCommand({ start: 'node server.js', where }, 'valgrind', '/t/cg', 1, 'cycles')).toContain(' --cache-sim=yes ');
  });
});

describe('serverRow (the counted load tests in the report)', () => {
  /** Each load test judged at one look of every planned seed, as the stage's last look does. */
  const serverRows = (
    counted: CountedServer[],
    seeds: number[],
    config: Parameters<typeof serverRow>[2],
    level: number,
    log: (line: string) => void,
  ) => counted.map((c) => serverRow(c, seeds, config, level, log));
  const config = {
    budget: 0.05,
    budgets: [],
    timeLimitMs: 300_000,
    micro: { count: 'instructions' as const } as Config['micro'],
  };
  const side = (instructions: number[]) => ({ instructions, unsteady: [] });

  it('judges each in instructions per request as an http row, and says where the time limit left a seed unstarted', () => {
    const lines: string[] = [];
    const [short, whole, broken] = serverRows(
      [
        { benchmark: fakeLoadTest('short'), base: side([100, 101]), head: side([150, 152]), seeds: [1, 2], processes: 5 },
        { benchmark: fakeLoadTest('whole'), base: side([100, 101, 99]), head: side([100, 101, 99]), seeds: [1, 2, 3], processes: 6 },
        {
          benchmark: fakeLoadTest('broken', { budget: 0.03 }),
          base: undefined,
          head: undefined,
          seeds: [],
          error: 'head crashed',
          processes: 2,
        },
      ],
      [1, 2, 3],
      config,
      0.9,
      (line) => lines.push(line),
    );
    expect(short).toMatchObject({ id: 'http > short', kind: 'http', file: null, verdict: 'regression', counts: { seeds: [1, 2] } });
    expect(short!.note).toBe(
      'seed(s) 3 not started within the time limit (5m): judged on seed(s) 1, 2, a wider interval; raise time-limit or lower micro.seeds',
    );
    expect(whole).toMatchObject({ verdict: 'unchanged', kind: 'http' });
    expect(whole!.note).toBeUndefined();
    // The budget it was to be judged at, in its column, not 0%.
    expect(broken).toMatchObject({ verdict: 'error', error: 'head crashed', kind: 'http', budget: 0.03 });
    expect(lines).toEqual([`warning: counts: http > short: ${short!.note}`]);
  });

  it('fails a row the time limit left open, unmeasured, never an inconclusive pass: a seed counted alone says nothing', () => {
    const [alone, decided] = serverRows(
      [
        // A regression under the one seed that fit: no interval from one process.
        { benchmark: fakeLoadTest('alone'), base: side([100]), head: side([250]), seeds: [1], processes: 3 },
        { benchmark: fakeLoadTest('decided'), base: side([100, 101]), head: side([150, 152]), seeds: [1, 2], processes: 5 },
      ],
      [1, 2, 3],
      config,
      0.9,
      () => undefined,
    );
    expect(alone).toMatchObject({ verdict: 'unmeasured', beyondBudget: 'open' });
    expect(alone!.note).toContain('unmeasured: the seeds counted leave it open, and seed(s) 2, 3 did not fit in the time limit');
    // Seeds the limit cut that still decide it keep their verdict.
    expect(decided).toMatchObject({ verdict: 'regression' });
  });

  it("says why a row is undecided when its seeds counted the same code differently, each seed's count as a cell prints it", () => {
    const rows = serverRows(
      [
        // hyperid's `max int` in an A/A on Node 24: 423.4 under five processes, 287.0 under one.
        {
          benchmark: fakeLoadTest('levels'),
          base: side([423.4, 423.4, 423.4]),
          head: side([287, 423.4, 423.4]),
          seeds: [1, 2, 3],
          processes: 6,
        },
        // Seeds that agree (0.05%) beside a change at the budget: undecided, and not because the seeds differ.
        {
          benchmark: fakeLoadTest('at budget'),
          base: side([1e6, 1.0005e6, 0.9995e6]),
          head: side([1.053e6, 1.0525e6, 1.0535e6]),
          seeds: [1, 2, 3],
          processes: 6,
        },
        // One seed at a revision: no interval at all, whatever the counts (and the time limit cut the others: unmeasured).
        { benchmark: fakeLoadTest('one seed'), base: side([423.4]), head: side([287, 423.4]), seeds: [1], processes: 3 },
        // A spread that decides the row is no reason to explain it.
        {
          benchmark: fakeLoadTest('exact'),
          base: side([5000, 5000.2, 4999.9]),
          head: side([5000.1, 4999.8, 5000]),
          seeds: [1, 2, 3],
          processes: 6,
        },
      ],
      [1, 2, 3],
      config,
      0.9,
      () => undefined,
    );
    const [levels, atBudget, oneSeed, exact] = rows;
    expect(rows.map((row) => row.verdict)).toEqual(['inconclusive', 'inconclusive', 'unmeasured', 'unchanged']);
    expect(levels!.note).toBe(
      'its seeds counted it differently, up to 48% apart at a revision (instr a request: base 423, 423, 423; head 287, 423, 423 ' +
        'under seeds 1, 2, 3): the code runs on more than one level from process to process, or its work follows the seed or the ' +
        'clock; more seeds (micro.seeds) narrow the interval around both; budget 5% is below what this run resolves beyond ' +
        'it (≈113% with 3 seeds): a regression between 5% and 118% would likely pass unnoticed. Raise the budget or the ' +
        'seeds (micro.seeds)',
    );
    // What each row resolves is what its seeds' interval shows (no rounds to size it from): a loss its half-width beyond
    // the budget clears it half the time, 95% power twice that at a one-sided 5%; an exact count resolves any change.
    const half = (row: ReportBenchmark) => (Math.log1p(row.change!.high) - Math.log1p(row.change!.low)) / 2;
    expect(levels!.resolvable).toBeCloseTo(Math.expm1(2 * half(levels!)), 12);
    expect(levels!.resolvable).toBeGreaterThan(1);
    expect(atBudget!.resolvable).toBeCloseTo(Math.expm1(2 * half(atBudget!)), 12);
    expect(atBudget!.resolvable).toBeLessThan(0.05);
    expect(exact!.resolvable).toBeCloseTo(Math.expm1(2 * half(exact!)), 12);
    expect(oneSeed!.resolvable).toBeNull();
    expect(formatResolvable(levels!)).toBe('≈113%');
    // The legend says where a counted row's figure comes from.
    expect(resolvesLegend(rows)).toContain("this run's seeds catch");
    expect(resolvesLegend([...rows, { ...levels!, counts: undefined }])).toContain("this run's rounds (a counted row's: its seeds) catch");
    expect(atBudget!.change!.high - atBudget!.change!.low).toBeLessThan(0.05);
    expect(atBudget!.note).toBeUndefined();
    expect(oneSeed!.note).not.toContain('counted it differently');
    expect(exact!.note).toBeUndefined();
    // The cells agree with the change: head's is base's moved by it (calls per instruction: base / head - 1).
    for (const row of [levels!, atBudget!, exact!]) {
      const { base, head } = row.counts!;
      expect(base!.instructions / head!.instructions - 1).toBeCloseTo(row.change!.estimate, 10);
    }
  });
});

describe('send (one request of a counted load test)', () => {
  /** A server on 127.0.0.1 answering with `handler`, its port, and what closes it and the agents given. */
  async function serving(handler: http.RequestListener, keepAliveTimeoutMs?: number) {
    const server = http.createServer(handler);
    if (keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = keepAliveTimeoutMs;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const close = (...agents: http.Agent[]) => {
      for (const agent of agents) agent.destroy();
      server.closeAllConnections();
      server.close();
    };
    return { port: (server.address() as AddressInfo).port, close };
  }
  /** A server that resets a kept-alive connection at its `resetAt`-th request, as a keep-alive close crossing it. */
  async function resetting(resetAt: number) {
    const seen: number[] = [];
    const sockets = new WeakMap<object, number>();
    let next = 0;
    const served = await serving((req, res) => {
      if (!sockets.has(req.socket)) sockets.set(req.socket, next++);
      const socket = sockets.get(req.socket)!;
      seen.push(socket);
      if (seen.filter((s) => s === socket).length === resetAt) req.socket.destroy();
      else res.end('ok');
    });
    return { ...served, seen };
  }
  const fake = { label: 'a fake server', checkAlive: () => undefined };
  const request = { method: 'GET', path: '/', headers: {}, status: ['2xx'] } as unknown as Parameters<typeof send>[2];

  it('sends a request again, once, on a new connection where the server reset the kept-alive one before answering', async () => {
    const { port, close, seen } = await resetting(2);
    const agent = countingAgent();
    try {
      expect(await send(port, agent, request, fake)).toEqual({ resent: false });
      // The second request on the first connection is reset unanswered (the old code failed here with ECONNRESET).
      expect(await send(port, agent, request, fake)).toEqual({ resent: true });
      expect(seen).toEqual([0, 0, 1]);
    } finally {
      close(agent);
    }
  });

  it("closes an idle kept-alive connection before the server's Keep-Alive timeout says, so no request crosses its close", async () => {
    // The server closes after 3 s idle and says `Keep-Alive: timeout=3`; the counting agent closes after 2 s by its own
    // clock. A request after 2.2 s idle goes on a new connection; a plain keep-alive agent reuses the old one.
    const { port, close } = await serving((req, res) => res.end('ok'), 3_000);
    const reused = async (agent: http.Agent) => {
      const get = () =>
        new Promise<boolean>((resolve, reject) => {
          const req = http.get({ host: '127.0.0.1', port, agent }, (res) => res.resume().on('end', () => resolve(req.reusedSocket)));
          req.on('error', reject);
        });
      await get();
      await new Promise((resolve) => setTimeout(resolve, 2_200));
      return get();
    };
    const [counting, plain] = [countingAgent(), new http.Agent({ keepAlive: true, maxSockets: 1 })];
    try {
      expect(await reused(counting)).toBe(false);
      expect(await reused(plain)).toBe(true);
    } finally {
      close(counting, plain);
    }
  });

  it("answers a request on a reused connection that takes longer than the agent's idle timeout (node keeps it otherwise)", async () => {
    // `Keep-Alive: timeout=2`: the counting agent's idle connection times out after 1 s, and node keeps that timeout on
    // the connection through its next request unless the request sets its own (nodejs/node#53458).
    let served = 0;
    const connections = new Set<object>();
    const { port, close } = await serving((req, res) => {
      served++;
      connections.add(req.socket);
      if (served === 2) setTimeout(() => res.end('late'), 1_500);
      else res.end('ok');
    }, 2_000);
    const agent = countingAgent();
    try {
      expect(await send(port, agent, request, fake)).toEqual({ resent: false });
      expect(await send(port, agent, request, fake)).toEqual({ resent: false });
      // Both on one connection: the second request was the reused connection's, whose idle timeout it outlived.
      expect([served, connections.size]).toEqual([2, 1]);
    } finally {
      close(agent);
    }
  });

  it('fails a request reset on a new connection: only a reused one may have been closed while idle', async () => {
    const { port, close, seen } = await resetting(1);
    const agent = countingAgent();
    try {
      await expect(send(port, agent, request, fake)).rejects.toMatchObject({ code: 'ECONNRESET' });
      expect(seen).toEqual([0]);
    } finally {
      close(agent);
    }
  });
});
