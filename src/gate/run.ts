import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkout } from '../checkout/revisions.js';
import { benchPackages } from '../measure/micro/conventions.js';
import { loadConfig } from '../config/load.js';
import { currentEnvironment } from '../report/environment.js';
import { REPORT_VERSION, type Report, runVerdict, summarize, withAnswer } from '../report/model.js';
import { plannedFigures } from '../measure/http/schedule.js';
import { allowChildVariables, killStrays } from '../util/processes.js';
import { explainStage } from './explain.js';
import { countsStage, httpCountsStage, type CountsStage } from './counts.js';
import { joinCounted } from './both.js';
import { borrowNewFiles, borrowedRow, checkBenchFiles, findBenchFiles } from './files.js';
import { measureHttpStage } from './http.js';
import { judge } from './judge.js';
import { splitByMeasure } from './measures.js';
import { measureMicroStage } from './micro.js';
import { nativeStage } from './native.js';
import { type GateOptions, withOverrides } from './options.js';
import { type RunContext, planFirstLook, planRun, warnIfFirstLooksCannotFit } from './plan.js';
import { choosePolicy } from './policy.js';
import { runInfo } from './run-info.js';
import { planShard } from './shard.js';
import { soloStage } from './solo.js';

/**
 * The whole gate: config → checkout → measure → statistics → explanations → report model.
 * Entry points (CLI, action) call this and render the report their own way.
 */
export async function runGate(options: GateOptions): Promise<Report> {
  const now = options.now ?? Date.now;
  const begun = now();
  const own = loadConfig({ root: options.cwd, file: options.configFile });
  const setup = withOverrides(own, options.overrides);
  allowChildVariables({ trusted: options.childEnv, fromConfig: setup.env });
  // Known from the files alone, before any install: the policy (base's config) and the bench files.
  let known: { chosen: ReturnType<typeof choosePolicy>; found: Awaited<ReturnType<typeof findBenchFiles>> } | undefined;
  const tree = await checkout({
    cwd: options.cwd,
    base: options.base,
    head: options.head,
    install: setup.install,
    build: setup.build,
    commandTimeoutMs: setup.installTimeoutMs,
    installs: options.installs,
    log: options.log,
    onCleanup: options.onCleanup,
    // A bench file in a package of its own (a nested package.json with dependencies) gets that package installed.
    packages: (revision) => {
      const files = revision.label === 'base' ? known?.found?.base : known?.found?.head;
      return files ? benchPackages(revision.root, files) : [];
    },
    beforeInstall: async (checkedOut) => {
      const chosen = choosePolicy(own, checkedOut, options);
      const found = await findBenchFiles({ config: chosen.config, tree: checkedOut, options });
      known = { chosen, found: found && borrowNewFiles(found, checkedOut, options.log) };
    },
  });
  const socketDir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-sock-'));
  const removeSocketDir = () => rmSync(socketDir, { recursive: true, force: true });
  // A signal ends the process without running `finally`: the trap removes the folder (and the worktrees) then.
  const forgetSocketDir = options.onCleanup?.(removeSocketDir);
  const loadBefore = os.loadavg();
  try {
    const { config, policy } = known!.chosen;
    const loaded = known!.found ? await checkBenchFiles({ config, tree, options }, known!.found) : undefined;
    const found = loaded?.files;
    const inventory = loaded?.inventory ?? [];
    const whole = options.shard
      ? planShard(options.shard, { config, tree, options }, found, inventory)
      : { config, files: found, shard: undefined };
    // Load tests measured in counts (http[].measure) go to a stage of their own, after everything timed.
    const countedHttp = whole.config.http.filter((test) => test.measure === 'counts');
    const part = {
      ...whole,
      config: Object.freeze({ ...whole.config, http: whole.config.http.filter((test) => test.measure !== 'counts') }),
    };
    // Which micro-benchmarks are timed, which counted, which both (micro.measure, micro.measures).
    const split = splitByMeasure(part.config.micro, inventory, part.files);
    // calibrate measures every benchmark to the time limit: nothing is decided early there.
    const plan = planRun(part.config, part.shard?.familySize, !options.untilTimeLimit, split.counted?.only ?? 0);
    const firstLook = planFirstLook(part.config, plan, inventory, split.timed?.files, split.timed?.skip);
    if (!options.untilTimeLimit && (split.timed || part.config.http.length)) warnIfFirstLooksCannotFit(part.config, firstLook, options.log);
    const run: RunContext = {
      config: part.config,
      tree,
      options,
      plan,
      firstLook,
      socketDir,
      // time-limit bounds measuring only: checkout, install, build and the check of the bench files are behind us.
      started: now(),
      begun,
      now,
    };
    const files = part.files;
    const { timed: toTime, counted: toCount } = split;
    const micro = toTime ? await measureMicroStage(run, toTime.files, toTime.skip, found?.borrowed) : undefined;
    const http = run.config.http.length ? await measureHttpStage(run, micro) : undefined;
    // Counted after the timed rounds (measure: both, or some tasks timed), under a time limit of its own.
    const countsFrom = micro ? now() : run.started;
    const counted = toCount
      ? await countsStage(run, toCount, (http ? plannedFigures(run.config.http) : 0) + (toTime?.only ?? 0), countsFrom)
      : undefined;
    const timed = judge(run, micro, http);
    const judged = counted ? joinCounted(timed, counted, run.config.micro, http !== undefined) : timed;
    const measureEnded = now();
    const explained = await explainStage(run, judged.benchmarks, micro, http, toCount);
    const native = options.nativeCheck && files ? await nativeStage(run, files, inventory, explained.benchmarks) : undefined;
    const checked = native?.benchmarks ?? explained.benchmarks;
    // The solo check times what was timed: counted rows keep their counts' verdicts.
    const timeGated = checked.some((b) => b.kind === 'micro' && !b.counts);
    if (options.soloCheck && files && !timeGated) options.log('solo check: skipped, the micro-benchmarks were counted, not timed');
    const solo =
      options.soloCheck && toTime && timeGated
        ? await soloStage(run, toTime.files, checked, options.soloCheck.processes, toTime.skip)
        : undefined;
    const servers = countedHttp.length
      ? await httpCountsStage(run, countedHttp, judged.benchmarks.filter((b) => b.change).length, now())
      : undefined;
    const benchmarks = [...(solo?.benchmarks ?? checked), ...(servers?.benchmarks ?? [])].map(borrowedRow(found?.borrowed)).map(withAnswer);
    const countsInfo = mergeCountsInfo(counted?.info, servers?.info);
    return {
      version: REPORT_VERSION,
      tool: { name: 'benchgate', version: options.toolVersion },
      verdict: runVerdict(benchmarks),
      summary: summarize(benchmarks),
      base: { ref: tree.base.ref, sha: tree.base.sha },
      head: { ref: tree.head.ref, sha: tree.head.sha, dirty: tree.head.dirty },
      benchmarks,
      run: {
        ...runInfo(
          run,
          micro,
          http,
          withServers(judged, servers),
          explained.profile && { ...explained.profile, durationMs: now() - measureEnded },
        ),
        ...(countsInfo
          ? { counts: countsInfo, measureMs: (micro?.durationMs ?? 0) + (http?.durationMs ?? 0) + countsInfo.durationMs }
          : {}),
      },
      environment: { ...currentEnvironment(), loadAverage: { before: loadBefore, after: os.loadavg() } },
      ...(part.shard ? { shard: part.shard } : {}),
      ...(policy ? { policy } : {}),
      ...(native ? { nativeCheck: native.info } : {}),
      ...(solo ? { soloCheck: solo.info } : {}),
    };
  } finally {
    // What the pull request's code detached from its process group (a daemon, a setsid) goes with the run.
    killStrays();
    forgetSocketDir?.();
    removeSocketDir();
    tree.dispose();
  }
}
/**
 * The level the table's heading states and the run's budgeted figures, with the counted load tests': the lower of
 * the levels its rows were read at (the counted load tests' share spans every figure of the run).
 */
