import { git as defaultGit, type Git } from '../checkout/git.js';
import type { AnchorSpec } from '../config/anchor.js';
import { UserError } from '../util/errors.js';
import { detectInstallOf } from '../checkout/install.js';
import { INSTALL_FILES, installKeyOf } from '../checkout/reuse.js';
import type { BisectCommit } from './bisect.js';
import type { CommitInfo } from './record.js';

export interface ResolvedAnchor {
  commit: string;
  /** How people call it: the tag, the ref, or "main 30 days ago (abc1234)". */
  label: string;
}

/** The anchor's commit, resolved in `cwd` against `head`; a clear error when there is none (no tag yet, a shallow clone). */
export async function resolveAnchor(
  spec: AnchorSpec,
  head: string,
  cwd: string,
  run: Git = defaultGit,
  now = new Date(),
): Promise<ResolvedAnchor> {
  const shallowHint = ' (a shallow clone has no history: check out with fetch-depth: 0 and fetch-tags: true)';
  if (spec.kind === 'ref') {
    const commit = await run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${spec.ref}^{commit}`], cwd).catch(() => '');
    if (!commit) throw new UserError(`anchor '${spec.ref}' is not a revision of this repository${shallowHint}.`);
    return { commit, label: spec.ref };
  }
  if (spec.kind === 'tag') {
    // Tags head contains, but not those on head itself (a release push compares the release with the one before).
    const tags = await run(['tag', '--list', '--merged', head, '--no-contains', head, '--sort=-v:refname', '--', spec.pattern], cwd);
    const tag = tags.split('\n').find(Boolean);
    if (!tag)
      throw new UserError(
        `no tag matching '${spec.pattern}' before ${head}: nothing to compare with${shallowHint}. Set anchor to a revision, or days:N.`,
      );
    const commit = await run(['rev-parse', '--verify', `refs/tags/${tag}^{commit}`], cwd);
    return { commit, label: tag };
  }
  const before = new Date(now.getTime() - spec.days * 86_400_000).toISOString();
  const commit = await run(['rev-list', '-1', '--first-parent', `--before=${before}`, head, '--'], cwd);
  if (!commit) throw new UserError(`no commit of ${head} is ${spec.days} days old${shallowHint}.`);
  return { commit, label: `${spec.days} days ago (${commit.slice(0, 7)})` };
}

/** The commits after `good` up to `bad`, oldest first, along the first parent (the default branch's own pushes and merges). */
export async function commitsBetween(good: string, bad: string, cwd: string, run: Git = defaultGit): Promise<BisectCommit[]> {
  const out = await run(['log', '--first-parent', '--reverse', '--format=%H%x09%s', `${good}..${bad}`, '--'], cwd);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [sha, ...subject] = line.split('\t');
      return { sha: sha!, subject: subject.join('\t') };
    });
}

/** A commit's date, subject and tags, and its parent's tags, for its history record. */
export async function commitInfo(commit: string, parent: string, cwd: string, run: Git = defaultGit): Promise<CommitInfo> {
  const [date = '', ...subject] = (await run(['log', '-1', '--format=%cI%x09%s', commit, '--'], cwd)).split('\t');
  const tagsAt = async (sha: string) => (await run(['tag', '--points-at', sha], cwd)).split('\n').filter(Boolean);
  return { date, subject: subject.join('\t'), tags: await tagsAt(commit), parentTags: await tagsAt(parent) };
}

/** The full sha of a revision. */
export async function commitOf(revision: string, cwd: string, run: Git = defaultGit): Promise<string> {
  const sha = await run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`], cwd).catch(() => '');
  if (!sha) throw new UserError(`'${revision}' is not a revision of this repository.`);
  return sha;
}

/** What the installs of a run over `commits` will be, read from the commits before any is checked out. */
export interface InstallPlan {
  /** Distinct dependency sets among the commits whose install is reused (same key: installed once). */
  sets: number;
  /** Commits whose install is never reused (their own install script, workspaces, a local dependency), with why. */
  unshared: { commit: string; reason: string }[];
  /** Commits with nothing to install. */
  none: number;
}

/**
 * The dependency sets of `commits` (the project at `cwd`'s place in each), keyed as their installs are
 * (installKeyOf), from the commits' own files: what a bisect's plan line says before it starts.
 */
export async function installPlan(
  commits: readonly string[],
  cwd: string,
  install: string | false | undefined,
  run: Git = defaultGit,
): Promise<InstallPlan> {
  const keys = new Set<string>();
  const unshared: InstallPlan['unshared'] = [];
  let none = 0;
  for (const commit of commits) {
    const present = new Set((await run(['ls-tree', '--name-only', commit, '--', ...INSTALL_FILES], cwd)).split('\n').filter(Boolean));
    const contents = new Map<string, Buffer>();
    for (const file of INSTALL_FILES)
      if (present.has(file)) contents.set(file, Buffer.from(await run(['show', `${commit}:./${file}`], cwd)));
    const read = (file: string) => contents.get(file);
    // Which install a commit needs, as a key: whether its tool is on this machine is the run's question, not the plan's.
    const command = install === undefined ? detectInstallOf(read, () => true) : install || undefined;
    if (!command) {
      none++;
      continue;
    }
    const key = installKeyOf(read, command);
    if (key.key === undefined) unshared.push({ commit, reason: key.reason });
    else keys.add(key.key);
  }
  return { sets: keys.size, unshared, none };
}
