import { register } from 'node:module';
import { harnessCapture } from './harness/capture.js';

/**
 * Before any bench file, in the benchmark process and in each isolate: the module hooks (harness imports and
 * TypeScript, harness/hooks.ts) and the capture (harness/capture.ts). TypeScript files that needed more than
 * type stripping carry a source map; Node applies it to stack traces only when asked before they load.
 */
export function installCapture(sourceMaps: boolean): void {
  if (sourceMaps) process.setSourceMapsEnabled(true);
  register(new URL('./hooks.js', import.meta.url), { data: { transform: new URL('./typescript.js', import.meta.url).href } });
  harnessCapture();
}
