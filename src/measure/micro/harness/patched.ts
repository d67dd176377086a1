/**
 * A harness whose exports can be patched (benchmark.js, tinybench): the revision's own copy is loaded as
 * usual and its class patched in place, once, which serves `import` and `require()` alike and keeps
 * everything else of the harness real (capture.ts). Such a harness answers nothing of its own.
 */
import type { CaptureContext, Harness, HarnessName, Namespace } from './types.js';

export abstract class PatchedHarness<Class> implements Harness {
  /** Every class patched, whichever harness reached it: one set for the process, as its capture is one. */
  private static readonly patched = new WeakSet<object>();
  abstract readonly name: HarnessName;
  abstract readonly package: string;

  constructor(protected readonly capture: CaptureContext) {}

  imported(resolved: string, real: Namespace): undefined {
    this.capture.record(this.name, resolved);
    const target = this.classIn(real);
    if (typeof target !== 'function' || PatchedHarness.patched.has(target)) return;
    PatchedHarness.patched.add(target);
    // The module that imports a harness is evaluated once a process: the files after the first reach this copy only
    // through the patched class, which records the copy for the file that uses it (else listed without its version).
    this.patch(target as Class, () => this.capture.record(this.name, resolved));
  }

  required(resolved: string, load: () => unknown): unknown {
    const loaded = load();
    this.imported(resolved, this.asImported(loaded));
    return loaded;
  }

  /** The class to patch, among the copy's exports (what `import * as` gives). */
  protected abstract classIn(real: Namespace): unknown;
  /** What `import * as` gives of the module a require() returned. */
  protected abstract asImported(loaded: unknown): Namespace;
  /** Patch the copy's class in place: its run methods collect the tasks instead of timing them (and call `used`). */
  protected abstract patch(target: Class, used: () => void): void;
}
