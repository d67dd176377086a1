import { afterEach, describe, expect, it, vi } from 'vitest';
import { livePids, spawnTracked } from '../../src/util/processes.js';
import { trapSignals } from '../../src/util/signals.js';

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the signal trap', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('on %s: announces, kills every process group it started, runs the cleanups, exits %i', async (signal, code) => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const child = spawnTracked('sleep', ['30'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', (_code, how) => resolve(how)));
    const events: string[] = [];
    const trap = trapSignals({ announce: (s) => events.push(`announce ${s}`), exitCode: (s) => (s === 'SIGINT' ? 130 : 143) });
    trap.onCleanup(() => events.push('remove worktrees'));
    const forget = trap.onCleanup(() => events.push('never: deregistered'));
    forget();
    try {
      process.emit(signal, signal);
      expect(events).toEqual([`announce ${signal}`, 'remove worktrees']);
      expect(exit).toHaveBeenCalledWith(code);
      expect(await exited).toBe('SIGKILL');
      expect(running(child.pid!)).toBe(false);
      expect(livePids()).not.toContain(child.pid);
    } finally {
      trap.release();
    }
  });

  it('stays trapped while it stops: a second signal during the cleanup is ignored, never the default action', () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const events: string[] = [];
    const before = process.listenerCount('SIGTERM');
    const trap = trapSignals({ announce: (s) => events.push(`announce ${s}`), exitCode: () => 143 });
    // Mid-cleanup, the signal is still trapped (a listener is there, so the OS never applies the default: death), and
    // a second one (as `timeout` forwards the one a process group already got) starts nothing again.
    trap.onCleanup(() => {
      events.push(`cleanup, trapped: ${process.listenerCount('SIGTERM') === before + 1}`);
      process.emit('SIGTERM', 'SIGTERM');
    });
    try {
      process.emit('SIGTERM', 'SIGTERM');
      process.emit('SIGINT', 'SIGINT');
      expect(events).toEqual(['announce SIGTERM', 'cleanup, trapped: true']);
      expect(exit).toHaveBeenCalledTimes(1);
    } finally {
      trap.release();
    }
  });

  it('once released, leaves signals alone', () => {
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    const before = process.listenerCount('SIGTERM');
    const trap = trapSignals({ announce: () => undefined, exitCode: () => 143 });
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    trap.release();
    expect(process.listenerCount('SIGTERM')).toBe(before);
    expect(exit).not.toHaveBeenCalled();
  });
});
