import { describe, expect, it } from 'vitest';
import { compileSensitiveWords, normalizeOptionValue, parseSensitiveWords } from '../src/index.js';

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
    expect(parseSensitiveWords('x\nregex:(').error).toMatch(/^SensitiveWords line 2: invalid regular expression/);
    expect(parseSensitiveWords('regex:').error).toBe('SensitiveWords line 1: the regex: entry is empty');
    expect(parseSensitiveWords('regex:x?').error).toBe('SensitiveWords line 1: the pattern matches empty text');
    expect(compileSensitiveWords('regex:(')).toBeUndefined();
  });

  it('is validated when the option is saved', () => {
    expect(normalizeOptionValue('SensitiveWords', 'ok\nregex:[a-z]+\\d')).toEqual({ ok: true, value: 'ok\nregex:[a-z]+\\d' });
    expect(normalizeOptionValue('SensitiveWords', 'regex:[')).toMatchObject({ ok: false });
  });
});
