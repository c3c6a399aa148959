import { ErrorCode } from './error-codes.js';
import type { OptionCheckFailure } from './option-def.js';

/**
 * The SensitiveWords option: one entry per line; a line starting with `regex:` is a regular expression, any
 * other line a plain word. Both match case-insensitively anywhere in the text.
 */

export const SENSITIVE_REGEX_PREFIX = 'regex:';

/** Finds the entries a text contains. */
export interface SensitiveMatcher {
  /** Up to `limit` distinct matched fragments (lower-cased), in order of appearance; empty when clean. */
  find(text: string, limit?: number): string[];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A refused line of the list: the English message, and the code and values of the console's text. */
const lineError = (code: ErrorCode, line: number, what: string, detail?: string): OptionCheckFailure => ({
  message: `SensitiveWords line ${line}: ${what}`,
  code,
  params: detail === undefined ? { line } : { line, detail },
});

/** The list's entries, blank lines dropped; an error names the first `regex:` entry that does not compile. */
export function parseSensitiveWords(list: string): { sources: string[]; error?: OptionCheckFailure } {
  const sources: string[] = [];
  for (const [i, raw] of list.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line) continue;
    if (!line.startsWith(SENSITIVE_REGEX_PREFIX)) {
      sources.push(escape(line));
      continue;
    }
    const pattern = line.slice(SENSITIVE_REGEX_PREFIX.length).trim();
    if (!pattern) return { sources, error: lineError(ErrorCode.SensitiveRegexEmpty, i + 1, 'the regex: entry is empty') };
    try {
      // The pattern must also match something: an entry matching the empty string would refuse every prompt.
      if (new RegExp(pattern, 'iu').test('')) return { sources, error: lineError(ErrorCode.SensitiveRegexMatchesEmpty, i + 1, 'the pattern matches empty text') };
    } catch (err) {
      const detail = (err as Error).message;
      return { sources, error: lineError(ErrorCode.SensitiveRegexInvalid, i + 1, `invalid regular expression (${detail})`, detail) };
    }
    sources.push(pattern);
  }
  return { sources };
}

/** One matcher for the whole list (a single alternation), or undefined when the list is empty or invalid. */
export function compileSensitiveWords(list: string): SensitiveMatcher | undefined {
  const { sources, error } = parseSensitiveWords(list);
  if (error || sources.length === 0) return undefined;
  const re = new RegExp(sources.map((s) => `(?:${s})`).join('|'), 'giu');
  return {
    find(text, limit = 3) {
      const found: string[] = [];
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        const word = m[0].toLowerCase();
        if (!found.includes(word)) found.push(word);
        if (found.length >= limit) break;
        if (m[0] === '') re.lastIndex++;
      }
      return found;
    },
  };
}
