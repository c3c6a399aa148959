import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from '../../src/modules/org-spend/csv.js';

describe('spend export CSV cells', () => {
  it('plain text and numbers pass unchanged', () => {
    expect(csvCell('gpt-4o')).toBe('gpt-4o');
    expect(csvCell('')).toBe('');
    expect(csvCell(12345)).toBe('12345');
    expect(csvCell('名字')).toBe('名字');
  });

  it('a cell a spreadsheet would run as a formula starts with an apostrophe', () => {
    for (const start of ['=', '+', '-', '@', '\t'])
      expect(csvCell(`${start}SUM(A1)`), JSON.stringify(start)).toBe(`'${start}SUM(A1)`);
    expect(csvCell('\rx')).toBe(`"'\rx"`);
    // Only the first character counts.
    expect(csvCell('a=b')).toBe('a=b');
  });

  it('quotes, commas and line breaks are quoted with quotes doubled', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('=1,"2"')).toBe(`"'=1,""2"""`);
  });

  it('a line joins its cells with commas and ends with CRLF', () => {
    expect(csvLine(['a', 1, 'b,c'])).toBe('a,1,"b,c"\r\n');
  });
});
