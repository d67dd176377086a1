import { decideFamily } from '../stats/family.js';
import { UserError } from '../util/errors.js';
import {
  REPORT_VERSION,
  runVerdict,
  sortBenchmarks,
  summarize,
  type Report,
  type ReportBenchmark,
  type RunInfo,
  type ShardInfo,
} from './model.js';

/** A shard's report and the file it was read from, for messages. */
export interface ShardReport {
  file: string;
  report: Report;
}

type Shard = ShardReport & { report: Report & { shard: ShardInfo } };

/**
 * Join the reports of every shard of one suite into one report, its verdicts settled for the whole
 * family at once (decideFamily). Shards that do not add up to exactly one suite are refused, each
 * problem naming the file: a shard whose run failed, a missing or repeated shard, another base or
 * head commit, config or benchgate version, a unit or benchmark claimed twice, a unit nobody measured.
 * Never a partial pass.
 */
export function mergeShards(reports: readonly ShardReport[]): Report {
  if (reports.length === 0) throw new UserError('No shard reports to merge: pass the shard-*.json files that compare --shard wrote.');
  const shards = reports.map(checkShard);
  checkComplete(shards);
  checkSameRun(shards);
  checkSuite(shards);
  const [first] = shards;
  const familySize = first!.report.shard.familySize;
  const benchmarks = sortBenchmarks(
    decideFamily(
      shards.flatMap((s) => s.report.benchmarks.map((b) => measuredOrNot(b, s.file))),
      familySize,
    ),
  );
  const merged: Report = {
    ...first!.report,
    version: REPORT_VERSION,
    verdict: runVerdict(benchmarks),
    summary: summarize(benchmarks),
    benchmarks,
    run: mergeRuns(shards.map((s) => s.report.run!)),
  };
  // One report of the whole suite: no longer a shard's.
  delete merged.shard;
  // compare --shard --native-check: each shard ran its own bench files natively.
  const native = shards.map((s) => s.report.nativeCheck).filter((check) => check !== undefined);
  const nativeErrors = native.flatMap((check) => (check.error ? [check.error] : []));
  if (native.length)
    merged.nativeCheck = {
      runTimeoutMs: native[0]!.runTimeoutMs,
      files: native.flatMap((check) => check.files),
      ...(nativeErrors.length ? { error: nativeErrors.join('\n') } : {}),
    };
  else delete merged.nativeCheck;
  return merged;
}

/**
 * A compared benchmark with no round measured has no figure, whatever verdict its shard's report claims (an
 * older benchgate's, or an edited one): unmeasured, which fails the merged run. Never a pass.
 */
function measuredOrNot(benchmark: ReportBenchmark, file: string): ReportBenchmark {
  const compared = !['error', 'new', 'removed', 'unmeasured'].includes(benchmark.verdict);
  if (!compared || (Array.isArray(benchmark.rounds) && benchmark.rounds.length > 0)) return benchmark;
  const note =
    `${file} measured no round of it: no figure, and an unmeasured benchmark is ` +
    `never a pass: raise that shard's time-limit, or split the suite into more shards`;
  return { ...benchmark, verdict: 'unmeasured', beyondBudget: 'open', change: null, unconfirmed: undefined, note };
}

function checkShard({ file, report }: ShardReport): Shard {
  if (report.verdict === 'error' && report.error)
    throw new UserError(`${file}: that shard's run failed, so the suite has no verdict: ${report.error.split('\n')[0]}`);
  if (!report.shard || !report.run || !report.base || !report.head)
    throw new UserError(`${file} is not a shard's report (it has no shard block): write shard reports with compare --shard i/n --json.`);
  return { file, report: report as Shard['report'] };
}

