import { ErrorCode } from './error-codes.js';
import type { OptionCheckFailure } from './option-def.js';

/**
 * The SensitiveWords option: one entry per line; a line starting with `regex:` is a regular expression, any
 * other line a plain word. Both match case-insensitively anywhere in the text.
 */

export const SENSITIVE_REGEX_PREFIX = 'regex:';

/** A refused line of the list: the English message, and the code and values of the console's text. */
export const sensitiveLineError = (
  code: ErrorCode,
  line: number,
  what: string,
  detail?: string,
): OptionCheckFailure => ({
  message: `SensitiveWords line ${line}: ${what}`,
  code,
  params: detail === undefined ? { line } : { line, detail },
});

/**
 * The list's entries, blank lines dropped: plain words, and the sources of `regex:` entries. An error names the
 * first `regex:` entry that is empty, does not compile or matches empty text. This check runs the pattern only
 * on the empty text; the server compiles and runs patterns only in its linear-time engine (lib/safe-pattern.ts),
 * which also refuses, on save, what that engine cannot run (backreferences, lookahead).
 */
export function parseSensitiveWords(list: string): { words: string[]; patterns: string[]; error?: OptionCheckFailure } {
  const words: string[] = [];
  const patterns: string[] = [];
  for (const [i, raw] of list.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line) continue;
    if (!line.startsWith(SENSITIVE_REGEX_PREFIX)) {
      words.push(line);
      continue;
    }
    const pattern = line.slice(SENSITIVE_REGEX_PREFIX.length).trim();
    if (!pattern)
      return {
        words,
        patterns,
        error: sensitiveLineError(ErrorCode.SensitiveRegexEmpty, i + 1, 'the regex: entry is empty'),
      };
    try {
      // The pattern must also match something: an entry matching the empty string would refuse every prompt.
      if (new RegExp(pattern, 'iu').test(''))
        return {
          words,
          patterns,
          error: sensitiveLineError(ErrorCode.SensitiveRegexMatchesEmpty, i + 1, 'the pattern matches empty text'),
        };
    } catch (err) {
      const detail = (err as Error).message;
      return {
        words,
        patterns,
        error: sensitiveLineError(
          ErrorCode.SensitiveRegexInvalid,
          i + 1,
          `invalid regular expression (${detail})`,
          detail,
        ),
      };
    }
    patterns.push(pattern);
  }
  return { words, patterns };
}

/** The line number (1-based) of the n-th `regex:` entry of the list (0-based n), for messages. */
export function sensitivePatternLine(list: string, n: number): number {
  let seen = -1;
  for (const [i, raw] of list.split(/\r?\n/).entries()) {
    if (raw.trim().startsWith(SENSITIVE_REGEX_PREFIX) && ++seen === n) return i + 1;
  }
  return 0;
}
