import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { git } from '../checkout/git.js';
import { writeSite } from '../history/publish.js';
import { DEFAULT_HISTORY_LIMIT } from '../history/record.js';
import { bisectOf, repositoryOfRemote } from '../history/site.js';
import { codecFileStore, fileStore, MAX_PUBLISHED_BYTES } from '../history/store.js';
import { DRIFT_CODEC, DRIFT_LIMIT, driftFileOf } from '../history/drift-record.js';
import { reportFiles } from '../report/read.js';
import { messageOf } from '../util/errors.js';
import type { Command } from './args.js';

/** benchgate publish: the history files as a static site in --out; measures nothing. */
export async function runPublish(
  command: Extract<Command, { kind: 'publish' }>,
  io: { cwd: string; stderr: NodeJS.WritableStream; version: string; runnerPath: string },
): Promise<number> {
  try {
    const files = reportFiles(command.histories, io.cwd);
    const records = (await Promise.all(files.map((file) => fileStore(file, DEFAULT_HISTORY_LIMIT, MAX_PUBLISHED_BYTES).read()))).flat();
    // Drift verdicts kept beside each history file (benchgate drift writes them there).
    const drift = (
      await Promise.all(
        files
          .map((file) => driftFileOf(file))
          .filter((file) => existsSync(file))
          .map((file) => codecFileStore(file, DRIFT_LIMIT, DRIFT_CODEC).read()),
      )
    ).flat();
    if (records.length === 0)
      throw new Error(`no history records in ${command.histories.join(', ')}: record some first (benchgate record).`);
    const bisects = reportFiles(command.bisects, io.cwd).map((file) => {
      let value: unknown;
      try {
        value = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        throw new Error(`${file}: not JSON (${messageOf(error)})`, { cause: error });
      }
      return bisectOf(value, file);
    });
    const remote = command.repository ?? (await git(['remote', 'get-url', 'origin'], io.cwd).catch(() => ''));
    const repository = repositoryOfRemote(remote) ?? undefined;
    if (command.repository && !repository)
      throw new Error(`--repository must be an https URL such as https://github.com/owner/repo; got '${command.repository}'.`);
    const out = path.resolve(io.cwd, command.out);
    const written = writeSite(out, records, {
      title: command.title ?? `${repository ? repository.split('/').slice(-2).join('/') : path.basename(io.cwd)}: benchmark history`,
      version: io.version,
      generated: new Date(),
      releases: command.releases,
      repository,
      siteUrl: command.siteUrl,
      drift,
      bisects,
      assets: path.join(path.dirname(io.runnerPath), 'site'),
    });
    io.stderr.write(
      `benchgate: published ${records.length} record(s) from ${files.length} file(s) to ${out}: ` +
        `${written.files} files, ${(written.bytes / 1024).toFixed(0)} kB; open ${path.join(out, 'index.html')}\n`,
    );
    return 0;
  } catch (error) {
    io.stderr.write(`benchgate: publish: ${messageOf(error)}\n`);
    return 2;
  }
}