function withServers(
  judged: { benchmarks: readonly unknown[]; intervalLevel: number; figures: number },
  servers: CountsStage | undefined,
): { intervalLevel: number; figures: number } {
  if (!servers) return judged;
  const intervalLevel = judged.benchmarks.length ? Math.min(judged.intervalLevel, servers.level) : servers.level;
  return { intervalLevel, figures: servers.figures };
}

/** The counts of the micro-benchmarks and of the load tests, as one run's: their processes and time added. */
function mergeCountsInfo(...infos: (CountsStage['info'] | undefined)[]): CountsStage['info'] | undefined {
  const [first, ...rest] = infos.filter((info) => info !== undefined);
  if (!first) return undefined;
  return rest.reduce(
    (sum, info) => ({
      seeds: [...new Set([...sum.seeds, ...info.seeds])].sort((a, b) => a - b),
      processes: sum.processes + info.processes,
      durationMs: sum.durationMs + info.durationMs,
      valgrind: sum.valgrind,
    }),
    first,
  );
}

/** The report of a run that failed before it could compare anything. */
export function errorReport(message: string, toolVersion: string): Report {
  return {
    version: REPORT_VERSION,
    tool: { name: 'benchgate', version: toolVersion },
    verdict: 'error',
    summary: `error: ${message.split('\n')[0]}`,
    base: null,
    head: null,
    benchmarks: [],
    run: null,
    environment: currentEnvironment(),
    error: message,
  };
}
