import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { borrowedRow, borrowNewFiles } from '../../src/gate/files.js';
import { fakeRevision } from '../fakes.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A base worktree and a head tree in a temp folder, each with its files. */
function trees(base: Record<string, string>, head: Record<string, string>, baseIsWorktree = true) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'benchgate-borrow-'));
  dirs.push(dir);
  const write = (root: string, files: Record<string, string>) => {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    }
  };
  const tree = {
    base: { ...fakeRevision('base'), root: path.join(dir, 'base'), worktree: baseIsWorktree ? path.join(dir, 'base') : undefined },
    head: { ...fakeRevision('head'), root: path.join(dir, 'head') },
  };
  write(tree.base.root, base);
  write(tree.head.root, head);
  return tree;
}

describe("a bench file new at head: base runs head's copy", () => {
  it("copies head's new files into base's checkout at the same path, and says which", () => {
    const tree = trees({ 'bench/a.bench.js': 'a' }, { 'bench/a.bench.js': 'a2', 'bench/new/b.bench.js': 'b', 'c.bench.js': 'c' });
    const lines: string[] = [];
    const found = borrowNewFiles(
      { base: ['bench/a.bench.js'], head: ['bench/a.bench.js', 'bench/new/b.bench.js', 'c.bench.js'] },
      tree,
      (line) => lines.push(line),
    );
    expect(found).toEqual({
      base: ['bench/a.bench.js', 'bench/new/b.bench.js', 'c.bench.js'],
      head: ['bench/a.bench.js', 'bench/new/b.bench.js', 'c.bench.js'],
      borrowed: ['bench/new/b.bench.js', 'c.bench.js'],
    });
    expect(readFileSync(path.join(tree.base.root, 'bench/new/b.bench.js'), 'utf8')).toBe('b');
    // A file both have keeps base's own text.
    expect(readFileSync(path.join(tree.base.root, 'bench/a.bench.js'), 'utf8')).toBe('a');
    expect(lines).toEqual([
      "bench files: bench/new/b.bench.js, c.bench.js are new at head: base runs head's copy against its own code (put in base's checkout), so its rows compare the code, not read new",
    ]);
  });

  it("never writes into a tree that is not this run's worktree, nor over a file base has that micro.files did not match", () => {
    const user = trees({}, { 'b.bench.js': 'b' }, false);
    expect(borrowNewFiles({ base: [], head: ['b.bench.js'] }, user, () => undefined)).toEqual({ base: [], head: ['b.bench.js'] });
    expect(existsSync(path.join(user.base.root, 'b.bench.js'))).toBe(false);
    const there = trees({ 'b.bench.js': 'base text' }, { 'b.bench.js': 'b' });
    expect(borrowNewFiles({ base: [], head: ['b.bench.js'] }, there, () => undefined).borrowed).toBeUndefined();
    expect(readFileSync(path.join(there.base.root, 'b.bench.js'), 'utf8')).toBe('base text');
  });

  it('says so on its rows, and turns an error at base alone into new, never an error that fails the run', () => {
    const mark = borrowedRow(['bench/b.bench.js']);
    const row: { file: string; verdict: string; beyondBudget: string | null; note?: string; error?: string; errorAt?: string } = {
      file: 'bench/b.bench.js',
      verdict: 'unchanged',
      beyondBudget: 'no',
    };
    expect(mark(row).note).toBe("new at head: base ran head's copy of its bench file");
    expect(mark({ ...row, note: 'open' }).note).toBe("new at head: base ran head's copy of its bench file; open");
    // The side is the measure's word (errorAt, time and counts alike), not the message's.
    for (const error of ['at base: TypeError: x is not a function\n    at …', 'base under seed 2: TypeError: x is not a function']) {
      const failed = mark({ ...row, verdict: 'error', beyondBudget: null, error, errorAt: 'base' });
      expect(failed).toMatchObject({ verdict: 'new', beyondBudget: null });
      expect(failed.error).toBeUndefined();
      expect(failed.errorAt).toBeUndefined();
      expect(failed.note).toMatch(
        /^new at head: base could not run head's copy of its bench file \((at base|base under seed 2): TypeError: x is not a function\)$/,
      );
    }
    // An error at head is head's, and one at both (or not known to be base's alone) fails the run whatever it says.
    for (const errorAt of ['head', undefined]) {
      const failed = { ...row, verdict: 'error', error: 'at base: TypeError: boom', ...(errorAt ? { errorAt } : {}) };
      expect(mark(failed)).toMatchObject({ verdict: 'error', error: 'at base: TypeError: boom' });
    }
    // Rows of other files, and runs that borrowed nothing, are left alone.
    const other = { file: 'bench/a.bench.js', verdict: 'error', error: 'at base: boom' };
    expect(mark(other)).toBe(other);
    expect(borrowedRow(undefined)(row)).toBe(row);
  });
});
