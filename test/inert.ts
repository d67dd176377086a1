import { marked, type Token, type Tokens } from 'marked';

/**
 * Checks that untrusted text in a rendered report stayed text: the markdown is
 * rendered the way GitHub does (GFM) with marked, and both the markdown and the
 * HTML are inspected. Shared by the unit tests and the action's end-to-end test.
 */

/** Strings a pull request could put in a benchmark name, file name, error, ref, function name or any field of a report.json. */
export const PAYLOADS = {
  pipe: 'a|b',
  backticks: '```',
  closers: '</details></summary></pre></code></sub>',
  mention: '@someone and @org/team',
  link: '[x](javascript:alert(1))',
  image: '![x](https://evil.example/x.png)',
  autolink: 'www.evil.example https://evil.example mail@evil.example',
  issue: '#1',
  headingAfterBlankLine: 'first\n\n# heading\n- item\n1. item',
  carriageReturn: 'a\r\rb\u2028c',
  comment: '<!-- benchgate: other -->',
  unclosedComment: '<!-- hides the rest',
  html: '<img src=x onerror=alert(1)><script>alert(1)</script>',
  emphasis: '**bold** _it_ ~~gone~~ $x$',
  escapes: '\\| &amp; &#124; &#64;someone',
  leading: '    indented',
  dash: '---',
} as const;

/** Every payload at once. */
export const ALL_PAYLOADS = Object.values(PAYLOADS).join(' ');

export function renderHtml(markdown: string): string {
  return marked.parse(markdown, { gfm: true, async: false });
}

/** The tags of rendered HTML in order: its structure without the text. */
export function skeleton(html: string): string[] {
  return [...html.matchAll(/<(\/?)([a-zA-Z][\w-]*)[^>]*>/g)].map((m) => `${m[1]}${m[2]!.toLowerCase()}`);
}

/** The text a reader sees: tags dropped, character references decoded, zero-width spaces dropped, whitespace collapsed. */
export function visibleText(html: string): string {
  return collapse(
    html.replace(/<[^>]*>/g, ' ').replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|nbsp);/gi, (_, ref: string) => decode(ref)),
  );
}

/** Whitespace (line breaks, the separators and controls the escaping flattens) collapsed to one space, zero-width spaces gone. */
export function collapse(text: string): string {
  return text
    .replace(/\u200b/g, '')
    .replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .trim();
}

function decode(ref: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
  if (ref[0] !== '#') return named[ref.toLowerCase()]!;
  return String.fromCodePoint(ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : Number(ref.slice(1)));
}

/** The markdown without its fenced code blocks (where every character is shown as it is, and nothing is markup). */
export function outsideCodeBlocks(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '```');
}

/** Lines a benchgate report may start with: untrusted text never starts one (outside a <pre> or code block). */
const OUR_LINE_STARTS = [
  /^$/,
  /^### (✅|❌|⚠️|❔) benchgate/,
  /^\*\*/,
  /^The run failed: /,
  /^Base /,
  /^\| /,
  /^\|---/,
  /^```/,
  /^<sub>/,
  /^<details( open)?><summary>/,
  /^<\/details>$/,
  /^<b>/,
  /^<pre>/,
  /^> \[!NOTE\]$/,
  /^> /,
  /^- moved: /,
  /^- in the project's code: /,
  /^- native run of /,
  /^No function costs more/,
  /^failed requests/,
  /^(Each benchmark|Change is head|A load test is judged|The gate asks one question)/,
  /^… the report is longer/,
];

/** Everything that shows untrusted text got out of being text; empty when the report is inert. */
export function injectionProblems(markdown: string): string[] {
  const problems: string[] = [];
  const body = markdown.replace(/^<!-- benchgate: [^\n]*-->\n/, '');
  const outside = outsideCodeBlocks(body);
  const html = renderHtml(body);
  const tags = skeleton(html);
  const count = (tag: string) => tags.filter((t) => t === tag).length;

  // Markdown: no link, comment or HTML tag from the text; no mention, even where GitHub would look for one in HTML.
  if (outside.includes('](')) problems.push('markdown has a link: ](');
  if (outside.includes('<!--')) problems.push('markdown has an HTML comment');
  for (const tag of ['<img', '<script', '<a ']) if (outside.includes(tag)) problems.push(`markdown has ${tag}`);
  for (const m of outside.matchAll(/@\w+/g)) problems.push(`markdown mentions ${m[0]}`);

  // Lines: each starts as the renderer starts it (untrusted text never opens a block), except inside <pre>.
  let inPre = false;
  let inFence = false;
  for (const line of body.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    else if (!inFence && !inPre && !OUR_LINE_STARTS.some((start) => start.test(line)))
      problems.push(`a line starts with untrusted text: ${JSON.stringify(line.slice(0, 60))}`);
    if (!inFence && line.startsWith('<pre>')) inPre = true;
    if (inPre && line.includes('</pre>')) inPre = false;
  }

  // Tables: every row has as many cells as the header (GFM drops the cells a | adds, so count them in the source).
  for (const token of allTokens(marked.lexer(body, { gfm: true }))) {
    if (token.type !== 'table') continue;
    const [header, , ...rows] = (token as Tokens.Table).raw.trim().split('\n');
    const cells = (row: string) => row.split(/(?<!\\)\|/).length;
    for (const row of rows)
      if (cells(row) !== cells(header!))
        problems.push(`a table row has ${cells(row) - 2} cells, its header ${cells(header!) - 2}: ${row.slice(0, 80)}`);
  }

  // HTML: nothing live.
  for (const tag of ['a', 'img', 'script', 'h1', 'h2', 'h4', 'ol', 'em', 'del', 'hr', 'input', 'iframe'])
    if (count(tag)) problems.push(`HTML has <${tag}>`);
  if (count('h3') !== 1) problems.push(`HTML has ${count('h3')} <h3>, not the one headline`);
  if (/<!--/.test(html)) problems.push('HTML has a comment');
  for (const tag of ['details', 'summary', 'pre', 'code', 'sub', 'b', 'table'])
    if (count(tag) !== count(`/${tag}`)) problems.push(`HTML has ${count(tag)} <${tag}> but ${count(`/${tag}`)} </${tag}>`);
  // GitHub links mentions and issue numbers in text outside pre, code and a (after decoding character references).
  const raw = html.replace(/<(pre|code)\b[\s\S]*?<\/\1>/g, ' ').replace(/<[^>]*>/g, ' ');
  const decoded = raw.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos|nbsp);/gi, (_, ref: string) => decode(ref));
  for (const m of decoded.matchAll(/(?:^|[^\w`])(@[a-z0-9][\w-]*|#\d+)/gi))
    problems.push(`HTML text would link ${m[1]} (mention or issue)`);
  return problems;
}

function allTokens(tokens: Token[]): Token[] {
  return tokens.flatMap((token) => {
    const children = [...(('tokens' in token && token.tokens) || []), ...(('items' in token && (token.items as Token[])) || [])];
    return [token, ...allTokens(children)];
  });
}
