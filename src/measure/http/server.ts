import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { killGroup, OutputTail, spawnTracked } from '../../util/processes.js';
import { freePort, isListening } from './port.js';
import { readCpu, type CpuReading } from './cpu.js';
import { probeCommand } from './probe-client.js';

/** A server that failed: never ready, crashed, or would not stop. Its message says which and shows its output. */
export class ServerError extends Error {
  override name = 'ServerError';
}

export interface ServerOptions {
  command: string;
  cwd: string;
  /** A path answering 2xx once the server is up; undefined: a TCP connect suffices. */
  readyPath: string | undefined;
  readyTimeoutMs: number;
  /** Path of dist/probe.cjs, preloaded when the command runs node. */
  probePath: string;
  /** Where the probe's socket goes (a temp dir of the run). */
  socketDir: string;
  /** Names the server in messages: "head (feature @ 1a2b3c4)". */
  label: string;
  /** Preload the probe whatever the command (a node under valgrind); by default only where the command runs node. */
  probe?: boolean;
  /** Variables set over benchgate's environment (counts: COUNTED_ENV); the command's own `VAR=value` still wins. */
  env?: Readonly<Record<string, string>>;
}

/** The shell's leading variable assignments of a command (`NODE_ENV=production PORT=0 node …`), as a regex source. */
export const ASSIGNMENTS = String.raw`(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*`;

const RUNS_NODE = new RegExp(String.raw`^\s*(?:taskset -c \S+ )?${ASSIGNMENTS}(?:\S*\/)?node(?:\s|$)`);
const LEADING_ASSIGNMENTS = new RegExp(`^(${ASSIGNMENTS})(.*)$`, 's');

/** True when the command starts the server with node itself, so NODE_OPTIONS reaches it and the probe can load. */
export function runsNode(command: string): boolean {
  return RUNS_NODE.test(command);
}

/**
 * Whether a command holds a shell operator outside its quotes (`;`, `&`, `|`, a newline, a backtick, a parenthesis):
 * one that ends the command or starts another, so words put after its node could reach another program. Quotes are
 * read as the shell reads them (`'…'` as it is, `"…"` and a backslash escaping), so `node -e "a(); b()"` holds none;
 * a redirection's `&` (`2>&1`, `&>`) is not one; an unclosed quote is a command not read, so it counts as one.
 * Written by hand: none of our dependencies reads shell quoting, and this is all of it we need.
 */
