/**
 * An isolate of its own (bundled as dist/isolate.js, run as a worker thread by isolates.ts): loads one
 * revision's bench file, keeps the tasks of one unit (the file's own, or those of its k-th worker: the
 * others are not loaded, as in a process that runs only that scenario), and runs what the benchmark
 * process asks of each task: its warm-up, its batch size, its timed blocks, its afterAll hook.
 */
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { describeThrown, LocalSide, SideFailure } from './alternate.js';
import { harnessCapture } from './harness/capture.js';
import { installCapture } from './capture-setup.js';
import type { IsolateData, IsolateMessage, IsolateRequest } from './isolates.js';
import { loadBenchFile, type DeclaredTask } from './load.js';

const data = workerData as IsolateData;
const port = parentPort!;
const post = (message: IsolateMessage) => port.postMessage(message);

// What a file throws outside any request: set aside while it loads (as in the benchmark process), else the isolate's end.
for (const event of ['uncaughtException', 'unhandledRejection'] as const)
  process.on(
    event,
    (error) => void (harnessCapture().lateError(error) || post({ type: 'crashed', message: describeThrown(error, data.root) })),
  );

async function main(): Promise<void> {
  installCapture(data.sourceMaps);
  harnessCapture().onlyUnit = data.unit;
  let tasks: DeclaredTask[];
  try {
    const loaded = await loadBenchFile(path.join(data.root, data.file), data.root);
    tasks = loaded.tasks.filter((task) => (task.unit ?? 0) === data.unit);
  } catch (error) {
    return post({ type: 'failed to load', message: describeThrown(error, data.root) });
  }
  const sides = tasks.map((task) => new LocalSide({ revision: data.revision, root: data.root, fn: task.fn, opts: task.opts }));
  port.on('message', (request: IsolateRequest) => {
    void answer(sides[request.task], request).then(
      (value) => post({ type: 'reply', seq: request.seq, ...(value === undefined ? {} : { value }) }),
      (error: unknown) =>
        post({
          type: 'reply',
          seq: request.seq,
          failure: error instanceof SideFailure ? error.message : `benchgate failed in the isolate: ${describeThrown(error)}`,
        }),
    );
  });
  post({ type: 'loaded', tasks: tasks.map((task) => task.name) });
}

async function answer(side: LocalSide | undefined, request: IsolateRequest) {
  if (request.op === 'drain') return new Promise<void>((resolve) => setTimeout(() => setImmediate(resolve), 0));
  if (!side) throw SideFailure.told(data.revision, `no task #${request.task} in this isolate`);
  switch (request.op) {
    case 'warm':
      return side.warm();
    case 'batch':
      return side.setBatch(request.batch);
    case 'block':
      return side.block(request.iterations);
    case 'finish':
      return side.finish();
  }
}

void main();
