import { describe, expect, it } from 'vitest';
import { compileSensitiveWords, ErrorCode, normalizeOptionValue, parseSensitiveWords } from '../src/index.js';

describe('SensitiveWords', () => {
  it('matches plain words as text (regex characters literal) and regex: entries, ignoring case, distinct, in order', () => {
    const m = compileSensitiveWords('a.b\n\n  Bad Word  \nregex:\\bcode-\\d{3}\\b\n')!;
    expect(m.find('axb is fine')).toEqual([]);
    expect(m.find('A.B and bad word and CODE-123, bad word again, code-1234')).toEqual(['a.b', 'bad word', 'code-123']);
    expect(m.find('a.b bad word code-999 a.b', 2)).toEqual(['a.b', 'bad word']);
    expect(m.find('clean')).toEqual([]);
  });

  it('has no matcher for an empty or invalid list, and says which line is invalid', () => {
    expect(compileSensitiveWords('  \n')).toBeUndefined();
    const invalid = parseSensitiveWords('x\nregex:(').error;
    expect(invalid?.message).toMatch(/^SensitiveWords line 2: invalid regular expression/);
    expect(invalid).toMatchObject({ code: ErrorCode.SensitiveRegexInvalid, params: { line: 2 } });
    expect(parseSensitiveWords('regex:').error).toEqual({ message: 'SensitiveWords line 1: the regex: entry is empty', code: ErrorCode.SensitiveRegexEmpty, params: { line: 1 } });
    expect(parseSensitiveWords('regex:x?').error).toEqual({
      message: 'SensitiveWords line 1: the pattern matches empty text',
      code: ErrorCode.SensitiveRegexMatchesEmpty,
      params: { line: 1 },
    });
    expect(compileSensitiveWords('regex:(')).toBeUndefined();
  });

  it('is validated when the option is saved', () => {
    expect(normalizeOptionValue('SensitiveWords', 'ok\nregex:[a-z]+\\d')).toEqual({ ok: true, value: 'ok\nregex:[a-z]+\\d' });
    expect(normalizeOptionValue('SensitiveWords', 'regex:[')).toMatchObject({ ok: false });
  });
});
