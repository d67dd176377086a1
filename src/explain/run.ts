/**
 * Explain regressions: after the verdicts, one extra process per revision runs
 * each chosen benchmark under the V8 CPU profiler (the task alone for a
 * micro-benchmark, the server under load for an HTTP one), and the two
 * profiles are compared function by function. Outside the measured rounds, so
 * it never changes a verdict.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Revision, RevisionLabel } from '../checkout/revisions.js';
import type { HttpBenchmarkConfig } from '../config/types.js';
import { profileServers } from '../measure/http/profile.js';
import { ID_SEPARATOR, LOOPS, type ProfileJob } from '../measure/micro/protocol.js';
import { isTypeScript } from '../measure/micro/harness/typescript-files.js';
import { runBenchmarkProcess } from '../measure/micro/spawn.js';
import type { CpuProfile } from '../measure/profiler.js';
import { messageOf } from '../util/errors.js';
import type { Agreement } from './agreement.js';
import type { CountsProfileExplanation } from './counts.js';
import { FunctionShapes, type ShapeOptions } from './functions.js';
import { diffProfiles, GC, SourceMaps, summarizeProfile, type ProfileRow } from './profile.js';

/** What the profiles of one benchmark show. */
export interface ProfileExplanation {
  /** The .cpuprofile files (open them in Chrome DevTools or speedscope). */
  files: { base: string; head: string };
  /** What one operation is: a call of the task, or a request to the server. */
  unit: 'call' | 'request';
  /** Operations done while each profile ran. */
  ops: { base: number; head: number };
  /**
   * How the profiles ran: `shared`, both revisions in one process, alternating as a measured round does (the state
   * the verdict measured); `duet`, both revisions' servers at once on one shared core after the learned warm-up, as
   * a duet round measures them; `alone`, each revision in a fresh process of its own (code measured in isolates or
   * processes of its own, servers measured live).
   */
  process?: 'shared' | 'duet' | 'alone';
  /** Profiler samples of work (idle excluded) per revision: the sampling error of perOpUs is about 1/√samples. */
  samples?: { base: number; head: number };
  /** Time in the garbage collector per operation, in microseconds (part of perOpUs). */
  gcPerOpUs?: { base: number; head: number };
  /** Sampled (non-idle) time per operation, in microseconds. */
  perOpUs: { base: number; head: number };
  /** The functions whose self time per operation grew most. */
  top: ProfileRow[];
  /** The project's own functions whose total time (with what they call) per operation grew most. */
  ownCode: ProfileRow[];
  durationMs: number;
  /** Whether the profiles' change of cost per operation agrees with the rounds' (set once the verdicts are known). */
  agreement?: Agreement;
}

/** A CPU profile of each revision (V8's sampler), or for a counted benchmark a profile in instructions (counts.ts). */
export type Explanation = ProfileExplanation | CountsProfileExplanation | { error: string; durationMs: number };

/** A benchmark to profile: its id, kind and (micro) the bench file that declares it. */
export interface ProfileTarget {
  id: string;
  kind: 'micro' | 'http';
  file: string | null;
}

export interface ExplainPlan {
  targets: readonly ProfileTarget[];
  base: Revision;
  head: Revision;
  http: readonly HttpBenchmarkConfig[];
  /** Where the .cpuprofile files go. */
  dir: string;
  runnerPath: string;
  probePath: string;
  socketDir: string;
  stallTimeoutMs: number;
  log: (line: string) => void;
  /** Profiled time per revision, and the sampling interval. */
  micro?: { durationMs: number; intervalUs: number };
  server?: { durationMs: number; intervalUs: number };
  /**
   * Whether a micro task's bench file was measured with both revisions in one process (alternate isolation, not
   * in isolates): then both are profiled so, in one process. Default: never (each alone).
   */
  shared?: (file: string) => boolean;
  /**
   * How a load test was measured in a duet: the prefix that pins its servers to the shared core and the warm-up its
   * rounds ran (the learned one); both servers are then profiled at once so. Undefined (the default): each alone.
   */
  duet?: (id: string) => { serverPrefix: string; warmupMs: number } | undefined;
}

export const PROFILE_DEFAULTS = { micro: { durationMs: 1000, intervalUs: 100 }, server: { durationMs: 3000, intervalUs: 200 } };

