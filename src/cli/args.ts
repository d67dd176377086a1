import { parseArgs } from 'node:util';
import {
  SOLO_PROCESSES,
  SOLO_PROCESSES_RANGE,
  type HttpMode,
  type Isolation,
  type MeasureKind,
  type ProfileMode,
} from '../config/types.js';
import { parseBudget, parseDuration } from '../config/units.js';
import { parseShardSpec, type ShardSpec } from '../measure/shard.js';
import { UserError } from '../util/errors.js';

export const USAGE = `Usage: benchgate compare --base <ref> [options]
       benchgate list [--base <ref>] [--head <ref>] [--files <glob>] [--json <file>] [--config <file>]
       benchgate merge <shard report>... [--json <file>] [--markdown <file>]
       benchgate calibrate [--base <ref>] [--time-limit <d>] [--json <file>] [--config <file>]
       benchgate record [--base <ref>] [--head <ref>] [--history <file>] [compare options]
       benchgate trend [--history <file>] [--anchor <anchor>] [--markdown <file>]
       benchgate drift [--anchor <anchor>] [--drift-budget <p>] [--history <file>] [compare options]
       benchgate bisect --good <ref> [--bad <ref>] [--benchmark <pattern>] [--json <file>]
       benchgate publish --out <dir> [<history file>...] [--anchor tag:<pattern>] [--bisect <file>]

Compare the micro-benchmarks and HTTP load tests of two git revisions and fail when a budget is broken.

Options:
  --base <ref>          revision to compare against (required), e.g. main or a sha
  --head <ref>          revision to test (default: the working tree, uncommitted changes included)
  --config <file>       config file (default: benchgate.yml in the current directory)
  --json <file>         write the report as JSON
  --markdown <file>     write the report as markdown (for a PR comment)
  --rounds <n>          rounds before the first look (default 10, or benchgate.yml's rounds); a
                        round measures both revisions in fresh processes
  --time-limit <d>      upper bound on measuring, e.g. 90s or 5m (default 5m); checkout,
                        install and build are not counted
  --install-timeout <d> upper bound on each revision's install and build commands (default 15m)
  --install-cache <dir> keep installs in <dir> and reuse them in later runs when the lockfile
                        and package.json are the same (within one run they always are reused, and
                        without a lockfile so are those of the same declared dependencies)
  --files <glob>        bench files to run, in place of micro.files (repeatable), e.g.
                        --files 'benchmark/*.js'
  --isolation <mode>    alternate (default), thread or process
  --measure <what>      time (default), counts: instructions per call under Valgrind's
                        callgrind, deterministic (docs/counts.md), or both (the verdict from
                        micro.gate, time by default; the other beside it), for every
                        micro-benchmark: in place of micro.measure and micro.measures
  --http-mode <mode>    duet (default), live or fresh: how HTTP load tests run their servers
  --profile <when>      CPU-profile each revision to show where the time went: regressions
                        (default), always (every compared benchmark) or never
  --profile-dir <dir>   where the .cpuprofile files go (default .benchgate/profiles)
  --shard <i>/<n>       measure the i-th of n parts of the suite (whole bench files and load
                        tests, balanced by cost), judged at the whole suite's level; --json
                        writes the shard report that merge joins
  --native-check        then run each compared bench file as its author does (node <file>, with
                        the flags of the npm script that runs it, or vitest bench for a vitest
                        file), twice per revision (a third time while
                        the check has taken under a minute), and show the harness's own figures
                        beside benchgate's, noting where they disagree beyond both runs' noise
                        (information: never the verdict)
  --native-runs <n>     with --native-check: run each file exactly n times per revision (2 to 20),
                        alternating, whatever the time: more runs, a narrower native interval
  --native-timeout <d>  with --native-check: kill a native run after this long (default 2m)
  --solo-check          then measure each compared micro-benchmark with each revision alone in
                        fresh processes (pairs AB BA, as production runs one revision), show its
                        change beside the shared-process one, and name the speed levels a
                        revision's processes fall on; where the two intervals lie apart, the verdict
                        is read from both together (more cautious, never bolder)
  --solo-processes <n>  with --solo-check: fresh processes per revision (6 to 48, default 12)
  --no-color            plain output even on a terminal
  -h, --help            show this help
  -v, --version         show the version

list loads the bench files of the working tree (or of base and head, checked out and installed)
and prints each file, the harness it uses (and that copy's version) and its task ids, measuring nothing;
exit 2 where a file did not load or there is nothing to measure (no task, no http load test).

merge joins the reports of every shard of one compare --shard run (shell patterns such as
'shard-*.json' are expanded) into one report: one table, one verdict. A missing or repeated shard,
shards of other commits, config or version, or a benchmark claimed twice is an error naming it.

calibrate runs one revision (default HEAD) against itself for the time limit (default 3m) and
prints, per benchmark, the noise of a round, what a compare with the configured rounds can
resolve, and a suggested budget.

History (docs/history.md): every record is a change measured side by side, never an absolute figure.
record compares --head (default HEAD) with --base (default its first parent) and appends one record
per benchmark to --history (default .benchgate/history.jsonl). trend draws main's cumulative change
since --anchor from those records. drift compares HEAD with the anchor side by side, judged against
--drift-budget (default 10%). An anchor is tag:<pattern> (the newest tag before HEAD, default tag:v*),
days:<n> (HEAD's first-parent history n days ago) or a revision. bisect finds the first commit after
--good whose benchmarks (--benchmark, a glob on ids where * spans '/'; default all) lose more than their budget
against --good, by side-by-side compares: about log2(commits) of them. publish writes the history
(the files given, shell patterns expanded, default --history) as a static site to --out: an overview,
a page per benchmark, an Atom feed of regressions (docs/history.md#a-site-of-the-history); --anchor
tag:<pattern> names the releases (default tag:v*), --repository the https URL commits link to
(default: the origin remote's), --site-url where the site is served (for the feed), --title its title,
--bisect <file> (repeatable) a bisect --json result to show on the pages of the benchmarks it searched for.

Exit codes: 0 no budget shown broken (inconclusive rows pass), 1 a budget is broken, 2 an error.`;

