import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { USAGE } from '../../src/cli/args.js';
import { parseConfig } from '../../src/config/load.js';
import { mermaidBlocks, parseXyChart } from '../mermaid.js';

/** The README and every page of docs/: what a new user reads must work as written. */
const pages = [
  'README.md',
  ...readdirSync('docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name)),
];

const yamlBlocks = (page: string) => [...readFileSync(page, 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('the documentation', () => {
  it('has config examples (a yaml block opening with "# benchgate.yml") that the config loader accepts', () => {
    const examples = pages.flatMap((page) =>
      yamlBlocks(page)
        .filter((yaml) => yaml.startsWith('# benchgate.yml'))
        .map((yaml) => ({ page, yaml })),
    );
    expect(examples.map((e) => e.page)).toEqual(expect.arrayContaining(['README.md', 'docs/configuration.md', 'docs/http.md']));
    for (const { page, yaml } of examples) expect(() => parseConfig(yaml, `${page} example`), yaml).not.toThrow();
  });

  it('has trend charts (mermaid blocks) that Mermaid parses, as GitHub draws them', async () => {
    const charts = pages.flatMap((page) => mermaidBlocks(readFileSync(page, 'utf8')).map((source) => ({ page, source })));
    expect(charts.map((c) => c.page)).toContain('docs/history.md');
    for (const { page, source } of charts) expect((await parseXyChart(source)).xLabels, page).not.toEqual([]);
  });

  it("names every flag of --help in docs/configuration.md's command line, and none --help lacks", () => {
    const flags = (text: string) => new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z-]+)/g)].map((m) => m[1]!));
    const help = flags(USAGE);
    const page = readFileSync('docs/configuration.md', 'utf8');
    const commandLine = page.slice(page.indexOf('## Command line'));
    const documented = flags(commandLine.slice(0, commandLine.indexOf('\n## ', 4)));
    // The history commands' flags live in docs/history.md; help and version are the usual.
    const history = flags(readFileSync('docs/history.md', 'utf8'));
    const missing = [...help].filter((flag) => !documented.has(flag) && !history.has(flag) && flag !== 'help' && flag !== 'version');
    expect(missing).toEqual([]);
    const unknown = [...documented].filter((flag) => !help.has(flag));
    expect(unknown).toEqual([]);
  });

  it('links only to files that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const [, target] of readFileSync(page, 'utf8').matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue; // https:, mailto:
        if (!existsSync(path.join(path.dirname(page), target!))) broken.push(`${page} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('keeps the README to about a page', () => {
    expect(readFileSync('README.md', 'utf8').split('\n').length).toBeLessThanOrEqual(260);
  });
});
