/**
 * Isolates of their own: a bench file's tasks measured in worker threads, one V8 isolate per revision, per
 * bench file and per worker the file starts (its scenario), as the file runs with `node file.js` and each
 * scenario in the worker its author gave it. Each isolate loads its revision's file (isolate.ts); this
 * thread keeps alternating the two revisions' blocks every millisecond (alternate.ts, measureTask).
 *
 * Why: a module graph of its own (harness/graphs.ts) separates modules, not the isolate. Base and head in one
 * isolate share its builtins (a method one revision patches on Array.prototype, JSON or Promise is the
 * other's too) and its protectors: the flags V8 keeps per isolate that allow a fast path, such as the
 * array species protector, which code that sets an array's `constructor` turns off for good, making
 * every `map` and `filter` of the isolate ~20× slower. A revision that did so would slow the other
 * revision's figures with its own, and the change would read as unchanged. In a worker per revision each
 * keeps its own.
 *
 * The process is pinned to one core while it measures (Affinity): threads that take turns on one core see
 * the same clock speed and caches, where two cores' differences read as a change of code (up to 32% between
 * identical threads unpinned, measured; docs/statistics.md).
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { RevisionLabel } from '../../checkout/revisions.js';
import { affinityOf, setAffinity } from '../../util/affinity.js';
import { SideFailure, type BlockFigures, type Side } from './alternate.js';
import { ownName } from './harness/names.js';

/** What one isolate loads: a revision's bench file, and of it one unit (0 the file itself, k its k-th worker). */
export interface IsolateKey {
  revision: RevisionLabel;
  root: string;
  file: string;
  unit: number;
}

/** Between this thread and an isolate (isolate.ts). */
export type IsolateRequest =
  | { seq: number; op: 'warm'; task: number }
  | { seq: number; op: 'batch'; task: number; batch: number }
  | { seq: number; op: 'block'; task: number; iterations: number }
  | { seq: number; op: 'finish'; task: number }
  /** Answered once timers due now have run: what a task left to throw later is seen before the isolate closes. */
  | { seq: number; op: 'drain'; task: number };

/** A request before it is numbered. */
type Unsequenced = IsolateRequest extends infer R ? (R extends IsolateRequest ? Omit<R, 'seq'> : never) : never;

export type IsolateMessage =
  /** The unit's tasks in the order it declared them (a request names a task by its place in this list). */
  | { type: 'loaded'; tasks: string[] }
  | { type: 'failed to load'; message: string }
  | { type: 'reply'; seq: number; value?: number | BlockFigures; failure?: string }
  /** What it threw outside any request (an uncaught exception, an unhandled rejection). */
  | { type: 'crashed'; message: string };

export interface IsolateData extends IsolateKey {
  /** Source maps on for stack traces, as in the benchmark process (TypeScript jobs). */
  sourceMaps: boolean;
}

/** An isolate's end that is not a task's failure: what the benchmark process should end with. */
export class IsolateCrash extends Error {}

/** One isolate: a worker thread that loaded one unit of one revision's bench file. */
class Isolate {
  private seq = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private ended: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    readonly key: IsolateKey,
    readonly tasks: string[],
  ) {
    worker.on('message', (message: IsolateMessage) => {
      if (message.type === 'crashed') return this.end(new IsolateCrash(`${this.where()} threw outside any task call: ${message.message}`));
      if (message.type !== 'reply') return;
      const waiting = this.pending.get(message.seq);
      this.pending.delete(message.seq);
      if (message.failure !== undefined) waiting?.reject(SideFailure.told(key.revision, message.failure));
      else waiting?.resolve(message.value);
    });
    worker.on('error', (error) => this.end(new IsolateCrash(`${this.where()} threw: ${error.message}`)));
    worker.on('exit', (code) => this.end(new IsolateCrash(`${this.where()} exited with code ${code}`)));
  }

  /** Start the isolate and wait until its file has loaded: what it declares in that unit. */
  static start(key: IsolateKey, sourceMaps: boolean): Promise<Isolate> {
    const data: IsolateData = { ...key, sourceMaps };
    // Bench files print freely: their output goes where the benchmark process's goes.
    const worker = new Worker(new URL('./isolate.js', import.meta.url), { workerData: data });
    return new Promise((resolve, reject) => {
      const failed = (error: Error) => reject(error);
      worker.once('error', failed);
      worker.once('exit', (code) => reject(new Error(`its isolate exited with code ${code} while loading`)));
      worker.on('message', function loaded(message: IsolateMessage) {
        if (message.type === 'crashed' || message.type === 'failed to load') {
          void worker.terminate();
          return reject(new Error(message.message));
        }
        if (message.type !== 'loaded') return;
        worker.off('message', loaded);
        worker.off('error', failed);
        worker.removeAllListeners('exit');
        resolve(new Isolate(worker, key, message.tasks));
      });
    });
  }

  request(message: Unsequenced): Promise<unknown> {
    if (this.ended) return Promise.reject(this.ended);
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      this.worker.postMessage({ ...message, seq });
    });
  }

  async close(): Promise<void> {
    if (!this.ended) await this.request({ op: 'drain', task: -1 }).catch(() => undefined);
    this.ended ??= new Error('closed');
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }

  private where(): string {
    return `${this.key.file} (${this.key.revision}${this.key.unit ? `, worker ${this.key.unit}` : ''}) in its own isolate`;
  }

  private end(error: Error): void {
    if (this.ended) return;
    this.ended = error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    this.onCrash?.(error);
  }

  onCrash: ((error: Error) => void) | undefined;
}

