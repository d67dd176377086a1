/**
 * Worker threads and child processes while a bench file loads. A file that measures in worker threads
 * (find-my-way's one worker per scenario) gets a stand-in Worker: the worker's file is loaded here, with
 * its workerData, parentPort and isMainThread, once per worker, in a module graph of its own. A file that
 * forks node processes is refused.
 */
import { EventEmitter } from 'node:events';
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import workerThreads from 'node:worker_threads';
import type { Declaration, Hook } from './types.js';

/** What the stand-ins need of the capture. */
export interface WorkerHost {
  /** Whether a bench file is loading: only then are Worker and the node-forking functions stood in for. */
  readonly loading: boolean;
  /** The loading file's declaration: the workers it started, what they threw, the node processes it tried. */
  readonly declaration: Declaration | undefined;
  /** The unit that is loading: 0 the bench file itself, k its k-th worker. */
  unit: number;
  /**
   * In an isolate of one unit (isolates.ts): the one worker to load. The others start and exit at once,
   * without running, as in a process that loads only that scenario.
   */
  readonly onlyUnit: number | undefined;
  /** A worker is done: the file has not settled yet. */
  stir(): void;
  /** Set aside an error of a file (or worker) that has declared its tasks; false when nothing is loading. */
  lateError(error: unknown): boolean;
  inNewGraph(file: string): string;
}

interface WorkerOptions {
  workerData?: unknown;
  eval?: boolean;
}

export class StandIns {
  /** Workers started and not yet loaded: the file has not settled while any is. */
  running = 0;
  private queue: Promise<void> = Promise.resolve();
  private count = 0;
  private workersOfFile = 0;

  constructor(private readonly host: WorkerHost) {}

  /** A bench file starts loading: its workers are its units 1, 2, ... */
  declaring(): void {
    this.workersOfFile = 0;
  }

  /**
   * Replace Worker and the node-forking functions. Only while a bench file loads: a task that starts a
   * worker or a process when it is measured gets the real thing.
   */
  install(): void {
    const start = (worker: EventEmitter, port: EventEmitter, filename: string | URL, options: WorkerOptions) =>
      this.startWorker(worker, port, filename, options);
    const loading = () => this.host.loading;
    const RealWorker = workerThreads.Worker;
    class CapturedWorker extends EventEmitter {
      readonly threadId: number = 0;
      private readonly port = new EventEmitter();
      constructor(filename: string | URL, options: WorkerOptions = {}) {
        super();
        // A constructor may answer another object: outside loading, the real Worker.
        if (!loading()) return new RealWorker(filename, options) as unknown as CapturedWorker;
        this.threadId = start(this, this.port, filename, options);
      }
      postMessage(message: unknown): void {
        setImmediate(() => this.port.emit('message', message));
      }
      terminate(): Promise<number> {
        return Promise.resolve(0);
      }
      ref(): void {}
      unref(): void {}
    }
    (workerThreads as { Worker: unknown }).Worker = CapturedWorker;
    const refuse = (what: string, file: string) => {
      this.host.declaration?.children.push(file);
      throw new Error(
        `benchgate does not run benchmarks in child processes (${what} '${file}'): it times tasks in its own processes, alternating base and head`,
      );
    };
    const isNode = (command: unknown) => command === process.execPath || command === 'node' || String(command).endsWith('/node');
    const real = childProcess as unknown as Record<string, Hook>;
    const { fork } = real;
    const stand = {
      fork: (modulePath: string | URL, ...rest: unknown[]) =>
        this.host.loading ? refuse('child_process.fork', String(modulePath)) : fork!(modulePath, ...rest),
    } as Record<string, Hook>;
    // A node script started these ways while a file loads is a benchmark run in another process; any other command passes.
    for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync']) {
      const original = real[name]!;
      stand[name] = (command: unknown, ...rest: unknown[]) =>
        isNode(command) && this.host.loading ? refuse(name, nodeScript(rest)) : original(command, ...rest);
    }
    Object.assign(childProcess, stand);
    syncBuiltinESMExports();
  }

  /** A stand-in Worker's start: its file is loaded after the workers started before it; then it exits with 0. */
  private startWorker(worker: EventEmitter, port: EventEmitter, filename: string | URL, options: WorkerOptions): number {
    const threadId = ++this.count;
    const unit = ++this.workersOfFile;
    const file = filename instanceof URL || String(filename).startsWith('file:') ? fileURLToPath(filename) : path.resolve(String(filename));
    if (options.eval) throw new Error('benchgate cannot collect tasks from a worker started from a string of code (eval: true)');
    this.host.declaration?.workers.push(file);
    if (this.host.onlyUnit !== undefined && unit !== this.host.onlyUnit) {
      // Activity, as a worker's load is: the file has not settled while it starts workers, skipped or not.
      this.host.stir();
      setImmediate(() => (worker.emit('online'), worker.emit('exit', 0), this.host.stir()));
      return threadId;
    }
    this.running++;
    Object.assign(port, {
      postMessage: (message: unknown) => setImmediate(() => worker.emit('message', message)),
      close() {},
      ref() {},
      unref() {},
    });
    this.queue = this.queue.then(async () => {
      try {
        await this.runWorker(file, threadId, unit, options.workerData, port);
        setImmediate(() => (worker.emit('online'), worker.emit('exit', 0)));
      } catch (error) {
        // A worker that declared its tasks and then threw (reading the results its harness never ran to
        // give) is set aside like a bench file that does so: natively it would have reported and exited,
        // so the script that started it goes on to its next worker.
        const declared = this.host.declaration?.tasks.some((task) => task.unit === unit);
        if (declared && this.host.lateError(error)) setImmediate(() => (worker.emit('online'), worker.emit('exit', 0)));
        else {
          this.host.declaration?.workerErrors.push({ file, error });
          setImmediate(() => (worker.emit('error', error), worker.emit('exit', 1)));
        }
      } finally {
        this.running--;
        this.host.stir();
      }
    });
    return threadId;
  }

  /** Load a worker's file in this thread, as that worker would see it, once per worker. */
  private async runWorker(file: string, threadId: number, unit: number, workerData: unknown, port: EventEmitter): Promise<void> {
    const builtin = workerThreads as unknown as Record<string, unknown>;
    const saved = {
      workerData: builtin.workerData,
      parentPort: builtin.parentPort,
      isMainThread: builtin.isMainThread,
      threadId: builtin.threadId,
    };
    Object.assign(builtin, { workerData: structuredClone(workerData), parentPort: port, isMainThread: false, threadId });
    syncBuiltinESMExports();
    // Tasks declared from here until the worker is done belong to its graph. A worker that declares them later
    // (after an await of its own) gets the file's unit: its decided tasks then warm up before the file's, which
    // costs time but never leaves a measured task without a neighbour it had.
    this.host.unit = unit;
    try {
      try {
        await import(this.host.inNewGraph(file));
      } finally {
        Object.assign(builtin, saved);
        syncBuiltinESMExports();
      }
      // Messages the main script posts to the worker arrive on the next turns.
      for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
    } finally {
      this.host.unit = 0;
    }
  }
}

function nodeScript(rest: unknown[]): string {
  const args = rest.find((arg): arg is unknown[] => Array.isArray(arg));
  const script = args?.find((arg): arg is string => typeof arg === 'string' && !arg.startsWith('-'));
  return script ?? 'a script';
}
