import fc from 'fast-check';
import { util } from 'undici';
import { describe, expect, it } from 'vitest';
import { answerHeaders } from '../../src/relay/upstream/answer-headers.js';

/** undici's raw header list: names and values in turn, as Buffers. */
const raw = (...pairs: [string, string][]) => pairs.flatMap(([n, v]) => [Buffer.from(n), Buffer.from(v, 'latin1')]);

describe('answerHeaders: the content type and length of an upstream answer, from its raw head', () => {
  it('finds the two names in any letter case among other headers', () => {
    const h = answerHeaders(
      raw(['Date', 'x'], ['Content-Type', 'text/event-stream'], ['x-other', '1'], ['CONTENT-LENGTH', '42']),
    );
    expect(h).toEqual({ 'content-type': 'text/event-stream', 'content-length': '42' });
    expect(answerHeaders(raw(['server', 'mock']))).toEqual({ 'content-type': undefined, 'content-length': undefined });
  });

  it('takes names that only look alike for other headers, and the first of a header given twice', () => {
    const h = answerHeaders(
      raw(
        ['content-typ', 'a'],
        ['content-typex', 'b'],
        ['content_type', 'c'],
        ['content-type', 'application/json'],
        ['Content-Type', 'text/plain'],
        ['content-lengtH', '7'],
        ['content-length', '8'],
      ),
    );
    expect(h).toEqual({ 'content-type': 'application/json', 'content-length': '7' });
  });

  it('keeps bytes above 0x7f as they came (latin1), so that node:http writes them back unchanged', () => {
    const value = 'application/json; x=caf\u00e9';
    const h = answerHeaders(raw(['content-type', value]));
    expect(h['content-type']).toBe(value);
    expect(Buffer.from(h['content-type']!, 'latin1')).toEqual(Buffer.from([...value].map((c) => c.charCodeAt(0))));
  });

  it('agrees with undici’s parseHeaders on any head of ASCII headers that names each of the two at most once', () => {
    const token = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/);
    const value = fc.stringMatching(/^[\x20-\x7e]{0,40}$/);
    const name = fc.oneof(token, fc.constantFrom('Content-Type', 'content-type', 'CONTENT-LENGTH', 'Content-Length'));
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 12 }), (pairs) => {
        const seen = new Set<string>();
        const unique = pairs.filter(([n]) => !seen.has(n.toLowerCase()) && seen.add(n.toLowerCase()));
        const list = raw(...unique);
        const theirs = util.parseHeaders(list) as Record<string, string | undefined>;
        const ours = answerHeaders(list);
        expect(ours['content-type']).toBe(theirs['content-type']);
        expect(ours['content-length']).toBe(theirs['content-length']);
      }),
      { numRuns: 500 },
    );
  });
});
