import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/cli/args.js';

const error = (argv: string[]) => {
  try {
    parseCommand(argv);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected an error');
};

describe('command line', () => {
  it('reads a full compare command', () => {
    expect(
      parseCommand([
        'compare',
        '--base',
        'main',
        '--head',
        'feature',
        '--json',
        'r.json',
        '--markdown',
        'r.md',
        '--rounds',
        '12',
        '--time-limit',
        '90s',
        '--isolation',
        'process',
        '--profile',
        'always',
        '--profile-dir',
        'out/profiles',
        '--no-color',
      ]),
    ).toEqual({
      kind: 'compare',
      base: 'main',
      head: 'feature',
      config: undefined,
      json: 'r.json',
      markdown: 'r.md',
      rounds: 12,
      timeLimitMs: 90_000,
      isolation: 'process',
      httpMode: undefined,
      profile: 'always',
      profileDir: 'out/profiles',
      nativeCheck: false,
      color: false,
    });
  });
  it('reads --native-check and its --native-timeout, which needs it', () => {
    expect(parseCommand(['compare', '--base', 'main', '--native-check'])).toMatchObject({ nativeCheck: true, nativeTimeoutMs: undefined });
    expect(parseCommand(['compare', '--base', 'main', '--native-check', '--native-timeout', '5m'])).toMatchObject({
      nativeCheck: true,
      nativeTimeoutMs: 300_000,
    });
    expect(error(['compare', '--base', 'main', '--native-timeout', '5m'])).toContain('--native-timeout bounds the runs of --native-check');
    expect(error(['compare', '--base', 'main', '--native-check', '--native-timeout', 'soon'])).toContain(
      "--native-timeout 'soon' is not a duration",
    );
    expect(parseCommand(['compare', '--base', 'main', '--native-check'])).toMatchObject({ nativeRuns: undefined });
    expect(parseCommand(['compare', '--base', 'main', '--native-check', '--native-runs', '5'])).toMatchObject({ nativeRuns: 5 });
    expect(error(['compare', '--base', 'main', '--native-runs', '5'])).toContain('--native-runs sets how many runs --native-check makes');
    for (const bad of ['1', '21', '2.5', 'many'])
      expect(error(['compare', '--base', 'main', '--native-check', '--native-runs', bad])).toContain(
        `--native-runs '${bad}' is not a whole number from 2 to 20`,
      );
    // --solo-check: 12 fresh processes per revision unless told; --solo-processes alone is a mistake.
    expect(parseCommand(['compare', '--base', 'main'])).toMatchObject({ soloProcesses: undefined });
    expect(parseCommand(['compare', '--base', 'main', '--solo-check'])).toMatchObject({ soloProcesses: 12 });
    expect(parseCommand(['compare', '--base', 'main', '--solo-check', '--solo-processes', '24'])).toMatchObject({ soloProcesses: 24 });
    expect(error(['compare', '--base', 'main', '--solo-processes', '24'])).toContain(
      '--solo-processes sets how many processes --solo-check runs',
    );
    for (const bad of ['5', '49', '12.5', 'lots'])
      expect(error(['compare', '--base', 'main', '--solo-check', '--solo-processes', bad])).toContain(
        `--solo-processes '${bad}' is not a whole number from 6 to 48`,
      );
  });
  it('reads --files, repeated, for compare and list', () => {
    const compare = parseCommand(['compare', '--base', 'main', '--files', 'benchmark/*.js', '--files', 'bench/**/*.ts']);
    expect(compare).toMatchObject({ kind: 'compare', files: ['benchmark/*.js', 'bench/**/*.ts'] });
    expect(parseCommand(['list', '--files', 'benchmark/bench.js'])).toEqual({
      kind: 'list',
      base: undefined,
      head: undefined,
      config: undefined,
      json: undefined,
      files: ['benchmark/bench.js'],
    });
  });

  it('shows help with no command, -h or --help', () => {
    expect(parseCommand([])).toEqual({ kind: 'help' });
    expect(parseCommand(['-h'])).toEqual({ kind: 'help' });
    expect(parseCommand(['compare', '--help'])).toEqual({ kind: 'help' });
  });
  it('names the flag and value at fault', () => {
    expect(error(['compare'])).toMatch(/^--base is required/);
    expect(error(['compare', '--base', 'main', '--rounds', '1'])).toMatch(/^--rounds '1' is not a whole number from 2 to 500/);
    expect(error(['compare', '--base', 'main', '--time-limit', 'soon'])).toMatch(/^--time-limit 'soon' is not a duration/);
    expect(error(['compare', '--base', 'main', '--isolation', 'fork'])).toMatch(/^--isolation 'fork' is not alternate, thread or process/);
    expect(error(['compare', '--base', 'main', '--profile', 'sometimes'])).toMatch(
      /^--profile 'sometimes' is not regressions, always or never/,
    );
    expect(error(['compara', '--base', 'main'])).toMatch(/^Unknown command 'compara'/);
  });
});
