/** compare --solo-check's sections of the terminal and markdown reports. */
import { formatInterval } from './format.js';
import type { ReportBenchmark } from './model.js';
import { soloLevelsLine } from './levels.js';
import type { SoloCheckInfo } from './solo.js';

/** What the solo check adds to the reports: a heading, one row per checked benchmark, and a line per level or disagreement. */
export interface SoloSections {
  heading: string;
  header: string[];
  rows: string[][];
  notes: string[];
}

export const SOLO_LEGEND =
  'solo: each revision alone in fresh processes (pairs AB BA), as production runs one revision; its 95% interval is the ' +
  "Hodges-Lehmann one of the processes' figures. shared: both revisions alternating in one process, as the rounds measured. " +
  'They disagree when the intervals do not meet: the figure then depends on the process a revision runs in, and the ' +
  'verdict is read from both intervals together. So it is, marked "levels", where a revision\'s solo processes sat on ' +
  'distinct speeds and the solo estimate lies outside the shared interval.';

export function soloSections(benchmarks: readonly ReportBenchmark[], info: SoloCheckInfo): SoloSections {
  const checked = benchmarks.filter((b) => b.solo);
  const disagree = checked.filter((b) => b.solo!.agreement === 'disagrees').length;
  // Read from both where the intervals meet: a revision on speed levels, the solo estimate outside (judgedWithSolo).
  const onLevels = (b: ReportBenchmark) => b.solo!.shared !== undefined && b.solo!.agreement === 'agrees';
  const levelled = checked.filter(onLevels).length;
  const heading = info.error
    ? `solo check: failed: ${info.error}`
    : `solo check: ${checked.length} compared, ${disagree} disagree${disagree === 1 ? 's' : ''}` +
      `${levelled ? `, ${levelled} read on speed levels` : ''} (${info.processes} processes per revision)`;
  const rows = checked.map((b) => [
    b.id,
    b.solo!.shared ? formatInterval(b.solo!.shared) : b.change ? formatInterval(b.change) : '–',
    b.solo!.change ? formatInterval(b.solo!.change) : '–',
    onLevels(b) ? 'levels' : b.solo!.agreement,
  ]);
  const notes: string[] = [];
  for (const b of checked) {
    for (const revision of ['base', 'head'] as const) {
      const levels = b.solo![revision]?.levels;
      if (levels) notes.push(`${b.id}: ${soloLevelsLine(revision, levels)}`);
    }
    if (b.solo!.error) notes.push(`${b.id}: ${b.solo!.error}`);
  }
  return { heading, header: ['benchmark', 'shared', 'solo', 'agreement'], rows, notes };
}
