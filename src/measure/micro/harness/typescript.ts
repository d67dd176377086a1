/**
 * TypeScript for bench files and the sources they import (bundled as
 * dist/typescript.js, imported by the hooks only when a .ts file is loaded).
 *
 * The transform is amaro, the package Node itself ships for its type stripping
 * (Node 22.6+, on by default from 23.6), so a bench file means on Node 20 what
 * it means on Node 24 and what `node file.ts` makes of it. Chosen over:
 * - tsx, esbuild or @swc-node/register: fast, but a native binary per platform,
 *   which the action's committed bundle cannot carry (GitHub runs dist/ without an install);
 * - jiti or the typescript compiler: pure JavaScript, but slower to start (each
 *   benchmark process loads its bench files anew) and a CommonJS rewrite (jiti);
 * - Node's own flag: not on Node 20, and only from 22.6 on.
 * amaro is WebAssembly (no binary), transforms a file in well under a millisecond
 * once loaded, and its strip mode replaces types with spaces: every line and column
 * stays where it is in the .ts file, so stack traces and CPU profiles point at the
 * .ts lines with no source map. Only a file with TypeScript-only runtime syntax
 * (enum, namespace, parameter properties) is transformed, with an inline source map.
 */
import { transformSync } from 'amaro';

export function transformTypeScript(source: string, file: string): { code: string; mapped: boolean } {
  try {
    return { code: transformSync(source, { mode: 'strip-only', filename: file }).code, mapped: false };
  } catch (error) {
    if (!isUnsupportedSyntax(error)) throw syntaxError(error, file);
  }
  try {
    const { code, map } = transformSync(source, { mode: 'transform', sourceMap: true, filename: file });
    const inline = map ? `\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(map).toString('base64')}\n` : '';
    return { code: code + inline, mapped: Boolean(map) };
  } catch (error) {
    throw syntaxError(error, file);
  }
}

function isUnsupportedSyntax(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'UnsupportedSyntax';
}

/** amaro's errors carry a message, the line and a snippet: name the file and line. */
function syntaxError(error: unknown, file: string): Error {
  const { message, startLine, snippet } = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as {
    message?: unknown;
    startLine?: unknown;
    snippet?: unknown;
  };
  const where = typeof startLine === 'number' ? `${file}:${startLine}` : file;
  return new SyntaxError(`${where}: ${String(message)}${typeof snippet === 'string' ? `\n${snippet}` : ''}`);
}

/**
 * The transform's code and source map for any TypeScript file, as `transform` mode prints it (profiles' function
 * identities, explain/functions.ts): one printing for every file, so a function reads the same at a revision whose
 * file is only stripped as at one where an enum makes the transform rewrite it (stripped code keeps the source's own
 * semicolons and parentheses, the transform reprints them). Throws what amaro throws.
 */
export function transformWithMap(source: string, file: string): { code: string; map: string | undefined } {
  const { code, map } = transformSync(source, { mode: 'transform', sourceMap: true, filename: file });
  return { code, map };
}
