/**
 * Which function of a source file a profile's frame is, in terms that survive an edit elsewhere in the file:
 * the functions it is nested in (by name) and its own source shape (its tokens, so whitespace and comments do
 * not count), not its line. An anonymous function that moved because lines were added above it is the same
 * function at both revisions, and its rows must be matched (issue 41: cheerio's render.js:76 read "0.0% →
 * 11.6%" for a function that existed at base a few lines higher). Parsing is acorn's; the nesting and the shape
 * are ours (no package names a function this way).
 *
 * A TypeScript file is read through the transform its bench files load with (amaro, in transform mode, given as
 * `typeScript`), and its functions are placed in the .ts file through the transform's source map: a profile's frames
 * point into the .ts file (types stripped to spaces keep every position; a file the transform rewrote, for an enum,
 * has its frames mapped back by the runner, runner.ts). One printing for every file, so a function reads the same
 * whether its file was stripped or rewritten at a revision.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { parse, tokenizer, type Node, type Options } from 'acorn';
import { fullAncestor } from 'acorn-walk';
import { isTypeScript } from '../measure/micro/harness/typescript-files.js';

export interface FunctionIdentity {
  /** The enclosing functions' names, outermost first, then its own: "render > (anonymous in each)". */
  nesting: string;
  /** A hash of its tokens, and its rank among the functions of the same nesting and shape. */
  shape: string;
}

interface Found {
  start: number;
  /** Where its body begins: a frame's position lies in the header, before it. */
  bodyStart: number;
  end: number;
  identity: FunctionIdentity;
}

/** Larger files, or files of more functions, are not parsed (a bundle's frames keep their line in the key). */
const MAX_BYTES = 2 * 1024 * 1024;
const MAX_FUNCTIONS = 20_000;
const OPTIONS: Options = { ecmaVersion: 'latest', allowHashBang: true, allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true };

type FunctionNode = Node & {
  type: 'FunctionDeclaration' | 'FunctionExpression' | 'ArrowFunctionExpression';
  id?: { name: string } | null;
  body: Node;
};

const isFunction = (node: Node): node is FunctionNode =>
  node.type === 'FunctionDeclaration' || node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression';

export interface ShapeOptions {
  /** The JavaScript V8 ran for a TypeScript file; without it, a TypeScript file's frames keep their line in the key. */
  typeScript?: (source: string, file: string) => { code: string; map: string | undefined };
}

export class FunctionShapes {
  private readonly files = new Map<string, { functions: Found[]; lineStarts: number[] } | null>();

  constructor(private readonly options: ShapeOptions = {}) {}

  /** The function whose header holds (line, column), both 0-based as V8 gives them; undefined when the file cannot be read or parsed. */
  identify(file: string, line: number, column: number): FunctionIdentity | undefined {
    const parsed = this.load(file);
    if (!parsed || line < 0 || line >= parsed.lineStarts.length) return undefined;
    const offset = parsed.lineStarts[line]! + Math.max(0, column);
    let best: Found | undefined;
    for (const found of parsed.functions)
      if (found.start <= offset && offset <= found.bodyStart && (!best || found.start > best.start)) best = found;
    return best?.identity;
  }

  private load(file: string) {
    if (this.files.has(file)) return this.files.get(file)!;
    let parsed: { functions: Found[]; lineStarts: number[] } | null = null;
    try {
      if (statSync(file).size <= MAX_BYTES) {
        const text = readFileSync(file, 'utf8');
        const { typeScript } = this.options;
        if (!isTypeScript(file)) parsed = functionsOf(text);
        else if (typeScript) parsed = inTypeScript(text, typeScript(text, file));
      }
    } catch {
      // Not readable, or not JavaScript acorn parses (a syntax error, JSX): the frame keeps its line in the key.
      parsed = null;
    }
    this.files.set(file, parsed);
    return parsed;
  }
}

/**
 * The functions of a TypeScript file, read from the transform's JavaScript and placed in the .ts file through the
 * transform's source map (node:module's SourceMap, as the runner maps its frames). Without a map, none: the file's
 * frames keep their lines. Only a function's header is placed (where a frame's position lies); a mapping lands on the
 * same entry for the function as for its frame, both looked up in the same map. (A lone \r or U+2028 inside a string
 * counts as a line break here as in V8, not in the map: the printed line may be off by one, both revisions alike.)
 */
function inTypeScript(
  source: string,
  { code, map }: { code: string; map: string | undefined },
): { functions: Found[]; lineStarts: number[] } {
  if (!map) return { functions: [], lineStarts: lineStartsOf(source) };
  const found = functionsOf(code);
  const sourceMap = new SourceMap(JSON.parse(map) as SourceMapPayload);
  const lineStarts = lineStartsOf(source);
  const toSource = (offset: number) => {
    const line = lineAt(found.lineStarts, offset);
    const entry = sourceMap.findEntry(line, offset - found.lineStarts[line]!) as { originalLine?: number; originalColumn?: number };
    return entry.originalLine === undefined || entry.originalColumn === undefined || entry.originalLine >= lineStarts.length
      ? undefined
      : lineStarts[entry.originalLine]! + entry.originalColumn;
  };
  const functions = found.functions.flatMap((fn) => {
    const [start, bodyStart] = [toSource(fn.start), toSource(fn.bodyStart)];
    return start === undefined || bodyStart === undefined
      ? []
      : [{ ...fn, start, bodyStart: Math.max(start, bodyStart), end: toSource(fn.end) ?? bodyStart }];
  });
  return { functions, lineStarts };
}

