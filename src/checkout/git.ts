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
    execFile('git', [...args], { cwd, maxBuffer: 16 * 1024 * 1024, env: gitEnvironment(), timeout: timeoutMs, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error && error.killed) reject(new GitError(args, `did not finish within ${timeoutMs / 1000}s and was killed`));
      else if (error) reject(new GitError(args, stderr || error.message));
      else resolve(stdout.trim());
    });
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

/**
 * A revision as a user or an event may give it: a sha, or a ref name git would accept
 * (git check-ref-format's rules, one level allowed), optionally followed by ~N / ^N ancestry
 * (HEAD~1, main^). Anything else, above all a leading '-' that git would read as an option
 * (--upload-pack=...), is refused before it reaches git.
 */
export function isRevisionName(revision: string): boolean {
  const name = revision.replace(/(?:[~^]\d{0,4})+$/, '');
  if (/^[0-9a-f]{7,64}$/i.test(name)) return true;
  if (name.length === 0 || name.length > 255 || name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.') || name.endsWith('.lock')) return false;
  // No control characters, space, ~ ^ : ? * [ \\, no '..', no '@{', no '//', no component starting with '.'.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what a ref may not hold
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name) || name.includes('..') || name.includes('@{') || name.includes('//') || name === '@') return false;
  return !name.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'));
}
