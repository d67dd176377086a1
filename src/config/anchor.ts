import { isRevisionName } from './revision.js';
import { UserError } from '../util/errors.js';

/** What drift compares with: a named revision, the newest release tag matching a pattern, or main as of N days ago. */
export type AnchorSpec = { kind: 'ref'; ref: string } | { kind: 'tag'; pattern: string } | { kind: 'days'; days: number };

/** The default anchor: the newest release tag named like v1.2.3. */
export const DEFAULT_ANCHOR: AnchorSpec = { kind: 'tag', pattern: 'v*' };

/**
 * An anchor as the action's input and the CLI write it: `tag:v*` (the newest tag matching the pattern that
 * head contains), `days:30` (head's first-parent history as of 30 days ago), or a revision (a tag, a branch, a sha).
 */
export function parseAnchor(text: string, what = 'anchor'): AnchorSpec {
  const value = text.trim();
  if (value.startsWith('tag:')) {
    const pattern = value.slice(4);
    // A glob for git tag --list, passed as one argument (never through a shell): refname characters and * ? only.
    if (!/^[A-Za-z0-9._/*?+-]{1,100}$/.test(pattern))
      throw new UserError(`${what} '${text}': the tag pattern may hold letters, digits, . _ / + - and the globs * ?, e.g. tag:v*.`);
    return { kind: 'tag', pattern };
  }
  if (value.startsWith('days:')) {
    const days = Number(value.slice(5));
    if (!Number.isInteger(days) || days < 1 || days > 3650)
      throw new UserError(`${what} '${text}': days must be a whole number from 1 to 3650, e.g. days:30.`);
    return { kind: 'days', days };
  }
  if (!isRevisionName(value)) throw new UserError(`${what} '${text}' is not tag:<pattern>, days:<n> or a revision name.`);
  return { kind: 'ref', ref: value };
}
