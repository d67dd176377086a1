import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ErrorObject } from 'ajv';
import { closest, distance } from 'fastest-levenshtein';
import { isMap, LineCounter, parseDocument, type Document } from 'yaml';
import schema from '../../schema/benchgate.schema.json' with { type: 'json' };
import { UserError } from '../util/errors.js';
import { looksLikeCredential, neverPassed } from '../util/processes.js';
import {
  DEFAULTS,
  MAX_PROCESSES_PER_ROUND,
  type Config,
  type CountedFigure,
  type ExpectedStatus,
  type HttpBenchmarkConfig,
  type HttpMethod,
  type HttpMode,
  type LatencyStat,
} from './types.js';
import { parseBudget, parseDuration, parsePercent } from './units.js';

export const CONFIG_FILE = 'benchgate.yml';

/** The raw, schema-valid shape of benchgate.yml. */
interface RawConfig {
  budget?: string;
  budgets?: Record<string, string>;
  micro?: {
    files?: string | string[];
    isolation?: 'alternate' | 'thread' | 'process';
    'task-time'?: string;
    'task-timeout'?: string;
    processes?: 'auto' | number;
    measure?: 'time' | 'counts' | 'both';
    measures?: Record<string, 'time' | 'counts' | 'both'>;
    gate?: 'time' | 'counts';
    seeds?: number;
    count?: CountedFigure;
  };
  http?: RawHttp[];
  'http-mode'?: HttpMode;
  'http-pin'?: boolean;
  install?: string | false;
  build?: string;
  rounds?: number;
  'max-rounds'?: number;
  confirm?: boolean;
  confidence?: string;
  'time-limit'?: string;
  'install-timeout'?: string;
  env?: string[];
}

interface RawHttp {
  name: string;
  start: string;
  ready?: string;
  'ready-timeout'?: string;
  requests: {
    method?: HttpMethod;
    path: string;
    headers?: Record<string, string>;
    body?: string;
    status?: ExpectedStatus | ExpectedStatus[];
  }[];
  connections?: number;
  rate?: number | 'auto';
  duration?: string;
  warmup?: string;
  budget?: string;
  'latency-budget'?: Partial<Record<LatencyStat, string>>;
  measure?: 'time' | 'counts';
}

const validate = new Ajv({ allErrors: true, verbose: true, strict: true, strictTuples: false }).compile<RawConfig>(schema);

export interface LoadOptions {
  /** Directory the default config file is looked up in (the repository root). */
  root: string;
  /** An explicit config path (from --config); it must exist. */
  file?: string | undefined;
}

/**
 * Find, parse and validate the configuration. Without a file the defaults
 * apply; with one, every error names the file, line, field, bad value and what is expected.
 */
export function loadConfig(options: LoadOptions): Config {
  const file = options.file ? path.resolve(options.root, options.file) : path.join(options.root, CONFIG_FILE);
  if (!existsSync(file)) {
    if (options.file) throw new UserError(`Config file ${options.file} does not exist (resolved to ${file}).`);
    return toConfig({}, undefined);
  }
  return parseConfig(readFileSync(file, 'utf8'), file);
}

/** Parse the text of a config file; `file` is only used in messages and in the result. */
export function parseConfig(text: string, file: string): Config {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  const shown = displayPath(file);
  const yamlError = doc.errors[0];
  if (yamlError) {
    const where = yamlError.linePos ? `:${yamlError.linePos[0].line}:${yamlError.linePos[0].col}` : '';
    const reason = yamlError.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new UserError(`${shown}${where}: invalid YAML: ${reason}.`);
  }
  const raw: unknown = doc.toJS() ?? {};
  if (!validate(raw)) {
    const problems = pickErrors(validate.errors ?? []).map((error) => describe(error, doc, lines, shown));
    throw new UserError(problems.join('\n'));
  }
  checkHttpNames(raw, file);
  checkMeasures(raw, shown);
  if (raw.micro?.gate !== undefined && raw.micro.measure !== 'both' && !Object.values(raw.micro.measures ?? {}).includes('both'))
    throw new UserError(
      `${shown}: micro.gate is '${raw.micro.gate}', but micro.measure is ${raw.micro.measure ?? 'time (the default)'}: ` +
        'the gate chooses between figures only where micro.measure (or a pattern of micro.measures) is both.',
    );
  checkEnvNames(raw, shown);
  return toConfig(raw, file);
}

