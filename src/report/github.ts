import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CommentMode } from '../config/action-inputs.js';
import { formatBudget, formatMicros } from '../util/format.js';
import { formatChange, formatCount } from './format.js';
import type { Report, ReportBenchmark } from './model.js';

/** GitHub's limit on a comment body. */
export const COMMENT_LIMIT = 65_536;

/** The part of an Octokit client the comment needs (so tests and other clients can stand in). */
export interface CommentApi {
  whoAmI(): Promise<string | undefined>;
  listComments(): Promise<{ id: number; body?: string | null; user?: { login: string; type?: string } | null }[]>;
  createComment(body: string): Promise<void>;
  updateComment(id: number, body: string): Promise<void>;
}

/**
 * The hidden marker that finds this gate's comment again, at the very start of the body: one per
 * gate key (commentKeyOf: directory, config, comment-key), so two gates keep two comments.
 */
export function commentMarker(gateKey: string): string {
  return `<!-- benchgate: ${gateKey.replace(/-{2,}/g, '-').replace(/>/g, '')} -->`;
}

/** The open pull requests whose head is `owner:branch`, with their head commits (GET /repos/{owner}/{repo}/pulls). */
export interface PullRequestApi {
  openPullRequests(head: string): Promise<{ number: number; head: { sha: string } }[]>;
}

export type CommentOutcome = 'created' | 'updated' | 'skipped';

/**
 * Create or update this gate's one comment on the PR, over every page of comments. A comment is this
 * gate's when the marker opens its body (a quote of it further down is somebody else's text) and its
 * author is the token's own identity; when the token cannot say who it is (the default GITHUB_TOKEN, a
 * GitHub App's installation token, or GET /user failing), when its author is a bot: a person's comment
 * that copies the marker is never taken over. `body` is cut to fit with the marker (fitComment).
 */
export async function upsertComment(
  api: CommentApi,
  options: { mode: CommentMode; marker: string; body: string; report: Report },
): Promise<CommentOutcome> {
  if (options.mode === 'never') return 'skipped';
  const me = await api.whoAmI();
  const mine = (user: { login: string; type?: string } | null | undefined) =>
    user ? (me ? user.login === me : user.type === 'Bot') : false;
  const existing = (await api.listComments()).find((c) => mine(c.user) && (c.body ?? '').startsWith(`${options.marker}\n`));
  const wanted = wantsComment(options.mode, options.report);
  // on-regression and on-change never leave a stale comment: once one exists it is kept current, even when all is well now.
  if (!wanted && !existing) return 'skipped';
  const body = `${options.marker}\n${options.body}`;
  if (existing) {
    await api.updateComment(existing.id, body);
    return 'updated';
  }
  await api.createComment(body);
  return 'created';
}

function wantsComment(mode: CommentMode, report: Report): boolean {
  switch (mode) {
    case 'always':
      return true;
    case 'never':
      return false;
    case 'on-regression':
      return report.verdict !== 'pass';
    case 'on-change':
      return (
        report.verdict !== 'pass' ||
        report.benchmarks.some((b) => b.verdict !== 'unchanged' && b.verdict !== 'within-budget' && b.verdict !== 'inconclusive')
      );
  }
}

/**
 * Cut a body to GitHub's limit, at a line, with a pointer to where the whole report is. `marker` goes
 * in front of it (upsertComment), so it counts against the limit too (with its line break).
 */
export function fitComment(
  markdown: string,
  runUrl: string | undefined,
  { marker = '', limit = COMMENT_LIMIT - (marker ? marker.length + 1 : 0) }: { marker?: string; limit?: number } = {},
): string {
  if (markdown.length <= limit) return markdown;
  const note = `\n\n… the report is longer than a comment allows: the whole report is in the job summary${runUrl ? ` of [this run](${runUrl})` : ''}.\n`;
  // The tags that close what the cut left open count against the limit too: cut earlier until all of it fits.
  for (let room = limit - note.length; room > 0;) {
    const cut = markdown.lastIndexOf('\n', room);
    const body = closeOpenBlocks(markdown.slice(0, cut > 0 ? cut : room));
    if (body.length + note.length <= limit) return body + note;
    room -= body.length + note.length - limit;
  }
  // A limit too small for any of the report: the pointer to it alone.
  return note.trim().slice(0, limit);
}

