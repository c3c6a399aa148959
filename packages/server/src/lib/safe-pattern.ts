import { RE2JS } from 're2js';

/**
 * Patterns supplied by administrators (SensitiveWords' `regex:` entries, and any pattern option added later) are
 * compiled here and nowhere else, for RE2 (the re2js port): matching takes time linear in the text whatever the
 * pattern, so no pattern can stall the event loop (`(\w+\s?)+!` takes seconds in a backtracking engine on 27
 * characters). JavaScript syntax is translated first (\uXXXX, named groups); what RE2 cannot run in linear time
 * (backreferences, lookahead) is refused with the engine's reason, which the settings API answers when the
 * pattern is saved.
 */

/** A compiled administrator pattern. */
export interface SafePattern {
  /** Whether the pattern occurs anywhere in the text (the engine's DFA: the fast path). */
  test(text: string): boolean;
  /** The matches in order of appearance (each with its offset), found one at a time as the caller reads them. */
  scan(text: string): Generator<{ at: number; match: string }>;
}

export class UnsafePatternError extends Error {}

export interface PatternFlags {
  caseInsensitive?: boolean;
}

function compile(source: string, flags: PatternFlags): RE2JS {
  try {
    return RE2JS.compile(RE2JS.translateRegExp(source), flags.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (err) {
    throw new UnsafePatternError((err as Error).message.replace(/^error parsing regexp: /, ''));
  }
}

/** Compiles one pattern; throws UnsafePatternError naming what the linear-time engine refuses. */
export function compileSafePattern(source: string, flags: PatternFlags = {}): SafePattern {
  const re = compile(source, flags);
  return {
    test: (text) => re.test(text),
    *scan(text) {
      const m = re.matcher(text);
      while (m.find()) yield { at: m.start(), match: m.group() ?? '' };
    },
  };
}

/** One pattern matching any of `sources` (an alternation); throws as compileSafePattern does. */
export const compileSafeAlternation = (sources: string[], flags: PatternFlags = {}): SafePattern =>
  compileSafePattern(sources.map((s) => `(?:${RE2JS.translateRegExp(s)})`).join('|'), flags);

/** What the linear-time engine refuses in `source`, or undefined when it compiles and matches something. */
export function safePatternProblem(source: string, flags: PatternFlags = {}): string | undefined {
  try {
    if (compileSafePattern(source, flags).test('')) return 'the pattern matches empty text';
    return undefined;
  } catch (err) {
    if (err instanceof UnsafePatternError) return `not supported by the linear-time pattern engine: ${err.message}`;
    throw err;
  }
}
