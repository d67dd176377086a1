/**
 * One native run of a bench file: `node --import <observer> <file>` (or, for a vitest bench file, the revision's
 * `vitest bench --run <file> --outputJson <report>`) with the same node, in the revision's checkout, with the
 * environment benchgate's own benchmark processes get (never a shell: an argv array).
 * Bounded by a timeout: the child and its process group are killed by pid when it runs longer, and at the
 * end in any case (what it left running goes with it); a signal to benchgate kills it like any child.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RevisionLabel } from '../../checkout/revisions.js';
import { formatDuration } from '../../util/format.js';
import { killGroup, spawnTracked, watchChild } from '../../util/processes.js';
import { parseRecords, type NativeRecord } from './figures.js';
import { vitestArgs, vitestCli, vitestRecords } from './vitest.js';

export interface NativeRunOptions {
  revision: RevisionLabel;
  /** The revision's project directory: the run's working directory. */
  root: string;
  /** The bench file, relative to root. */
  file: string;
  /** Its harness, as benchgate found it: 'vitest' runs under the revision's vitest; any other under node, observed. */
  harness?: string;
  /** dist/native.js. */
  observerPath: string;
  /** Where the run's figures file goes (a folder of its own in it, removed after the run): the gate's temp folder, which a signal removes too. */
  tempDir: string;
  /** The run is killed (with its process group) after this long. */
  timeoutMs: number;
  /** The node to run it with (default: benchgate's own). */
  node?: string;
  /** The node flags its author runs it with (flags.ts), before the file. */
  nodeFlags?: string[];
  /** Told the child's pid once it started (tests; diagnostics). */
  onStart?: (pid: number) => void;
}

export interface NativeRun {
  revision: RevisionLabel;
  durationMs: number;
  /** Every task the harness finished, in the order it finished them. */
  records: NativeRecord[];
  /** Why the run is not a clean one (a timeout, an exit code, unreadable figures); its figures, if any, still count. */
  problem?: string;
}

/** A figures file larger than this was not written by the observer alone: it is not read. */
const MAX_FIGURES_BYTES = 16 * 1024 * 1024;
/** Once the run has exited, how long its last output may take to arrive (a process that left its group holding the pipes). */
const DRAIN_MS = 5_000;

/** Run the bench file once as its author does; never rejects: a failure is the run's `problem`. */
export function runNative(options: NativeRunOptions): Promise<NativeRun> {
  const started = performance.now();
  const dir = mkdtempSync(path.join(options.tempDir, 'native-'));
  const vitest = options.harness === 'vitest';
  const out = path.join(dir, vitest ? 'report.json' : 'figures.jsonl');
  const cli = vitest ? vitestCli(options.root, options.file) : undefined;
  if (vitest && !cli) {
    rmSync(dir, { recursive: true, force: true });
    const problem = `vitest is not installed where ${options.file} resolves it: nothing to run it with`;
    return Promise.resolve({ revision: options.revision, durationMs: 0, records: [], problem });
  }
  /** What the run left: `ended`, whether it exited cleanly (a run killed or failed owes no report). */
  const read = (ended: boolean) => (cli ? readReport(out, options.root, options.file, ended) : readFigures(out));
  return new Promise<NativeRun>((resolve) => {
    // `./file`, as the author types it, and never read as an option whatever the file is named.
    const args = cli
      ? vitestArgs(cli, options.file, out)
      : [...(options.nodeFlags ?? []), '--import', pathToFileURL(options.observerPath).href, `./${options.file}`];
    const child = spawnTracked(options.node ?? process.execPath, args, {
      cwd: options.root,
      env: { ...process.env, BENCHGATE_NATIVE_OUT: out },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) options.onStart?.(child.pid);
    const watch = watchChild(child, options.timeoutMs);
    const { tail } = watch;
    let done = false;
    const finish = (problem: string | undefined) => {
      if (done) return;
      done = true;
      watch.stop();
      // Whatever it started and left behind (a server, a worker process) goes with it.
      killGroup(child);
      const figures = read(problem === undefined);
      rmSync(dir, { recursive: true, force: true });
      const problems = [problem, figures.problem].filter(Boolean).join('; ');
      resolve({
        revision: options.revision,
        durationMs: performance.now() - started,
        records: figures.records,
        ...(problems ? { problem: problems } : {}),
      });
    };
    const lastLines = () => {
      const lines = tail.lines(5);
      return lines ? `; its last lines:\n${lines}` : '';
    };
    child.once('error', (error) => finish(`could not start node: ${error.message}`));
    child.once('exit', (code, signal) => {
      const status = watch.timedOut
        ? `did not finish within --native-timeout (${formatDuration(options.timeoutMs)}): killed with its process group (pid ${child.pid})`
        : code !== 0
          ? `${signal ? `was killed by ${signal}` : `exited with code ${code}`}`
          : undefined;
      // Its group may hold the pipes open: killed, then its last output read on 'close', or after DRAIN_MS at the latest.
      killGroup(child);
      const drain = setTimeout(() => finish(status), DRAIN_MS);
      child.once('close', () => {
        clearTimeout(drain);
        finish(status && !watch.timedOut ? `${status}${lastLines()}` : status);
      });
    });
  });
}

/** A run's output file, if it wrote one no larger than MAX_FIGURES_BYTES. */
function readCapped(file: string, what: string): { text?: string; problem?: string } {
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return {};
  }
  if (size > MAX_FIGURES_BYTES) return { problem: `its ${what} grew to ${Math.round(size / 1024 / 1024)} MB: not read` };
  return { text: readFileSync(file, 'utf8') };
}

function readFigures(file: string): { records: NativeRecord[]; problem?: string } {
  const { text, problem } = readCapped(file, 'figures file');
  if (text === undefined) return { records: [], ...(problem ? { problem } : {}) };
  const { records, rejected } = parseRecords(text);
  return rejected ? { records, problem: `${rejected} line(s) of its figures file were not figures and were left out` } : { records };
}

function readReport(file: string, root: string, benchFile: string, ended: boolean): { records: NativeRecord[]; problem?: string } {
  const { text, problem } = readCapped(file, 'vitest report');
  // vitest writes its report once every file ran: none after a clean exit is a vitest without --outputJson; after
  // a kill or a failure, the run's own problem says why.
  if (text === undefined) {
    const missing = problem ?? (ended ? 'vitest wrote no benchmark report (--outputJson needs vitest 2 or later)' : undefined);
    return { records: [], ...(missing ? { problem: missing } : {}) };
  }
  return vitestRecords(text, root, benchFile);
}
