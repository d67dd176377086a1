import { existsSync } from 'node:fs';
import { git } from '../checkout/git.js';
import { commentKeyOf } from '../config/action-inputs.js';
import { loadConfig } from '../config/load.js';
import type { GateOptions } from '../gate/options.js';
import { errorReport, runGate } from '../gate/run.js';
import { parseAnchor } from '../config/anchor.js';
import { commitInfo, commitOf, commitsBetween, installPlan, resolveAnchor, type InstallPlan } from '../history/anchor.js';
import { formatDuration } from '../util/format.js';
import { benchmarkMatcher, bisect } from '../history/bisect.js';
import { newestTip, trendSince } from '../history/chain.js';
import { DEFAULT_HISTORY_LIMIT, recordOf } from '../history/record.js';
import { bisectText, driftMarkdown, trendMarkdown, trendText } from '../history/render.js';
import { codecFileStore, fileStore } from '../history/store.js';
import { DRIFT_CODEC, DRIFT_LIMIT, driftFileOf, driftRecordOf } from '../history/drift-record.js';
import type { Report } from '../report/model.js';
import { describeFailure } from '../util/errors.js';
import { killAll } from '../util/processes.js';
import type { Command } from './args.js';

/** What the history commands get from main: the gate's bundles and log, and how a report is printed and written. */
export interface HistoryIo {
  cwd: string;
  version: string;
  gate: Pick<GateOptions, 'runnerPath' | 'probePath' | 'toolVersion' | 'log' | 'onProgress' | 'onCleanup' | 'installs'>;
  print: (text: string) => void;
  write: (file: string, text: string) => void;
  writeReport: (report: Report) => number;
}

/** The gate key of the CLI's records: the same as the action's for the same directory and config, so both can share a history. */
async function gateKey(cwd: string, config: string | undefined): Promise<string> {
  const prefix = (await git(['rev-parse', '--show-prefix'], cwd)).replace(/\/$/, '');
  return commentKeyOf(prefix, config, '');
}

/** A compare that never throws: a failure is an error report, as compare's own. */
async function compare(io: HistoryIo, options: Omit<GateOptions, keyof HistoryIo['gate'] | 'cwd'>): Promise<Report> {
  try {
    return await runGate({ cwd: io.cwd, profile: 'never', ...options, ...io.gate });
  } catch (error) {
    killAll();
    return errorReport(describeFailure(error), io.version);
  }
}

/** benchgate record: compare head with its first parent (or --base) and append its record to the history file. */
export async function runRecord(command: Extract<Command, { kind: 'record' }>, io: HistoryIo): Promise<number> {
  const head = await commitOf(command.head, io.cwd);
  const base = await commitOf(command.base ?? `${head}^`, io.cwd);
  const report = await compare(io, { base, head, configFile: command.config, overrides: { timeLimitMs: command.timeLimitMs } });
  const code = io.writeReport(report);
  const gate = await gateKey(io.cwd, command.config);
  const record = recordOf(report, gate, await commitInfo(head, base, io.cwd), new Date());
  if (!record) {
    io.gate.log(`nothing recorded in ${command.history}: the compare measured nothing`);
    return 2;
  }
  const store = fileStore(command.history, DEFAULT_HISTORY_LIMIT);
  const written = await store.append([record]);
  io.gate.log(
    `recorded ${record.benchmarks.length} benchmark(s) of ${head.slice(0, 7)} (against ${base.slice(0, 7)}) in ${command.history}`,
  );
  const trend = trendSince(written, gate, { head, anchor: undefined });
  io.print(`\n${trendText(trend).join('\n')}\n`);
  return code;
}

/** benchgate trend: main's cumulative change since the anchor, from the history file; measures nothing. */
export async function runTrend(command: Extract<Command, { kind: 'trend' }>, io: HistoryIo): Promise<number> {
  const records = await fileStore(command.history, DEFAULT_HISTORY_LIMIT).read();
  const gate = await gateKey(io.cwd, command.config);
  const spec = command.anchor === undefined ? undefined : parseAnchor(command.anchor, '--anchor');
  const head = newestTip(records.filter((r) => r.gate === gate));
  const anchor = spec && spec.kind !== 'tag' && head ? await resolveAnchor(spec, head, io.cwd) : undefined;
  const trend = trendSince(records, gate, { head, anchor: anchor ?? (spec?.kind === 'tag' ? spec : undefined) });
  io.print(`${trendText(trend).join('\n')}\n`);
  const others = [...new Set(records.map((r) => r.gate))].filter((g) => g !== gate);
  if (!records.some((r) => r.gate === gate) && others.length)
    io.gate.log(
      `${command.history} holds no record of this gate ('${gate}', from this directory and config) but ${others.length} other(s): ${others
        .slice(0, 5)
        .map((g) => `'${g}'`)
        .join(', ')}. Run trend with the --config (and from the directory) the records were made with.`,
    );
  if (command.markdown) io.write(command.markdown, trendMarkdown(trend).markup);
  return 0;
}

