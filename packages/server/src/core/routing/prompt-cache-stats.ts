import type { Redis } from 'ioredis';
import { countChannelPromptCache } from './affinity-metrics.js';

/** One channel's prompt tokens and the part the provider read from its prompt cache, over the current day (UTC). */
export interface ChannelPromptCache {
  channel_id: number;
  prompt_tokens: number;
  cache_read_tokens: number;
  /** cache_read_tokens / prompt_tokens, 0 without prompt tokens. */
  hit_ratio: number;
}

const FLUSH_INTERVAL_MS = 5_000;
const DAY_MS = 86_400_000;
/** A day's hash in Redis outlives the day by one more (yesterday stays readable while today starts). */
const DAY_KEY_TTL_S = 2 * 86_400;

const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

interface Counts {
  prompt: number;
  cacheRead: number;
}

/**
 * The prompt-cache hit ratio of each channel: what affinity is for (a session kept on one channel and key reads
 * its prompt from the provider's cache). Counted per served call into this process's totals for the day, and —
 * with Redis — added to the cluster's day totals every few seconds (one pipelined write per flush, none per call).
 * Channel ids are the operator's, so the maps are as large as the channel list.
 */
export class PromptCacheStats {
  private day = dayOf(Date.now());
  private totals = new Map<number, Counts>();
  private pending = new Map<number, Counts>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly redis?: { client: Redis; keyPrefix: string }) {}

  private key(day: number): string {
    return `${this.redis!.keyPrefix}prompt-cache:${day}`;
  }

  /** A served call: `prompt` its prompt tokens with cache reads included, `cacheRead` those read from the cache. */
  record(channelId: number, prompt: number, cacheRead: number): void {
    countChannelPromptCache(channelId, prompt, cacheRead);
    const today = dayOf(Date.now());
    if (today !== this.day) {
      this.day = today;
      this.totals = new Map();
    }
    add(this.totals, channelId, prompt, cacheRead);
    if (!this.redis) return;
    add(this.pending, channelId, prompt, cacheRead);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS).unref();
  }

  /** Sends the counts gathered since the last flush to Redis (now: before a read, or at shutdown). */
  async flush(): Promise<void> {
    this.timer = undefined;
    if (!this.redis || this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const key = this.key(this.day);
    const multi = this.redis.client.multi();
    for (const [id, c] of batch) {
      if (c.prompt) multi.hincrby(key, `p:${id}`, c.prompt);
      if (c.cacheRead) multi.hincrby(key, `c:${id}`, c.cacheRead);
    }
    multi.expire(key, DAY_KEY_TTL_S);
    await multi.exec().catch(() => undefined);
  }

  /** Today's counts per channel: the cluster's with Redis, else this process's. */
  async today(): Promise<ChannelPromptCache[]> {
    let counts = this.totals;
    if (this.redis) {
      await this.flush();
      counts = new Map();
      const hash = await this.redis.client.hgetall(this.key(dayOf(Date.now())));
      for (const [field, value] of Object.entries(hash)) {
        const id = Number(field.slice(2));
        if (field.startsWith('p:')) add(counts, id, Number(value), 0);
        else add(counts, id, 0, Number(value));
      }
    }
    return [...counts]
      .map(([id, c]) => ({
        channel_id: id,
        prompt_tokens: c.prompt,
        cache_read_tokens: c.cacheRead,
        hit_ratio: c.prompt > 0 ? Math.min(1, c.cacheRead / c.prompt) : 0,
      }))
      .sort((a, b) => a.channel_id - b.channel_id);
  }

  stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    return this.flush();
  }
}

function add(map: Map<number, Counts>, id: number, prompt: number, cacheRead: number): void {
  const c = map.get(id);
  if (c) {
    c.prompt += prompt;
    c.cacheRead += cacheRead;
  } else map.set(id, { prompt, cacheRead });
}