export function hasShellOperator(command: string): boolean {
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote === "'") {
      if (c === "'") quote = undefined;
    } else if (c === '\\') i++;
    else if (quote === '"') {
      if (c === '"') quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '&' && (/[<>]/.test(command[i - 1] ?? '') || command[i + 1] === '>')) continue;
    else if (/[;&|\n`()]/.test(c)) return true;
  }
  return quote !== undefined;
}

let sequence = 0;

/** Ports tried before giving up: a port the OS just called free is rarely taken, three in a row means something is wrong. */
const START_ATTEMPTS = 3;

/**
 * One server process of one revision: started in its own process group with
 * PORT and HOST=127.0.0.1, ready-checked, and stopped with SIGTERM then SIGKILL
 * until its whole group is gone.
 */
export class ServerProcess {
  readonly tail = new OutputTail();
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /**
   * The process whose CPU per request is measured: the one the probe answers from (node behind `npm start`
   * included), or our child when a simple command was exec'd without a probe; only ever a process of the
   * server's own group (a pid the server's code names is checked, never believed). Undefined: not measured.
   */
  cpuPid: number | undefined;
  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    /** The probe's socket, when the probe was preloaded. */
    readonly probeSocket: string | undefined,
    readonly label: string,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => this.tail.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.tail.push(chunk));
    child.once('exit', (code, signal) => (this.exit = { code, signal }));
  }

  /** Start on a free port and wait until ready; a port taken meanwhile by something else is retried on another. */
  static async start(options: ServerOptions): Promise<ServerProcess> {
    for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      const port = await freePort();
      // Taken between the OS handing it out and now: something else would answer for our server.
      if (await isListening(port, 200)) continue;
      const server = ServerProcess.spawn(options, port);
      try {
        await server.waitReady(options);
        return server;
      } catch (error) {
        await server.stop();
        const portTaken = /EADDRINUSE/.test(server.tail.lines(40));
        if (!portTaken || attempt >= START_ATTEMPTS) throw error;
      }
    }
    throw new ServerError(
      `${options.label}'s server could not be started: ${START_ATTEMPTS} free ports in a row were taken by something else before it could listen.`,
    );
  }

  private static spawn(options: ServerOptions, port: number): ServerProcess {
    const probe = options.probe ?? runsNode(options.command);
    const socket = probe ? path.join(options.socketDir, `probe-${process.pid}-${++sequence}.sock`) : undefined;
    const nodeOptions = [process.env.NODE_OPTIONS, probe ? `--require ${JSON.stringify(options.probePath)}` : undefined]
      .filter(Boolean)
      .join(' ');
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, PORT: String(port), HOST: '127.0.0.1', NODE_OPTIONS: nodeOptions };
    if (socket) {
      env.BENCHGATE_PROBE_SOCKET = socket;
      // The probe ends the server when benchgate is gone (killed with SIGKILL, no cleanup ran): no orphaned servers.
      env.BENCHGATE_PARENT_PID = String(process.pid);
    } else {
      delete env.BENCHGATE_PROBE_SOCKET;
      delete env.BENCHGATE_PARENT_PID;
    }
    const child = spawnTracked(execIfSimple(options.command), [], {
      cwd: options.cwd,
      env,
      shell: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ServerProcess(child, port, socket, options.label);
  }

  private async waitReady(options: ServerOptions): Promise<void> {
    const deadline = Date.now() + options.readyTimeoutMs;
    while (Date.now() < deadline) {
      if (this.exit)
        throw new ServerError(`${this.label}'s server exited before it was ready (${describeExit(this.exit)}).${this.output()}`);
      if (options.readyPath ? await answers2xx(this.port, options.readyPath) : await isListening(this.port)) {
        const hello = this.probeSocket ? await this.probe<{ pid?: unknown }>('hello').catch(() => undefined) : undefined;
        this.cpuPid = this.measuredPid(hello?.pid, options.command);
        return;
      }
      await sleep(50);
    }
    const what = options.readyPath ? `GET ${options.readyPath} did not answer 2xx` : `nothing accepted connections on port ${this.port}`;
    throw new ServerError(`${this.label}'s server was not ready after ${options.readyTimeoutMs / 1000}s: ${what}.${this.output()}`);
  }

  private measuredPid(probePid: unknown, command: string): number | undefined {
    const group = this.child.pid;
    if (group === undefined || process.platform !== 'linux') return undefined;
    if (typeof probePid === 'number' && Number.isSafeInteger(probePid) && groupOf(probePid) === group) return probePid;
    return !this.probeSocket && execIfSimple(command) !== command ? group : undefined;
  }

  /** The measured process's CPU so far (undefined where it cannot be read). */
  cpu(): CpuReading | undefined {
    return this.cpuPid === undefined ? undefined : readCpu(this.cpuPid);
  }

  /** Ask the probe something; undefined when there is no probe or it does not answer. */
  async probe<T = Record<string, unknown>>(command: string, timeoutMs?: number): Promise<T | undefined> {
    if (!this.probeSocket) return undefined;
    try {
      return await probeCommand<T>(this.probeSocket, command, timeoutMs);
    } catch {
      return undefined;
    }
  }

  /** Throw if the server has died. */
  checkAlive(during: string): void {
    if (this.exit) throw new ServerError(`${this.label}'s server crashed ${during} (${describeExit(this.exit)}).${this.output()}`);
  }

  /**
   * The same, for a server some of whose requests failed: a crash at a block's end reaches us after its connections'
   * errors, so its exit gets a moment (up to `graceMs`) to be seen, and the run says it crashed, with its exit code and
   * output, rather than that it was broken under load (seen at load 13: "head is broken under load: 7 connection errors").
   */
  async checkAliveAfterFailures(during: string, failed: boolean, graceMs = 500): Promise<void> {
    if (failed && !this.exit) {
      const done = new AbortController();
      await Promise.race([once(this.child, 'exit', { signal: done.signal }), sleep(graceMs, undefined, { signal: done.signal })]).catch(
        () => undefined,
      );
      done.abort();
    }
    this.checkAlive(during);
  }

  /** SIGTERM the group, SIGKILL it after `graceMs`, and wait until no process of the group is left. */
  async stop(graceMs = 2000): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined) return;
    killGroup(this.child, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (groupAlive(pid) && Date.now() < deadline) await sleep(20);
    if (groupAlive(pid)) killGroup(this.child, 'SIGKILL');
    for (let i = 0; i < 100 && groupAlive(pid); i++) await sleep(20);
    if (groupAlive(pid)) throw new ServerError(`${this.label}'s server (process group ${pid}) survived SIGKILL`);
  }

  output(): string {
    const lines = this.tail.lines(20);
    return lines
      ? `\nLast lines of its output:\n${lines
          .split('\n')
          .map((line) => `  ${line}`)
          .join('\n')}`
      : ' It printed nothing.';
  }
}

/**
 * A simple command (no shell operators) is exec'd by the shell, so the server
 * is our direct child: its exit code and signal are its own, and it is never
 * left an orphan that a slow init reaps seconds later.
 */
export function execIfSimple(command: string): string {
  const simple = command.trim();
  if (!/^[\w\s./=@%+:,-]+$/.test(simple)) return command;
  // Assignments first: `exec VAR=value node …` would look for a program named `VAR=value`; `VAR=value exec node …`
  // hands the variable to node.
  const [, assignments, rest] = LEADING_ASSIGNMENTS.exec(simple)!;
  return `${assignments}exec ${rest}`;
}

/** Whether any process of the group is still running (zombies waiting for their reaper do not count). */
function groupAlive(pgid: number): boolean {
  if (process.platform === 'linux') return linuxGroupAlive(pgid);
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function linuxGroupAlive(pgid: number): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(Number(entry));
    if (stat && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') return true;
  }
  return false;
}

/** A process's state and process group from /proc/<pid>/stat; undefined when it is gone. */
function statOf(pid: number): { state: string; pgrp: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so parse from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0]!, pgrp: Number(fields[2]) };
}

const groupOf = (pid: number) => statOf(pid)?.pgrp;

export function describeExit(exit: { code: number | null; signal: NodeJS.Signals | null }): string {
  return exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`;
}

function answers2xx(port: number, readyPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: readyPath, timeout: 1000, agent: false }, (response) => {
      response.resume();
      resolve((response.statusCode ?? 0) >= 200 && (response.statusCode ?? 0) < 300);
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(false));
  });
}

/**
 * Stop every server, each even when one before it could not be stopped, then throw the first failure: a server that
 * survived SIGKILL must not leave the others running.
 */
export async function stopAll(servers: Iterable<Pick<ServerProcess, 'stop'>>): Promise<void> {
  const failures: unknown[] = [];
  for (const server of servers) await server.stop().catch((error: unknown) => failures.push(error));
  if (failures.length) throw failures[0];
}
