import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatDuration, roundOf } from '../util/format.js';
import { calibrate } from '../calibrate.js';
import { loadConfig } from '../config/load.js';
import { listBenchmarks } from '../gate/list.js';
import { errorReport, runGate } from '../gate/run.js';
import { listsNothing, loadFailed, renderListing } from '../report/listing.js';
import { renderCalibration } from '../report/calibration.js';
import type { MeasureProgress } from '../measure/types.js';
import { renderMarkdown } from '../report/markdown.js';
import { mergeShards } from '../report/merge.js';
import { readReport, reportFiles } from '../report/read.js';
import type { Report } from '../report/model.js';
import { renderTerminal } from '../report/terminal.js';
import { terminalText } from '../report/escape.js';
import { steadyTimeLeft } from '../report/format.js';
import { describeFailure, messageOf } from '../util/errors.js';
import { killAll } from '../util/processes.js';
import { signalExitCode, trapSignals } from '../util/signals.js';
import { Installs } from '../checkout/reuse.js';
import { parseCommand, USAGE, type Command } from './args.js';
import { runBisect, runDrift, runRecord, runTrend, type HistoryIo } from './history.js';
import { runPublish } from './publish.js';

export interface CliIo {
  cwd: string;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  runnerPath: string;
  probePath: string;
  version: string;
}

const EXIT = { pass: 0, fail: 1, error: 2 } as const;

/** Run the CLI; resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv);
  } catch (error) {
    io.stderr.write(`benchgate: ${messageOf(error)}\n`);
    return EXIT.error;
  }
  if (command.kind === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command.kind === 'version') {
    io.stdout.write(`${io.version}\n`);
    return 0;
  }
  if (command.kind === 'list') return runList(command, io);
  if (command.kind === 'publish') return runPublish(command, io);
  if (command.kind === 'trend' || command.kind === 'record' || command.kind === 'drift' || command.kind === 'bisect')
    return runHistoryCommand(command, io);
  const color = command.color ?? (Boolean(io.stdout.isTTY) && !io.env.NO_COLOR && io.env.TERM !== 'dumb');
  if (command.kind === 'calibrate') return runCalibrate(command, io);
  if (command.kind === 'merge') return writeReport(mergeFiles(command.files, io), command, color, io);
  const progress = progressPrinter(io.stderr);
  // A crash of benchgate itself still leaves the report, with the error, where it was asked for.
  const trap = cliTrap(io, progress, (error) => {
    writeReport(errorReport(`benchgate crashed: ${describeFailure(error)}`, io.version), command, color, io);
  });
  let report: Report;
  try {
    report = await runGate({
      cwd: io.cwd,
      base: command.base,
      head: command.head,
      configFile: command.config,
      overrides: {
        rounds: command.rounds,
        timeLimitMs: command.timeLimitMs,
        installTimeoutMs: command.installTimeoutMs,
        isolation: command.isolation,
        measure: command.measure,
        files: command.files,
        httpMode: command.httpMode,
      },
      profile: command.profile,
      profileDir: command.profileDir,
      shard: command.shard,
      // The observer preloaded into each native run is bundled beside the runner, as its module hooks are.
      nativeCheck: command.nativeCheck
        ? {
            observerPath: path.join(path.dirname(io.runnerPath), 'native.js'),
            runTimeoutMs: command.nativeTimeoutMs,
            runs: command.nativeRuns,
          }
        : undefined,
      soloCheck: command.soloProcesses === undefined ? undefined : { processes: command.soloProcesses },
      ...gateIo(
        io,
        progress,
        trap,
        command.installCache === undefined ? undefined : new Installs(path.resolve(io.cwd, command.installCache)),
      ),
    });
  } catch (error) {
    killAll();
    report = errorReport(describeFailure(error), io.version);
  } finally {
    progress.done();
    trap.release();
  }
  return writeReport(report, command, color, io);
}

/** record, trend, drift and bisect (src/history): their compares print and write reports as compare does. */
function runHistoryCommand(command: Extract<Command, { kind: 'trend' | 'record' | 'drift' | 'bisect' }>, io: CliIo): Promise<number> {
  return withProgress(io, command, async (gate, progress) => {
    const color =
      'color' in command && command.color !== undefined
        ? command.color
        : Boolean(io.stdout.isTTY) && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
    const historyIo: HistoryIo = {
      cwd: io.cwd,
      version: io.version,
      gate,
      print: (text) => {
        progress.done();
        // Subjects, tags and bench ids are the repository's text: kept from driving the terminal.
        io.stdout.write(terminalText(text, { keepNewlines: true }));
      },
      write: (file, text) => write(io.cwd, file, text),
      writeReport: (report) => {
        progress.done();
        // record writes the compare's report where asked; drift its JSON (its --markdown is the drift's own); bisect its steps.
        const files =
          command.kind === 'record' ? command : { json: command.kind === 'drift' ? command.json : undefined, markdown: undefined };
        return writeReport(report, files, color, io);
      },
    };
    if (command.kind === 'record') return runRecord(command, historyIo);
    if (command.kind === 'trend') return runTrend(command, historyIo);
    if (command.kind === 'drift') return runDrift(command, historyIo);
    return runBisect(command, historyIo);
  });
}

