import { ChannelType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import { aiProxyLibraryAdaptor } from '../../../src/relay/providers/aiproxy/adaptor.js';
import { documentsText, libraryChat } from '../../../src/relay/providers/aiproxy/convert.js';
import { aiProxyLibraryProvider } from '../../../src/relay/providers/aiproxy/descriptor.js';
import { DataLineFramer } from '../../../src/relay/providers/aiproxy/stream.js';
import { describeProviderContract } from '../../support/provider-contract.js';
import { startMockAIProxyLibrary } from '../../support/mock-aiproxy-library.js';

/** AI Proxy's library API against a mock that checks the Bearer key and that it asks its own library. */
describeProviderContract({
  descriptor: aiProxyLibraryProvider,
  type: ChannelType.AIProxyLibrary,
  model: 'gpt-3.5-turbo',
  key: 'aip-key',
  other: 'lib-7',
  path: '/api/library/ask',
  upstream: () => startMockAIProxyLibrary({ 'aip-key': 'lib-7', 'aip-other': 'lib-8' }),
  reportsUsage: false,
  // A key asking a library that is not its own is refused in a 200 answer.
  refusal: { key: 'aip-other', status: 403 },
  expectRequest(request, stream) {
    expect(request.headers.authorization).toBe('Bearer aip-key');
    expect(request.body).toEqual({ model: 'gpt-3.5-turbo', query: 'hi', libraryId: 'lib-7', stream });
  },
});

describe('AI Proxy library wire', () => {
  it('appends the cited documents as numbered links, to a whole answer and at the end of a stream', () => {
    const docs = [{ title: 'A', url: 'https://a' }];
    expect(documentsText(docs)).toBe('\n\nReferences:\n1. [A](https://a)');
    expect(libraryChat.responseToIR({ answer: 'x', documents: docs }).parts).toEqual([
      { type: 'text', text: 'x\n\nReferences:\n1. [A](https://a)' },
    ]);
    const framer = new DataLineFramer();
    const state = libraryChat.newDecodeState();
    const events = [
      ...framer.push(Buffer.from('data:{"content":"x"}\ndata:{"documents":[{"title":"A","url":"https://a"}],"fin')),
      ...framer.push(Buffer.from('ish":true}\n')),
      ...framer.flush(),
    ].flatMap((e) => libraryChat.decodeEvent(state, e));
    expect(events.filter((e) => e.type === 'text')).toEqual([
      { type: 'text', text: 'x' },
      { type: 'text', text: '\n\nReferences:\n1. [A](https://a)' },
    ]);
    expect(events.at(-1)).toEqual({ type: 'end' });
  });

  it('ends a stream that stops without its finish chunk', () => {
    const state = libraryChat.newDecodeState();
    libraryChat.decodeEvent(state, { data: '{"content":"x"}' });
    expect(libraryChat.finish!(state)).toEqual([{ type: 'stop', reason: 'stop' }, { type: 'end' }]);
  });

  it('refuses a channel that names no library before sending', () => {
    expect(() =>
      aiProxyLibraryAdaptor.prepare!({ channel: { other: ' ' } } as never, {
        url: new URL('https://api.aiproxy.io/api/library/ask'),
        headers: {},
        body: {},
      }),
    ).toThrow('names no library');
  });
});
