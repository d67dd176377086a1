/**
 * A vitest bench file's own run: `vitest bench --run <file> --outputJson <report>` with the revision's own
 * vitest, as its author runs `vitest bench`. vitest benchmarks only inside its own runner, so nothing is
 * preloaded or observed: vitest writes its figures (tinybench's, per benchmark) to the JSON report, and they
 * are read back here. The report is the pull request's code's output, so every field is checked and capped.
 */
import { realpathSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import { nearestManifest } from '../../util/manifest.js';
import { MAX_RECORDS, recordOf, type NativeRecord } from './figures.js';

/** The revision's vitest command line (its package's `bin`), as the bench file resolves `vitest`; undefined when it does not. */
export function vitestCli(root: string, file: string): string | undefined {
  let entry: string;
  try {
    entry = Module.createRequire(path.resolve(root, file)).resolve('vitest');
  } catch {
    return undefined;
  }
  // vitest's exports do not include its package.json in every version: its folder is the nearest one above its entry that has it.
  const found = nearestManifest(entry, (manifest) => manifest.name === 'vitest');
  const bin = found?.manifest.bin;
  const command = typeof bin === 'string' ? bin : (bin as Record<string, unknown> | undefined)?.vitest;
  return found && typeof command === 'string' ? path.join(found.dir, command) : undefined;
}

/** The node arguments of one run: the revision's vitest, only the files its filter matches, the report to `out`. */
export function vitestArgs(cli: string, file: string, out: string): string[] {
  // vitest filters files by substring: a file whose path holds this one's runs too, and its figures are left out when read.
  return [cli, 'bench', '--run', '--outputJson', out, `./${file}`];
}

interface VitestReport {
  files?: { filepath?: unknown; groups?: { fullName?: unknown; benchmarks?: Record<string, unknown>[] }[] }[];
}

/**
 * The benchmarks of `file` in vitest's JSON report, as native records: a group's full name is the file's path
 * (as vitest names it, relative to its root) then its describe blocks, joined by ' > ' as benchgate joins suites.
 */
export function vitestRecords(text: string, root: string, file: string): { records: NativeRecord[]; problem?: string } {
  let report: VitestReport;
  try {
    report = JSON.parse(text) as VitestReport;
  } catch {
    return { records: [], problem: 'its vitest report is not JSON' };
  }
  const wanted = real(path.resolve(root, file));
  const records: NativeRecord[] = [];
  let rejected = 0;
  for (const entry of Array.isArray(report?.files) ? report.files : []) {
    if (typeof entry?.filepath !== 'string' || real(entry.filepath) !== wanted) continue;
    for (const group of Array.isArray(entry.groups) ? entry.groups : []) {
      const suites = suitesOf(group?.fullName, file);
      for (const bench of Array.isArray(group?.benchmarks) ? group.benchmarks : []) {
        const record =
          suites && records.length < MAX_RECORDS
            ? recordOf({
                harness: 'vitest',
                thread: 0,
                suites,
                name: bench?.name,
                opsPerSec: bench?.hz,
                rme: bench?.rme,
                samples: bench?.sampleCount,
                // vitest keeps a benchmark that threw in its report, without figures, and exits 0 (vitest 4).
                ...(typeof bench?.hz === 'number' ? {} : { error: 'vitest reported no figure for it (a benchmark that throws reads so)' }),
              })
            : undefined;
        if (record) records.push(record);
        else rejected++;
      }
    }
  }
  return rejected ? { records, problem: `${rejected} benchmark(s) of its vitest report were not figures and were left out` } : { records };
}

/** A group's suites: its full name without the file's own part ('bench/url.bench.ts > parse' → ['parse']). */
function suitesOf(fullName: unknown, file: string): string[] | undefined {
  if (typeof fullName !== 'string') return undefined;
  const own = file.split(path.sep).join('/');
  if (fullName === own) return [];
  if (fullName.startsWith(`${own} > `)) return [fullName.slice(own.length + 3)];
  // A vitest root other than the checkout's names the file otherwise: its first part is the file all the same.
  const at = fullName.indexOf(' > ');
  return at < 0 ? [] : [fullName.slice(at + 3)];
}

function real(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}
