import { rmSync } from 'node:fs';
import type { Writable } from 'node:stream';
import type { RevisionLabel } from '../../checkout/revisions.js';
import { killGroup, OutputTail, spawnTracked } from '../../util/processes.js';
import { checkRunnerMessage } from './messages.js';
import type { CountJob, FileLoad, IsolatedFiles, LoadJob, MicroJob, ProfileJob, TaskCount, TaskOutcome } from './protocol.js';

export type ProcessOutcome =
  | {
      ok: true;
      files: FileLoad[];
      tasks: TaskOutcome[];
      durationMs: number;
      /** Profile jobs: each revision's calls made under the profiler. */
      calls?: Partial<Record<RevisionLabel, number>>;
      /** Bench files measured in isolates of their own (isolates.ts). */
      isolated?: IsolatedFiles;
      /** Count jobs: each task's instructions per call. */
      counts?: TaskCount[];
    }
  | {
      ok: false;
      /** What went wrong, for people. */
      message: string;
      /** The benchmark it was running, when known. */
      id?: string | undefined;
      revision?: RevisionLabel | undefined;
      durationMs: number;
      /** Callgrind's instrumentation could not be turned on in a late count job (SpawnSettings.instrument). */
      instrumentation?: true;
    };

export interface SpawnSettings {
  runnerPath: string;
  /** Kill the process when it shows no progress for this long (from its start, until its handshake, too). */
  stallTimeoutMs: number;
  cwd: string;
  /**
   * What runs the runner: node (the default, process.execPath), or a wrapper with its arguments ending in node's (counts:
   * valgrind), and variables set over the environment (counts: COUNTED_ENV).
   */
  command?: { file: string; args: string[]; env?: Readonly<Record<string, string>> } | undefined;
  /** Files the process may leave behind outside its folders, by its pid: removed once it is done (counts: V8's perf map). */
  leaves?: (pid: number) => string[];
  /**
   * A late count job's (CountJob.late) request, once its files are loaded: turn callgrind's instrumentation on in the
   * process (measure/counts/callgrind.ts instrumentOn); undefined once on, or why not (the process then fails, its
   * outcome marked `instrumentation`).
   */
  instrument?: (pid: number) => Promise<string | undefined>;
}

/** Once the process has exited, how long its last messages and output may take to arrive (a grandchild holding its pipes open). */
const DRAIN_MS = 5_000;

/**
 * Run one benchmark process and wait for its result, killing its process group on a stall or at the end.
 * The job is sent after the runner's handshake ('ready'), and an exit is judged on 'close' (the IPC
 * channel and pipes drained, so a result sent just before the exit is never lost), bounded by DRAIN_MS.
 */
export function runBenchmarkProcess(job: MicroJob | ProfileJob | LoadJob | CountJob, settings: SpawnSettings): Promise<ProcessOutcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const tail = new OutputTail();
    const command = settings.command ?? { file: process.execPath, args: [] };
    const child = spawnTracked(command.file, [...command.args, settings.runnerPath], {
      cwd: settings.cwd,
      ...(command.env ? { env: { ...process.env, ...command.env } } : {}),
      // A count job waits for callgrind's instrumentation on a pipe of its own (fd 4), which no bench code touches.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc', ...(settings.instrument ? (['pipe'] as const) : [])],
    });
    const instrumented = child.stdio[4] as Writable | null | undefined;
    // The process may be gone by the time it is answered: that is its exit's to report.
    instrumented?.on('error', () => undefined);
    let asked = false;
    child.stdout?.on('data', (chunk: Buffer) => tail.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => tail.push(chunk));
    let current: { id?: string; revision?: RevisionLabel } = {};
    let ready = false;
    let settled = false;
    const finish = (outcome: ProcessOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drain);
      killGroup(child);
      // What the process leaves outside its folders, by its pid (a counted one's perf map), gone even where it died.
      if (child.pid !== undefined) for (const file of settings.leaves?.(child.pid) ?? []) rmSync(file, { force: true });
      resolve(outcome);
    };
    const fail = (message: string, instrumentation?: true) => {
      const output = tail.lines(20);
      finish({
        ok: false,
        message: output ? `${message}\nLast lines of its output:\n${output}` : message,
        ...current,
        durationMs: Date.now() - started,
        ...(instrumentation ? { instrumentation } : {}),
      });
    };
    let timer = setTimeout(stalled, settings.stallTimeoutMs);
    let drain: NodeJS.Timeout | undefined;
    function stalled() {
      if (!ready)
        return fail(
          `the benchmark process (pid ${child.pid}) did not start within ${settings.stallTimeoutMs / 1000}s (no handshake) and was killed`,
        );
      const what = current.id
        ? `while running '${current.id}'${current.revision ? ` (${current.revision})` : ''}`
        : 'while loading bench files';
      fail(`the benchmark process (pid ${child.pid}) showed no progress for ${settings.stallTimeoutMs / 1000}s ${what} and was killed`);
    }
    child.on('message', (raw: unknown) => {
      clearTimeout(timer);
      timer = setTimeout(stalled, settings.stallTimeoutMs);
      const checked = checkRunnerMessage(raw);
      if (!checked.ok) {
        const where = current.id ? ` while running '${current.id}'` : ready ? ' while loading bench files' : ' before its handshake';
        return fail(
          `the benchmark process (pid ${child.pid}) sent a message that is not benchgate's${where}: ${checked.preview} ` +
            '(does the bench file call process.send itself?)',
        );
      }
      const message = checked.message;
      if (message.type === 'ready') {
        ready = true;
        child.send(job);
      } else if (message.type === 'instrument') {
        const instrument = settings.instrument;
        if (!instrument || !instrumented || child.pid === undefined || asked || current.id !== undefined)
          return fail(`the benchmark process (pid ${child.pid}) asked for callgrind's instrumentation where nobody turns it on`);
        asked = true;
        void instrument(child.pid).then((error) => {
          if (settled) return;
          if (error) return fail(`the benchmark process (pid ${child.pid}): ${error}`, true);
          instrumented.end('1');
        });
      } else if (message.type === 'progress')
        current = { id: message.id, revision: message.revision ?? (message.id === current.id ? current.revision : undefined) };
      else if (message.type === 'result')
        finish({
          ok: true,
          files: message.files,
          tasks: message.tasks,
          durationMs: Date.now() - started,
          ...(message.isolated ? { isolated: message.isolated } : {}),
        });
      else if (message.type === 'counted')
        finish({ ok: true, files: message.files, tasks: [], counts: message.counts, durationMs: Date.now() - started });
      else if (message.type === 'profiled')
        finish({ ok: true, files: [], tasks: [], calls: message.calls, durationMs: Date.now() - started });
      else fail(`the benchmark process (pid ${child.pid}) failed: ${message.message}`);
    });
    child.once('error', (error) => fail(`could not start the benchmark process: ${error.message}`));
    const exited = (code: number | null, signal: NodeJS.Signals | null) => {
      const how = signal ? `signal ${signal}` : `code ${code}`;
      const when = current.id ? `while running '${current.id}'` : ready ? 'while loading bench files' : 'before its handshake';
      fail(`the benchmark process (pid ${child.pid}) exited with ${how} ${when}`);
    };
    child.once('exit', (code, signal) => {
      // Its group may hold the pipes open: kill it, then judge on 'close', or after DRAIN_MS at the latest.
      killGroup(child);
      // Settled already (its result came first): a drain timer would only hold benchgate open for DRAIN_MS.
      if (!settled) drain = setTimeout(() => exited(code, signal), DRAIN_MS);
    });
    child.once('close', (code, signal) => exited(code, signal));
  });
}
