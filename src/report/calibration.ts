import { formatDuration, formatShortPercent } from '../util/format.js';
import { terminalText as printable } from './escape.js';
import type { Report } from './model.js';

/** What `benchgate calibrate` finds for one benchmark, from an A/A run. */
export interface CalibratedBenchmark {
  id: string;
  kind: string;
  /** Robust SD of one round's ln(head/base), with identical code on both sides. */
  spread: number;
  /** Rounds the calibration ran. */
  rounds: number;
  /** What a compare with `compareRounds` rounds resolves beyond its budget with 95% power (relative). */
  resolvable: number;
  /** The smallest whole-percent budget at or above `resolvable`, 1% at least. */
  suggestedBudget: number;
  /** The budget the config gives it now. */
  budget: number;
  /** A/A must find nothing: set when it found a regression or an improvement (a biased measurement). */
  warning?: string;
}

export interface Calibration {
  version: 1;
  kind: 'calibration';
  ref: string;
  sha: string;
  compareRounds: number;
  durationMs: number;
  benchmarks: CalibratedBenchmark[];
  report: Report;
}

/** The calibration as a terminal table; names and refs go through `printable`, so they cannot drive the terminal. */
export function renderCalibration(calibration: Calibration): string {
  const pct = (x: number) => formatShortPercent(x, 1);
  const header = ['benchmark', 'noise/round', `resolves in ${calibration.compareRounds} rounds`, 'suggested budget', 'budget now'];
  const rows = calibration.benchmarks.map((b) => [
    printable(b.id),
    pct(b.spread),
    `≈${pct(b.resolvable)}`,
    pct(b.suggestedBudget),
    pct(b.budget),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const rounds = calibration.benchmarks[0]?.rounds ?? 0;
  const out = [
    `benchgate calibrate: ${printable(calibration.ref)} @ ${printable(calibration.sha.slice(0, 7))} ` +
      `against itself, ${rounds} rounds in ${formatDuration(calibration.durationMs)}`,
    '',
    line(header),
    ...rows.map(line),
    '',
    'noise/round: robust spread of one round with identical code on both sides. resolves: the smallest',
    'change beyond the budget a compare with these rounds catches 95% of the time. A budget below it',
    'lets regressions between the two pass unnoticed: raise the budget or the rounds.',
  ];
  for (const b of calibration.benchmarks.filter((b) => b.warning)) out.push(`warning: ${printable(b.id)}: ${printable(b.warning)}`);
  for (const b of calibration.benchmarks.filter((b) => b.budget < b.resolvable))
    out.push(
      `note: ${printable(b.id)}: budget ${pct(b.budget)} is below what ${calibration.compareRounds} rounds resolve (≈${pct(b.resolvable)})`,
    );
  return out.join('\n');
}
