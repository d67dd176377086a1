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
  branchApi: (settings) => {
    const octokit = octokitFor(settings);
    const where = settings.repository;
    /** A 404 (no such branch or file) is an answer, not a failure; a 422 on a ref is another writer having been first. */
    const unless = async <T>(status: number, request: Promise<T>): Promise<T | undefined> =>
      request.catch((error: { status?: number }) => {
        if (error.status === status) return undefined;
        throw error;
      });
    return {
      branchHead: async (branch) => (await unless(404, octokit.rest.git.getRef({ ...where, ref: `heads/${branch}` })))?.data.object.sha,
      readFile: async (commit, file) => {
        const answer = await unless(404, octokit.rest.repos.getContent({ ...where, path: file, ref: commit }));
        const data = answer?.data;
        if (!data || Array.isArray(data) || data.type !== 'file') return undefined;
        // Files over 1 MB come without content: their blob holds it (up to 100 MB).
        const content =
          data.encoding === 'base64' && data.content
            ? data.content
            : (await octokit.rest.git.getBlob({ ...where, file_sha: data.sha })).data.content;
        return Buffer.from(content, 'base64').toString('utf8');
      },
      treeOf: async (commit) => (await octokit.rest.git.getCommit({ ...where, commit_sha: commit })).data.tree.sha,
      commitFile: async ({ baseTree, file, text, parent, message }) => {
        const blob = (await octokit.rest.git.createBlob({ ...where, content: text, encoding: 'utf-8' })).data.sha;
        const tree = (
          await octokit.rest.git.createTree({
            ...where,
            ...(baseTree ? { base_tree: baseTree } : {}),
            tree: [{ path: file, mode: '100644', type: 'blob', sha: blob }],
          })
        ).data.sha;
        return (await octokit.rest.git.createCommit({ ...where, message, tree, parents: parent ? [parent] : [] })).data.sha;
      },
      createBranch: async (branch, commit) =>
        (await unless(422, octokit.rest.git.createRef({ ...where, ref: `refs/heads/${branch}`, sha: commit }))) !== undefined,
      moveBranch: async (branch, commit) =>
        (await unless(422, octokit.rest.git.updateRef({ ...where, ref: `heads/${branch}`, sha: commit, force: false }))) !== undefined,
    };
  },
  issueApi: (settings) => {
    const octokit = octokitFor(settings);
    const where = settings.repository;
    return {
      openIssues: (label) => octokit.paginate(octokit.rest.issues.listForRepo, { ...where, state: 'open', labels: label, per_page: 100 }),
      createIssue: async (issue) => (await octokit.rest.issues.create({ ...where, ...issue })).data.number,
      updateIssue: async (number, issue) => {
        await octokit.rest.issues.update({ ...where, issue_number: number, ...issue });
      },
    };
  },
  runnerPath: fileURLToPath(new URL('./runner.js', import.meta.url)),
  probePath: fileURLToPath(new URL('./probe.cjs', import.meta.url)),
  version: BENCHGATE_VERSION,
});
