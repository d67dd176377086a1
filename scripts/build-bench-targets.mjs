// Bundles the pieces of benchgate that its own bench files measure (bench/*.bench.mjs) into
// bench/.targets.mjs: the gate runs this as the build step of each revision it compares.
import { build } from 'esbuild';

await build({
  stdin: {
    contents:
      "export { hodgesLehmann } from './src/stats/signed-rank.ts'; export { analyze } from './src/stats/analyze.ts'; export { renderMarkdown } from './src/report/markdown.ts'; export { renderTerminal } from './src/report/terminal.ts';",
    resolveDir: '.',
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: 'bench/.targets.mjs',
  logLevel: 'warning',
  banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
});
