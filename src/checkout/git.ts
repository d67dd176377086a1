import { execFile, execFileSync } from 'node:child_process';
import { childEnvironment } from '../util/processes.js';

/** Runs git without a shell (refs and paths come from users and PRs) and returns trimmed stdout. */
export type Git = (args: readonly string[], cwd: string, options?: { timeoutMs?: number }) => Promise<string>;

/** Local git commands finish in seconds; a fetch gets longer (GIT_TIMEOUT_MS_FETCH). Past these, git is killed and named. */
export const GIT_TIMEOUT_MS = 60_000;
export const GIT_FETCH_TIMEOUT_MS = 5 * 60_000;

export class GitError extends Error {
  override name = 'GitError';
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed: ${stderr.trim().split('\n').slice(-3).join(' ')}`);
  }
}

/** git's environment: no secret (childEnvironment) and never a prompt for credentials, which would wait forever. */
function gitEnvironment(): NodeJS.ProcessEnv {
  return { ...childEnvironment(), GIT_TERMINAL_PROMPT: '0' };
}

export const git: Git = (args, cwd, options = {}) => {
  const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...args],
      { cwd, maxBuffer: 16 * 1024 * 1024, env: gitEnvironment(), timeout: timeoutMs, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error && error.killed) reject(new GitError(args, `did not finish within ${timeoutMs / 1000}s and was killed`));
        else if (error) reject(new GitError(args, stderr || error.message));
        else resolve(stdout.trim());
      },
    );
  });
};

/** The synchronous twin, for cleanup from a signal handler; never throws. */
export function gitSync(args: readonly string[], cwd: string): boolean {
  try {
    execFileSync('git', [...args], { cwd, stdio: 'ignore', env: gitEnvironment(), timeout: GIT_TIMEOUT_MS, killSignal: 'SIGKILL' });
    return true;
  } catch {
    return false;
  }
}
