import { createHash } from 'node:crypto';
import type { Config } from './types.js';

/**
 * A fingerprint of the effective configuration (file, inputs and flags applied), so shards measured
 * with different budgets, rounds or benchmarks are never merged into one verdict. The file's path is
 * left out: each shard's checkout lives somewhere else.
 */
export function configHash(config: Config): string {
  return createHash('sha256')
    .update(stableJson({ ...config, file: undefined }))
    .digest('hex');
}

/** JSON with every object's keys sorted, so equal settings always give equal text. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