/** The table on stdout, the --json and --markdown files, and the exit code: the same for compare and merge. */
function writeReport(
  report: Report,
  command: { json: string | undefined; markdown: string | undefined },
  color: boolean,
  io: CliIo,
): number {
  io.stdout.write(`${renderTerminal(report, { color })}\n`);
  try {
    if (command.json) write(io.cwd, command.json, `${JSON.stringify(report, null, 2)}\n`);
    if (command.markdown) write(io.cwd, command.markdown, renderMarkdown(report));
  } catch (error) {
    io.stderr.write(`benchgate: could not write the report: ${messageOf(error)}\n`);
    return EXIT.error;
  }
  return EXIT[report.verdict];
}

/** The shard reports, each read as untrusted input (size cap, schema), joined into one report; any problem is an error report naming it. */
function mergeFiles(patterns: readonly string[], io: CliIo): Report {
  try {
    const files = reportFiles(patterns, io.cwd);
    return mergeShards(files.map((file) => ({ file: path.relative(io.cwd, file) || file, report: readReport(file) })));
  } catch (error) {
    return errorReport(describeFailure(error), io.version);
  }
}

function runCalibrate(command: Extract<Command, { kind: 'calibrate' }>, io: CliIo): Promise<number> {
  return withProgress(io, command, async (gate, progress) => {
    const config = loadConfig({ root: io.cwd, file: command.config });
    const result = await calibrate({
      cwd: io.cwd,
      base: command.base,
      configFile: command.config,
      overrides: { timeLimitMs: command.timeLimitMs },
      compareRounds: config.rounds ?? 10,
      ...gate,
    });
    progress.done();
    io.stdout.write(`${renderCalibration(result)}\n`);
    if (command.json) write(io.cwd, command.json, `${JSON.stringify({ ...result, report: undefined }, null, 2)}\n`);
    return result.benchmarks.some((b) => b.warning) ? EXIT.fail : 0;
  });
}

function runList(command: Extract<Command, { kind: 'list' }>, io: CliIo): Promise<number> {
  return withProgress(io, command, async (gate, progress) => {
    const listing = await listBenchmarks({
      cwd: io.cwd,
      base: command.base,
      head: command.head,
      configFile: command.config,
      overrides: { files: command.files },
      ...gate,
    });
    progress.done();
    io.stdout.write(`${renderListing(listing)}\n`);
    if (command.json) write(io.cwd, command.json, `${JSON.stringify(listing, null, 2)}\n`);
    // A file that did not load, or nothing to measure at all, is the error compare would end with, before any install.
    return loadFailed(listing) || listsNothing(listing) ? EXIT.error : 0;
  });
}