/** micro.measures names micro-benchmarks: a load test is counted by its own http[].measure. */
function checkMeasures(raw: RawConfig, shown: string): void {
  const http = Object.keys(raw.micro?.measures ?? {}).find((pattern) => pattern.startsWith('http > '));
  if (http)
    throw new UserError(
      `${shown}: micro.measures: '${http}' names a load test, and micro.measures applies to micro-benchmarks only: ` +
        "set measure: counts in that load test's http[] entry.",
    );
}

/** benchgate.yml is the pull request's to edit: a credential's name there would hand the credential to its code. */
function checkEnvNames(raw: RawConfig, shown: string): void {
  const refused = (raw.env ?? []).filter((name) => looksLikeCredential(name) || neverPassed(name));
  if (refused.length)
    throw new UserError(
      `${shown}: env: ${refused.map((name) => `'${name}'`).join(', ')} look${refused.length === 1 ? 's' : ''} ` +
        `like a credential or one of the runner's own files, and a pull request can edit this file: list such a variable ` +
        `in the action's env input (the workflow's, which the pull request's code cannot change), or rename it.`,
    );
}

function toConfig(raw: RawConfig, file: string | undefined): Config {
  const files = raw.micro?.files;
  return Object.freeze({
    file,
    budget: raw.budget !== undefined ? parseBudget(raw.budget) : DEFAULTS.budget,
    budgets: Object.freeze(Object.entries(raw.budgets ?? {}).map(([pattern, budget]) => ({ pattern, budget: parseBudget(budget) }))),
    micro: Object.freeze({
      files: files === undefined ? [...DEFAULTS.files] : typeof files === 'string' ? [files] : [...files],
      isolation: raw.micro?.isolation ?? DEFAULTS.isolation,
      taskTimeMs: raw.micro?.['task-time'] ? parseDuration(raw.micro['task-time']) : DEFAULTS.taskTimeMs,
      taskTimeoutMs: raw.micro?.['task-timeout'] ? parseDuration(raw.micro['task-timeout']) : DEFAULTS.taskTimeoutMs,
      maxProcesses: typeof raw.micro?.processes === 'number' ? raw.micro.processes : MAX_PROCESSES_PER_ROUND,
      measure: raw.micro?.measure ?? 'time',
      measures: Object.freeze(Object.entries(raw.micro?.measures ?? {}).map(([pattern, measure]) => ({ pattern, measure }))),
      gate: raw.micro?.gate ?? 'time',
      seeds: raw.micro?.seeds ?? DEFAULTS.seeds,
      count: raw.micro?.count ?? 'instructions',
    }),
    http: Object.freeze((raw.http ?? []).map((entry, index) => toHttp(entry, index, file))),
    httpMode: raw['http-mode'] ?? DEFAULTS.httpMode,
    httpPin: raw['http-pin'] ?? DEFAULTS.httpPin,
    install: raw.install,
    build: raw.build,
    rounds: raw.rounds,
    maxRounds: Math.max(raw['max-rounds'] ?? DEFAULTS.maxRounds, raw.rounds ?? DEFAULTS.rounds),
    confirm: raw.confirm ?? true,
    confidence: raw.confidence !== undefined ? parsePercent(raw.confidence) : DEFAULTS.confidence,
    timeLimitMs: raw['time-limit'] ? parseDuration(raw['time-limit']) : DEFAULTS.timeLimitMs,
    installTimeoutMs: raw['install-timeout'] ? parseDuration(raw['install-timeout']) : DEFAULTS.installTimeoutMs,
    env: Object.freeze([...(raw.env ?? [])]),
  });
}

function toHttp(raw: RawHttp, index: number, file: string | undefined): HttpBenchmarkConfig {
  return Object.freeze({
    name: raw.name,
    id: `http > ${raw.name}`,
    start: raw.start,
    ready: raw.ready,
    readyTimeoutMs: raw['ready-timeout'] ? parseDuration(raw['ready-timeout']) : DEFAULTS.httpReadyTimeoutMs,
    requests: raw.requests.map((request) =>
      Object.freeze({
        method: request.method ?? 'GET',
        path: request.path,
        headers: { ...request.headers },
        body: request.body,
        status: request.status === undefined ? DEFAULTS.httpStatus : [request.status].flat(),
      }),
    ),
    connections: raw.connections ?? DEFAULTS.httpConnections,
    rate: raw.rate,
    durationMs: raw.duration ? parseDuration(raw.duration) : DEFAULTS.httpDurationMs,
    schedule: raw.duration ? 'fixed' : 'auto',
    warmupMs: raw.warmup ? parseDuration(raw.warmup) : DEFAULTS.httpWarmupMs,
    budget: raw.budget !== undefined ? parsePercent(raw.budget) : undefined,
    measure: raw.measure ?? 'time',
    latencyBudget: Object.fromEntries(Object.entries(raw['latency-budget'] ?? {}).map(([stat, budget]) => [stat, parseBudget(budget)])),
    where: `${file ? displayPath(file) : CONFIG_FILE}: http[${index}] (${raw.name})`,
  });
}

