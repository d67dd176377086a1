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

/** A revision's two levels when they are exactly the two task orders (a report made elsewhere may carry anything: checked here). */
function orderLevels(levels: ProcessLevels): { declared: number; reversed: number } | undefined {
  const { levels: found, byOrder } = levels;
  return found.length === 2 && byOrder && byOrder.declared > 0 && byOrder.reversed > 0 ? byOrder : undefined;
}

/** Why levels that are the task orders are there. */
const ORDER_WHY =
  'its speed follows the tasks run before it in the process (the task order alternates, declared and reversed, ' +
  'so neither decides the change alone)';

/** "2 speeds, one per task order: 8 ns a call in the declared order, 5.4 ns reversed (8 rounds)", or levelsText. */
function sideText(levels: ProcessLevels, unit: 'rounds' | 'processes'): string {
  const byOrder = orderLevels(levels);
  if (!byOrder) return levelsText(levels);
  const n = levels.levels.reduce((sum, level) => sum + level.processes, 0);
  return (
    `2 speeds, one per task order: ${formatMicros(1e6 / byOrder.declared)} a call in the declared order, ` +
    `${formatMicros(1e6 / byOrder.reversed)} reversed (${n} ${unit})`
  );
}

/** The line a benchmark's shared rounds get when a revision's rounds sat on levels (ReportBenchmark.levels). */
export function roundLevelsLine(levels: { base?: ProcessLevels; head?: ProcessLevels }): string {
  const present = (['base', 'head'] as const).filter((side) => levels[side]);
  const sides = present.map((side) => `at ${side} it ran at ${sideText(levels[side]!, 'rounds')}`);
  const why = [
    ...(present.some((side) => orderLevels(levels[side]!)) ? [ORDER_WHY] : []),
    ...(present.some((side) => !orderLevels(levels[side]!))
      ? ['its figure depends on the process it runs in; compare --solo-check measures each revision alone in fresh processes']
      : []),
  ];
  return `${sides.join('; ')}: ${why.join('; ')}`;
}

/** The solo check's note on one revision's fresh processes that sat on levels. */
export function soloLevelsLine(revision: 'base' | 'head', levels: ProcessLevels): string {
  return `at ${revision}, this call runs at ${sideText(levels, 'processes')}${orderLevels(levels) ? `: ${ORDER_WHY}` : ''}`;
}
