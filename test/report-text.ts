/**
 * Reading benchgate's printed reports back as numbers, so tests assert on values
 * and verdict words, never on how one run happened to format a number
 * ("+631.6%" and "+31%" are both a percentage; "28.5M" and "950" both ops/s).
 */

/** Markdown and HTML escapes undone (backslashes, named and numeric character references), so a markdown cell reads like a terminal cell. */
export function plainText(text: string): string {
  return text
    .replace(/\\([\\`*_{}[\]()#+\-!|~])/g, '$1')
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCodePoint(parseInt(code, 16)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\u200b/g, '');
}

/** A number as printed: its value and the size of one unit of its last printed digit. */
export interface Printed {
  value: number;
  /** 0.001 for "+631.6%" (a tenth of a percent), 100_000 for "28.5M", 1 for "-1,234". */
  step: number;
}

const SCALE: Record<string, number> = { '': 1, k: 1e3, M: 1e6, G: 1e9 };
// A sign (ASCII or U+2212 minus), digits with optional thousands commas, optional decimals, optional k/M/G/% suffix.
const NUMBER = /(?<![\w.])([+\-\u2212]?)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?([kMG%]?)(?![\w.])/g;

/** Every number in a text, with the precision it was printed with: "+12.0% [+3.1%, +20.5%]" → 0.12, 0.031, 0.205. */
export function printedNumbers(text: string): Printed[] {
  return [...plainText(text).matchAll(NUMBER)].map(([, sign, whole, decimals = '', suffix = '']) => {
    // Percentages divided by 100 rather than multiplied by 0.01, so "95%" reads as exactly 0.95.
    const scaled = (x: number) => (suffix === '%' ? x / 100 : x * SCALE[suffix]!);
    const magnitude = scaled(Number(`${whole!.replace(/,/g, '')}${decimals ? `.${decimals}` : ''}`));
    return { value: sign === '-' || sign === '\u2212' ? -magnitude : magnitude, step: scaled(10 ** -decimals.length) };
  });
}

/** Every number in a text: "+631.6% [+500.0%, +700.1%]" → [6.316, 5, 7.001]; "-1,234" → [-1234]; "1.2k" → [1200]. */
export function numbersIn(text: string): number[] {
  return printedNumbers(text).map((n) => n.value);
}

/** The one number a cell holds (throws when it holds none or several): "0.144" → 0.144, "\-50.0%" → -0.5. */
export function parseNumber(cell: string): number {
  const numbers = numbersIn(cell);
  if (numbers.length !== 1) throw new Error(`expected one number in ${JSON.stringify(cell)}, found ${numbers.length}`);
  return numbers[0]!;
}

/**
 * Whether a printed number is `value` rounded to the digits it shows: "28.5M" for 28_460_000,
 * "+631.6%" for 6.31587. Half a unit of the last digit either way (plus float slack).
 */
export function printedAs(cell: string, value: number): boolean {
  const numbers = printedNumbers(cell);
  if (numbers.length !== 1) throw new Error(`expected one number in ${JSON.stringify(cell)}, found ${numbers.length}`);
  const { value: printed, step } = numbers[0]!;
  return Math.abs(printed - value) <= step / 2 + 1e-9 * Math.max(1, Math.abs(value));
}

const DURATION_UNITS: Record<string, number> = { ns: 1e-3, µs: 1, us: 1, ms: 1e3, s: 1e6 };

/** Durations in a text, in microseconds, with the precision printed: "17 ns → 2.06 µs" → 0.017, 2.06. */
export function printedDurations(text: string): Printed[] {
  return [...plainText(text).matchAll(/(?<![\w.])(\d+)(?:\.(\d+))? ?(ns|µs|us|ms|s)(?![\w])/g)].map(([, whole, decimals = '', unit]) => {
    const scale = DURATION_UNITS[unit!]!;
    return { value: Number(`${whole}${decimals ? `.${decimals}` : ''}`) * scale, step: 10 ** -decimals.length * scale };
  });
}

/** A duration as formatDuration prints it, in ms: "850ms" → 850, "7.5s" → 7500, "1m53s" → 113000, "2m" → 120000. */
export function parseDuration(text: string): number {
  const match = /^(?:(\d+)m(?:(\d+)s)?|(\d+(?:\.\d+)?)s|(\d+)ms)$/.exec(text.trim());
  if (!match) throw new Error(`not a duration: ${JSON.stringify(text)}`);
  const [, minutes, seconds, decimalSeconds, ms] = match;
  if (minutes !== undefined) return Number(minutes) * 60_000 + Number(seconds ?? 0) * 1000;
  return decimalSeconds !== undefined ? Number(decimalSeconds) * 1000 : Number(ms);
}

/** Whether `printed` (a Printed from printedDurations/printedNumbers) shows `value` to its printed digits. */
export function showsValue(printed: Printed, value: number): boolean {
  return Math.abs(printed.value - value) <= printed.step / 2 + 1e-9 * Math.max(1, Math.abs(value));
}

/**
 * The cells of every terminal table row whose first cell matches `first`. Terminal tables pad
 * their columns and put two spaces between them; a cell never holds two spaces in a row.
 */
export function terminalRows(output: string, first: string | RegExp): string[][] {
  return output
    .split('\n')
    .map((line) => line.trim().split(/ {2,}/))
    .filter(([cell]) => cell !== undefined && (typeof first === 'string' ? cell === first : first.test(cell)));
}

/** The cells of the one terminal row whose first cell matches `first` (throws unless exactly one does). */
export function terminalRow(output: string, first: string | RegExp): string[] {
  return only(terminalRows(output, first), first, output);
}

/** The cells of every markdown table row whose first cell (unescaped) matches `first`, unescaped. */
export function markdownRows(markdown: string, first: string | RegExp): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|') && line.trimEnd().endsWith('|'))
    .map((line) =>
      line
        .trim()
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => plainText(cell.trim())),
    )
    .filter(([cell]) => cell !== undefined && (typeof first === 'string' ? cell === first : first.test(cell)));
}

/** The cells of the one markdown table row whose first cell matches `first` (throws unless exactly one does). */
export function markdownRow(markdown: string, first: string | RegExp): string[] {
  return only(markdownRows(markdown, first), first, markdown);
}

function only(rows: string[][], first: string | RegExp, text: string): string[] {
  if (rows.length !== 1) throw new Error(`expected one row starting with ${String(first)}, found ${rows.length} in:\n${text}`);
  return rows[0]!;
}

/** Whether a change cell ("-97.2% [-98.1%, -94.9%]") shows this estimate and interval, to its printed digits. */
export function changeShown(cell: string, change: { estimate: number; low: number; high: number }): boolean {
  const numbers = printedNumbers(cell);
  return numbers.length === 3 && [change.estimate, change.low, change.high].every((value, i) => showsValue(numbers[i]!, value));
}

/** Whitespace dropped: a wrapped name may be broken anywhere. */
export const squash = (text: string) => text.replace(/\s+/g, '');

/**
 * The rows a terminal table shows, read back as a person would: a file heading, then rows (a verdict mark
 * first) whose name may continue on lines further in. Each row's id (whitespace dropped, as a wrap may
 * break a word) with its first line.
 */
export function rowsInTerminalTable(text: string): { id: string; line: string }[] {
  const lines = text.split('\n');
  const header = lines.findIndex((line) => line.startsWith('verdict '));
  const column = lines[header]!.indexOf('benchmark');
  const rows: { id: string; line: string }[] = [];
  let heading = '';
  for (const line of lines.slice(header + 1)) {
    if (line.startsWith('base and head in')) break;
    const indent = line.length - line.trimStart().length;
    if (/^[✓✗?↑+\-!] /.test(line)) {
      const name = line.slice(column).trimStart().split(/ {2,}/)[0]!;
      rows.push({ id: `${heading}${heading ? ' > ' : ''}${name.trim()}`, line });
    } else if (indent === column) heading = line.trim();
    else rows[rows.length - 1]!.id += ` ${line.trim()}`;
  }
  return rows.map((row) => ({ ...row, id: squash(row.id) }));
}

export const idsInTerminalTable = (text: string): string[] => rowsInTerminalTable(text).map((row) => row.id);
