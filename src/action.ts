import { fileURLToPath } from 'node:url';
import * as core from '@actions/core';
import { getOctokit } from '@actions/github';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { runAction } from './action/run.js';
import type { ActionSettings } from './config/action-inputs.js';

// The action's entry (dist/action.js): real dependencies in, everything else in runAction.
// The API's address is read now, before runAction forgets the secrets of this environment.
const baseUrl = process.env.GITHUB_API_URL ?? 'https://api.github.com';

/** Waits GitHub asks for that a job can afford: longer than this, and the comment is given up (with a warning), not the job. */
const MAX_RATE_LIMIT_WAIT_S = 60;

/**
 * One client per run, with Octokit's own retry (5xx and network errors, with backoff) and throttling
 * (primary and secondary rate limits: wait as GitHub says, twice at most, never more than a minute).
 */
function octokitFor(settings: ActionSettings) {
  const wait = (retryAfter: number, _options: unknown, _octokit: unknown, retryCount: number) =>
    retryCount < 2 && retryAfter <= MAX_RATE_LIMIT_WAIT_S;
  return getOctokit(
    settings.githubToken,
    { baseUrl, retry: { retries: 2 }, throttle: { onRateLimit: wait, onSecondaryRateLimit: wait } },
    retry,
    throttling,
  );
}

await runAction({
  core,
  env: process.env,
  pullRequestApi: (settings) => {
    const octokit = octokitFor(settings);
    return {
      openPullRequests: async (head) =>
        (await octokit.rest.pulls.list({ ...settings.repository, head, state: 'open', per_page: 100 })).data,
    };
  },
  commentApi: (settings, pr) => {
    const octokit = octokitFor(settings);
    const where = { owner: pr.owner, repo: pr.repo };
    return {
      whoAmI: async () => {
        try {
          return (await octokit.rest.users.getAuthenticated()).data.login;
        } catch {
          return undefined; // the default GITHUB_TOKEN and an app's installation token may not ask: comments are then told by marker and bot author
        }
      },
      listComments: () => octokit.paginate(octokit.rest.issues.listComments, { ...where, issue_number: pr.number, per_page: 100 }),
      createComment: async (body) => {
        await octokit.rest.issues.createComment({ ...where, issue_number: pr.number, body });
      },
      updateComment: async (id, body) => {
        await octokit.rest.issues.updateComment({ ...where, comment_id: id, body });
      },
    };
  },
  runnerPath: fileURLToPath(new URL('./runner.js', import.meta.url)),
  probePath: fileURLToPath(new URL('./probe.cjs', import.meta.url)),
  version: BENCHGATE_VERSION,
});
