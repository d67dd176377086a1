import * as nodeModule from 'node:module';
import { harnessCapture } from './harness/capture.js';
import type { inThreadHooks } from './harness/hooks.js';
import { inThreadAliases, type AliasData } from './harness/aliases.js';

/** `module.registerHooks` (Node 22.15 and later), which @types/node 20 does not declare. */
type RegisterHooks = (hooks: object) => unknown;

/**
 * Before any bench file, in the benchmark process and in each isolate: the module hooks (harness imports and
 * TypeScript, harness/hooks.ts) and the capture (harness/capture.ts). TypeScript files that needed more than
 * type stripping carry a source map; Node applies it to stack traces only when asked before they load.
 *
 * `inThread` (harness/hooks.ts's inThreadHooks, passed by the one caller that wants it, so that isolates' bundle
 * stays without it): the hooks run in this thread where Node can (`module.registerHooks`), else off it as everywhere
 * (`module.register`). A counted process asks for it: off the thread, the order in which the hooks thread answers
 * moves V8's heap layout and its instruction counts with it (on Node 24, two tasks in a plain process read levels
 * 0.2% and 0.4% apart over 5 processes each with off-thread hooks, the same count to 0.002% in the thread; docs/counts.md).
 */
export function installCapture(sourceMaps: boolean, inThread?: typeof inThreadHooks): void {
  if (sourceMaps) process.setSourceMapsEnabled(true);
  const data = { transform: new URL('./typescript.js', import.meta.url).href };
  const registerHooks = (nodeModule as unknown as { registerHooks?: RegisterHooks }).registerHooks;
  registerInThread = inThread && typeof registerHooks === 'function' ? registerHooks : undefined;
  if (registerInThread) registerInThread(inThread!(data));
  else nodeModule.register(new URL('./hooks.js', import.meta.url), { data });
  harnessCapture();
}

/** module.registerHooks, where installCapture put the hooks in this thread. */
let registerInThread: RegisterHooks | undefined;
let aliasRegistrations = 0;

/**
 * A vitest bench file's aliases (harness/vitest-config.ts, scoped to its module graph), as a resolve hook ahead of the
 * others, where they run: in this thread where installCapture put them there, else off it, each registration a module
 * instance of its own (a query on the URL: Node would give a second register of one URL the first's instance).
 */
export function registerAliases(data: AliasData): void {
  if (registerInThread) registerInThread(inThreadAliases(data));
  else nodeModule.register(new URL(`./aliases.js?registration=${++aliasRegistrations}`, import.meta.url), { data });
}
