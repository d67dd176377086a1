/**
 * The benchmark process (bundled as dist/runner.js). It receives one MicroJob
 * over IPC, imports the bench files of each side it is given (each from its own
 * checkout, so each resolves its own source and dependencies), measures every
 * task and sends back one result.
 */
import path from 'node:path';
import type { RevisionLabel } from '../../checkout/revisions.js';
import { describeThrown, measureTask, type SideTask } from './alternate.js';
import { loadBenchFile } from './load.js';
import { ID_SEPARATOR, type FileLoad, type MicroJob, type RunnerMessage, type TaskOutcome } from './protocol.js';

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
  for (const [id, sides] of byId) {
    if (job.skip.includes(id)) continue;
    current = id;
    await send({ type: 'progress', id });
    let lastBeat = 0;
    const beat = (revision?: RevisionLabel) => {
      // A heartbeat per block would flood the channel for fast tasks: one per 250 ms shows the process is alive.
      if (!revision && performance.now() - lastBeat < 250) return;
      lastBeat = performance.now();
      void send({ type: 'progress', id, ...(revision ? { revision } : {}) });
    };
    tasks.push(await measureTask(id, sides, job.settings, job.batches[id], beat));
  }
  await send({ type: 'result', files, tasks });
}

async function fatal(message: string): Promise<never> {
  await send({ type: 'fatal', message });
  process.exit(1);
}

const doing = () => (current.startsWith('loading') ? current : `running '${current}'`);
process.on('uncaughtException', (error) => void fatal(`uncaught exception while ${doing()}: ${describeThrown(error)}`));
process.on('unhandledRejection', (error) => void fatal(`unhandled rejection while ${doing()}: ${describeThrown(error)}`));
process.once('message', (job: MicroJob) => {
  runJob(job).then(
    // Bench files may leave timers or sockets open: the result is sent, so leave now.
    () => process.exit(0),
    (error: unknown) => fatal(`error while ${doing()}: ${describeThrown(error)}`),
  );
});
