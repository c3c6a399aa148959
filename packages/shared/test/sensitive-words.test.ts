import { describe, expect, it } from 'vitest';
import { ErrorCode, normalizeOptionValue, parseSensitiveWords } from '../src/index.js';

describe('SensitiveWords', () => {
  it('parses words and patterns, and says which line is invalid', () => {
    expect(parseSensitiveWords('a.b\n\n  Bad Word  \nregex:x+y\n')).toEqual({
      words: ['a.b', 'Bad Word'],
      patterns: ['x+y'],
    });
    const invalid = parseSensitiveWords('x\nregex:(').error;
    expect(invalid?.message).toMatch(/^SensitiveWords line 2: invalid regular expression/);
    expect(invalid).toMatchObject({ code: ErrorCode.SensitiveRegexInvalid, params: { line: 2 } });
    expect(parseSensitiveWords('regex:').error).toEqual({
      message: 'SensitiveWords line 1: the regex: entry is empty',
      code: ErrorCode.SensitiveRegexEmpty,
      params: { line: 1 },
    });
    expect(parseSensitiveWords('regex:x?').error).toEqual({
      message: 'SensitiveWords line 1: the pattern matches empty text',
      code: ErrorCode.SensitiveRegexMatchesEmpty,
      params: { line: 1 },
    });
  });

  it('is validated when the option is saved', () => {
    expect(normalizeOptionValue('SensitiveWords', 'ok\nregex:[a-z]+\\d')).toEqual({
      ok: true,
      value: 'ok\nregex:[a-z]+\\d',
    });
    expect(normalizeOptionValue('SensitiveWords', 'regex:[')).toMatchObject({ ok: false });
  });
});
