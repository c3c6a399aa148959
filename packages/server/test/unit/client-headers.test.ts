import { describe, expect, it } from 'vitest';
import { clientHeaders, withClientHeaders } from '../../src/relay/entry/client-headers.js';

const caller = {
  authorization: 'Bearer sk-caller',
  'x-api-key': 'sk-caller',
  'x-goog-api-key': 'sk-caller',
  'api-key': 'sk-caller',
  cookie: 'session=1',
  connection: 'keep-alive',
  'openai-organization': 'org-caller',
  'openai-project': 'proj-caller',
  'x-stainless-os': 'Linux',
  'anthropic-beta': 'context-1m-2025-08-07',
  'anthropic-version': '2023-01-01',
  'openai-beta': 'assistants=v2',
};

describe('client vendor headers', () => {
  it('passes only the allow-listed vendor headers of the upstream format, never credentials', () => {
    expect(clientHeaders('anthropic', caller, { 'anthropic-version': '2023-06-01' })).toEqual({
      'anthropic-beta': 'context-1m-2025-08-07',
      'anthropic-version': '2023-01-01',
    });
    expect(clientHeaders('openai', caller, {})).toEqual({ 'openai-beta': 'assistants=v2' });
    expect(clientHeaders('gemini', caller, {})).toBeUndefined();
    expect(clientHeaders('converse', caller, {})).toBeUndefined();
  });

  it('sends anthropic-version only in place of an upstream default', () => {
    expect(clientHeaders('anthropic', caller, { 'content-type': 'application/json' })).toEqual({
      'anthropic-beta': 'context-1m-2025-08-07',
    });
  });

  it('makes nothing when the client sent none, and skips empty or oversized values', () => {
    expect(clientHeaders('anthropic', { authorization: 'Bearer x' }, { 'anthropic-version': 'v' })).toBeUndefined();
    expect(clientHeaders('openai', { 'openai-beta': '' }, {})).toBeUndefined();
    expect(clientHeaders('openai', { 'openai-beta': 'x'.repeat(5000) }, {})).toBeUndefined();
    expect(clientHeaders('openai', undefined, {})).toBeUndefined();
  });

  it('lets the channel’s own headers win, and returns them untouched when nothing is added', () => {
    const own = { authorization: 'Bearer channel', 'openai-beta': 'channel-beta' };
    expect(withClientHeaders('openai', own, caller)).toEqual({
      authorization: 'Bearer channel',
      'openai-beta': 'channel-beta',
    });
    expect(withClientHeaders('openai', { authorization: 'Bearer channel' }, caller)).toEqual({
      authorization: 'Bearer channel',
      'openai-beta': 'assistants=v2',
    });
    const plain = { authorization: 'Bearer channel' };
    expect(withClientHeaders('openai', plain, { authorization: 'Bearer sk-caller' })).toBe(plain);
  });
});
