// How a harness's names become the names in benchmark ids (measure/micro/harness/names.ts): padding is not a name.
import { describe, expect, it } from 'vitest';
import { withoutPadding } from '../../src/measure/micro/harness/names.js';

const task = (suites: string[], name: string) => ({ suites, name });
const ids = (tasks: { suites: string[]; name: string }[]) => tasks.map((t) => [...t.suites, t.name].join(' > '));

describe('withoutPadding', () => {
  it('strips the dots of task names padded to one width, and keeps dots a lone name ends with', () => {
    expect(ids(withoutPadding([task([], 'one......'), task([], 'three....'), task([], 'longer name')]))).toEqual([
      'one......',
      'three....',
      'longer name',
    ]);
    expect(ids(withoutPadding([task([], 'one......'), task([], 'three....'), task([], 'longest..')]))).toEqual(['one', 'three', 'longest']);
    expect(ids(withoutPadding([task([], 'one.....'), task([], 'two.....'), task([], 'three...')]))).toEqual(['one', 'two', 'three']);
    expect(ids(withoutPadding([task([], 'etc...'), task([], 'b')]))).toEqual(['etc...', 'b']);
    // Two tasks of one padded name (in two suites) are two names, as they always were.
    expect(ids(withoutPadding([task(['x'], 'a....'), task(['y'], 'a....'), task([], 'bbbbb')]))).toEqual(['x > a', 'y > a', 'bbbbb']);
  });

  it("strips the padding of suite names at each depth (a worker's Bench named after its padded scenario)", () => {
    const tasks = [
      task(['parse.....', 'small'], 'a'),
      task(['parse.....', 'small'], 'b'),
      task(['serialize.', 'small'], 'a'),
      task(['lookup....', 'large...'], 'a'),
    ];
    expect(ids(withoutPadding(tasks))).toEqual([
      'parse > small > a',
      'parse > small > b',
      'serialize > small > a',
      'lookup > large... > a',
    ]);
    // One suite, however many tasks it holds, cannot show that its dots are padding.
    expect(ids(withoutPadding([task(['wait...'], 'a'), task(['wait...'], 'b')]))).toEqual(['wait... > a', 'wait... > b']);
  });

  it('reads names padded with padEnd back as they were declared', () => {
    const declared = ['patches', 'reads', 'reads more'];
    expect(ids(withoutPadding(declared.map((name) => task([], name.padEnd(12, '.')))))).toEqual(declared);
  });
});
