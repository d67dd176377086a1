import { killAll } from './processes.js';

/**
 * Cleanup on SIGINT/SIGTERM (Ctrl-C, a cancelled job): kill every process group
 * benchgate started, run the registered cleanups (worktree removal), and exit.
 * One trap for every entry point, so none of them can forget a step.
 */
export interface SignalTrap {
  /** Register a cleanup; returns its deregistration. Pass it to runGate as onCleanup. */
  onCleanup(cleanup: () => void): () => void;
  /** Stop trapping (the run is over). */
  release(): void;
}

export function trapSignals(options: {
  announce: (signal: NodeJS.Signals) => void;
  exitCode: (signal: NodeJS.Signals) => number;
}): SignalTrap {
  const cleanups = new Set<() => void>();
  const onSignal = (signal: NodeJS.Signals) => {
    options.announce(signal);
    killAll();
    for (const cleanup of cleanups) cleanup();
    process.exit(options.exitCode(signal));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    onCleanup(cleanup) {
      cleanups.add(cleanup);
      return () => cleanups.delete(cleanup);
    },
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