export async function explain(plan: ExplainPlan): Promise<Map<string, Explanation>> {
  const explanations = new Map<string, Explanation>();
  try {
    mkdirSync(plan.dir, { recursive: true });
  } catch (error) {
    // The verdicts are measured already: a profile folder that cannot be made costs the profiles, not the report.
    const message = `could not create the profile folder ${plan.dir}: ${messageOf(error)}`;
    plan.log(message);
    for (const target of plan.targets) explanations.set(target.id, { error: message, durationMs: 0 });
    return explanations;
  }
  for (const target of plan.targets) {
    const started = Date.now();
    plan.log(`profiling ${target.id}`);
    try {
      explanations.set(target.id, await profileBoth(target, plan, started));
    } catch (error) {
      const message = messageOf(error);
      plan.log(`${target.id}: could not profile: ${message.split('\n')[0]}`);
      explanations.set(target.id, { error: message, durationMs: Date.now() - started });
    }
  }
  return explanations;
}

/**
 * A file name for a benchmark's profiles: its id made safe for a path and kept short, and a hash of the
 * whole id, so two ids that read alike once made safe ('f > a b', 'f > a-b') never share a file.
 */
export function profileSlug(id: string): string {
  const readable = id
    .replace(/[^\w.-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
  return `${readable}-${createHash('sha256').update(id).digest('hex').slice(0, 8)}`;
}

/**
 * The transform TypeScript bench files and the sources they import were loaded through (dist/typescript.js, beside
 * the runner), where a profile has a frame in a TypeScript file: the functions of its file are read from the
 * JavaScript V8 ran (functions.ts). Loaded only then (amaro is 3.7 MB of WebAssembly).
 */
async function typeScriptFor(profiles: CpuProfile[], runnerPath: string): Promise<ShapeOptions['typeScript']> {
  if (!profiles.some((profile) => profile.nodes.some((node) => isTypeScript(node.callFrame.url)))) return undefined;
  const transform = path.join(path.dirname(runnerPath), 'typescript.js');
  try {
    return ((await import(pathToFileURL(transform).href)) as typeof import('../measure/micro/harness/typescript.js')).transformWithMap;
  } catch {
    // Not built beside the runner: TypeScript frames keep their line in the key.
    return undefined;
  }
}

async function profileBoth(target: ProfileTarget, plan: ExplainPlan, started: number): Promise<ProfileExplanation> {
  const revisions: Record<RevisionLabel, Revision> = { base: plan.base, head: plan.head };
  const slug = profileSlug(target.id);
  const files = { base: path.join(plan.dir, `${slug}.base.cpuprofile`), head: path.join(plan.dir, `${slug}.head.cpuprofile`) };
  const shared = target.kind === 'micro' && target.file !== null && (plan.shared?.(target.file) ?? false);
  const duet = target.kind === 'http' ? plan.duet?.(target.id) : undefined;
  const ops = { base: 0, head: 0 };
  const both = [revisions.base, revisions.head];
  if (shared) Object.assign(ops, await profileMicro(target, both, files, plan));
  else if (duet) Object.assign(ops, await profileHttp(target, both, files, plan, duet));
  else
    for (const side of ['base', 'head'] as const)
      ops[side] =
        (target.kind === 'http'
          ? await profileHttp(target, [revisions[side]], files, plan)
          : await profileMicro(target, [revisions[side]], files, plan))[side] ?? 0;
  const profiles = {
    base: JSON.parse(readFileSync(files.base, 'utf8')) as CpuProfile,
    head: JSON.parse(readFileSync(files.head, 'utf8')) as CpuProfile,
  };
  const options = {
    maps: new SourceMaps(),
    // A micro-benchmark's TypeScript ran through benchgate's own transform, at positions it can read again; a server's
    // ran through the user's loader (tsx, ts-node, Node's own), whose positions it cannot know: those keep their lines.
    shapes: new FunctionShapes({
      typeScript: target.kind === 'micro' ? await typeScriptFor([profiles.base, profiles.head], plan.runnerPath) : undefined,
    }),
    // benchgate's runner and probe frames are not the project's; a micro task's bench file calls everything it does.
    hidden: (file: string) =>
      file.startsWith(path.dirname(plan.runnerPath) + path.sep) || file.startsWith(path.dirname(plan.probePath) + path.sep),
    notOwn: (file: string) => file === target.file,
    // The runner's compiled loops (measure/micro/alternate.ts): V8 may inline the whole task into them.
    loops: LOOPS,
  };
  const read = (side: RevisionLabel) => summarizeProfile(profiles[side], revisions[side].root, options);
  const summaries = { base: read('base'), head: read('head') };
  const perOp = (side: RevisionLabel) => (ops[side] > 0 ? (summaries[side].totalMs * 1000) / ops[side] : 0);
  const sides = [
    { summary: summaries.base, ops: ops.base },
    { summary: summaries.head, ops: ops.head },
  ] as const;
  // A function that explains less than 2% of the whole growth per operation is sampling noise, not a lead.
  const growth = Math.max(0, perOp('head') - perOp('base'));
  const matters = (row: ProfileRow) => row.headPerOpUs - row.basePerOpUs >= 0.02 * growth;
  const gcPerOp = (side: RevisionLabel) =>
    ops[side] > 0
      ? summaries[side].functions.filter((f) => f.function === GC).reduce((sum, f) => sum + f.selfMs, 0) * (1000 / ops[side])
      : 0;
  return {
    files,
    unit: target.kind === 'http' ? 'request' : 'call',
    ops,
    process: shared ? 'shared' : duet ? 'duet' : 'alone',
    samples: { base: summaries.base.samples, head: summaries.head.samples },
    gcPerOpUs: { base: gcPerOp('base'), head: gcPerOp('head') },
    perOpUs: { base: perOp('base'), head: perOp('head') },
    top: diffProfiles(...sides).filter(matters),
    ownCode: diffProfiles(...sides, 3, 'ownTotals').filter(matters),
    durationMs: Date.now() - started,
  };
}

/** Profile a micro task: one revision alone, or both in one process, alternating. Each revision's calls under the profiler. */
async function profileMicro(
  target: ProfileTarget,
  revisions: Revision[],
  files: Record<RevisionLabel, string>,
  plan: ExplainPlan,
): Promise<Partial<Record<RevisionLabel, number>>> {
  if (!target.file) throw new Error(`no bench file is known for ${target.id}`);
  const settings = plan.micro ?? PROFILE_DEFAULTS.micro;
  const job: ProfileJob = {
    kind: 'profile',
    sides: revisions.map((revision) => ({ revision: revision.label, root: revision.root, files: [target.file!] })),
    task: target.id.slice(target.file.length + ID_SEPARATOR.length),
    // Each revision gets the profiled time it gets alone.
    durationMs: settings.durationMs * revisions.length,
    intervalUs: settings.intervalUs,
    outFiles: Object.fromEntries(revisions.map((revision) => [revision.label, files[revision.label]])),
  };
  // Where a measured round runs (schedule.ts, workingDirectory): a process of both revisions in head's folder.
  const cwd = revisions.find((revision) => revision.label === 'head')?.root ?? revisions[0]!.root;
  const outcome = await runBenchmarkProcess(job, { runnerPath: plan.runnerPath, stallTimeoutMs: plan.stallTimeoutMs, cwd });
  if (!outcome.ok) throw new Error(`${revisions.map((r) => r.label).join(' and ')}: ${outcome.message}`);
  return outcome.calls ?? {};
}

/** Profile a load test's servers: one revision's alone, or both at once on the shared core as a duet measured them. */
async function profileHttp(
  target: ProfileTarget,
  revisions: Revision[],
  files: Record<RevisionLabel, string>,
  plan: ExplainPlan,
  duet?: { serverPrefix: string; warmupMs: number },
): Promise<Partial<Record<RevisionLabel, number>>> {
  const benchmark = plan.http.find((b) => b.id === target.id);
  if (!benchmark) throw new Error(`no http benchmark is declared as ${target.id}`);
  const settings = plan.server ?? PROFILE_DEFAULTS.server;
  return profileServers(benchmark, revisions, duet ? { ...plan, serverPrefix: duet.serverPrefix } : plan, {
    durationMs: Math.min(settings.durationMs, Math.max(benchmark.durationMs, 1000)),
    intervalUs: settings.intervalUs,
    warmupMs: duet?.warmupMs ?? benchmark.warmupMs,
    outFiles: Object.fromEntries(revisions.map((revision) => [revision.label, files[revision.label]])),
  });
}
