import { channelTypeById } from '@tollway/shared';
import type { AppContext } from '../context.js';
import { chooseKey, type CachedChannel } from '../modules/channels/cache.js';
import { resolveModelMapping } from '../modules/channels/parse.js';
import { openAIPaths } from './providers/openai/request.js';
import type { RelayServices } from './services.js';

export interface ChannelTestResult {
  ok: boolean;
  status: number;
  message: string;
  elapsedMs: number;
}

/**
 * Calls a channel's upstream once with a one-token chat completion, through the same agent, URL building and
 * model mapping as the relay. Never returns the key.
 */
export async function testChannelUpstream(ctx: AppContext & { relay?: RelayServices }, channel: CachedChannel, model: string): Promise<ChannelTestResult> {
  const started = Date.now();
  const keyIndex = chooseKey(channel);
  if (keyIndex === undefined) return { ok: false, status: 0, message: 'channel has no usable key', elapsedMs: 0 };
  const mapped = resolveModelMapping(channel.modelMapping, model);
  if ('error' in mapped) return { ok: false, status: 0, message: mapped.error, elapsedMs: 0 };
  const base = channel.baseUrl || channelTypeById.get(channel.type)?.baseUrl || 'https://api.openai.com';
  const url = new URL(base);
  const { request } = await import('undici');
  try {
    const res = await request(`${url.origin}${url.pathname.replace(/\/+$/, '')}${openAIPaths.chat}`, {
      method: 'POST',
      dispatcher: ctx.relay?.agent,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${channel.keys[keyIndex]}` },
      body: JSON.stringify({ model: mapped.model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }),
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    const text = await res.body.text();
    const elapsedMs = Date.now() - started;
    if (res.statusCode >= 400) {
      let message = text.slice(0, 300);
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        // keep the raw text
      }
      for (const k of channel.keys) if (k.length >= 6) message = message.split(k).join('***');
      return { ok: false, status: res.statusCode, message: message || `HTTP ${res.statusCode}`, elapsedMs };
    }
    return { ok: true, status: res.statusCode, message: '', elapsedMs };
  } catch (err) {
    return { ok: false, status: 0, message: `upstream unreachable: ${(err as Error).message}`, elapsedMs: Date.now() - started };
  }
}
