import { fileURLToPath } from 'node:url';
import * as core from '@actions/core';
import { getOctokit } from '@actions/github';
import { runAction } from './action/run.js';

// The action's entry (dist/action.js): real dependencies in, everything else in runAction.
// The API's address is read now, before runAction forgets the secrets of this environment.
const baseUrl = process.env.GITHUB_API_URL ?? 'https://api.github.com';
await runAction({
  core,
  env: process.env,
  pullRequestApi: (settings) => {
    const octokit = getOctokit(settings.githubToken, { baseUrl });
    return {
      openPullRequests: async (head) =>
        (await octokit.rest.pulls.list({ ...settings.repository, head, state: 'open', per_page: 100 })).data,
    };
  },
  commentApi: (settings, pr) => {
    const octokit = getOctokit(settings.githubToken, { baseUrl });
    const where = { owner: pr.owner, repo: pr.repo };
    return {
      whoAmI: async () => {
        try {
          return (await octokit.rest.users.getAuthenticated()).data.login;
        } catch {
          return undefined; // the default GITHUB_TOKEN may not ask; it comments as github-actions[bot]
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
