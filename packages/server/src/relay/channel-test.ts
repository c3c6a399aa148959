import { channelTypeById } from '@tollway/shared';
import { request } from 'undici';
import type { AppContext } from '../context.js';
import { chooseKey, type CachedChannel } from '../modules/channels/cache.js';

/**
 * One non-streaming OpenAI chat completion to test a channel (placeholder written by the channels module until
 * the relay provides its own; same signature). The result message never contains the key.
 */
export async function testChannelUpstream(
  _ctx: AppContext,
  channel: CachedChannel,
  model: string,
): Promise<{ ok: boolean; status: number; message: string; elapsedMs: number }> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const base = (channel.baseUrl || channelTypeById.get(channel.type)?.baseUrl || '').replace(/\/+$/, '');
  if (!base) return { ok: false, status: 0, message: 'the channel has no base_url and its type has no default address', elapsedMs: 0 };
  const index = chooseKey(channel);
  if (index === undefined) return { ok: false, status: 0, message: 'the channel has no enabled key', elapsedMs: 0 };
  const key = channel.keys[index]!;
  const clean = (text: string) => (key.length >= 6 ? text.split(key).join('***') : text).slice(0, 500);
  try {
    const res = await request(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }),
      headersTimeout: 60_000,
      bodyTimeout: 60_000,
    });
    const text = await res.body.text();
    if (res.statusCode >= 400) {
      let message = text.slice(0, 300);
      try {
        const j = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
        message = (typeof j.error === 'string' ? j.error : j.error?.message) ?? j.message ?? message;
      } catch {
        // not JSON
      }
      return { ok: false, status: res.statusCode, message: clean(`upstream answered ${res.statusCode}: ${message}`), elapsedMs: elapsed() };
    }
    return { ok: true, status: res.statusCode, message: '', elapsedMs: elapsed() };
  } catch (err) {
    return { ok: false, status: 0, message: clean(`cannot reach the upstream: ${(err as Error).message}`), elapsedMs: elapsed() };
  }
}