/** A command, and the folder where installs are kept across runs (--install-cache), for those that check out. */
export type Command = CommandKind & { installCache?: string | undefined };

type CommandKind =
  | { kind: 'help' }
  | {
      kind: 'calibrate';
      base: string;
      config: string | undefined;
      json: string | undefined;
      timeLimitMs: number;
      color: boolean | undefined;
    }
  | { kind: 'version' }
  | {
      kind: 'list';
      base: string | undefined;
      head: string | undefined;
      config: string | undefined;
      json: string | undefined;
      files: string[] | undefined;
    }
  | { kind: 'merge'; files: string[]; json: string | undefined; markdown: string | undefined; color: boolean | undefined }
  | {
      kind: 'record';
      base: string | undefined;
      head: string;
      history: string;
      config: string | undefined;
      json: string | undefined;
      markdown: string | undefined;
      timeLimitMs: number | undefined;
      color: boolean | undefined;
    }
  | { kind: 'trend'; history: string; anchor: string | undefined; config: string | undefined; markdown: string | undefined }
  | {
      kind: 'drift';
      anchor: string;
      driftBudget: number;
      history: string;
      config: string | undefined;
      json: string | undefined;
      markdown: string | undefined;
      timeLimitMs: number | undefined;
      color: boolean | undefined;
    }
  | {
      kind: 'publish';
      out: string;
      histories: string[];
      releases: string;
      repository: string | undefined;
      siteUrl: string | undefined;
      title: string | undefined;
      bisects: string[];
    }
  | {
      kind: 'bisect';
      good: string;
      bad: string;
      benchmark: string | undefined;
      config: string | undefined;
      json: string | undefined;
      timeLimitMs: number | undefined;
    }
  | {
      kind: 'compare';
      base: string;
      head: string | undefined;
      config: string | undefined;
      json: string | undefined;
      markdown: string | undefined;
      rounds: number | undefined;
      timeLimitMs: number | undefined;
      installTimeoutMs: number | undefined;
      isolation: Isolation | undefined;
      measure: MeasureKind | undefined;
      files: string[] | undefined;
      httpMode: HttpMode | undefined;
      profile: ProfileMode | undefined;
      profileDir: string | undefined;
      shard: ShardSpec | undefined;
      /** --native-check: run each compared bench file natively too, for its harness's own figures. */
      nativeCheck: boolean;
      /** --native-timeout: each native run's bound (default NATIVE_RUN_TIMEOUT_MS). */
      nativeTimeoutMs: number | undefined;
      /** --native-runs: native runs per revision, all of them whatever the time (default: 2, a third while time allows). */
      nativeRuns: number | undefined;
      /** --solo-check: fresh processes per revision (default SOLO_PROCESSES), or undefined when not asked for. */
      soloProcesses: number | undefined;
      color: boolean | undefined;
    };

