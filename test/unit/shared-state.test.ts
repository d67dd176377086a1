// What both revisions share in one isolate (src/measure/micro/shared-state.ts): a fingerprint of the builtins.
import { afterEach, describe, expect, it } from 'vitest';
import { changes, fingerprint } from '../../src/measure/micro/shared-state.js';

const undo: (() => void)[] = [];
afterEach(() => {
  for (const step of undo.splice(0).reverse()) step();
});

describe('the builtins fingerprint', () => {
  it('names a replaced, an added and a deleted builtin, and nothing when nothing changed', () => {
    const before = fingerprint();
    expect(changes(before, fingerprint())).toEqual([]);
    const stringify = JSON.stringify;
    JSON.stringify = (value: unknown) => stringify(value);
    undo.push(() => (JSON.stringify = stringify));
    Object.defineProperty(Array.prototype, 'lastItem', { value: () => 1, configurable: true });
    undo.push(() => delete (Array.prototype as unknown as Record<string, unknown>).lastItem);
    const species = Object.getOwnPropertyDescriptor(Array, Symbol.species)!;
    Object.defineProperty(Array, Symbol.species, { get: () => Array, configurable: true });
    undo.push(() => Object.defineProperty(Array, Symbol.species, species));
    expect(changes(before, fingerprint(), 10).sort()).toEqual([
      'Array.[Symbol.species] replaced',
      'Array.prototype.lastItem added',
      'JSON.stringify replaced',
    ]);
    expect(changes(before, fingerprint(), 1)).toHaveLength(1);
  });

  it('sees a global builtin replaced, but not the globals Node defines lazily on first use', () => {
    const before = fingerprint();
    // Node's lazy globals replace their getter with a value when first read: not a change a bench file made.
    void (globalThis as Record<string, unknown>).crypto;
    void (globalThis as Record<string, unknown>).navigator;
    expect(changes(before, fingerprint())).toEqual([]);
    const original = globalThis.parseInt;
    globalThis.parseInt = (text: string) => original(text, 10);
    undo.push(() => (globalThis.parseInt = original));
    expect(changes(before, fingerprint())).toEqual(['parseInt replaced']);
  });
});
