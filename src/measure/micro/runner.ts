/**
 * The benchmark process (bundled as dist/runner.js). It receives one MicroJob
 * over IPC, imports the bench files of each side it is given (each from its own
 * checkout, so each resolves its own source and dependencies), measures every
 * task and sends back one result.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startProfiler, type RunningProfiler } from '../profiler.js';
import type { RevisionLabel } from '../../checkout/revisions.js';
import { describeThrown, measureTask, runTaskFor, type SideTask } from './alternate.js';
import { loadBenchFile } from './load.js';
import { ID_SEPARATOR, type FileLoad, type MicroJob, type ProfileJob, type RunnerMessage, type TaskOutcome } from './protocol.js';

function send(message: RunnerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) return resolve();
    process.send(message, undefined, {}, () => resolve());
  });
}

let current = 'loading bench files';

async function runJob(job: MicroJob): Promise<void> {
  const files: FileLoad[] = [];
  const byId = new Map<string, SideTask[]>();
  for (const side of job.sides) {
    for (const file of side.files) {
      current = `loading ${file} (${side.revision})`;
      try {
        const tasks = await loadBenchFile(path.join(side.root, file));
        files.push({ revision: side.revision, file, tasks: tasks.map((task) => task.name) });
        for (const task of tasks) {
          const id = `${file}${ID_SEPARATOR}${task.name}`;
          const list = byId.get(id) ?? [];
          list.push({ revision: side.revision, root: side.root, fn: task.fn, opts: task.opts });
          byId.set(id, list);
        }
      } catch (error) {
        files.push({ revision: side.revision, file, tasks: [], error: describeThrown(error, side.root) });
      }
    }
  }
  const tasks: TaskOutcome[] = [];
  for (const [id, sides] of job.listOnly ? [] : byId) {
    if (job.skip.includes(id)) continue;
    current = id;
    await send({ type: 'progress', id });
    const tick = throttled(() => void send({ type: 'progress', id }));
    const beat = (revision?: RevisionLabel) => (revision ? void send({ type: 'progress', id, revision }) : tick());
    tasks.push(await measureTask(id, sides, job.settings, job.batches[id], beat));
  }
  await send({ type: 'result', files, tasks });
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
  const { side } = job;
  const file = side.files[0]!;
  current = `loading ${file} (${side.revision})`;
  const tasks = await loadBenchFile(path.join(side.root, file));
  const task = tasks.find((t) => t.name === job.task);
  if (!task) throw new Error(`${file} (${side.revision}) no longer declares the task '${job.task}'`);
  current = `${file}${ID_SEPARATOR}${task.name}`;
  let profiler: RunningProfiler | undefined;
  const outcome = await runTaskFor(
    { revision: side.revision, root: side.root, fn: task.fn, opts: task.opts },
    job.durationMs,
    {
      open: async () => void (profiler = await startProfiler(job.intervalUs)),
      close: async () => writeFileSync(job.outFile, JSON.stringify(await profiler!.stop())),
    },
    throttled(() => void send({ type: 'progress', id: current, revision: side.revision })),
  );
  if ('error' in outcome) return fatal(outcome.error);
  await send({ type: 'profiled', calls: outcome.calls });
}

async function fatal(message: string): Promise<never> {
  await send({ type: 'fatal', message });
  process.exit(1);
}

const doing = () => (current.startsWith('loading') ? current : `running '${current}'`);
process.on('uncaughtException', (error) => void fatal(`uncaught exception while ${doing()}: ${describeThrown(error)}`));
process.on('unhandledRejection', (error) => void fatal(`unhandled rejection while ${doing()}: ${describeThrown(error)}`));
process.once('message', (job: MicroJob | ProfileJob) => {
  ('kind' in job ? runProfile(job) : runJob(job)).then(
    // Bench files may leave timers or sockets open: the result is sent, so leave now.
    () => process.exit(0),
    (error: unknown) => fatal(`error while ${doing()}: ${describeThrown(error)}`),
  );
});
void send({ type: 'ready' });
