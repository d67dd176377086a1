import os from 'node:os';
import type { Environment } from './model.js';

export function currentEnvironment(): Environment {
  const cpus = os.cpus();
  return {
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    arch: process.arch,
    cpus: { model: cpus[0]?.model.trim() ?? 'unknown', count: cpus.length },
  };
}
