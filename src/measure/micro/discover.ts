import { glob } from 'tinyglobby';

/** Bench files of one revision, relative to its project root with forward slashes, sorted. */
export async function discoverBenchFiles(root: string, patterns: readonly string[]): Promise<string[]> {
  const files = await glob([...patterns], {
    cwd: root,
    onlyFiles: true,
    ignore: ['**/node_modules/**', '**/.git/**'],
    expandDirectories: false,
  });
  return files.map((file) => file.replace(/\\/g, '/')).sort();
}
