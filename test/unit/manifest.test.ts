// nearestManifest: the package a resolved file belongs to (a harness's version, vitest's command line).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nearestManifest } from '../../src/util/manifest.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'benchgate-manifest-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('nearestManifest', () => {
  it('passes over a dist/ manifest that only sets a type, and a malformed one, to the package itself', () => {
    const pkg = path.join(root, 'node_modules', 'vitest');
    mkdirSync(path.join(pkg, 'dist', 'chunks'), { recursive: true });
    writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'project', version: '1.0.0' }));
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'vitest', version: '3.2.4', bin: { vitest: './vitest.mjs' } }));
    writeFileSync(path.join(pkg, 'dist', 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(path.join(pkg, 'dist', 'chunks', 'package.json'), '{ not json');
    const entry = path.join(pkg, 'dist', 'chunks', 'index.js');
    const named = (m: Record<string, unknown>) => typeof m.name === 'string';
    expect(nearestManifest(entry, named)).toEqual({ dir: pkg, manifest: expect.objectContaining({ name: 'vitest', version: '3.2.4' }) });
    // The first one `accept` takes: above the package when it is not the one asked for.
    expect(nearestManifest(entry, (m) => m.name === 'project')?.dir).toBe(root);
    expect(nearestManifest(entry, (m) => m.name === 'nothing')).toBeUndefined();
  });
});