const OPTIONS = {
  base: { type: 'string' },
  head: { type: 'string' },
  config: { type: 'string' },
  json: { type: 'string' },
  markdown: { type: 'string' },
  rounds: { type: 'string' },
  'time-limit': { type: 'string' },
  'install-timeout': { type: 'string' },
  'install-cache': { type: 'string' },
  isolation: { type: 'string' },
  measure: { type: 'string' },
  'http-mode': { type: 'string' },
  profile: { type: 'string' },
  'profile-dir': { type: 'string' },
  files: { type: 'string', multiple: true },
  shard: { type: 'string' },
  'native-check': { type: 'boolean' },
  'native-timeout': { type: 'string' },
  'native-runs': { type: 'string' },
  'solo-check': { type: 'boolean' },
  'solo-processes': { type: 'string' },
  history: { type: 'string' },
  anchor: { type: 'string' },
  'drift-budget': { type: 'string' },
  good: { type: 'string' },
  bad: { type: 'string' },
  benchmark: { type: 'string' },
  out: { type: 'string' },
  bisect: { type: 'string', multiple: true },
  repository: { type: 'string' },
  'site-url': { type: 'string' },
  title: { type: 'string' },
  'no-color': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

const parse = (argv: readonly string[]) => parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: OPTIONS });
type Values = ReturnType<typeof parse>['values'];