/** Two HTTP benchmarks with one name would share an id. */
function checkHttpNames(raw: RawConfig, file: string): void {
  const seen = new Set<string>();
  (raw.http ?? []).forEach((entry, index) => {
    if (seen.has(entry.name))
      throw new UserError(
        `${displayPath(file)}: http[${index}].name: '${entry.name}' is already the name of another HTTP benchmark; names must be unique.`,
      );
    seen.add(entry.name);
  });
}

function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith('..') ? relative : file;
}

/** One error per field: the one whose schema carries a title (oneOf, $ref'd types) says best what is expected. */
function pickErrors(errors: ErrorObject[]): ErrorObject[] {
  const byField = new Map<string, ErrorObject>();
  for (const error of errors) {
    const key =
      error.keyword === 'additionalProperties'
        ? `${error.instancePath}/${String(error.params.additionalProperty)}`
        : error.keyword === 'required'
          ? `${error.instancePath}/${String(error.params.missingProperty)}?`
          : error.instancePath;
    const current = byField.get(key);
    if (!current || (!titleOf(current) && titleOf(error))) byField.set(key, error);
  }
  return [...byField.values()];
}

function titleOf(error: ErrorObject): string | undefined {
  const parent = error.parentSchema as { title?: string } | undefined;
  return parent?.title;
}

function describe(error: ErrorObject, doc: Document, lines: LineCounter, file: string): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'additionalProperties') {
    const key = String(error.params.additionalProperty);
    const known = Object.keys((error.parentSchema as { properties?: object }).properties ?? {}).filter((k) => k !== '$schema');
    const guess = known.length ? closest(key, known) : undefined;
    const hint = guess && distance(key, guess) <= Math.max(2, Math.floor(key.length / 3)) ? ` (did you mean '${guess}'?)` : '';
    const where = fieldName([...segments, key]);
    return (
      `${file}:${position(doc, lines, segments, key)}: unknown key '${where}'${hint}. Known ` +
      `keys${segments.length ? ` of ${fieldName(segments)}` : ''}: ${known.join(', ')}.`
    );
  }
  const at = `${file}:${position(doc, lines, segments)}`;
  if (error.keyword === 'required') {
    const missing = String(error.params.missingProperty);
    return `${at}: ${segments.length ? fieldName(segments) : 'the file'} has no '${missing}', which is required.`;
  }
  if (segments.length === 0) return `${at}: the file must be a mapping of keys to values (like "budget: 5%").`;
  const expected = titleOf(error) ?? error.message ?? 'a valid value';
  return `${at}: ${fieldName(segments)}: ${showValue(error.data)} is not ${expected}.`;
}

/** "micro.files[0]", 'budgets["src/*.bench.js > *"]' */
function fieldName(segments: string[]): string {
  return segments
    .map((segment, i) =>
      /^\d+$/.test(segment)
        ? `[${segment}]`
        : /^[A-Za-z_$][\w$-]*$/.test(segment)
          ? i
            ? `.${segment}`
            : segment
          : `[${JSON.stringify(segment)}]`,
    )
    .join('');
}

function showValue(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  return JSON.stringify(value) ?? String(value);
}

/** "line:column" of a field (or of one of its keys) in the YAML source. */
function position(doc: Document, lines: LineCounter, segments: string[], key?: string): string {
  let offset: number | undefined;
  if (key !== undefined) {
    const parent = segments.length ? doc.getIn(segments, true) : doc.contents;
    if (isMap(parent)) {
      const pair = parent.items.find((item) => (item.key as { value?: unknown } | null)?.value === key);
      offset = (pair?.key as { range?: [number, number, number] } | null)?.range?.[0];
    }
  } else {
    const node = doc.getIn(segments, true) as { range?: [number, number, number] } | undefined;
    offset = node?.range?.[0];
  }
  if (offset === undefined) return '1:1';
  const { line, col } = lines.linePos(offset);
  return `${line}:${col}`;
}