/** A command that prints progress and holds the signal trap: an error ends it with exit 2 and its message on stderr. */
async function withProgress(
  io: CliIo,
  command: Command,
  body: (gate: ReturnType<typeof gateIo>, progress: ReturnType<typeof progressPrinter>) => Promise<number>,
): Promise<number> {
  const progress = progressPrinter(io.stderr);
  const trap = cliTrap(io, progress);
  // Installs kept across runs (--install-cache); the history commands' compares share a folder of this run's too,
  // for the installs that must not outlive it (no lockfile) and, without a cache, for all of them.
  const history = ['record', 'drift', 'bisect'].includes(command.kind);
  const runFolder = history ? mkdtempSync(path.join(os.tmpdir(), 'benchgate-installs-')) : undefined;
  const folder = command.installCache !== undefined ? path.resolve(io.cwd, command.installCache) : runFolder;
  const removeFolder = runFolder ? () => rmSync(runFolder, { recursive: true, force: true }) : () => undefined;
  const forget = trap.onCleanup(removeFolder);
  try {
    return await body(gateIo(io, progress, trap, folder === undefined ? undefined : new Installs(folder, runFolder)), progress);
  } catch (error) {
    killAll();
    progress.done();
    io.stderr.write(`benchgate: ${terminalText(messageOf(error), { keepNewlines: true })}\n`);
    return EXIT.error;
  } finally {
    forget();
    removeFolder();
    trap.release();
  }
}

/** What compare and calibrate both hand the gate: the bundles, the version, progress lines and the signal trap. */
function gateIo(io: CliIo, progress: ReturnType<typeof progressPrinter>, trap: ReturnType<typeof cliTrap>, installs?: Installs) {
  return {
    installs,
    runnerPath: io.runnerPath,
    probePath: io.probePath,
    toolVersion: io.version,
    log: (line: string) => progress.log(line),
    onProgress: (p: MeasureProgress) => progress.update(p),
    onCleanup: (cleanup: () => void) => trap.onCleanup(cleanup),
  };
}

/** SIGINT/SIGTERM: say so on stderr, clean up, exit 130/143 as shells expect. */
function cliTrap(io: CliIo, progress: ReturnType<typeof progressPrinter>, onCrash?: (error: unknown) => void) {
  return trapSignals({
    announce: (signal) => {
      progress.done();
      io.stderr.write(`\nbenchgate: ${signal} received: stopping benchmark processes and removing worktrees\n`);
    },
    exitCode: signalExitCode,
    onCrash: (error) => {
      progress.done();
      io.stderr.write(`\nbenchgate: crashed (${messageOf(error)}): benchmark processes stopped and worktrees removed\n`);
      onCrash?.(error);
    },
  });
}

function write(cwd: string, file: string, text: string): void {
  const target = path.resolve(cwd, file);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, text);
}

/** Log lines and a progress line on stderr: rewritten in place on a terminal, one line per round elsewhere. */
function progressPrinter(stream: NodeJS.WriteStream) {
  let pending = false;
  const steady = steadyTimeLeft();
  const clear = () => {
    if (pending && stream.isTTY) stream.write('\r\x1b[K');
    pending = false;
  };
  return {
    log(line: string) {
      clear();
      // Log lines name benchmarks and quote servers and errors: the pull request's text, kept from driving the terminal.
      stream.write(`benchgate: ${terminalText(line, { keepNewlines: true })}\n`);
    },
    update(p: MeasureProgress) {
      const remaining = steady(p);
      const left = p.round > 1 ? ` · ~${formatDuration(remaining)} left` : '';
      const text = `benchgate: ${roundOf(p)} · ${formatDuration(p.elapsedMs)} elapsed${left}`;
      if (stream.isTTY) {
        clear();
        stream.write(text);
        pending = true;
      } else {
        stream.write(`${text}\n`);
      }
    },
    done: clear,
  };
}
