import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileSafePattern, safePatternProblem, UnsafePatternError } from '../../src/lib/safe-pattern.js';
import { compileSensitiveWords } from '../../src/lib/sensitive-words.js';

describe('administrator patterns in the linear-time engine', () => {
  it('runs a catastrophic-backtracking pattern in linear time', () => {
    const p = compileSafePattern('(\\w+\\s?)+!', { caseInsensitive: true });
    const started = performance.now();
    for (let n = 0; n < 50; n++) expect(p.test('a'.repeat(1000 + n))).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(p.test('hello world!')).toBe(true);
  });

  it('translates JavaScript syntax and refuses what RE2 cannot run', () => {
    expect(compileSafePattern('\\u00e9t\\u00e9', { caseInsensitive: true }).test('ÉTÉ')).toBe(true);
    expect(compileSafePattern('(?<word>ab)c').test('xabc')).toBe(true);
    expect(() => compileSafePattern('(a)\\1')).toThrow(UnsafePatternError);
    expect(safePatternProblem('(?=x)y')).toMatch(/^not supported by the linear-time pattern engine: /);
    expect(safePatternProblem('x*')).toBe('the pattern matches empty text');
    expect(safePatternProblem('x+')).toBeUndefined();
  });

  it('matches plain words as text and regex: entries, ignoring case, distinct, in order of appearance', () => {
    const { matcher } = compileSensitiveWords('a.b\n\n  Bad Word  \nregex:\\bcode-\\d{3}\\b\n');
    expect(matcher!.find('axb is fine')).toEqual([]);
    expect(matcher!.find('A.B and bad word and CODE-123, bad word again, code-1234')).toEqual([
      'a.b',
      'bad word',
      'code-123',
    ]);
    expect(matcher!.find('code-999 a.b bad word a.b', 2)).toEqual(['code-999', 'a.b']);
    expect(matcher!.find('clean')).toEqual([]);
  });

  it('has no matcher for an empty list, and none (with the reason) for a list the engine cannot run', () => {
    expect(compileSensitiveWords('  \n')).toEqual({});
    const { matcher, refusal } = compileSensitiveWords('ok\nregex:(?!x)y');
    expect(matcher).toBeUndefined();
    expect(refusal?.message).toMatch(/^SensitiveWords line 2: not supported by the linear-time pattern engine/);
  });

  it('is the only place a pattern is compiled from text: every other RegExp built at run time is from escaped words or constants', () => {
    // The sweep: a `new RegExp(` under packages/server/src is allowed only where what it compiles cannot come from
    // an administrator's or a caller's pattern syntax (each listed with why). A new one fails here until it is the
    // linear-time engine's or is listed.
    const allowed: Record<string, string> = {
      'lib/sensitive-words.ts': 'the plain words of SensitiveWords, each escaped (escapeLiteral): no pattern syntax',
      'relay/pipeline/chat-content.ts': 'the JSON key names of the relay itself (constants), not input',
    };
    const src = path.resolve(import.meta.dirname, '../../src');
    const found: string[] = [];
    for (const entry of fs.readdirSync(src, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const file = path.join(entry.parentPath, entry.name);
      const rel = path.relative(src, file).split(path.sep).join('/');
      if (/\bnew RegExp\(/.test(fs.readFileSync(file, 'utf8')) && !(rel in allowed)) found.push(rel);
    }
    expect(found).toEqual([]);
  });
});