/**
 * benchgate drift: HEAD against the anchor, side by side, at the drift budget; the history's chained changes
 * between them say which commits it suspects. Exit 1 when the budget is broken.
 */
export async function runDrift(command: Extract<Command, { kind: 'drift' }>, io: HistoryIo): Promise<number> {
  const head = await commitOf('HEAD', io.cwd);
  const anchor = await resolveAnchor(parseAnchor(command.anchor, '--anchor'), head, io.cwd);
  io.gate.log(
    `drift: ${head.slice(0, 7)} against ${anchor.label} (${anchor.commit.slice(0, 7)}), drift budget ${Math.round(command.driftBudget * 1000) / 10}%`,
  );
  const report = await compare(io, {
    base: anchor.commit,
    head,
    configFile: command.config,
    overrides: { timeLimitMs: command.timeLimitMs, driftBudget: command.driftBudget },
  });
  const code = io.writeReport(report);
  const records = await fileStore(command.history, DEFAULT_HISTORY_LIMIT).read();
  const gate = await gateKey(io.cwd, command.config);
  // Kept beside a history the user keeps, for the published site's drift column.
  const drift = existsSync(command.history) ? driftRecordOf(report, gate, anchor, command.driftBudget, new Date()) : undefined;
  if (drift) {
    const file = driftFileOf(command.history);
    await codecFileStore(file, DRIFT_LIMIT, DRIFT_CODEC).append([drift]);
    io.gate.log(`drift ${drift.state}: recorded in ${file}`);
  }
  const trend = records.length ? trendSince(records, gate, { head, anchor }) : undefined;
  if (trend) io.print(`\n${trendText(trend, { driftBudget: command.driftBudget }).join('\n')}\n`);
  if (command.markdown) io.write(command.markdown, driftMarkdown({ report, trend, driftBudget: command.driftBudget, anchor, marker: '' }));
  return code;
}

/** The installs a plan will make, in words: how many dependency sets, and which commits install every time. */
function describePlan(plan: InstallPlan): string {
  const shared =
    plan.sets === 0
      ? 'nothing to install'
      : `${plan.sets} dependency set(s), so ${plan.sets} install(s) reused by every step with the same set`;
  const unshared = plan.unshared.length
    ? `; ${plan.unshared.length} commit(s) install each time they are compared (${plan.unshared[0]!.reason}${plan.unshared.length > 1 ? ', …' : ''})`
    : '';
  return `${shared}${unshared}`;
}

/** benchgate bisect: the first commit after --good whose benchmarks lose their budget against it. */
export async function runBisect(command: Extract<Command, { kind: 'bisect' }>, io: HistoryIo): Promise<number> {
  const good = await commitOf(command.good, io.cwd);
  const bad = await commitOf(command.bad, io.cwd);
  const commits = await commitsBetween(good, bad, io.cwd);
  const config = loadConfig({ root: io.cwd, file: command.config });
  const select = command.benchmark ? benchmarkMatcher(command.benchmark) : () => true;
  const planned = Math.ceil(Math.log2(commits.length + 1)) + 1;
  const plan = await installPlan([good, ...commits.map((c) => c.sha)], io.cwd, config.install);
  io.gate.log(
    `bisect: ${commits.length} commit(s) after ${good.slice(0, 7)} up to ${bad.slice(0, 7)}, about ${planned} compares; ${describePlan(plan)}`,
  );
  // After each compare, what the rest will take at the pace so far (the first compare's installs included).
  const started = Date.now();
  let done = 0;
  const paced = async (report: Promise<Report>) => {
    const result = await report;
    done++;
    const each = (Date.now() - started) / done;
    if (done < planned)
      io.gate.log(
        `bisect: ${done} compare(s) in ${formatDuration(Date.now() - started)}; ` +
          `at most ${planned - done} more, up to ~${formatDuration(each * (planned - done))}`,
      );
    return result;
  };
  const result = await bisect({
    good,
    bad,
    commits,
    select,
    log: io.gate.log,
    compare: (base, head, extend, only) =>
      paced(
        compare(io, {
          base,
          head,
          configFile: command.config,
          overrides: {
            only,
            timeLimitMs: command.timeLimitMs === undefined ? undefined : command.timeLimitMs * (extend ? 2 : 1),
            ...(extend ? { maxRounds: config.maxRounds * 2, timeLimitMs: (command.timeLimitMs ?? config.timeLimitMs) * 2 } : {}),
          },
        }),
      ),
  });
  const lines = bisectText(result);
  io.print(`${lines.join('\n')}\n`);
  if (command.json) io.write(command.json, `${JSON.stringify(result, null, 2)}\n`);
  return result.firstBad || result.noLoss ? 0 : 2;
}
