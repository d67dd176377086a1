/**
 * The one way untrusted text reaches a report. Benchmark names, bench file
 * names, errors, server output, git refs, profile function names and every
 * field of a report.json made elsewhere (the two-workflow pattern) come from
 * the pull request: here they are made inert for each place they can go.
 *
 * - `md`/`escapeText`: markdown and HTML alike (a table cell, a paragraph, a
 *   `<summary>`, `<b>`, `<code>` or `<sub>`). One encoding serves both because
 *   it uses character references, which markdown decodes as literal text and
 *   HTML blocks pass to the browser; backslash escapes would show as
 *   backslashes inside HTML, and HTML escaping alone leaves markdown live.
 * - `escapeLines`: the same, keeping line breaks, for the inside of `<pre>`.
 * - `codeBlockText`: a line inside a fenced code block, where nothing is decoded.
 * - `mermaidString`: a quoted label of a Mermaid chart, inside a ```mermaid block.
 * - `terminalText`: a terminal, which only control characters can drive.
 */

/**
 * C0 and C1 control characters (line breaks among them) and DEL, the Unicode
 * line and paragraph separators, and the bidirectional overrides and isolates,
 * which can make text read as something else ("Trojan Source").
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NEWLINE = /\r\n?|\n/g;

/**
 * What is encoded, in one pass:
 * - the characters that make markup anywhere in GitHub-flavoured markdown or
 *   in GitHub's rendering: HTML and character references (& < > " '),
 *   backslash escapes, code spans and fences (` ~), emphasis and strikethrough
 *   (* _ ~), links, images, footnotes, alerts and task lists ([ ]; without
 *   them ( ) and ! make nothing), tables (|), headings (#), math ($), autolinks
 *   (: of https:// and mailto:); @ and # for mentions and issue links, below;
 * - what opens a block only at the start of a line: a list item (`- `, `+ `,
 *   `1. `, `1) `), a thematic break or setext underline (`---`, `===`), an
 *   indented code block (spaces), so the text may go where a line starts;
 * - the dot of `www.`, which GitHub would autolink.
 */
const SPECIAL = /^[-+](?=[- ]|$)|^[= ]|^(\d+)([.)])(?= |$)|(www)\.|[&<>"'\\`*_[\]#|~:$@]/gi;
const REFERENCE: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  // GitHub finds mentions and issue references in the decoded text, so a character reference would not stop them: a zero-width space does.
  '@': '@\u200b',
  '#': '&#35;\u200b',
};

/**
 * One line of untrusted text, inert in markdown and in HTML alike: control
 * characters and line breaks become spaces; markdown and HTML punctuation
 * become character references (`|` is `&#124;`, so a table cell stays one
 * cell); `@someone` mentions no one and `#12` links no issue; `www.` is not
 * autolinked. Once rendered, it reads as the original text.
 */
/** Any value as text: strings as they are, nothing as '', anything else as JSON (a forged report may hold objects where text belongs). */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

export function escapeText(text: unknown): string {
  return encode(asText(text).replace(NEWLINE, ' ').replace(CONTROL, ' '));
}

/** Untrusted text for the inside of a `<pre>`: escaped as {@link escapeText}, but its line breaks kept (as \n). */
export function escapeLines(text: unknown): string {
  return asText(text)
    .split(NEWLINE)
    .map((line) => encode(line.replace(CONTROL, ' ')))
    .join('\n');
}

function encode(line: string): string {
  const reference = (char: string) => REFERENCE[char] ?? `&#${char.charCodeAt(0)};`;
  return line.replace(SPECIAL, (match: string, digits?: string, marker?: string, www?: string) => {
    if (digits !== undefined) return `${digits}${reference(marker!)}`;
    if (www !== undefined) return `${www}${reference('.')}`;
    return reference(match);
  });
}

/** Markdown or HTML that is already safe: the renderer's own text, or text that went through `md`. */
export class Markup {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/**
 * A template of markdown/HTML in which every interpolated value is escaped
 * with {@link escapeText}, unless it is already `Markup`; so a `${…}` is safe
 * by default and raw text cannot be let in by forgetting to escape it.
 */
export function md(strings: TemplateStringsArray, ...values: unknown[]): Markup {
  return new Markup(strings.reduce((out, literal, i) => out + interpolate(values[i - 1]) + literal));
}

function interpolate(value: unknown): string {
  return value instanceof Markup ? value.markup : escapeText(value);
}

/** Markup pieces joined by a separator of the renderer's own. */
export function joinMarkup(parts: readonly (Markup | string)[], separator = '\n'): Markup {
  return new Markup(parts.map(interpolate).join(separator));
}

/**
 * A line inside a fenced code block, where markdown shows every character as
 * it is but a run of backticks could close the fence: backticks become ' and
 * control characters ?, one for one, so columns stay aligned.
 */
export function codeBlockText(text: string): string {
  return text
    .replace(/`/g, "'")
    .replace(NEWLINE, (eol) => '?'.repeat(eol.length))
    .replace(CONTROL, '?');
}

/**
 * Untrusted text for a terminal: control characters (ESC and CSI start the
 * sequences that move the cursor, clear the screen, set the title or write to
 * the clipboard), line breaks unless kept, and bidirectional overrides show as ?.
 */
export function terminalText(text: unknown, options: { keepNewlines?: boolean } = {}): string {
  const flat = asText(text);
  return options.keepNewlines
    ? flat
        .split(NEWLINE)
        .map((line) => line.replace(CONTROL, '?'))
        .join('\n')
    : flat.replace(NEWLINE, (eol) => '?'.repeat(eol.length)).replace(CONTROL, '?');
}

/** What a Mermaid label keeps as it is: letters, digits, spaces and punctuation that no step of Mermaid reads. */
const MERMAID_PLAIN = /[\p{L}\p{N} .,\-_+/()[\]@!?']/u;

/**
 * Untrusted text as a quoted string of a Mermaid chart (an xychart-beta title, axis title or band label),
 * quotes included. xychart's lexer ends a string only at the next `"` (its rule is `[^"]*`), but Mermaid
 * reads the whole text before that lexer does: `%%{…}%%` anywhere is a directive (it sets the config), a line
 * starting `%%` is a comment, `<tag a="…">` is rewritten, `style…:…#…;` loses its `;`, and `#name;` or
 * `#123;` is an entity code that the drawn chart shows as its character; labels are then sanitised as HTML
 * (a `<`, `>` or `&` would show as `&lt;`...), and a line of ``` would close the markdown fence. So every
 * character but letters, digits, spaces and `.,-_+/()[]@!?'` becomes an entity code (`"` is `#34;`, `#` is
 * `#35;`), which the chart shows as the character itself and which none of those steps reads; line breaks,
 * control characters and bidirectional overrides become spaces, as in {@link escapeText}.
 */
export function mermaidString(text: unknown): string {
  const flat = asText(text).replace(NEWLINE, ' ').replace(CONTROL, ' ');
  let out = '';
  for (const char of flat) out += MERMAID_PLAIN.test(char) ? char : `#${char.codePointAt(0)};`;
  return `"${out}"`;
}
