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
export function roundLevelsLine(levels: { base?: ProcessLevels; head?: ProcessLevels }): string {
  const present = (['base', 'head'] as const).filter((side) => levels[side]);
  // Two levels that are the task orders are said as such (a report made elsewhere may carry anything: checked here).
  const order = (side: 'base' | 'head') => {
    const { levels: found, byOrder } = levels[side]!;
    return found.length === 2 && byOrder && byOrder.declared > 0 && byOrder.reversed > 0 ? byOrder : undefined;
  };
  const sides = present.map((side) => {
    const byOrder = order(side);
    if (!byOrder) return `at ${side} it ran at ${levelsText(levels[side]!)}`;
    const rounds = levels[side]!.levels.reduce((sum, level) => sum + level.processes, 0);
    return (
      `at ${side} it ran at 2 speeds, one per task order: ${formatMicros(1e6 / byOrder.declared)} a call in the declared order, ` +
      `${formatMicros(1e6 / byOrder.reversed)} reversed (${rounds} rounds)`
    );
  });
  const why = [
    ...(present.some((side) => order(side))
      ? [
          'its speed follows the tasks run before it in the process ' +
            '(the rounds alternate the declared order and the reverse, so neither decides the change alone)',
        ]
      : []),
    ...(present.some((side) => !order(side))
      ? ['its figure depends on the process it runs in; compare --solo-check measures each revision alone in fresh processes']
      : []),
  ];
  return `${sides.join('; ')}: ${why.join('; ')}`;
}
