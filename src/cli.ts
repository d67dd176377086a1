#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
import { main } from './cli/main.js';
import { forgetSecrets } from './util/secrets.js';

// On a CI runner a step's environment holds the job files and any secret the step was given: none of it is
// benchgate's to pass on, and its children can read this process's initial environment (see forgetSecrets).
forgetSecrets(process.env);

main(process.argv.slice(2), {
  cwd: process.cwd(),
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  runnerPath: fileURLToPath(new URL('./runner.js', import.meta.url)),
  probePath: fileURLToPath(new URL('./probe.cjs', import.meta.url)),
  version: BENCHGATE_VERSION,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`benchgate: unexpected failure: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 2;
  },
);
