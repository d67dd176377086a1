/**
 * What both reports show of compare --native-check, as plain text cells (each renderer escapes them its
 * own way: every name here is the pull request's): per bench file a heading, a row per benchmark with the
 * harness's own figures beside benchgate's change, and the file's notes (a run that failed or timed out,
 * task names that match no benchmark, why a file was not run).
 */
import { ID_SEPARATOR } from '../measure/micro/protocol.js';
import { formatDuration, formatOps, formatPercent, isFiniteNumber } from '../util/format.js';
import type { Report, ReportBenchmark } from './model.js';
import { differentMajors, IMPOSSIBLE_OPS_PER_SEC, MAJOR_VERSIONS, OWN_NOISE_RUNS, type NativeChange, type NativeSide } from './native.js';

export interface NativeFileSection {
  file: string;
  /** "bench/index.mjs · tinybench · 2 runs at base, 2 at head". */
  heading: string;
  rows: string[][];
  notes: string[];
}

export interface NativeSections {
  header: string[];
  files: NativeFileSection[];
  /** Benchmarks whose native change disagrees with benchgate's. */
  disagree: number;
  /** Benchmarks whose native interval meets benchgate's but is too wide to judge by (native.ts TOO_WIDE). */
  tooNoisy: number;
  /** Benchmarks with both figures. */
  compared: number;
  error: string | undefined;
}

export const NATIVE_HEADER = ['benchmark', 'native base', 'native head', 'native change', 'benchgate', 'agreement'];

export const NATIVE_LEGEND = [
  "native: each bench file run as its author runs it (node <file>, or vitest bench), the harness's own ops/s ± its margin",
  "of error (within one run); the native change's interval holds the larger of both margins and the noise between whole",
  "runs (measured from each revision's repeated runs, over the file's tasks or, from",
  `${OWN_NOISE_RUNS} runs per revision, the task's own if wider; none with one run per revision); it agrees when that`,
  "interval overlaps benchgate's, unless either is too wide to judge by (over 20 points and twice the other's: too noisy to judge);",
  'a figure above 1G ops/s (under 1 ns a call, marked "optimized away") is the harness\'s',
  "own loop after the compiler removed the call: not the code's cost, never judged",
].join(' ');

/** "6 compared, 1 disagrees, 2 too noisy to judge": the native check's counts, the same in both reports. */
export function nativeSummary(sections: Pick<NativeSections, 'compared' | 'disagree' | 'tooNoisy'>): string {
  const disagree = `${sections.disagree} disagree${sections.disagree === 1 ? 's' : ''}`;
  return `${sections.compared} compared, ${disagree}${sections.tooNoisy ? `, ${sections.tooNoisy} too noisy to judge` : ''}`;
}

/** The native check's sections, or undefined when the run had none. */
export function nativeSections(report: Pick<Report, 'nativeCheck' | 'benchmarks'>): NativeSections | undefined {
  const check = report.nativeCheck;
  if (!check) return undefined;
  const benchmarks = report.benchmarks.filter((b) => b.native);
  const files = (Array.isArray(check.files) ? check.files : []).map((file): NativeFileSection => {
    const runs = (revision: string) => file.runs.filter((r) => r.revision === revision).length;
    const heading = [
      file.file,
      ...(file.harness ? [file.harness] : []),
      ...(file.skipped ? [] : [`${plural(runs('base'), 'run')} at base, ${runs('head')} at head`]),
    ].join(' · ');
    const rows = benchmarks.filter((b) => b.file === file.file).map((b) => nativeRow(b, file.file));
    const { base, head } = file.versions ?? {};
    const notes = [
      ...(file.skipped ? [file.skipped] : []),
      ...(base && head && base !== head
        ? [
            differentMajors(file.versions)
              ? `base runs ${file.harness ?? 'its harness'} ${base} and head ${head}, major versions ` +
                `whose figures are not the same measure: the native changes are shown, not judged`
              : `base runs ${file.harness ?? 'its harness'} ${base} and head ${head}: the ` +
                `native change includes what the harness's new version measures differently`,
          ]
        : []),
      ...file.runs.filter((r) => r.problem).map((r) => `the run at ${r.revision} (${formatDuration(r.durationMs)}) ${r.problem}`),
      ...(file.unmatched.length ? [`task names of the native run that match no compared benchmark: ${file.unmatched.join(', ')}`] : []),
      // The major-version reason is said once for the file, above, not once per task.
      ...benchmarks
        .filter((b) => b.file === file.file && b.native?.note && !b.native.note.startsWith(MAJOR_VERSIONS))
        .map((b) => `${taskName(b.id, file.file)}: ${b.native!.note}`),
    ];
    return { file: String(file.file), heading, rows, notes };
  });
  return {
    header: NATIVE_HEADER,
    files,
    disagree: benchmarks.filter((b) => b.native?.agreement === 'disagrees').length,
    tooNoisy: benchmarks.filter((b) => b.native?.agreement === 'too-noisy').length,
    compared: benchmarks.filter((b) => b.native?.change).length,
    error: check.error,
  };
}

function nativeRow(b: ReportBenchmark, file: string): string[] {
  const native = b.native!;
  return [
    taskName(b.id, file),
    formatSide(native.base),
    formatSide(native.head),
    formatNativeChange(native.change),
    b.change && isFiniteNumber(b.change.estimate) ? formatPercent(b.change.estimate) : '–',
    native.agreement === 'too-noisy' ? 'too noisy to judge' : String(native.agreement),
  ];
}

/** The rest of the id after its file: "suite > task". */
function taskName(id: string, file: string): string {
  return id.startsWith(`${file}${ID_SEPARATOR}`) ? id.slice(file.length + ID_SEPARATOR.length) : id;
}

/** "1.23M ±0.8%", or "–" without a figure. */
export function formatSide(side: NativeSide | null | undefined): string {
  if (!side || !isFiniteNumber(side.opsPerSec)) return '–';
  const figure = isFiniteNumber(side.rme) ? `${formatOps(side.opsPerSec)} ±${side.rme.toFixed(1)}%` : formatOps(side.opsPerSec);
  return side.opsPerSec > IMPOSSIBLE_OPS_PER_SEC ? `${figure} (optimized away)` : figure;
}

/** "-12.0% [-15.1%, -8.8%]", or the estimate alone without an interval. */
export function formatNativeChange(change: NativeChange | null | undefined): string {
  if (!change || !isFiniteNumber(change.estimate)) return '–';
  if (!isFiniteNumber(change.low) || !isFiniteNumber(change.high)) return formatPercent(change.estimate);
  return `${formatPercent(change.estimate)} [${formatPercent(change.low)}, ${formatPercent(change.high)}]`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
