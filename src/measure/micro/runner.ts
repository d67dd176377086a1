/**
 * The benchmark process (bundled as dist/runner.js). It receives one MicroJob
 * over IPC, imports the bench files of each side it is given (each from its own
 * checkout, so each resolves its own source and dependencies), measures every
 * task and sends back one result.
 */
import { readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { findSourceMap } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { splitProfile, startProfiler, type CpuProfile, type RunningProfiler } from '../profiler.js';
import type { RevisionLabel } from '../../checkout/revisions.js';
import { describeThrown, LocalSide, measureTask, runTaskFor, withoutGraph, type Heartbeat, type Side, type SideTask } from './alternate.js';
import { installCapture } from './capture-setup.js';
import { inThreadHooks } from './harness/hooks.js';
import { Affinity, IsolateCrash, Isolates, keyOf, type IsolateKey } from './isolates.js';
import { changes, fingerprint } from './shared-state.js';
import { harnessCapture } from './harness/capture.js';
import { isTypeScript } from './harness/typescript-files.js';
import { loadBenchFile } from './load.js';
import { Counter, countTask, fullCollection, profileDumps, type ProfileDumps } from '../counts/task.js';
import { perfMapOf } from '../counts/callgrind.js';
import { nameCosts, PerfMap } from '../counts/functions.js';
import {
  ID_SEPARATOR,
  taskIds,
  type CountJob,
  type TaskCount,
  type FileLoad,
  type LoadJob,
  type MicroJob,
  type ProfileJob,
  type RunnerMessage,
  type SideJob,
  type TaskOutcome,
} from './protocol.js';

function send(message: RunnerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

let current = 'loading bench files';

/** Every bench file of every side, loaded in order: what each declares, and each task's versions by benchmark id. */
async function loadSides(
  sides: SideJob[],
): Promise<{ files: FileLoad[]; byId: Map<string, SideTask[]>; withWorkers: Set<string>; sharedChanged?: string }> {
  const files: FileLoad[] = [];
  const withWorkers = new Set<string>();
  let sharedChanged: string | undefined;
  const byId = new Map<string, SideTask[]>();
  const workerOf = new Map<string, string>();
  for (const side of sides) {
    for (const file of side.files) {
      current = `loading ${file} (${side.revision})`;
      const before = fingerprint();
      try {
        const { tasks, harness, harnesses, notes, workers } = await loadBenchFile(path.join(side.root, file), side.root);
        const changed = changes(before, fingerprint());
        if (changed.length)
          sharedChanged ??= `${side.revision}'s ${file} changed builtins that both revisions share in one process (${changed.join(', ')})`;
        for (const worker of workers) workerOf.set(`${side.revision}:${worker}`, file);
        if (workers.length) withWorkers.add(file);
        files.push({ revision: side.revision, file, tasks: tasks.map((task) => task.name), harness, harnesses, notes });
        const declaredInUnit = new Map<number, number>();
        for (const task of tasks) {
          const id = `${file}${ID_SEPARATOR}${task.name}`;
          const list = byId.get(id) ?? [];
          const unit = task.unit ?? 0;
          const at = declaredInUnit.get(unit) ?? 0;
          declaredInUnit.set(unit, at + 1);
          list.push({ revision: side.revision, root: side.root, fn: task.fn, opts: task.opts, unit, at });
          byId.set(id, list);
        }
      } catch (error) {
        files.push({ revision: side.revision, file, tasks: [], error: describeThrown(error, side.root) });
      }
    }
  }
  // A file that another bench file runs as a worker (benchmark/bench-thread.js) is measured through that file, not on its own.
  for (const load of files) {
    const owner = workerOf.get(`${load.revision}:${load.file}`);
    if (!owner) continue;
    for (const id of taskIds(load)) byId.delete(id);
    Object.assign(load, { tasks: [], error: undefined, harness: undefined, workerOf: owner });
  }
  return { files, byId, withWorkers, ...(sharedChanged ? { sharedChanged } : {}) };
}

async function runLoad(job: LoadJob): Promise<void> {
  const { files } = await loadSides(job.sides);
  await send({ type: 'result', files, tasks: [] });
}

async function runJob(job: MicroJob): Promise<void> {
  const { files, byId, withWorkers, sharedChanged } = await loadSides(job.sides);
  // A file that changed the builtins as it loaded changed them for every file after it, of both revisions: all go to isolates.
  const isolating = sharedChanged ? 'files' : job.isolates;
  const tasks: TaskOutcome[] = [];
  const headAlone = new Set(job.headAlone);
  const declared = [...byId]
    .filter(([id]) => !job.skip.includes(id))
    .map(([id, sides]): [string, SideTask[]] => [id, headAlone.has(id) ? sides.filter((side) => side.revision === 'head') : sides])
    .filter(([, sides]) => sides.length > 0);
  const run = job.reverse ? declared.reverse() : declared;
  const decided = new Set(job.decided);
  const fileOf = (id: string) => id.slice(0, id.indexOf(ID_SEPARATOR));
  // A decided task's warm-up keeps the neighbours of the measured tasks after it in its module graph: per
  // revision, since the revisions' graphs are their own (and a revision may declare a task elsewhere).
  const graph = (id: string, side: SideTask) => `${side.revision}:${fileOf(id)}#${side.unit ?? 0}`;
  const lastMeasured = new Map<string, number>();
  run.forEach(([id, sides], at) => {
    if (!decided.has(id)) for (const side of sides) lastMeasured.set(graph(id, side), at);
  });
  const isolated = (id: string) => isolating === 'files' || (isolating === 'workers' && withWorkers.has(fileOf(id)));
  const keyOfSide = (id: string, side: SideTask): IsolateKey => ({
    revision: side.revision,
    root: side.root,
    file: fileOf(id),
    unit: side.unit ?? 0,
  });
  // Each isolate closes after the last task that runs in it (measured, or warmed up as a neighbour).
  const lastUse = new Map<string, number>();
  run.forEach(([id, sides], at) => {
    if (!isolated(id)) return;
    const runs = !decided.has(id) || sides.some((side) => (lastMeasured.get(graph(id, side)) ?? -1) > at);
    if (runs) for (const side of sides) lastUse.set(keyOf(keyOfSide(id, side)), at);
  });
  // Tasks in isolates are measured on one CPU, isolates load on all (Affinity); the others as they always were.
  const affinity = new Affinity();
  const isolates = new Isolates(
    // As prepare() set this process up.
    process.sourceMapsEnabled,
    (error) => void fatal(`${error.message} (while running '${current}')`),
    affinity,
  );
  const measuring = (id: string, sides: Side[]) => {
    if (isolated(id)) affinity.pin();
    else affinity.release();
    return sides;
  };
  const sidesOf = (id: string, of: SideTask[]): Promise<Side[]> =>
    Promise.all(
      of.map((side) =>
        isolated(id)
          ? isolates.side(
              keyOfSide(id, side),
              side.at ?? 0,
              id.slice(fileOf(id).length + ID_SEPARATOR.length),
              Boolean(side.opts.beforeEach || side.opts.afterEach),
            )
          : Promise.resolve(new LocalSide(side)),
      ),
    );
  try {
    for (const [at, [id, sides]] of run.entries()) {
      current = id;
      if (decided.has(id)) {
        const neighbours = sides.filter((side) => (lastMeasured.get(graph(id, side)) ?? -1) > at);
        if (neighbours.length) await warmUp(id, measuring(id, await sidesOf(id, neighbours)), job, beat(id));
      } else {
        await send({ type: 'progress', id });
        const taskTimeMs = job.taskTimes?.[id];
        const settings = taskTimeMs === undefined ? job.settings : { ...job.settings, taskTimeMs };
        tasks.push(await measureTask(id, measuring(id, await sidesOf(id, sides)), settings, job.batches[id], beat(id)));
      }
      for (const side of sides)
        if (isolated(id) && lastUse.get(keyOf(keyOfSide(id, side))) === at) await isolates.release(keyOfSide(id, side));
    }
  } catch (error) {
    if (error instanceof IsolateCrash) return fatal(`${error.message} (while running '${current}')`);
    throw error;
  } finally {
    await isolates.closeAll();
  }
  const isolatedFiles = [...new Set(run.filter(([id]) => isolated(id)).map(([id]) => fileOf(id)))];
  const reason = sharedChanged && job.isolates !== 'files' ? { reason: sharedChanged } : {};
  const isolatedResult = { files: isolatedFiles, pinned: affinity.held, ...reason };
  await send({ type: 'result', files, tasks, ...(isolatedFiles.length ? { isolated: isolatedResult } : {}) });
}

/**
 * Counts mode: one revision's tasks in declared order, each warmed and counted in instructions per call
 * (measure/counts/task.ts); a task that throws is that task's error, the others go on.
 */
async function runCount(job: CountJob): Promise<void> {
  const counter = new Counter(job.dumpPrefix, job.figure);
  const { files, byId } = await loadSides(job.sides);
  if (job.late) {
    await send({ type: 'instrument' });
    // Nothing of the process runs while benchgate turns callgrind's instrumentation on: it waits in one read of the
    // pipe benchgate answers on (fd 4, its own: no bench code reads it).
    if (readSync(4, Buffer.alloc(1), 0, 1, null) !== 1) throw new Error("benchgate did not turn callgrind's instrumentation on");
  }
  // The first marker: callgrind is there and dumps at it, or nothing can be counted.
  await counter.blocks(1, () => undefined);
  const counts: TaskCount[] = [];
  const profiles = new Map<string, ProfileDumps & { mapBytes: number }>();
  for (const [id, [task]] of byId) {
    if (job.skip.includes(id) || !task) continue;
    current = id;
    await send({ type: 'progress', id });
    if ((task.unit ?? 0) !== 0) {
      counts.push({ id, error: "declared in a worker thread: counts mode counts the main thread's tasks only (use time mode for it)" });
      continue;
    }
    const side = new LocalSide(task);
    fullCollection();
    try {
      const loop = await side.countingLoop();
      // A profile reads the count's own blocks function by function: its process runs what seed 1's ran, so its count
      // is seed 1's, and its table adds up to it.
      const { dumps, ...figures } = await countTask(loop, counter, undefined, job.profile?.includes(id));
      // A call that costs no more than the empty block it is measured against (a call optimized away): no figure.
      if (!(figures.instructions > 0))
        counts.push({ id, error: `counted ${figures.instructions} instructions a call beyond an empty block: nothing measurable is left` });
      else {
        counts.push({ id, ...figures });
        // How much of the perf map V8 had written by the end of the task's blocks: its names are read from that much,
        // since code of a task that died may leave its address to a later task's code, which the map lists after it.
        if (dumps) profiles.set(id, { ...dumps, mapBytes: mapSize(perfMapOf(process.pid)) });
      }
    } catch (error) {
      counts.push({ id, error: error instanceof Error ? error.message : describeThrown(error) });
    } finally {
      await side.finish();
    }
  }
  // V8 wrote the names of the code it compiled to its perf map (callgrindArgs' `names`): read where a profile needs it,
  // removed in every case.
  const mapFile = perfMapOf(process.pid);
  // As bytes: each task reads the map up to the byte its blocks had seen.
  const mapBytes = Buffer.from(profiles.size ? readText(mapFile) : '');
  rmSync(mapFile, { force: true });
  for (const count of counts) {
    const dumps = profiles.get(count.id);
    if (!dumps) continue;
    const map = new PerfMap(mapBytes.subarray(0, dumps.mapBytes).toString());
    const named = nameCosts(profileDumps(dumps, job.figure), map, job.sides[0]!.root).sort((a, b) => b.self - a.self);
    // Names and places come from the pull request's code: bounded, as every text a message carries is (messages.ts).
    const bounded = (text: string) => (text.length > MAX_NAME ? `${text.slice(0, MAX_NAME - 1)}…` : text);
    count.functions = named.slice(0, PROFILED_FUNCTIONS).map((f) => ({
      function: bounded(f.function),
      where: bounded(f.where),
      perCall: Math.max(0, f.self),
      inclusive: Math.max(0, f.inclusive),
    }));
  }
  await send({ type: 'counted', files, counts });
}

/** The functions a counted profile sends per task (the costliest, all that cost half an instruction a call or more, as a rule). */
const PROFILED_FUNCTIONS = 2_000;
/** The longest function name or place a profile sends. */
const MAX_NAME = 500;

/** A file's size, 0 where it is not. */
function mapSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function beat(id: string): Heartbeat {
  const tick = throttled(() => void send({ type: 'progress', id }));
  return (revision?: RevisionLabel) => (revision ? void send({ type: 'progress', id, revision }) : tick());
}

/** A decided task's probe and warm-up blocks, as before its measured blocks, and nothing timed; what it says is not kept. */
async function warmUp(id: string, sides: Side[], job: MicroJob, heartbeat: Heartbeat): Promise<void> {
  await send({ type: 'progress', id });
  await measureTask(id, sides, { ...job.settings, taskTimeMs: 0, minBlocks: 0 }, job.batches[id], heartbeat);
}

/** A heartbeat per block or batch would flood the channel for fast tasks: one per 250 ms shows the process is alive. */
function throttled(beat: () => void): () => void {
  let last = 0;
  return () => {
    if (performance.now() - last < 250) return;
    last = performance.now();
    beat();
  };
}

async function runProfile(job: ProfileJob): Promise<void> {
  const file = job.sides[0]!.files[0]!;
  const id = `${file}${ID_SEPARATOR}${job.task}`;
  // Both revisions load here as a measured round loads them (each in its own module graph).
  const { files, byId } = await loadSides(job.sides);
  const failed = files.find((load) => load.error);
  if (failed) return fatal(`${failed.file} (${failed.revision}) did not load: ${failed.error}`);
  const tasks = byId.get(id) ?? [];
  for (const side of job.sides)
    if (!tasks.some((task) => task.revision === side.revision))
      throw new Error(`${file} (${side.revision}) no longer declares the task '${job.task}'`);
  current = id;
  let profiler: RunningProfiler | undefined;
  const outcome = await runTaskFor(
    tasks,
    job.durationMs,
    {
      open: async () => void (profiler = await startProfiler(job.intervalUs)),
      close: async ({ spans }) => {
        const whole = atSourceFiles(await profiler!.stop());
        for (const [revision, part] of splitProfile(whole, spans)) writeFileSync(job.outFiles[revision]!, JSON.stringify(part));
      },
    },
    throttled(() => void send({ type: 'progress', id: current })),
  );
  if ('error' in outcome) return fatal(outcome.error);
  await send({ type: 'profiled', calls: outcome.calls });
}

/**
 * Each frame at its source file: its URL without the module graph's number (harness/graphs.ts,
 * inNewGraph), and, in a TypeScript file that needed more than type stripping (it ran as
 * transformed code, so its frames' positions are the transform's), at its .ts line and column:
 * Node holds the inline source map of each such module (source maps are on for TypeScript jobs, see
 * prepare). Stripped files need nothing: their positions are the .ts file's own.
 */
function atSourceFiles(profile: CpuProfile): CpuProfile {
  for (const node of profile.nodes) {
    const { callFrame } = node;
    const loaded = callFrame.url;
    callFrame.url = withoutGraph(loaded);
    if (!isTypeScript(callFrame.url)) continue;
    const map = findSourceMap(loaded) ?? (loaded.startsWith('file:') ? findSourceMap(fileURLToPath(loaded)) : undefined);
    if (!map) continue;
    const entry = map.findEntry(callFrame.lineNumber, callFrame.columnNumber);
    if ('originalLine' in entry) Object.assign(callFrame, { lineNumber: entry.originalLine, columnNumber: entry.originalColumn });
    // Line ticks are 1-based lines of the generated code: the last mapping on that line names its .ts line.
    for (const tick of node.positionTicks ?? []) {
      const line = map.findEntry(tick.line - 1, Number.MAX_SAFE_INTEGER);
      if ('originalLine' in line) tick.line = line.originalLine + 1;
    }
  }
  return profile;
}

async function fatal(message: string): Promise<never> {
  await send({ type: 'fatal', message });
  process.exit(1);
}

/** Before any bench file: the module hooks (in the thread for a count job, where Node can) and the capture (capture-setup.ts). */
function prepare(job: MicroJob | ProfileJob | LoadJob | CountJob): void {
  jobSides = job.sides;
  const files = job.sides.flatMap((side) => side.files);
  installCapture(
    files.some((file) => /\.[cm]?tsx?$/.test(file)),
    'kind' in job && job.kind === 'count' ? inThreadHooks : undefined,
  );
}

const doing = () => (current.startsWith('loading') ? current : `running '${current}'`);
/** The job's sides (prepare): where a crash came from is read against their files. */
let jobSides: SideJob[] = [];

/**
 * What a bench file threw outside any call of ours, shown at the first line of the project's code in its stack; where
 * the first bench file in that stack is another than the one loading or running (a timer or callback it left behind,
 * which may have called the project's code that threw), that file is named.
 */
function thrownOutside(kind: string, error: unknown): string {
  const frames = error instanceof Error && error.stack ? error.stack.split('\n').filter((line) => line.trimStart().startsWith('at ')) : [];
  const benchFileOf = (frame: string) => {
    for (const side of jobSides)
      for (const file of side.files) {
        const at = path.join(side.root, file);
        const url = pathToFileURL(at).href;
        if (frame.includes(`${at}:`) || frame.includes(`${url}:`) || frame.includes(`${url}?`)) return { side, file };
      }
    return undefined;
  };
  const from = frames.map(benchFileOf).find((hit) => hit !== undefined);
  const running = jobSides
    .flatMap((side) => side.files)
    .find((file) => current.startsWith(`loading ${file} (`) || current.startsWith(`${file}${ID_SEPARATOR}`));
  const elsewhere = from && from.file !== running ? `, from ${from.file} (a timer or callback it left running)` : '';
  // describeThrown ends its text with the frame it found, if any: the root whose frame it is.
  const roots = from ? [from.side.root] : jobSides.map((side) => side.root);
  const text = roots.map((root) => describeThrown(error, root)).find((shown) => /\n {4}at [^\n]*$/.test(shown)) ?? describeThrown(error);
  return `${kind} while ${doing()}${elsewhere}: ${text}`;
}
// While a self-running script loads, what it throws after run() (printing results it never got) is set aside.
process.on('uncaughtException', (error) => void (harnessCapture().lateError(error) || fatal(thrownOutside('uncaught exception', error))));
process.on('unhandledRejection', (error) => void (harnessCapture().lateError(error) || fatal(thrownOutside('unhandled rejection', error))));
// benchgate is gone (killed with SIGKILL, so it could not stop us): nobody will read a result, so leave.
process.once('disconnect', () => process.exit(1));
process.once('message', (job: MicroJob | ProfileJob | LoadJob | CountJob) => {
  prepare(job);
  (!('kind' in job) ? runJob(job) : job.kind === 'profile' ? runProfile(job) : job.kind === 'count' ? runCount(job) : runLoad(job)).then(
    // Bench files may leave timers or sockets open: the result is sent, so leave now.
    () => process.exit(0),
    (error: unknown) => fatal(`error while ${doing()}: ${describeThrown(error)}`),
  );
});
void send({ type: 'ready' });
