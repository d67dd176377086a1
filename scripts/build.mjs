// Bundles each entry point into dist/: what npm and GitHub run is exactly this output.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

rmSync('dist', { recursive: true, force: true });
await import('./report-schema.mjs');
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
const common = {
  // Only the version goes into the bundles, so other package.json edits do not change dist/.
  define: { BENCHGATE_VERSION: JSON.stringify(version) },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  legalComments: 'none',
  logLevel: 'warning',
  // CommonJS dependencies call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __benchgateRequire } from 'node:module'; const require = __benchgateRequire(import.meta.url);" },
};
await build({
  ...common,
  entryPoints: {
    cli: 'src/cli.ts',
    action: 'src/action.ts',
    runner: 'src/measure/micro/runner.ts',
    // An isolate of its own for one revision's bench file (a worker thread of the runner).
    isolate: 'src/measure/micro/isolate.ts',
    // Module hooks for bench files, and the TypeScript transform they import only for a .ts file (amaro, 3.7 MB).
    hooks: 'src/measure/micro/harness/hooks.ts',
    // A vitest project's aliases, a resolve hook of their own (registered once its config is read).
    aliases: 'src/measure/micro/harness/aliases.ts',
    typescript: 'src/measure/micro/harness/typescript.ts',
    // Preloaded into a bench file's own run (compare --native-check) to read its harness's figures.
    native: 'src/measure/native/observer.ts',
  },
  outdir: 'dist',
});
// The probe is preloaded into users' servers with --require: CommonJS, no dependencies, no banner.
await build({
  ...common,
  banner: {},
  format: 'cjs',
  entryPoints: { probe: 'src/measure/http/probe.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.cjs' },
});
// The page of a published history (benchgate publish): for browsers, with uPlot and its styles in site.css.
await build({
  bundle: true,
  platform: 'browser',
  target: ['chrome100', 'firefox100', 'safari15'],
  format: 'iife',
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  entryPoints: { site: 'src/history/site/page.ts' },
  outdir: 'dist/site',
});
