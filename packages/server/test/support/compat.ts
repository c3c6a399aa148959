import { it } from 'vitest';
import type { ChannelKind } from './conformance.js';

/** The clients of the compatibility table, in its row order. */
export const CLIENTS = [
  'openai',
  '@anthropic-ai/sdk',
  '@google/genai',
  'ai-sdk/openai',
  'ai-sdk/openai-compatible',
  'ai-sdk/anthropic',
  'ai-sdk/google',
  '@langchain/openai',
  '@langchain/anthropic',
] as const;

/** The channel types of the compatibility table, in its column order. */
export const CHANNELS: readonly ChannelKind[] = ['openai', 'anthropic', 'gemini'];

/** Separator of a compat test name: `<client> · <feature> · <channel>` (scripts/compat-table.mjs splits on it). */
export const COMPAT_SEPARATOR = ' · ';

/** One cell of the compatibility table: a test named `<client> · <feature> · <channel>`. */
export function compat(
  client: string,
  feature: string,
  channel: ChannelKind,
  fn: () => Promise<unknown> | unknown,
  timeout?: number,
): void {
  it(
    [client, feature, channel].join(COMPAT_SEPARATOR),
    async () => {
      await fn();
    },
    timeout,
  );
}

/** The same feature on every channel type: `fn(channel)` per column. */
export function compatEach(
  client: string,
  feature: string,
  fn: (channel: ChannelKind) => Promise<unknown> | unknown,
  channels: readonly ChannelKind[] = CHANNELS,
  timeout?: number,
): void {
  for (const channel of channels) compat(client, feature, channel, () => fn(channel), timeout);
}
