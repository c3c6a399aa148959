/**
 * CSV as RFC 4180 writes it, safe to open in a spreadsheet: a text cell a spreadsheet would read as a formula
 * (starting with = + - @, or a tab or carriage return) gets a leading apostrophe; a cell holding a quote, comma or
 * line break is quoted with its quotes doubled. Lines end with CRLF.
 */

const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r']);
const NEEDS_QUOTES = /[",\r\n]/;

/** One cell: numbers as they are, text neutralised and quoted when needed. */
export function csvCell(value: string | number): string {
  if (typeof value === 'number') return String(value);
  const text = value.length > 0 && FORMULA_START.has(value[0]!) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line of cells, with its CRLF. */
export const csvLine = (cells: readonly (string | number)[]): string => `${cells.map(csvCell).join(',')}\r\n`;

/** Written first, so spreadsheet programs read the file as UTF-8 (names in Chinese stay readable). */
export const UTF8_BOM = '\uFEFF';