/** Never leave a code block, <details> or <pre> open: the rest of the page would fall into it. */
function closeOpenBlocks(text: string): string {
  let body = text;
  if ((body.match(/^```/gm) ?? []).length % 2 === 1) body += '\n```';
  // Tags are counted outside code blocks, where a name of the project's (shown as it is) is no tag.
  const markup = body.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  const open = (tag: string) =>
    (markup.match(new RegExp(`<${tag}[ >]`, 'g')) ?? []).length - (markup.match(new RegExp(`</${tag}>`, 'g')) ?? []).length;
  if (open('pre') > 0) body += '</pre>';
  for (let i = open('details'); i > 0; i--) body += '\n</details>';
  return body;
}

export interface Annotation {
  /** error: the regression itself; notice: the function a profile says got slower. */
  level: 'error' | 'notice';
  message: string;
  title: string;
  file: string | undefined;
  line: number | undefined;
}

/**
 * One error annotation per regression: on the bench file at the task's line
 * (where its name appears), or on the config file at the HTTP test's name.
 * When a profile found the project function that costs more, a notice on that
 * function's line too, so the pull request's diff shows where to look.
 * Paths are relative to the repository root, as GitHub wants them.
 */
export function regressionAnnotations(report: Report, projectDir: string, repoRoot: string, configFile: string): Annotation[] {
  return report.benchmarks
    .filter((b) => b.verdict === 'regression')
    .flatMap((b) => {
      const [file, needle] =
        b.kind === 'http' ? [configFile, `name: ${b.id.slice('http > '.length)}`] : [path.join(projectDir, b.file ?? ''), taskName(b)];
      const annotations: Annotation[] = [
        {
          level: 'error',
          title: `benchgate: ${b.id} regressed`,
          message: `${b.id}: ${formatChange(b)} (budget ${formatBudget(b.budget)})`,
          file: existsSync(file) ? path.relative(repoRoot, file) : undefined,
          line: existsSync(file) ? lineOf(file, needle) : undefined,
        },
      ];
      const slower = slowerFunction(b.id, b.profile);
      const place = slower && /^(.+):(\d+)$/.exec(slower.where);
      if (slower && place && existsSync(path.join(projectDir, place[1]!)))
        annotations.push({
          level: 'notice',
          title: `benchgate: ${slower.function} ${slower.verb}`,
          message: slower.message,
          file: path.relative(repoRoot, path.join(projectDir, place[1]!)),
          line: Number(place[2]),
        });
      return annotations;
    });
}

/** The project function a profile found costing most more, with what it calls: in time (CPU profiles) or in counts. */
function slowerFunction(id: string, profile: ReportBenchmark['profile']) {
  if (!profile || 'error' in profile) return undefined;
  if ('measure' in profile) {
    const row = profile.ownCode[0];
    const what = profile.figure === 'cycles' ? 'estimated cycles' : 'instructions';
    return (
      row && {
        function: row.function,
        where: row.where,
        verb: `runs more ${what}`,
        message:
          `${id}: ${row.function} runs ${formatCount(row.head)} ${what} per call at head, ` +
          `${formatCount(row.base)} at base (callgrind, with what it calls)`,
      }
    );
  }
  const row = profile.ownCode[0];
  return (
    row && {
      function: row.function,
      where: row.location,
      verb: 'got slower',
      message:
        `${id}: ${row.function} costs ${formatMicros(row.headPerOpUs)} per ${profile.unit} at head, ` +
        `${formatMicros(row.basePerOpUs)} at base (CPU profiles, with what it calls)`,
    }
  );
}

function taskName(b: ReportBenchmark): string {
  const at = b.id.indexOf(' > ');
  return at >= 0 ? b.id.slice(at + 3) : b.id;
}

function lineOf(file: string, needle: string): number | undefined {
  const index = readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((line) => line.includes(needle));
  return index >= 0 ? index + 1 : undefined;
}
