/** Speed levels in words, for the solo check and for the rounds of the shared process alike. */
import type { ProcessLevels } from '../stats/solo.js';
import { formatMicros } from '../util/format.js';

/** "2 speeds from process to process: 1.10 ms or 1.65 ms a call (7 and 5 of 12)". */
export function levelsText(levels: ProcessLevels): string {
  const speeds = levels.levels.map((level) => `${formatMicros(1e6 / level.opsPerSec)}`);
  const counts = levels.levels.map((level) => level.processes);
  const total = counts.reduce((sum, n) => sum + n, 0);
  const or = speeds.length === 2 ? speeds.join(' or ') : `${speeds.slice(0, -1).join(', ')} or ${speeds.at(-1)!}`;
  return `${levels.levels.length} speeds from process to process: ${or} a call (${counts.slice(0, -1).join(', ')} and ${counts.at(-1)!} of ${total})`;
}

/** The line a benchmark's shared rounds get when a revision's rounds sat on levels (ReportBenchmark.levels). */
export function roundLevelsLine(levels: { base?: ProcessLevels; head?: ProcessLevels; byOrder?: true }): string {
  if (levels.byOrder) {
    // The two levels are the two task orders: say which speed each order gave, not "from process to process".
    const sides = (['base', 'head'] as const).filter((side) => levels[side]).map((side) => `at ${side} ${orderText(levels[side]!)}`);
    return (
      `${sides.join('; ')}: its speed follows the tasks run before it in the process (its rounds alternate the declared ` +
      'order and the reverse, so neither order decides the change alone)'
    );
  }
  const sides = (['base', 'head'] as const)
    .filter((side) => levels[side])
    .map((side) => `at ${side} it ran at ${levelsText(levels[side]!)}`);
  return `${sides.join('; ')}: its figure depends on the process it runs in; compare --solo-check measures each revision alone in fresh processes`;
}

/** "it ran at 2 speeds, one per task order: 7.98 ns or 5.23 ns a call (4 and 4 of 8 rounds)". */
function orderText(levels: ProcessLevels): string {
  const [slow, fast] = levels.levels;
  const calls = `${formatMicros(1e6 / slow!.opsPerSec)} or ${formatMicros(1e6 / fast!.opsPerSec)} a call`;
  return `it ran at 2 speeds, one per task order: ${calls} (${slow!.processes} and ${fast!.processes} of ${slow!.processes + fast!.processes} rounds)`;
}