/** Every index from 1 to count exactly once, all of one count. */
function checkComplete(shards: Shard[]): void {
  const count = shards[0]!.report.shard.count;
  const other = shards.find((s) => s.report.shard.count !== count);
  if (other)
    throw new UserError(
      `${other.file} is shard ${other.report.shard.index} of ${other.report.shard.count}, ` +
        `but ${shards[0]!.file} is of ${count}: shards of different splits cannot merge.`,
    );
  const byIndex = new Map<number, string>();
  for (const { file, report } of shards) {
    const seen = byIndex.get(report.shard.index);
    if (seen) throw new UserError(`Shard ${report.shard.index}/${count} appears twice: ${seen} and ${file}.`);
    byIndex.set(report.shard.index, file);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((index) => !byIndex.has(index));
  if (missing.length)
    throw new UserError(
      `Shard ${missing.map((i) => `${i}/${count}`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing ` +
        `(got ${shards.map((s) => `${s.report.shard.index} from ${s.file}`).join(', ')}): the suite has no verdict ` +
        `without ${missing.length === 1 ? 'it' : 'them'}. Did a shard's job fail or its artifact not download?`,
    );
}

/** One base and head commit, one config, one benchgate version. */
function checkSameRun(shards: Shard[]): void {
  const [first, ...rest] = shards;
  const facts: [string, (r: Shard['report']) => string][] = [
    ['base commit', (r) => r.base!.sha],
    ['head commit', (r) => r.head!.sha],
    ['config (hash)', (r) => r.shard.configHash],
    ['benchgate version', (r) => r.tool.version],
  ];
  for (const shard of rest) {
    for (const [what, of] of facts) {
      if (of(shard.report) !== of(first!.report))
        throw new UserError(
          `${shard.file} has ${what} ${of(shard.report)}, but ${first!.file} has ${of(first!.report)}: shards ` +
            `of different runs cannot merge. Run every shard of the same commits, config and benchgate version.`,
        );
    }
  }
}

/** The same suite in every shard, each unit and benchmark claimed by one shard, every unit by some shard. */
function checkSuite(shards: Shard[]): void {
  const [first] = shards;
  const suite = first!.report.shard.suite;
  for (const shard of shards) {
    if (shard.report.shard.suite.join('\n') !== suite.join('\n') || shard.report.shard.familySize !== first!.report.shard.familySize)
      throw new UserError(
        `${shard.file} sees another suite (${shard.report.shard.suite.length} bench files and ` +
          `load tests, a family of ${shard.report.shard.familySize}) than ${first!.file} ` +
          `(${suite.length}, ${first!.report.shard.familySize}): shards of different runs cannot merge.`,
      );
  }
  const owner = new Map<string, string>();
  for (const { file, report } of shards) {
    for (const unit of report.shard.assigned) {
      if (owner.has(unit)) throw new UserError(`${unit} is claimed by two shards: ${owner.get(unit)} and ${file}.`);
      if (!suite.includes(unit)) throw new UserError(`${file} claims ${unit}, which is not in the suite its shards share.`);
      owner.set(unit, file);
    }
  }
  const unmeasured = suite.filter((unit) => !owner.has(unit));
  if (unmeasured.length) throw new UserError(`No shard measured ${unmeasured.join(', ')}: the shards do not cover the suite.`);
  const reportedBy = new Map<string, string>();
  for (const { file, report } of shards) {
    const assigned = new Set(report.shard.assigned);
    for (const benchmark of report.benchmarks) {
      const seen = reportedBy.get(benchmark.id);
      if (seen) throw new UserError(`The benchmark ${benchmark.id} is claimed by two shards: ${seen} and ${file}.`);
      reportedBy.set(benchmark.id, file);
      const unit = benchmark.kind === 'http' ? benchmark.id : benchmark.file;
      if (!unit || !assigned.has(unit))
        throw new UserError(
          `${file} reports ${benchmark.id}, which is not in its own part of the suite (${report.shard.assigned.join(', ')}).`,
        );
    }
  }
}

/** The shards ran side by side: the merged run is as long as the longest, and limited if any was. */
function mergeRuns(runs: RunInfo[]): RunInfo {
  const most = (pick: (r: RunInfo) => number | undefined) => {
    const values = runs.map(pick).filter((v): v is number => v !== undefined);
    return values.length ? Math.max(...values) : undefined;
  };
  const [first] = runs;
  const optional = {
    maxRounds: most((r) => r.maxRounds),
    looks: most((r) => r.looks),
    confirmRounds: most((r) => r.confirmRounds),
    processes: most((r) => r.processes),
  };
  const http = { httpRounds: most((r) => r.httpRounds), httpConfirmRounds: most((r) => r.httpConfirmRounds) };
  const httpMode = runs.find((r) => r.httpMode)?.httpMode;
  const profiled = runs.reduce((sum, r) => sum + (r.profile?.benchmarks ?? 0), 0);
  return {
    rounds: most((r) => r.rounds) ?? 0,
    plannedRounds: most((r) => r.plannedRounds) ?? 0,
    ...Object.fromEntries(Object.entries({ ...optional, ...http }).filter(([, v]) => v !== undefined)),
    ...(httpMode ? { httpMode } : {}),
    limited: runs.some((r) => r.limited),
    isolation: first!.isolation,
    confidence: first!.confidence,
    intervalConfidence: first!.intervalConfidence,
    timeLimitMs: first!.timeLimitMs,
    measureMs: most((r) => r.measureMs) ?? 0,
    totalMs: most((r) => r.totalMs) ?? 0,
    shards: runs.length,
    // The profiles' folders are on each shard's machine: only how many were profiled carries over.
    ...(profiled ? { profile: { benchmarks: profiled, durationMs: most((r) => r.profile?.durationMs) ?? 0 } } : {}),
  };
}
