import net from 'node:net';
import Ajv from 'ajv';
import type { ProbeFigures } from './types.js';

/**
 * The probe lives inside the server's process, which runs the pull request's code: that code can reach
 * the probe's socket or its module. Its figures are checked for shape and range before the report
 * reads them; anything else counts as no figures (the report then says the probe gave none).
 */
const count = { type: 'number', minimum: 0 };
const validFigures = new Ajv({ strict: false }).compile<ProbeFigures>({
  type: 'object',
  required: ['windowMs', 'eventLoopDelay', 'eventLoopUtilization', 'gc', 'peakRssBytes', 'peakHeapUsedBytes'],
  properties: {
    windowMs: count,
    eventLoopDelay: { type: 'object', required: ['p50', 'p99', 'max'], properties: { p50: count, p99: count, max: count } },
    eventLoopUtilization: { type: 'number', minimum: 0, maximum: 1 },
    gc: {
      type: 'object',
      required: ['count', 'totalMs', 'byKind'],
      properties: {
        count,
        totalMs: count,
        byKind: {
          type: 'object',
          maxProperties: 32,
          propertyNames: { maxLength: 64 },
          additionalProperties: { type: 'object', required: ['count', 'totalMs'], properties: { count, totalMs: count } },
        },
      },
    },
    peakRssBytes: count,
    peakHeapUsedBytes: count,
  },
});

/** The probe's figures when they have the shape and ranges of the probe's own, else undefined. */
export function checkProbeFigures(figures: unknown): ProbeFigures | undefined {
  return validFigures(figures) ? figures : undefined;
}

/** Send one command to a server's probe and read its one-line JSON answer. */
export function probeCommand<T = Record<string, unknown>>(socketPath: string, command: string, timeoutMs = 2000): Promise<T> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    let buffer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the probe did not answer '${command}' within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${command}\n`));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('\n');
      if (end < 0) return;
      clearTimeout(timer);
      socket.end();
      try {
        resolve(JSON.parse(buffer.slice(0, end)) as T);
      } catch {
        reject(new Error(`the probe answered '${command}' with something that is not JSON`));
      }
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
