import Ajv from 'ajv';
import type { RunnerMessage } from './protocol.js';

/**
 * What a benchmark process may send, as a JSON schema: the process runs the pull request's code, which
 * can call process.send itself (null, a string, a forged 'result'). Every message is checked here before
 * benchgate reads a field of it, so a malformed one is the task's error, never a crash of the gate.
 * Strings and lists are bounded: a message is held in memory and its text can reach the report.
 */
const text = { type: 'string', maxLength: 16_384 };
const label = { enum: ['base', 'head'] };
const count = { type: 'number', minimum: 0 };
const side = { type: 'object', required: ['opsPerSec', 'calls'], properties: { opsPerSec: count, calls: count } };
const list = (items: object) => ({ type: 'array', maxItems: 100_000, items });

const fileLoad = {
  type: 'object',
  required: ['revision', 'file', 'tasks'],
  properties: {
    revision: label,
    file: text,
    tasks: list(text),
    harness: text,
    harnesses: list({
      type: 'object',
      required: ['harness', 'path'],
      properties: { harness: text, version: text, path: text },
    }),
    notes: list(text),
    workerOf: text,
    error: text,
  },
};

const schema = {
  oneOf: [
    {
      type: 'object',
      required: ['type', 'files', 'counts'],
      properties: {
        type: { const: 'counted' },
        files: list(fileLoad),
        counts: list({
          type: 'object',
          required: ['id'],
          properties: {
            id: text,
            instructions: count,
            floor: count,
            window: count,
            calls: count,
            warmupBlocks: count,
            steady: { type: 'boolean' },
            functions: {
              type: 'array',
              maxItems: 2_000,
              items: {
                type: 'object',
                required: ['function', 'where', 'perCall'],
                properties: { function: text, where: text, perCall: count, inclusive: count },
              },
            },
            error: text,
          },
        }),
      },
    },
    { type: 'object', required: ['type'], properties: { type: { const: 'ready' } } },
    { type: 'object', required: ['type'], properties: { type: { const: 'instrument' } } },
    { type: 'object', required: ['type', 'id'], properties: { type: { const: 'progress' }, id: text, revision: label } },
    {
      type: 'object',
      required: ['type', 'calls'],
      properties: {
        type: { const: 'profiled' },
        calls: { type: 'object', properties: { base: count, head: count }, additionalProperties: false },
      },
    },
    { type: 'object', required: ['type', 'message'], properties: { type: { const: 'fatal' }, message: text } },
    {
      type: 'object',
      required: ['type', 'files', 'tasks'],
      properties: {
        type: { const: 'result' },
        isolated: {
          type: 'object',
          required: ['files', 'pinned'],
          properties: { files: list(text), pinned: { type: 'boolean' }, reason: text },
        },
        files: list(fileLoad),
        tasks: list({
          type: 'object',
          required: ['id', 'batch', 'blocks'],
          properties: {
            id: text,
            batch: count,
            blocks: count,
            base: side,
            head: side,
            logRatio: { type: 'number' },
            blockVariance: count,
            measureMs: count,
            error: { type: 'object', required: ['revision', 'message'], properties: { revision: label, message: text } },
          },
        }),
      },
    },
  ],
};

const validate = new Ajv({ allErrors: false, strict: false }).compile<RunnerMessage>(schema);

/** The message, or a short preview of what arrived instead (a message's text is the pull request's). */
export function checkRunnerMessage(message: unknown): { ok: true; message: RunnerMessage } | { ok: false; preview: string } {
  if (validate(message)) return { ok: true, message };
  return { ok: false, preview: (JSON.stringify(message) ?? String(message)).slice(0, 200) };
}
