import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { isDeniedVariable } from './processes.js';

/** Files that @actions/core itself writes through: kept in this process (never passed to a child). */
const OWN_FILE_COMMANDS = new Set(['GITHUB_OUTPUT', 'GITHUB_STEP_SUMMARY', 'GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STATE']);

/**
 * Forget every secret this process was started with, once its inputs are read: the action's
 * inputs (the token among them), the runner's ACTIONS_* credentials and any *_TOKEN, *_SECRET...
 * (the names isDeniedVariable denies to children). They leave process.env, and on Linux also the
 * process's initial environment block, which /proc/PID/environ shows to every process of the same
 * user: a child could otherwise read it from its parent. Returns the names forgotten.
 *
 * Written by hand: no library wipes /proc/self/environ. The block is the original copy that the
 * kernel laid on the stack at exec; libc's getenv of a name that was unset no longer points into it,
 * so overwriting a value there with NUL bytes changes nothing else in the process.
 */
export function forgetSecrets(env: NodeJS.ProcessEnv = process.env): { forgotten: string[]; wiped: boolean } {
  const forgotten = Object.keys(env).filter((name) => isDeniedVariable(name) && !OWN_FILE_COMMANDS.has(name.toUpperCase()));
  for (const name of forgotten) delete env[name];
  // Only this process's own environment has a block to wipe (tests pass a plain object).
  const own = env === process.env && process.platform === 'linux' && forgotten.length > 0;
  return { forgotten, wiped: own ? wipeInitialEnvironment(new Set(forgotten)) : false };
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
