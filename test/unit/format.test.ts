// Long names in logs and comments: wrapped where a reader can follow them, never cut inside a word that has a separator.
import { describe, expect, it } from 'vitest';
import { fitDistinct, fitMiddle, longestWord, steadyTimeLeft, wrapText } from '../../src/report/format.js';

describe('wrapText', () => {
  it('breaks at spaces first, keeping every character', () => {
    expect(wrapText('parse a long header value', 12)).toEqual(['parse a long', 'header value']);
  });

  it("breaks a word longer than the line after a separator in it, as cookie's task id was cut mid-word", () => {
    // The output: "cookie.stringifySetCooki" / "e > 10 set-cookies".
    const lines = wrapText('cookie.stringifySetCookie > 10 set-cookies', 24);
    expect(lines).toEqual(['cookie.', 'stringifySetCookie > 10', 'set-cookies']);
    expect(wrapText('bench/very/deep/path/file.bench.ts', 12, 12)).toEqual(['bench/very/', 'deep/path/', 'file.bench.', 'ts']);
  });

  it('cuts inside a word only when it has no separator, and honours the width of later lines', () => {
    expect(wrapText('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapText('one two three four', 9, 5)).toEqual(['one two', 'three', 'four']);
    for (const line of wrapText('x'.repeat(30) + ' a.b.c.d.e.f.g.h.i.j.k', 8)) expect(line.length).toBeLessThanOrEqual(8);
  });
});

describe('longestWord', () => {
  it('is the longest run wrapText cannot break: between spaces and after separators', () => {
    expect(longestWord('nonSimpleDomain > nonSimpleDomain')).toBe(15);
    expect(longestWord('cookie.stringifySetCookie > 10 set-cookies')).toBe(18);
    expect(longestWord('')).toBe(0);
  });
});

describe('fitDistinct', () => {
  it('gives two tasks that fitMiddle shows alike labels that differ (the native table showed one label twice)', () => {
    const ids = ['cookie.stringifySetCookie > 10 set-cookies', 'cookie.stringifySetCookie > 100 set-cookies', 'parse'];
    expect(fitMiddle(ids[0]!, 22)).toBe(fitMiddle(ids[1]!, 22));
    const labels = fitDistinct(ids, 22);
    expect(new Set(labels).size).toBe(3);
    for (const label of labels) expect(label.length).toBeLessThanOrEqual(22);
    // Each shows where they part: "10 set" and "100 set".
    expect(labels[0]).toContain('> 10 s');
    expect(labels[1]).toContain('> 100 s');
    expect(labels[2]).toBe('parse');
  });

  it('leaves labels that already differ, and identical texts, as fitMiddle fits them', () => {
    const ids = ['a very long task name number one', 'another very long task name, two', 'a very long task name number one'];
    expect(fitDistinct(ids, 12)).toEqual(ids.map((id) => fitMiddle(id, 12)));
  });
});

describe('steadyTimeLeft', () => {
  it('moves half way to a new estimate, counting the time since the last, and starts afresh for a new target', () => {
    const left = steadyTimeLeft();
    expect(left({ remainingMs: 115_000, elapsedMs: 20_000, rounds: 15 })).toBe(115_000);
    // The next round reads 31 s left (task times reallocated): shown half way, from 105 s (115 s less 10 s) to 31 s.
    expect(left({ remainingMs: 31_000, elapsedMs: 30_000, rounds: 15 })).toBe(68_000);
    expect(left({ remainingMs: 28_000, elapsedMs: 32_000, rounds: 15 })).toBe(47_000);
    // Never below zero; a new target (rounds past the first look) is a new estimate.
    expect(left({ remainingMs: 0, elapsedMs: 200_000, rounds: 15 })).toBe(0);
    expect(left({ remainingMs: 40_000, elapsedMs: 201_000, rounds: 20 })).toBe(40_000);
  });
});
