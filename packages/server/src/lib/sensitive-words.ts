import {
  ErrorCode,
  parseSensitiveWords,
  sensitiveLineError,
  sensitivePatternLine,
  type OptionCheckFailure,
} from '@tollway/shared';
import { compileSafeAlternation, safePatternProblem, type SafePattern } from './safe-pattern.js';

/** Finds the entries of the SensitiveWords list a text contains. */
export interface SensitiveMatcher {
  /** Up to `limit` distinct matched fragments (lower-cased), in order of appearance; empty when clean. */
  find(text: string, limit?: number): string[];
}

const DEFAULT_LIMIT = 3;
const escapeLiteral = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

type Hit = { at: number; match: string };

function* literalHits(re: RegExp | undefined, text: string): Generator<Hit> {
  if (!re) return;
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) yield { at: m.index, match: m[0] };
}

/** The first `limit` distinct matches (lower-cased) of a scan, each at its first place. */
function distinct(hits: Iterable<Hit>, limit: number): Hit[] {
  const out: Hit[] = [];
  const seen = new Set<string>();
  for (const h of hits) {
    const match = h.match.toLowerCase();
    if (seen.has(match)) continue;
    seen.add(match);
    out.push({ at: h.at, match });
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * Why the list cannot be saved: the shared check (syntax, empty entries, a pattern matching empty text), then
 * each `regex:` entry in the linear-time engine. Undefined when every entry can run.
 */
export function sensitiveWordsRefusal(list: string): OptionCheckFailure | undefined {
  const { patterns, error } = parseSensitiveWords(list);
  if (error) return error;
  for (const [n, pattern] of patterns.entries()) {
    const problem = safePatternProblem(pattern, { caseInsensitive: true });
    if (problem)
      return sensitiveLineError(ErrorCode.SensitiveRegexInvalid, sensitivePatternLine(list, n), problem, problem);
  }
  return undefined;
}

/**
 * The matcher of a list, or undefined when the list is empty or cannot be saved (the settings API refuses such a
 * list; one stored before, or imported, is reported by `refusal`). Plain words are literal text and run in
 * JavaScript's engine (an alternation of literals backtracks at most once per word and position: linear in the
 * text); `regex:` entries run only in the linear-time engine. Both ignore case.
 */
export function compileSensitiveWords(list: string): { matcher?: SensitiveMatcher; refusal?: OptionCheckFailure } {
  const refusal = sensitiveWordsRefusal(list);
  if (refusal) return { refusal };
  const { words, patterns } = parseSensitiveWords(list);
  const literal = words.length ? new RegExp(words.map(escapeLiteral).join('|'), 'giu') : undefined;
  const regex: SafePattern | undefined = patterns.length
    ? compileSafeAlternation(patterns, { caseInsensitive: true })
    : undefined;
  if (!literal && !regex) return {};
  return {
    matcher: {
      find(text, limit = DEFAULT_LIMIT) {
        const hits = [
          ...distinct(literalHits(literal, text), limit),
          ...(regex?.test(text) ? distinct(regex.scan(text), limit) : []),
        ];
        hits.sort((a, b) => a.at - b.at);
        return [...new Set(hits.map((h) => h.match))].slice(0, limit);
      },
    },
  };
}
