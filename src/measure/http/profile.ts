import type { Revision, RevisionLabel } from '../../checkout/revisions.js';
import type { HttpBenchmarkConfig } from '../../config/types.js';
import { loadOn, serverOptions, type RoundSettings } from './round.js';
import { runsNode, ServerError, ServerProcess, stopAll } from './server.js';

/**
 * Profile the servers of `revisions` under the benchmark's load, all at once: fresh servers (in a random order, as a
 * duet round starts them), each loaded by its own client at the same time for `warmupMs`, then for
 * `durationMs` with the V8 CPU profiler running inside each (through the probe), written to its `outFiles` entry.
 * One revision is the server alone; both, with the plan's serverPrefix pinning them to one shared core, is the state a
 * duet round measures (both servers splitting the core, after the warm-up the schedule learned). Returns the
 * requests each server answered while its profiler ran. Never part of a measured round.
 */
export async function profileServers(
  benchmark: HttpBenchmarkConfig,
  revisions: readonly Revision[],
  plan: Pick<RoundSettings, 'serverPrefix' | 'probePath' | 'socketDir'>,
  profile: { durationMs: number; intervalUs: number; warmupMs: number; outFiles: Partial<Record<RevisionLabel, string>> },
): Promise<Partial<Record<RevisionLabel, number>>> {
  // Only a server run by node gets the probe, which holds the profiler: anything else is not worth starting.
  if (!runsNode(benchmark.start))
    throw new ServerError('profiling needs a server started with `node …`, which the probe can join; this one is not');
  const order = Math.random() < 0.5 ? [...revisions] : [...revisions].reverse();
  const servers: ServerProcess[] = [];
  try {
    for (const revision of order) servers.push(await ServerProcess.start(serverOptions(benchmark, revision, plan)));
    // Each server's own client, as a measured round loads it (a fixed rate or `rate: auto`'s where the test has one); every
    // client ends before a failure is thrown, so none keeps loading a server being stopped.
    const load = async (durationMs: number) => {
      const settled = await Promise.allSettled(servers.map((server) => loadOn(server, benchmark, durationMs)));
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      return settled.map((s) => (s as PromiseFulfilledResult<Awaited<ReturnType<typeof loadOn>>>).value);
    };
    // As a measured duet round: the probe's monitors run from the warm-up on, so what they move settles in it.
    for (const server of servers) await server.probe('start');
    await load(profile.warmupMs);
    for (const server of servers) {
      const started = await server.probe<{ ok: boolean; error?: string }>(`profile-start ${profile.intervalUs}`, 5000);
      if (!started?.ok)
        throw new ServerError(
          `the probe in ${server.label}'s server could not start the profiler${started?.error ? `: ${started.error}` : ''}`,
        );
    }
    const results = await load(profile.durationMs);
    const answered: Partial<Record<RevisionLabel, number>> = {};
    for (const [i, server] of servers.entries()) {
      const label = order[i]!.label;
      const stopped = await server.probe<{ ok: boolean; error?: string }>(`profile-stop ${profile.outFiles[label]}`, 20_000);
      server.checkAlive('while profiled');
      if (!stopped?.ok)
        throw new ServerError(
          `the probe in ${server.label}'s server did not write its profile${stopped?.error ? `: ${stopped.error}` : ''}`,
        );
      answered[label] = results[i]!.traffic.responses;
    }
    return answered;
  } finally {
    await stopAll(servers);
  }
}
