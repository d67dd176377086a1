import type { Revision } from '../../checkout/revisions.js';
import type { HttpBenchmarkConfig } from '../../config/types.js';
import { runLoad } from './load.js';
import { serverOptions, type RoundSettings } from './round.js';
import { runsNode, ServerError, ServerProcess } from './server.js';

/**
 * Profile one revision's server under the benchmark's load: a fresh server,
 * the usual warm-up, then `durationMs` of load with the V8 CPU profiler running
 * inside the server (through the probe), written to `outFile`. Returns the
 * requests answered while the profiler ran. Never part of a measured round.
 */
export async function profileServer(
  benchmark: HttpBenchmarkConfig,
  revision: Revision,
  plan: Pick<RoundSettings, 'serverPrefix' | 'probePath' | 'socketDir'>,
  profile: { durationMs: number; intervalUs: number; outFile: string },
): Promise<{ requests: number }> {
  // Only a server run by node gets the probe, which holds the profiler: anything else is not worth starting.
  if (!runsNode(benchmark.start))
    throw new ServerError('profiling needs a server started with `node …`, which the probe can join; this one is not');
  const server = await ServerProcess.start(serverOptions(benchmark, revision, plan));
  try {
    const load = (durationMs: number) =>
      runLoad({ port: server.port, requests: benchmark.requests, connections: benchmark.connections, durationMs });
    await load(benchmark.warmupMs);
    const started = await server.probe<{ ok: boolean; error?: string }>(`profile-start ${profile.intervalUs}`, 5000);
    if (!started?.ok)
      throw new ServerError(
        `the probe in ${server.label}'s server could not start the profiler${started?.error ? `: ${started.error}` : ''}`,
      );
    const result = await load(profile.durationMs);
    const stopped = await server.probe<{ ok: boolean; error?: string }>(`profile-stop ${profile.outFile}`, 20_000);
    server.checkAlive('while profiled');
    if (!stopped?.ok)
      throw new ServerError(`the probe in ${server.label}'s server did not write its profile${stopped?.error ? `: ${stopped.error}` : ''}`);
    return { requests: result.traffic.responses };
  } finally {
    await server.stop();
  }
}