/** The line of an offset: the last line start at or before it (binary search; `lineStarts` begins with 0). */
function lineAt(lineStarts: readonly number[], offset: number): number {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lineStarts[mid]! <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** Lines as V8 counts them: a line ends at \n, \r\n, a lone \r, U+2028 or U+2029. */
function lineStartsOf(source: string): number[] {
  const lineStarts = [0];
  for (const match of source.matchAll(/\r\n?|[\n\u2028\u2029]/g)) lineStarts.push(match.index + match[0].length);
  return lineStarts;
}

/** Every function of a source text, with its nesting and shape. */
export function functionsOf(source: string): { functions: Found[]; lineStarts: number[] } {
  let program: Node;
  try {
    program = parse(source, { ...OPTIONS, sourceType: 'module' });
  } catch {
    program = parse(source, { ...OPTIONS, sourceType: 'script' });
  }
  const lineStarts = lineStartsOf(source);
  const raw: { start: number; bodyStart: number; end: number; nesting: string; hash: string }[] = [];
  // Each function's name once (a function wrapping a whole bundle is every other one's ancestor).
  const names = new Map<Node, string>();
  let count = 0;
  fullAncestor(program, (node, _state, ancestors) => {
    if (!isFunction(node)) return;
    if (++count > MAX_FUNCTIONS) throw new Error(`more than ${MAX_FUNCTIONS} functions`);
    const nesting: string[] = [];
    ancestors.forEach((ancestor, i) => {
      if (!isFunction(ancestor)) return;
      let name = names.get(ancestor);
      if (name === undefined) names.set(ancestor, (name = nameOf(ancestor, ancestors[i - 1], source)));
      nesting.push(name);
    });
    raw.push({
      start: node.start,
      bodyStart: node.body.start,
      end: node.end,
      nesting: nesting.join(' > '),
      hash: shapeOf(source.slice(node.start, node.end)),
    });
  });
  // Two functions of the same nesting and shape (two identical callbacks in one function) keep their order.
  const seen = new Map<string, number>();
  const functions = raw
    .sort((a, b) => a.start - b.start)
    .map(({ nesting, hash, ...at }) => {
      const rank = seen.get(`${nesting}|${hash}`) ?? 0;
      seen.set(`${nesting}|${hash}`, rank + 1);
      return { ...at, identity: { nesting, shape: rank ? `${hash}#${rank}` : hash } };
    });
  return { functions, lineStarts };
}

/** A function's name as a reader finds it: its own, the property, variable or assignment it is the value of, or the call it is passed to. */
function nameOf(fn: FunctionNode, parent: Node | undefined, source: string): string {
  if (fn.id?.name) return fn.id.name;
  // A name reads in 60 characters: cut before squeezing the spaces out (a callee can be a whole bundle's wrapper).
  const text = (node: Node) =>
    source
      .slice(node.start, Math.min(node.end, node.start + 200))
      .replace(/\s+/g, '')
      .slice(0, 60);
  const p = parent as (Node & Record<string, Node | undefined>) | undefined;
  if (!p) return '(anonymous)';
  if ((p.type === 'Property' || p.type === 'MethodDefinition' || p.type === 'PropertyDefinition') && p.key) return text(p.key);
  if (p.type === 'VariableDeclarator' && p.id) return text(p.id);
  if (p.type === 'AssignmentExpression' && p.left) return text(p.left);
  if ((p.type === 'CallExpression' || p.type === 'NewExpression') && p.callee)
    return p.callee === fn ? '(called where it is written)' : `(anonymous in ${text(p.callee)})`;
  return '(anonymous)';
}

/** Its tokens, hashed: the same code reads the same wherever it sits and however it is indented or commented. */
function shapeOf(code: string): string {
  const hash = createHash('sha256');
  try {
    for (const token of tokenizer(code, { ...OPTIONS, sourceType: 'module' }))
      hash.update(`${token.type.label}\u0000${tokenText((token as { value?: unknown }).value)}\u0001`);
  } catch {
    // A slice the tokenizer reads otherwise than in its file (a regular expression after a bracket): its text, unspaced.
    hash.update(code.replace(/\s+/g, ' '));
  }
  return hash.digest('hex').slice(0, 12);
}

/** A token's value as text: names, strings and numbers as written; a regular expression by its pattern and flags. */
function tokenText(value: unknown): string {
  if (value instanceof RegExp) return value.toString();
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean'
    ? String(value)
    : '';
}
