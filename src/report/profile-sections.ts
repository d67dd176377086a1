import path from 'node:path';
import { formatDuration, formatMicros, formatPercent, formatShare, isFiniteNumber } from '../util/format.js';
import type { Agreement } from '../explain/agreement.js';
import type { Explanation, ProfileExplanation } from '../explain/run.js';
import { countUnit, formatCount, formatInterval } from './format.js';
import type { CountedFunctionRow, CountsProfileExplanation } from '../explain/counts.js';
import type { ProfileRow } from '../explain/profile.js';

/** What the terminal and markdown reports show of a benchmark's profiles. */
export interface ProfileSections {
  title: string;
  header: string[];
  rows: string[][];
  /** The project's own functions that cost more, with everything they call. */
  ownCode: string[];
  /** The .cpuprofile files' names. */
  files: string[];
  /** A profile in instructions: the functions that cost less at head (what a change saved, or moved elsewhere). */
  fell?: string[][];
  /** Where the profile's change disagrees with the rounds': one line, with the reason found. */
  disagreement?: string;
  error?: string;
}

const share = (x: number) => formatShare(x, 1);

/** "randomBytes ← makeId": the function, and the project's function it was called from. */
function name(row: ProfileRow): string {
  return row.via ? `${row.function} ← ${row.via.function}` : row.function;
}

/** "node:internal/crypto/random:97"; native code and V8's own entries have no script. */
function where(row: ProfileRow): string {
  return row.location || (row.function.startsWith('(') ? 'V8' : 'native');
}

export function profileSections(id: string, profile: Explanation): ProfileSections {
  const took = formatDuration(profile.durationMs);
  if ('error' in profile) return { title: `${id}: no CPU profile`, header: [], rows: [], ownCode: [], files: [], error: profile.error };
  if ('measure' in profile) return countsSections(id, profile);
  const unit = profile.unit;
  // Reports made before the profiles said how they ran have no `process`.
  const how =
    profile.process === 'shared'
      ? ', both revisions in one process as measured'
      : profile.process === 'duet'
        ? ', both servers at once on one shared core as measured: a sample counts the time a server waited for the core ' +
          'too, so read the change, not the size'
        : profile.process === 'alone'
          ? ', each revision alone'
          : '';
  const disagreement = profile.agreement && !profile.agreement.agrees ? disagreementLine(profile, profile.agreement) : undefined;
  return {
    title: `${id}: CPU per ${unit} ${formatMicros(profile.perOpUs.base)} → ${formatMicros(profile.perOpUs.head)} (profiled in ${took}${how})`,
    ...(disagreement ? { disagreement } : {}),
    header: ['function', 'where', 'base', 'head', `change per ${unit}`],
    rows: profile.top.map((row) => [
      name(row),
      where(row),
      share(row.baseShare),
      share(row.headShare),
      `+${formatMicros(row.headPerOpUs - row.basePerOpUs)}`,
    ]),
    // Where the rows' ← names are, and what each of the project's functions costs with what it calls.
    ownCode: profile.ownCode.map(
      (row) =>
        `${row.function} (${row.location}): ${formatMicros(row.basePerOpUs)} → ${formatMicros(row.headPerOpUs)} per ${unit}, with what it calls`,
    ),
    files: [profile.files.base, profile.files.head].map((file) => path.basename(file)),
  };
}

/**
 * A counted benchmark's profile: "…: instructions per call 1.10k → 13.5k (callgrind, seed 1, profiled in 24s, each
 * revision alone)", its functions' own counts a call at each revision, those that grew most, then those that fell.
 */
function countsSections(id: string, profile: CountsProfileExplanation): ProfileSections {
  const unit = countUnit(profile.figure);
  const what = profile.figure === 'cycles' ? 'estimated cycles' : 'instructions';
  const count = (x: number) => `${formatCount(x)} ${unit}`;
  const signed = (x: number) => `${x >= 0 ? '+' : '−'}${count(Math.abs(x))}`;
  const row = (r: CountedFunctionRow) => [r.function, r.where, count(r.base), count(r.head), signed(r.head - r.base)];
  return {
    title:
      `${id}: ${what} per call ${count(profile.perOp.base)} → ${count(profile.perOp.head)} ` +
      `(callgrind, seed ${profile.seed}, profiled in ${formatDuration(profile.durationMs)}, ` +
      `each revision alone; each function's own ${what}, without what it calls)`,
    ...(profile.disagrees
      ? {
          disagreement:
            `the profiled process counted ${count(profile.perOp.base)} → ${count(profile.perOp.head)} a call where the verdict's ` +
            `seed ${profile.seed} counted ${count(profile.disagrees.base)} → ${count(profile.disagrees.head)}: it did not repeat that ` +
            "seed's process (a collection or a compilation fell elsewhere). The verdict is the seeds'; read the functions " +
            'below as leads.',
        }
      : {}),
    header: ['function', 'where', 'base', 'head', 'change per call'],
    rows: profile.top.map(row),
    ownCode: profile.ownCode.map((r) => `${r.function} (${r.where}): ${count(r.base)} → ${count(r.head)} per call, with what it calls`),
    fell: profile.fell.map(row),
    files: [],
  };
}

const costOf = { call: 'time a call', request: 'main-thread CPU a request' } as const;
const VERDICT = "The verdict is the rounds'";
const LEADS = 'read the functions below as leads.';
// A report read from a file may hold null where a number was (the schema allows it): shown as '–', never a crash.
const times = (x: number | null | undefined) => (isFiniteNumber(x) ? `${x >= 10 ? x.toFixed(0) : x.toFixed(2)}×` : '–');

/**
 * "the profile disagrees with the measurement: it reads -44.0% CPU a call where the rounds read +9.7% [+8.2%,
 * +11.0%] time a call; ..." and the reason found, in words chosen here from the reason's code.
 */
function disagreementLine(profile: ProfileExplanation, agreement: Agreement): string {
  const { unit } = profile;
  const what = agreement.disagrees === 'direction' ? 'in direction' : 'in size';
  const head =
    `the profile disagrees with the measurement ${what}: it reads ${formatPercent(agreement.profileChange)} CPU a ${unit} ` +
    `where the rounds read ${formatInterval(agreement.measured)} ${costOf[unit]}`;
  const gc = (side: 'base' | 'head') => formatMicros(profile.gcPerOpUs?.[side] ?? Number.NaN);
  if (agreement.reason === 'gc')
    return (
      `${head}; the garbage collector explains it: the profile spent ${gc('base')} → ${gc('head')} a ${unit} in it, and ` +
      `without it reads ${formatPercent(agreement.profileChangeWithoutGc)}: a collection fell on one revision while profiling. ` +
      `${VERDICT}.`
    );
  if (profile.process === 'shared')
    return (
      `${head}: the profiled process ran the two revisions at another ratio than the measured rounds did (one process can ` +
      `settle on its own speed level). ${VERDICT}; ${LEADS}`
    );
  if (profile.process === 'duet')
    return (
      `${head}: the profiled pair of servers ran at another ratio than the measured rounds did (each fresh pair of ` +
      `processes settles on its own level). ${VERDICT}; ${LEADS}`
    );
  return (
    `${head}: each revision was profiled alone in a fresh process, which can run at another speed level than the measured ` +
    `ones (base's profiled ${unit} cost ${times(agreement.factor.base)} its measured cost, head's ${times(agreement.factor.head)}). ` +
    `${VERDICT}; ${LEADS}`
  );
}
