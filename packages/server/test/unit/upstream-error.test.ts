import { describe, expect, it } from 'vitest';
import { errorMessageOf } from '../../src/relay/upstream/exchange.js';
import { modelErrorMessage } from '../../src/relay/providers/upstream-json.js';

describe('upstream error messages', () => {
  it('reads the OpenAI, Anthropic, plain-string and top-level message shapes', () => {
    expect(errorMessageOf('{"error":{"message":"bad key","type":"auth"}}', 401)).toBe('bad key');
    expect(errorMessageOf('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 529)).toBe(
      'Overloaded',
    );
    expect(errorMessageOf('{"error":"quota exceeded"}', 429)).toBe('quota exceeded');
    expect(errorMessageOf('{"message":"no such model"}', 404)).toBe('no such model');
  });

  it('falls back to the text for the relay, and to nothing for channel management', () => {
    expect(errorMessageOf('  upstream down  ', 502)).toBe('upstream down');
    expect(errorMessageOf('', 503)).toBe('upstream answered HTTP 503');
    expect(errorMessageOf('[1,2]', 500)).toBe('[1,2]');
    expect(modelErrorMessage('<html>secret</html>', 'text/html')).toBeUndefined();
    expect(modelErrorMessage('{"error":{"message":"bad key"}}', 'text/plain')).toBeUndefined();
    expect(modelErrorMessage(`{"error":{"message":"${'x'.repeat(400)}"}}`, 'application/json')).toHaveLength(300);
  });
});
