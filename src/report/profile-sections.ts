import path from 'node:path';
import { formatDuration, formatMicros, formatShare } from '../util/format.js';
import type { Explanation } from '../explain/run.js';
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
  const unit = profile.unit;
  return {
    title: `${id}: CPU per ${unit} ${formatMicros(profile.perOpUs.base)} → ${formatMicros(profile.perOpUs.head)} (profiled in ${took})`,
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
