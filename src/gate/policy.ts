import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Checkout } from '../checkout/revisions.js';
import { CONFIG_FILE, loadConfig, parseConfig } from '../config/load.js';
import { type PolicyInfo, policyChanges, withPolicyOf } from '../config/policy.js';
import type { Config } from '../config/types.js';
import { type GateOptions, withOverrides } from './options.js';

/**
 * The run's policy (what decides pass or fail): base's config in the action by default, the working tree's
 * in the CLI (GateOptions.policy); what is measured stays the working tree's either way. The settings the
 * change makes different from base's are listed whichever applies, so a pull request that loosens its own
 * gate says so in the comment.
 */
export function choosePolicy(
  own: Config,
  tree: Pick<Checkout, 'base' | 'head'>,
  options: GateOptions,
): { config: Config; policy: PolicyInfo | undefined } {
  const file = path.relative(options.cwd, path.resolve(options.cwd, options.configFile ?? CONFIG_FILE));
  const atBase = path.join(tree.base.root, file);
  // A config outside the repository (bisect's recipe: a config kept beside it) is the same file for both revisions.
  const outside = tree.base.worktree !== undefined && path.relative(tree.base.worktree, atBase).startsWith('..');
  // No config at base (the pull request adds benchgate.yml): base's policy is the defaults.
  const base = outside ? own : existsSync(atBase) ? loadConfig({ root: tree.base.root, file }) : parseConfig('', atBase);
  const from = options.policy ?? 'head';
  const changes = policyChanges(base, own);
  const config = withOverrides(from === 'base' ? withPolicyOf(own, base) : own, options.overrides);
  if (changes.length)
    options.log(
      `policy changes at head: ${changes.map((c) => `${c.setting} ${c.base} → ${c.head}`).join(', ')}; ` +
        `${from === 'base' ? "this run uses base's (they apply once merged)" : 'this run uses them'}`,
    );
  return { config, policy: changes.length || from === 'base' ? { from, changes } : undefined };
}
