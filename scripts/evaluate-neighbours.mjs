// EVALUATE=neighbours npm run evaluate: does a task's figure depend on the other tasks of the process?
// On fixtures/router-suite (FIXTURE), base and head installed side by side, the benchmark process
// (dist/runner.js, or RUNNER) measures each task P times (6) in each of these conditions, at T ms (100) per task:
//   all    every task, in declared order, in one process (what a round does when no task is decided);
//   alone  one process per task, the others loaded but not run (no neighbours);
//   tail   the second half of the tasks only, the first half skipped (decided, in benchgate before issue 22);
//   warm   the same, the first half decided: they warm up unmeasured (MicroJob.decided, issue 22).
// It prints per task the mean change and the spread across processes (sd of the per-process figure):
// where `all` and `alone` differ, neighbours move the figure; where `tail` and `all` differ, a task's figure
// changes within a run as the tasks before it are decided.
import { execFileSync, fork } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeFixtureRepo } from './fixture-repo.mjs';
import { machine } from './evaluate-lib.mjs';

const runner = process.env.RUNNER ?? fileURLToPath(new URL('../dist/runner.js', import.meta.url));
const processes = Number(process.env.P ?? 6);
const taskTimeMs = Number(process.env.T ?? 100);
const conditions = (process.env.CONDITIONS ?? 'all,alone,tail,warm').split(',');
const fixture = process.env.FIXTURE ?? 'router-suite';

function runJob(sides, job, order) {
  return new Promise((resolve, reject) => {
    const child = fork(runner, [], { cwd: sides[1].root, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.on('message', (message) => {
      if (message.type === 'ready') child.send({ ...job, sides: order % 2 ? [...sides].reverse() : sides });
      else if (message.type === 'result') resolve(message);
      else if (message.type === 'fatal') reject(new Error(message.message));
    });
    child.on('exit', (code) => code && reject(new Error(`runner exited with ${code}`)));
  });
}

export async function evaluateNeighbours() {
  const repo = makeFixtureRepo(fixture);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-neighbours-'));
  const sides = ['base', 'head'].map((revision) => {
    const root = path.join(dir, revision);
    execFileSync('git', ['worktree', 'add', '-q', '--detach', root, revision === 'base' ? 'main' : 'feature'], { cwd: repo });
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'ignore' });
    return { revision, root, files: process.env.FILES?.split(',') ?? ['benchmark/bench.js', 'bench/serialize.bench.mjs'] };
  });
  const settings = (ms) => ({ taskTimeMs: ms, blockMs: 1, warmupBlocks: 10, minSampleMs: 0.02, minBlocks: 10 });
  const ids = (await runJob(sides, { settings: settings(1), batches: {}, skip: [] }, 0)).tasks.map((task) => task.id);
  const fileOf = (id) => id.slice(0, id.indexOf(' > '));
  // The first half of each file's tasks: what a look had decided.
  const byFile = new Map();
  for (const id of ids) byFile.set(fileOf(id), [...(byFile.get(fileOf(id)) ?? []), id]);
  const firstHalf = [...byFile.values()].flatMap((tasks) => tasks.slice(0, tasks.length >> 1));
  console.log(`# Neighbours: ${fixture}, ${processes} processes per condition, ${taskTimeMs} ms per task, ${machine()}`);
  const figures = {};
  for (const condition of conditions) {
    const per = (figures[condition] = {});
    const add = (result) => result.tasks.forEach((task) => (per[task.id] ??= []).push(task.logRatio));
    const job = (extra) => ({ settings: settings(taskTimeMs), batches: {}, skip: [], ...extra });
    for (let p = 0; p < processes; p++) {
      if (condition === 'all') add(await runJob(sides, job({}), p));
      if (condition === 'tail') add(await runJob(sides, job({ skip: firstHalf }), p));
      if (condition === 'warm') add(await runJob(sides, job({ decided: firstHalf }), p));
      if (condition === 'alone') for (const id of ids) add(await runJob(sides, job({ skip: ids.filter((other) => other !== id) }), p));
    }
  }
  const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const sd = (xs) => Math.sqrt(xs.reduce((s, x) => s + (x - mean(xs)) ** 2, 0) / (xs.length - 1));
  const cell = (xs) => (xs ? `${((Math.exp(mean(xs)) - 1) * 100).toFixed(1)}% ±${(sd(xs) * 100).toFixed(1)}` : '–');
  console.log(`| task | ${conditions.join(' | ')} |`);
  console.log(`|---|${conditions.map(() => '---').join('|')}|`);
  for (const id of ids) console.log(`| ${id} | ${conditions.map((c) => cell(figures[c][id])).join(' | ')} |`);
  const spreads = (c) => ids.filter((id) => figures[c][id]).map((id) => sd(figures[c][id]) * 100);
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  console.log(`\nmedian spread across processes: ${conditions.map((c) => `${c} ${median(spreads(c)).toFixed(1)}`).join(', ')} (points)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await evaluateNeighbours();
