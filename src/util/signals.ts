import os from 'node:os';
import { killAll } from './processes.js';

/** The shell's exit code for a process ended by `signal`: 128 + its number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + os.constants.signals[signal];
}

/**
 * Cleanup when the run is cut short: on SIGINT, SIGTERM and SIGHUP (Ctrl-C, a cancelled job, a closed
 * terminal), and on a crash of benchgate itself (an uncaught exception or an unhandled rejection), kill
 * every process group benchgate started, run the registered cleanups (worktree removal), let the entry
 * point write what it can (a report with the error), and exit. One trap for every entry point, so none
 * of them can forget a step.
 */
export interface SignalTrap {
  /** Register a cleanup; returns its deregistration. Pass it to runGate as onCleanup. */
  onCleanup(cleanup: () => void): () => void;
  /** Stop trapping (the run is over). */
  release(): void;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** How long a crash's report may take to be written (a comment over the network included) before the exit. */
const CRASH_REPORT_MS = 60_000;

export function trapSignals(options: {
  announce: (signal: NodeJS.Signals) => void;
  exitCode: (signal: NodeJS.Signals) => number;
  /** After a crash, once children and worktrees are gone: write the error report; the process then exits with 2. */
  onCrash?: (error: unknown) => void | Promise<void>;
}): SignalTrap {
  const cleanups = new Set<() => void>();
  const stop = () => {
    killAll();
    for (const cleanup of cleanups) {
      try {
        cleanup();
      } catch {
        // one cleanup's failure must not keep the others from running
      }
    }
  };
  // Trapped until released, never `once`: a second signal while the first one's cleanup runs (a wrapper such as
  // `timeout` forwarding the signal a group already got, a second Ctrl-C) found no listener and took the default
  // action, ending the process mid-cleanup with its worktrees left behind. It is ignored: the first one is handled.
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    options.announce(signal);
    stop();
    process.exit(options.exitCode(signal));
  };
  let crashed = false;
  const onCrash = (error: unknown) => {
    if (crashed) return; // a second failure while reporting the first: the first one's exit stands
    crashed = true;
    stop();
    const exit = () => process.exit(2);
    setTimeout(exit, CRASH_REPORT_MS).unref();
    Promise.resolve()
      .then(() => options.onCrash?.(error))
      .then(exit, exit);
  };
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  return {
    onCleanup(cleanup) {
      cleanups.add(cleanup);
      return () => cleanups.delete(cleanup);
    },
    release() {
      for (const signal of SIGNALS) process.off(signal, onSignal);
      process.off('uncaughtException', onCrash);
      process.off('unhandledRejection', onCrash);
    },
  };
}