/** A task's side in an isolate: each call is a request to its thread. */
class IsolatedSide implements Side {
  constructor(
    private readonly isolate: Isolate,
    private readonly task: number,
    readonly hooked: boolean,
  ) {}

  get revision(): RevisionLabel {
    return this.isolate.key.revision;
  }

  async warm(): Promise<number> {
    return (await this.isolate.request({ op: 'warm', task: this.task })) as number;
  }

  async setBatch(batch: number): Promise<void> {
    await this.isolate.request({ op: 'batch', task: this.task, batch });
  }

  async block(iterations: number): Promise<BlockFigures> {
    return (await this.isolate.request({ op: 'block', task: this.task, iterations })) as BlockFigures;
  }

  async finish(): Promise<void> {
    await this.isolate.request({ op: 'finish', task: this.task }).catch(() => undefined);
  }
}

/**
 * The isolates of one benchmark process, started when a task first needs one and closed after the last task
 * that does (`release`), so a bench file with eighteen workers holds two at a time, not thirty-six.
 */
export class Isolates {
  private readonly started = new Map<string, Promise<Isolate>>();

  constructor(
    private readonly sourceMaps: boolean,
    private readonly onCrash: (error: Error) => void,
    private readonly affinity: Affinity,
  ) {}

  /**
   * The side of a task in the isolate of `key`, started if it is not: the task declared `at` (0, 1, ...) in
   * its unit, named `name` in the shared process. By place, not name: names padded to the longest of the
   * file, or numbered ' (2)' among its tasks, read otherwise in a process that loads one unit. A side that
   * fails to load or declares otherwise fails when warmed, with what differs.
   */
  async side(key: IsolateKey, at: number, name: string, hooked: boolean): Promise<Side> {
    const id = keyOf(key);
    let isolate = this.started.get(id);
    if (!isolate) {
      this.affinity.release();
      isolate = Isolate.start(key, this.sourceMaps).then((started) => ((started.onCrash = this.onCrash), started));
      this.started.set(id, isolate);
    }
    try {
      const ready = await isolate;
      const there = ready.tasks[at];
      if (there === undefined || ownName(there) !== ownName(name))
        return failing(
          key.revision,
          `in an isolate of its own, ${key.file} declared ` +
            `${there === undefined ? `${ready.tasks.length} tasks there` : `'${there}'`} where the shared process had '${name}'`,
        );
      return new IsolatedSide(ready, at, hooked);
    } catch (error) {
      return failing(key.revision, `in an isolate of its own, ${key.file} failed to load: ${(error as Error).message}`);
    }
  }

  /** Close the isolate of `key`: no task after this one needs it. */
  async release(key: IsolateKey): Promise<void> {
    const isolate = this.started.get(keyOf(key));
    this.started.delete(keyOf(key));
    if (isolate) await closed(isolate);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.started.values()].map(closed));
    this.started.clear();
  }
}

/** An isolate closed, or one that never started: nothing left to close either way. */
function closed(isolate: Promise<Isolate>): Promise<void> {
  return isolate.then((started) => started.close()).catch(() => undefined);
}

export function keyOf(key: IsolateKey): string {
  return `${key.revision}\0${key.file}\0${key.unit}`;
}

/** A side that fails at its warm-up, with `message`: the task's error in its row. */
function failing(revision: RevisionLabel, message: string): Side {
  const fail = () => Promise.reject(SideFailure.told(revision, message));
  return { revision, hooked: false, warm: fail, setBatch: fail, block: fail, finish: () => Promise.resolve() };
}

/**
 * This process's CPUs: all of them while isolates load (base's and head's load side by side, and V8's compiler
 * threads get the other core), one while anything is measured (threads that take turns on one core see the
 * same clock speed and caches). Through taskset, for every thread of the process (-a), as the HTTP duet pins
 * its servers (measure/http/pinning.ts).
 */
export class Affinity {
  private original: string | undefined;
  private pinnedNow = false;
  /** False once a pin was asked for and did not take (taskset missing or not permitted). */
  held = true;

  /** Pin to the last of this process's CPUs; no-op when pinned already. */
  pin(): void {
    if (this.pinnedNow || !this.held) return;
    this.original ??= affinityOf();
    const last = this.original?.split(',').pop()?.split('-').pop();
    // Without taskset, one CPU needs no pin; on more, the threads stay unpinned (said in the log).
    if (!last) return void (this.held = os.availableParallelism() < 2);
    this.pinnedNow = setAffinity(last);
    this.held = this.pinnedNow;
  }

  /** Back to the CPUs it had. */
  release(): void {
    if (!this.pinnedNow || !this.original) return;
    setAffinity(this.original);
    this.pinnedNow = false;
  }
}
