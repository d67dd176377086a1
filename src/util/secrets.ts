import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { isChildVariable, JOB_FILES, neverPassed } from './processes.js';

/**
 * Once the inputs are read, keep what a child must never reach out of reach:
 * - /proc/PID/environ shows every process of the same user the environment this process was started
 *   with (the initial block the kernel laid on the stack at exec), whatever process.env says since. Every
 *   variable a child may not see (isChildVariable, with no user list yet) has its value wiped there: the
 *   token, the runner's credentials, a step's DATABASE_URL, the job files' paths.
 * - process.env loses what benchgate never passes on: the action's inputs (INPUT_*, the token among them),
 *   the runner's ACTIONS_* credentials, GITHUB_TOKEN, and the job files. A user-listed name (`env:`) stays
 *   in process.env, which no other process can read, until the allow-list passes it to a child.
 * - The job files are handed back (`jobFiles`): @actions/core reads them from process.env when it writes
 *   outputs and the summary, which restoreJobFiles allows once no child of the run is left.
 *
 * Written by hand: no library wipes /proc/self/environ. libc's getenv of a name that was unset, or set again
 * (setenv copies the value), no longer points into the initial block, so overwriting a value there with NUL
 * bytes changes nothing else.
 */
export function forgetSecrets(env: NodeJS.ProcessEnv = process.env): {
  forgotten: string[];
  wiped: boolean;
  jobFiles: Record<string, string>;
} {
  const jobFiles = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => JOB_FILES.has(entry[0].toUpperCase()) && entry[1] !== undefined),
  );
  const hidden = Object.keys(env).filter((name) => !isChildVariable(name));
  const forgotten = hidden.filter(neverPassed);
  for (const name of forgotten) delete env[name];
  // What stays (a user may list it) must stop pointing into the block about to be wiped: setting it again copies it out.
  for (const name of hidden) if (env[name] !== undefined) env[name] = String(env[name]);
  // Only this process's own environment has a block to wipe (tests pass a plain object).
  const own = env === process.env && process.platform === 'linux' && hidden.length > 0;
  return { forgotten, wiped: own ? wipeInitialEnvironment(new Set(hidden)) : false, jobFiles };
}

/** Give @actions/core its job files back, once every child of the run is gone (no child sees process.env changes anyway). */
export function restoreJobFiles(jobFiles: Record<string, string>, env: NodeJS.ProcessEnv = process.env): void {
  Object.assign(env, jobFiles);
}

/** Overwrite the values of `names` in /proc/self/environ with NUL bytes; false when the kernel does not let us. */
function wipeInitialEnvironment(names: ReadonlySet<string>): boolean {
  let fd: number | undefined;
  try {
    // /proc/PID/stat: "pid (comm) state ..."; fields 50 and 51 are env_start and env_end (proc(5)).
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[50 - 3]);
    const end = Number(fields[51 - 3]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start || end - start > 16 * 1024 * 1024) return false;
    fd = openSync('/proc/self/mem', 'r+');
    const block = Buffer.alloc(end - start);
    readSync(fd, block, 0, block.length, start);
    let offset = 0;
    while (offset < block.length) {
      let stop = block.indexOf(0, offset);
      if (stop < 0) stop = block.length;
      const entry = block.toString('latin1', offset, stop);
      const equals = entry.indexOf('=');
      if (equals > 0 && names.has(entry.slice(0, equals))) {
        const valueStart = offset + equals + 1;
        const length = stop - valueStart;
        if (length > 0) writeSync(fd, Buffer.alloc(length), 0, length, start + valueStart);
      }
      offset = stop + 1;
    }
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
