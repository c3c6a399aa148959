import { Counter } from 'prom-client';
import { metrics } from '../../lib/metrics.js';

const lookups = new Counter({
  name: 'tollway_affinity_lookups_total',
  help:
    'Channel affinity lookups of calls a rule recognised, by result: hit (sent to the pinned channel and key), miss ' +
    '(no pin yet), dropped (the pin could no longer serve: channel or key disabled, breaker open, mapping changed), ' +
    'kept (pinned channel disabled, pin kept for its return), tried (the pinned channel already failed this call)',
  labelNames: ['result'] as const,
  registers: [metrics],
});

const promptTokens = new Counter({
  name: 'tollway_channel_prompt_tokens_total',
  help: 'Prompt tokens of served calls per channel (cache reads included): the denominator of the cache hit ratio',
  labelNames: ['channel'] as const,
  registers: [metrics],
});

const cacheReadTokens = new Counter({
  name: 'tollway_channel_cache_read_tokens_total',
  help: "Prompt tokens the provider reported read from its prompt cache, per channel (the cache hit ratio's numerator)",
  labelNames: ['channel'] as const,
  registers: [metrics],
});

export type AffinityLookup = 'hit' | 'miss' | 'dropped' | 'kept' | 'tried';

export function countAffinity(result: AffinityLookup): void {
  lookups.labels(result).inc();
}

/** Each channel's two counter children, looked up once (channel ids are the operator's: a bounded set). */
const children = new Map<number, { prompt: Counter.Internal; cacheRead: Counter.Internal }>();

/** A served call's prompt and cache-read tokens on its channel. */
export function countChannelPromptCache(channelId: number, prompt: number, cacheRead: number): void {
  let c = children.get(channelId);
  if (!c) {
    const label = String(channelId);
    c = { prompt: promptTokens.labels(label), cacheRead: cacheReadTokens.labels(label) };
    children.set(channelId, c);
  }
  if (prompt > 0) c.prompt.inc(prompt);
  if (cacheRead > 0) c.cacheRead.inc(cacheRead);
}
