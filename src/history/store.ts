import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { UserError } from '../util/errors.js';
import { appendRecords, parseHistory, serializeHistory, type HistoryRecord } from './record.js';

/** Where a history lives: a local file (the CLI) or a file on a data branch (the action). */
export interface Store<T> {
  /** For messages: the file, or the branch and path. */
  readonly where: string;
  read(): Promise<T[]>;
  /**
   * Adds records; a concurrent writer never makes one of them, or of its own, disappear. Resolves to the
   * history as written (the records of writers before it included), so a caller need not read it again.
   */
  append(records: readonly T[]): Promise<T[]>;
}
export type HistoryStore = Store<HistoryRecord>;

/** How a kind of record is kept in a file: read strictly, written one JSON line each, added to (newest `limit` kept). */
export interface Codec<T> {
  parse(text: string, source: string): T[];
  serialize(records: readonly T[]): string;
  append(existing: readonly T[], added: readonly T[], limit: number): T[];
  /** The commits a write names in its message. */
  commits(records: readonly T[]): string[];
}

/** The history's own records: one per push of a gate. */
export const HISTORY_CODEC: Codec<HistoryRecord> = {
  parse: parseHistory,
  serialize: serializeHistory,
  append: appendRecords,
  commits: (records) => records.map((r) => r.commit),
};

/** The most a history file may hold before it is refused (a hand-made file, a wrong path): 64 MB. */
const MAX_BYTES = 64 * 1024 * 1024;
/**
 * What `publish` reads of one file: a history kept long (history-limit 5,000 pushes of 200 benchmarks is 180 MB)
 * is read whole once to publish it, where the gate's own reads and writes stay at MAX_BYTES.
 */
export const MAX_PUBLISHED_BYTES = 512 * 1024 * 1024;
/** How long a writer waits for another's lock before it says so: a write takes milliseconds. */
const LOCK_WAIT_MS = 30_000;
/** A lock older than this was left by a process that died while writing. */
const STALE_LOCK_MS = 120_000;

/**
 * A history in a local file, one JSON line per record. Writers take `<file>.lock` (created exclusively),
 * rewrite the file beside it and rename it into place: two runs appending at once both land, and a reader
 * never sees half a file.
 */
export function fileStore(file: string, limit: number, maxBytes = MAX_BYTES): HistoryStore {
  return codecFileStore(file, limit, HISTORY_CODEC, maxBytes);
}

export function codecFileStore<T>(file: string, limit: number, codec: Codec<T>, maxBytes = MAX_BYTES): Store<T> {
  const read = (): T[] => {
    if (!existsSync(file)) return [];
    const size = statSync(file).size;
    if (size > maxBytes)
      throw new UserError(`${file}: ${size} bytes is more than a history file holds (${maxBytes / 1024 / 1024} MB): is it the right file?`);
    return codec.parse(readFileSync(file, 'utf8'), file);
  };
  return {
    where: file,
    read: () => Promise.resolve().then(read),
    append: async (records) => {
      mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
      const release = await lock(`${file}.lock`);
      try {
        const written = codec.append(read(), records, limit);
        const temp = `${file}.${process.pid}.tmp`;
        writeFileSync(temp, codec.serialize(written));
        renameSync(temp, file);
        return written;
      } finally {
        release();
      }
    },
  };
}

async function lock(lockFile: string): Promise<() => void> {
  const started = Date.now();
  for (;;) {
    try {
      const token = `${process.pid} ${Math.random()}`;
      const fd = openSync(lockFile, 'wx');
      writeFileSync(fd, token);
      closeSync(fd);
      // Released only while it is still ours: a lock taken over as stale belongs to its new holder.
      return () => {
        if (readSafe(lockFile) === token) rmSync(lockFile, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (statSafe(lockFile) ?? Date.now());
      if (age > STALE_LOCK_MS) rmSync(lockFile, { force: true });
      else if (Date.now() - started > LOCK_WAIT_MS)
        throw new UserError(`${lockFile} is held by another benchgate writing the history: remove it if no benchgate is running.`);
      else await sleep(20 + Math.random() * 30);
    }
  }
}

function readSafe(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function statSafe(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * The git data operations a history on a data branch needs (GitHub's Git Database API; the action's
 * Octokit client implements them, tests stand in). `updateRef` is a fast-forward only: it answers false
 * when the branch moved since it was read.
 */
export interface BranchApi {
  /** The branch's commit, or undefined when there is no such branch. */
  branchHead(branch: string): Promise<string | undefined>;
  /** The file's text at a commit, or undefined when it has none. */
  readFile(commit: string, file: string): Promise<string | undefined>;
  treeOf(commit: string): Promise<string>;
  /** A commit whose tree is `baseTree` (or nothing) with `file` set to `text`. */
  commitFile(options: {
    baseTree: string | undefined;
    file: string;
    text: string;
    parent: string | undefined;
    message: string;
  }): Promise<string>;
  /** Creates the branch at `commit`; false when it exists already (another writer was first). */
  createBranch(branch: string, commit: string): Promise<boolean>;
  /** Moves the branch to `commit`, a fast-forward only; false when it is not one (another writer was first). */
  moveBranch(branch: string, commit: string): Promise<boolean>;
}

/** Tries before a write gives up: each lost race costs one, and a race is lost only to a write that landed. */
const BRANCH_WRITE_TRIES = 8;

/**
 * A history file on a data branch of the repository, written through the API with a fast-forward update of
 * the branch: when two jobs write at once, the one that loses the race reads again, merges its records into
 * what the other wrote and tries again, so no record is lost. The branch holds only history files, one per
 * gate key, so it never mixes with the project's code.
 */
export function branchStore(
  api: BranchApi,
  options: { branch: string; file: string; limit: number; log?: (line: string) => void },
): HistoryStore {
  return codecBranchStore(api, options, HISTORY_CODEC);
}

export function codecBranchStore<T>(
  api: BranchApi,
  options: { branch: string; file: string; limit: number; log?: (line: string) => void },
  codec: Codec<T>,
): Store<T> {
  const where = `${options.file} on branch ${options.branch}`;
  const readAt = async (commit: string | undefined): Promise<T[]> => {
    if (!commit) return [];
    const text = await api.readFile(commit, options.file);
    if (text === undefined) return [];
    if (text.length > MAX_BYTES) throw new UserError(`${where}: more than a history file holds (64 MB).`);
    return codec.parse(text, where);
  };
  return {
    where,
    read: async () => readAt(await api.branchHead(options.branch)),
    append: async (records) => {
      for (let attempt = 1; attempt <= BRANCH_WRITE_TRIES; attempt++) {
        const head = await api.branchHead(options.branch);
        const written = codec.append(await readAt(head), records, options.limit);
        const commit = await api.commitFile({
          baseTree: head ? await api.treeOf(head) : undefined,
          file: options.file,
          text: codec.serialize(written),
          parent: head,
          message: `benchgate history: ${codec
            .commits(records)
            .map((c) => c.slice(0, 7))
            .join(', ')}`,
        });
        const landed = head ? await api.moveBranch(options.branch, commit) : await api.createBranch(options.branch, commit);
        if (landed) return written;
        options.log?.(`history: ${options.branch} moved while writing (another job wrote first); merging and trying again`);
        await sleep(100 * attempt + Math.random() * 200);
      }
      throw new UserError(`could not write ${where}: it moved ${BRANCH_WRITE_TRIES} times while writing.`);
    },
  };
}
