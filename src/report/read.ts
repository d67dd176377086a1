import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { globSync, isDynamicPattern } from 'tinyglobby';
import schema from '../../schema/report.schema.json' with { type: 'json' };
import { UserError } from '../util/errors.js';
import type { Report } from './model.js';

/** A real report is tens of kilobytes; one this large was not written by benchgate. */
export const MAX_REPORT_BYTES = 5 * 1024 * 1024;

const validate = new Ajv({ allErrors: false, strict: false }).compile<Report>(schema);

/**
 * Read a report that another workflow uploaded: untrusted input (a fork's workflow wrote it).
 * It must be at most MAX_REPORT_BYTES and match schema/report.schema.json, which the build
 * generates from the Report type with a cap on every string and list; otherwise nothing of it is used.
 */
export function readReport(file: string): Report {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new UserError(`Cannot read the report ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`);
  }
  if (size > MAX_REPORT_BYTES)
    throw new UserError(
      `The report ${file} is ${(size / 1024 / 1024).toFixed(1)} MB, more than benchgate writes (at most ${MAX_REPORT_BYTES / 1024 / 1024} MB): refusing it.`,
    );
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new UserError(`The report ${file} is not JSON: refusing it.`);
  }
  if (!validate(data)) {
    const [first] = validate.errors ?? [];
    throw new UserError(
      `The report ${file} is not a benchgate report (schema/report.schema.json): ` +
        `${first?.instancePath || '(root)'} ${first?.message ?? 'is invalid'}. Refusing it.`,
    );
  }
  return data;
}

/**
 * The report files that paths or patterns name, relative to `cwd`: a pattern (shard-*.json,
 * reports/**\/*.json) the shell did not expand is expanded here. A name that matches nothing is an
 * error, so a missing artifact is never mistaken for a smaller suite.
 */
export function reportFiles(patterns: readonly string[], cwd: string): string[] {
  const files = patterns.flatMap((pattern) => {
    if (existsSync(path.resolve(cwd, pattern)) || !isDynamicPattern(pattern)) return [path.resolve(cwd, pattern)];
    const found = globSync(pattern, { cwd, onlyFiles: true, absolute: true, expandDirectories: false }).sort();
    if (found.length === 0) throw new UserError(`No file matches ${pattern} (in ${cwd}).`);
    return found;
  });
  return [...new Set(files)];
}
