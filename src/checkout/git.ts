import { execFile } from 'node:child_process';

/** Runs git without a shell (refs and paths come from users and PRs) and returns trimmed stdout. */
export type Git = (args: readonly string[], cwd: string) => Promise<string>;

export class GitError extends Error {
  override name = 'GitError';
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed: ${stderr.trim().split('\n').slice(-3).join(' ')}`);
  }
}

export const git: Git = (args, cwd) =>
  new Promise((resolve, reject) => {
    execFile('git', [...args], { cwd, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }, (error, stdout, stderr) => {
      if (error) reject(new GitError(args, stderr || error.message));
      else resolve(stdout.trim());
    });
  });
