import { ChannelType } from '@tollway/shared';
import { describe, expect, it } from 'vitest';
import type { CachedChannel } from '../../src/core/routing/channel-cache.js';
import { openAIAdaptor } from '../../src/relay/providers/openai/adaptor.js';
import type { UpstreamCall } from '../../src/relay/providers/types.js';

const call = (channel: Partial<CachedChannel>, key = 'sk-1', openaiPath = '/v1/chat/completions'): UpstreamCall =>
  ({
    channel: Object.assign(channel, {
      type: channel.type ?? ChannelType.OpenAI,
      other: channel.other ?? '',
      baseUrl: channel.baseUrl ?? '',
    }),
    key,
    model: 'gpt-4o-mini',
    stream: false,
    openaiPath,
  }) as unknown as UpstreamCall;

describe('OpenAI adaptor target URL', () => {
  it('parses an address once per channel: calls through the same channel and path share one URL', () => {
    const channel = { baseUrl: 'http://127.0.0.1:9/' };
    const a = openAIAdaptor.target(call(channel));
    const b = openAIAdaptor.target(call(channel, 'sk-2'));
    expect(a.url).toBe(b.url);
    expect(a.url.href).toBe('http://127.0.0.1:9/v1/chat/completions');
    expect(b.headers.authorization).toBe('Bearer sk-2');
  });

  it('parses afresh when a channel object’s base URL or type is not the one its URLs came from', () => {
    const channel = { type: ChannelType.OpenAI, baseUrl: 'http://127.0.0.1:9' } as Partial<CachedChannel>;
    const first = openAIAdaptor.target(call(channel)).url;
    channel.baseUrl = 'http://127.0.0.1:11';
    expect(openAIAdaptor.target(call(channel)).url.href).toBe('http://127.0.0.1:11/v1/chat/completions');
    channel.baseUrl = '';
    channel.type = ChannelType.Cloudflare;
    expect(openAIAdaptor.target(call(channel, 'acc|tok')).url.href).toBe(
      'https://api.cloudflare.com/client/v4/accounts/acc/ai/v1/chat/completions',
    );
    expect(first.href).toBe('http://127.0.0.1:9/v1/chat/completions');
  });

  it('keeps addresses apart: another path, base URL or vendor account is its own URL', () => {
    const chat = openAIAdaptor.target(call({ baseUrl: 'http://127.0.0.1:9' }));
    const embed = openAIAdaptor.target(call({ baseUrl: 'http://127.0.0.1:9' }, 'sk-1', '/v1/embeddings'));
    const other = openAIAdaptor.target(call({ baseUrl: 'http://127.0.0.1:10' }));
    expect(embed.url.href).toBe('http://127.0.0.1:9/v1/embeddings');
    expect(other.url.origin).toBe('http://127.0.0.1:10');
    expect(chat.url).not.toBe(embed.url);
    const cf = (account: string) => openAIAdaptor.target(call({ type: ChannelType.Cloudflare }, `${account}|tok`));
    expect(cf('a1').url.pathname).toBe('/client/v4/accounts/a1/ai/v1/chat/completions');
    expect(cf('a2').url.pathname).toBe('/client/v4/accounts/a2/ai/v1/chat/completions');
    expect(cf('a2').headers.authorization).toBe('Bearer tok');
  });

  it('throws on an address that is not a URL, every time (a failure is not kept)', () => {
    expect(() => openAIAdaptor.target(call({ baseUrl: 'not a url' }))).toThrow();
    expect(() => openAIAdaptor.target(call({ baseUrl: 'not a url' }))).toThrow();
  });
});