/** Parse the command line strictly: an unknown flag or a bad value is an error naming it. */
export function parseCommand(argv: readonly string[]): Command {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UserError(`${(error as Error).message}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  const command = commandOf(values, positionals);
  return values['install-cache'] === undefined ? command : { ...command, installCache: values['install-cache'] };
}

function commandOf(values: Values, positionals: string[]): CommandKind {
  if (values.help) return { kind: 'help' };
  if (values.version) return { kind: 'version' };
  if (positionals.length === 0) return { kind: 'help' };
  if (positionals[0] === 'calibrate' && positionals.length === 1) {
    return {
      kind: 'calibrate',
      base: values.base ?? 'HEAD',
      config: values.config,
      json: values.json,
      timeLimitMs: values['time-limit'] === undefined ? 180_000 : parseFlagDuration(values['time-limit']),
      color: values['no-color'] ? false : undefined,
    };
  }
  if (positionals[0] === 'list' && positionals.length === 1)
    return { kind: 'list', base: values.base, head: values.head, config: values.config, json: values.json, files: values.files };
  if (positionals[0] === 'merge') {
    const files = positionals.slice(1);
    if (files.length === 0) throw new UserError(`merge needs the shard reports, e.g. benchgate merge shard-*.json.\n\n${USAGE}`);
    return { kind: 'merge', files, json: values.json, markdown: values.markdown, color: values['no-color'] ? false : undefined };
  }
  const history = values.history ?? DEFAULT_HISTORY_FILE;
  const color = values['no-color'] ? false : undefined;
  const timeLimitMs = values['time-limit'] === undefined ? undefined : parseFlagDuration(values['time-limit']);
  if (positionals[0] === 'record' && positionals.length === 1)
    return {
      kind: 'record',
      base: values.base,
      head: values.head ?? 'HEAD',
      history,
      config: values.config,
      json: values.json,
      markdown: values.markdown,
      timeLimitMs,
      color,
    };
  if (positionals[0] === 'trend' && positionals.length === 1)
    return { kind: 'trend', history, anchor: values.anchor, config: values.config, markdown: values.markdown };
  if (positionals[0] === 'drift' && positionals.length === 1)
    return {
      kind: 'drift',
      anchor: values.anchor ?? 'tag:v*',
      driftBudget: values['drift-budget'] === undefined ? DEFAULT_DRIFT_BUDGET : parseFlagBudget(values['drift-budget']),
      history,
      config: values.config,
      json: values.json,
      markdown: values.markdown,
      timeLimitMs,
      color,
    };
  if (positionals[0] === 'bisect' && positionals.length === 1) {
    if (!values.good) throw new UserError(`bisect needs --good: a revision without the loss, e.g. --good v1.4.0.\n\n${USAGE}`);
    return {
      kind: 'bisect',
      good: values.good,
      bad: values.bad ?? 'HEAD',
      benchmark: values.benchmark,
      config: values.config,
      json: values.json,
      timeLimitMs,
    };
  }
  if (positionals[0] === 'publish') {
    if (!values.out) throw new UserError(`publish needs --out: the folder to write the site to, e.g. --out site.\n\n${USAGE}`);
    const releases = values.anchor ?? 'tag:v*';
    if (!releases.startsWith('tag:') || releases.length === 4)
      throw new UserError(`--anchor of publish names the releases a reader can start from: tag:<pattern>, e.g. tag:v*; got '${releases}'.`);
    return {
      kind: 'publish',
      out: values.out,
      histories: positionals.length > 1 ? positionals.slice(1) : [history],
      releases: releases.slice(4),
      repository: values.repository,
      siteUrl: values['site-url'],
      title: values.title,
      bisects: values.bisect ?? [],
    };
  }
  if (positionals[0] !== 'compare' || positionals.length > 1) {
    throw new UserError(
      `Unknown command '${positionals.join(' ')}': the commands are 'compare', 'list', 'merge', 'calibrate', ` +
        `'record', 'trend', 'drift', 'bisect' and 'publish'.\n\n${USAGE}`,
    );
  }
  if (!values.base) throw new UserError(`--base is required: the revision to compare against, e.g. --base main.\n\n${USAGE}`);
  if (values['native-timeout'] !== undefined && !values['native-check'])
    throw new UserError('--native-timeout bounds the runs of --native-check: add --native-check, or leave it out.');
  if (values['native-runs'] !== undefined && !values['native-check'])
    throw new UserError('--native-runs sets how many runs --native-check makes: add --native-check, or leave it out.');
  if (values['solo-processes'] !== undefined && !values['solo-check'])
    throw new UserError('--solo-processes sets how many processes --solo-check runs: add --solo-check, or leave it out.');
  return {
    kind: 'compare',
    base: values.base,
    head: values.head,
    config: values.config,
    json: values.json,
    markdown: values.markdown,
    rounds: values.rounds === undefined ? undefined : parseRounds(values.rounds),
    timeLimitMs: values['time-limit'] === undefined ? undefined : parseFlagDuration(values['time-limit']),
    installTimeoutMs:
      values['install-timeout'] === undefined ? undefined : parseFlagDuration(values['install-timeout'], '--install-timeout'),
    isolation: values.isolation === undefined ? undefined : parseIsolation(values.isolation),
    measure: values.measure === undefined ? undefined : parseMeasure(values.measure),
    files: values.files,
    httpMode: values['http-mode'] === undefined ? undefined : parseHttpMode(values['http-mode']),
    profile: values.profile === undefined ? undefined : parseProfileMode(values.profile),
    profileDir: values['profile-dir'],
    shard: values.shard === undefined ? undefined : parseShardSpec(values.shard),
    nativeCheck: values['native-check'] === true,
    nativeTimeoutMs: values['native-timeout'] === undefined ? undefined : parseFlagDuration(values['native-timeout'], '--native-timeout'),
    nativeRuns: values['native-runs'] === undefined ? undefined : parseNativeRuns(values['native-runs']),
    soloProcesses: !values['solo-check']
      ? undefined
      : values['solo-processes'] === undefined
        ? SOLO_PROCESSES
        : parseSoloProcesses(values['solo-processes']),
    color: values['no-color'] ? false : undefined,
  };
}

/** Where record, trend and drift keep the history when --history is not given. */
export const DEFAULT_HISTORY_FILE = '.benchgate/history.jsonl';
/** The cumulative loss drift allows by default: two releases' worth of 5% budgets. */
export const DEFAULT_DRIFT_BUDGET = 0.1;

function parseFlagBudget(text: string): number {
  try {
    return parseBudget(text);
  } catch {
    throw new UserError(`--drift-budget '${text}' is not a share like 10% (above 0%, below 100%).`);
  }
}

/** A flag's whole number within [min, max], or an error naming the flag, the bounds and (when given) why they are so. */
function parseWholeNumber(text: string, flag: string, min: number, max: number, why?: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new UserError(`${flag} '${text}' is not a whole number from ${min} to ${max}${why ? ` (${why})` : ''}.`);
  return value;
}

const parseRounds = (text: string) => parseWholeNumber(text, '--rounds', 2, 500);

const parseSoloProcesses = (text: string) =>
  parseWholeNumber(
    text,
    '--solo-processes',
    ...SOLO_PROCESSES_RANGE,
    'fresh processes per revision; six are the least in which speed levels can be told from spread',
  );

const parseNativeRuns = (text: string) =>
  parseWholeNumber(text, '--native-runs', 2, 20, 'runs per revision; two are the least a figure of the noise between runs needs');

function parseFlagDuration(text: string, flag = '--time-limit'): number {
  try {
    return parseDuration(text);
  } catch {
    throw new UserError(`${flag} '${text}' is not a duration like 90s or 5m.`);
  }
}

function parseHttpMode(text: string): HttpMode {
  if (text === 'duet' || text === 'fresh' || text === 'live') return text;
  throw new UserError(`--http-mode '${text}' is not duet, live or fresh.`);
}

function parseIsolation(text: string): Isolation {
  if (text === 'alternate' || text === 'thread' || text === 'process') return text;
  throw new UserError(`--isolation '${text}' is not alternate, thread or process.`);
}

function parseMeasure(text: string): MeasureKind {
  if (text === 'time' || text === 'counts' || text === 'both') return text;
  throw new UserError(`--measure '${text}' is not time, counts or both.`);
}

function parseProfileMode(text: string): ProfileMode {
  if (text === 'regressions' || text === 'always' || text === 'never') return text;
  throw new UserError(`--profile '${text}' is not regressions, always or never.`);
}
