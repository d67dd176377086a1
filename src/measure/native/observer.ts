/**
 * The native check's preload (bundled as dist/native.js): `node --import <dist/native.js> <bench file>`, in
 * the revision's checkout, as its author runs the file. It registers the module hooks (harness/hooks.ts)
 * with the observer (observe.ts) in place of the capture: a bench file's `import` of benchmark.js, tinybench
 * or mitata gets the revision's own copy, observed; a `require()` of one likewise (CommonJS does not pass
 * through the hooks on Node 20). TypeScript files load through the same transform as in benchgate's runner.
 *
 * Each finished task's figures are appended as one JSON line, with the thread's id, to the file named by
 * BENCHGATE_NATIVE_OUT: a worker thread inherits `--import` from the process's execArgv (find-my-way runs
 * each scenario in a `new Worker`), so its tasks are appended to the same file.
 */
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { NativeObserver } from './observe.js';

const OBSERVED = ['benchmark', 'tinybench', 'mitata'];

function install(out: string): void {
  const observer = new NativeObserver((record) => {
    try {
      appendFileSync(out, `${JSON.stringify({ ...record, thread: threadId })}\n`);
    } catch {
      // The figures file is benchgate's; a failure to write it shows as figures missing, never as the bench's failure.
    }
  });
  (globalThis as Record<symbol, unknown>)[Symbol.for('benchgate.native')] = observer;
  register(new URL('./hooks.js', import.meta.url), {
    data: { transform: new URL('./typescript.js', import.meta.url).href, answer: 'benchgate.native' },
  });
  const internal = Module as unknown as {
    _load: (request: string, parent: { filename?: string } | undefined, isMain: boolean) => unknown;
  };
  const load = internal._load;
  internal._load = function (request, parent, isMain) {
    const loaded = load.call(this, request, parent, isMain);
    const fromProject = parent?.filename && !parent.filename.includes(`${path.sep}node_modules${path.sep}`);
    return OBSERVED.includes(request) && fromProject ? observer.required(request, loaded) : loaded;
  };
}

const out = process.env.BENCHGATE_NATIVE_OUT;
if (out) install(out);
