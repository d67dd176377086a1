import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixtureRepo, watchProcesses } from './helpers.js';

export const ACTION = fileURLToPath(new URL('../../dist/action.js', import.meta.url));

export type ActionInputs = Record<string, string>;
export interface ActionEvent {
  name: string;
  payload: object;
}

/** A shallow clone (depth 1) of a fixture's feature branch, as actions/checkout leaves it: the base commit is missing. */
export function shallowWorkspace(
  fixture: string,
  config: string | undefined,
  temps: string[],
): { workspace: string; baseSha: string; headSha: string; origin: string } {
  const origin = fixtureRepo(fixture, config === undefined ? {} : { config });
  const sha = (ref: string) => execFileSync('git', ['rev-parse', ref], { cwd: origin, encoding: 'utf8' }).trim();
  const workspace = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'benchgate-workspace-')));
  temps.push(workspace);
  execFileSync('git', ['clone', '-q', '--depth', '1', '--branch', 'feature', `file://${origin}`, workspace]);
  return { workspace, baseSha: sha('main'), headSha: sha('feature'), origin };
}

export interface ActionRun {
  code: number | null;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
}

/**
 * Run dist/action.js the way the runner does: INPUT_* variables (hyphens kept), an event payload,
 * and the GITHUB_* files. `env` adds variables (e.g. the runner's own tokens).
 */
export function runActionBundle(
  workspace: string,
  inputs: ActionInputs,
  event: ActionEvent,
  options: { apiUrl: string; temps: string[]; env?: NodeJS.ProcessEnv; token?: string },
): Promise<ActionRun> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-runner-'));
  options.temps.push(dir);
  const files = { event: path.join(dir, 'event.json'), output: path.join(dir, 'output'), summary: path.join(dir, 'summary.md') };
  writeFileSync(files.event, JSON.stringify(event.payload));
  writeFileSync(files.output, '');
  writeFileSync(files.summary, '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: event.name,
    GITHUB_EVENT_PATH: files.event,
    GITHUB_OUTPUT: files.output,
    GITHUB_STEP_SUMMARY: files.summary,
    GITHUB_WORKSPACE: workspace,
    GITHUB_REPOSITORY: 'octo-org/todo-server',
    GITHUB_API_URL: options.apiUrl,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '4242',
    RUNNER_TEMP: dir,
    'INPUT_GITHUB-TOKEN': options.token ?? 'ghs_fake_token_for_tests',
    ...options.env,
    ...Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name.toUpperCase()}`, value])),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ACTION], { cwd: workspace, env });
    // What it starts is followed by pid and path: leftoverProcesses() checks it after the test.
    const watch = watchProcesses(child.pid!, [workspace]);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    // A safety net for a hung run, never a measure of speed.
    const timer = setTimeout(() => {
      watch.sample();
      for (const p of watch.seen()) if (p.alive) process.kill(p.pid, 'SIGKILL');
      reject(new Error(`action timed out\n${stdout}`));
    }, 600_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      watch.stop();
      resolve({
        code,
        stdout: unescapeCommands(stdout),
        outputs: parseOutputs(readFileSync(files.output, 'utf8')),
        summary: readFileSync(files.summary, 'utf8'),
      });
    });
  });
}

/** Workflow commands escape %, CR, LF (and : and , in properties); read the log as a person would. */
function unescapeCommands(text: string): string {
  return text.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');
}

/** GITHUB_OUTPUT's heredoc format: name<<delimiter, value lines, delimiter. */
function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const match = /^([^<]+)<<(.+)$/.exec(lines[i]!);
    if (!match) continue;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== match[2]; i++) value.push(lines[i]!);
    outputs[match[1]!] = value.join('\n');
  }
  return outputs;
}

export function pullRequestEvent(number: number, baseSha: string, headSha: string) {
  return {
    action: 'synchronize',
    number,
    pull_request: {
      number,
      title: 'Use a uuid v4 for request ids `$(rm -rf ~)`',
      head: { ref: 'feature; echo pwned', sha: headSha, repo: { full_name: 'octo-org/todo-server', fork: false } },
      base: { ref: 'main', sha: baseSha, repo: { full_name: 'octo-org/todo-server' } },
    },
    repository: { full_name: 'octo-org/todo-server', name: 'todo-server', owner: { login: 'octo-org' } },
    sender: { login: 'contributor' },
  };
}
