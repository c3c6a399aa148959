import type { Redis } from 'ioredis';
import { ChannelStatus } from '@tollway/shared';
import type { OptionsService } from '../options/service.js';
import type { ChannelBreakers } from './breakers.js';
import { channelModel, type CachedChannel, type ChannelCache } from './channel-cache.js';
import {
  AffinitySettingsCache,
  matchAffinity,
  type AffinityCaller,
  type AffinityMatch,
  type AffinitySettings,
} from './affinity-rules.js';
import { MemoryAffinityStore, RedisAffinityStore, type AffinityPin, type AffinityStore } from './affinity-store.js';
import { countAffinity } from './affinity-metrics.js';
import { AffinityUsage } from './affinity-usage.js';
import { PromptCacheStats } from './prompt-cache-stats.js';

/** A pinned channel found usable for this call: the channel, the key and the model as channelModel maps it. */
export interface PinnedChoice {
  ch: CachedChannel;
  keyIndex: number;
  mapped: { model: string; upstream: string };
}

/**
 * Channel affinity: a call whose session a rule recognises (affinity-rules.ts) goes to the channel and key that
 * served the session last, while that pair is usable for the call. A pin is dropped — and the call's channel chosen
 * as any other's — when the channel is disabled or no longer serves the group × model, the key is disabled, either's
 * breaker is open, or the channel's model_mapping now maps the model elsewhere. The pins live in Redis when it is
 * configured (every node sends a session to the same place), else in a bounded map of this process.
 */
export class ChannelAffinity {
  readonly settings: AffinitySettingsCache;
  /** Per-session usage (new-api's usage cache statistics). */
  readonly usage: AffinityUsage;
  /** Each channel's prompt-cache hit ratio over the day (every served call counts). */
  readonly promptCache: PromptCacheStats;
  private memory: MemoryAffinityStore | undefined;
  private redisStore: RedisAffinityStore | undefined;

  constructor(
    options: OptionsService,
    private readonly channels: Pick<ChannelCache, 'get'>,
    private readonly breakers: Pick<ChannelBreakers, 'blocked' | 'keyBlocked'>,
    private readonly redis?: { client: Redis; keyPrefix: string },
  ) {
    this.settings = new AffinitySettingsCache(options);
    this.usage = new AffinityUsage(() => this.settings.get().maxEntries, redis);
    this.promptCache = new PromptCacheStats(redis);
  }

  /** The pins' store; one node's map is rebuilt (emptied) when max_entries changes. */
  get store(): AffinityStore {
    if (this.redis) return (this.redisStore ??= new RedisAffinityStore(this.redis.client, this.redis.keyPrefix));
    const cap = this.settings.get().maxEntries;
    if (this.memory?.capacity !== cap) this.memory = new MemoryAffinityStore(cap);
    return this.memory;
  }

  /** The call's session under the first rule that recognises it; undefined (nothing to pin) otherwise. */
  match(
    call: { model: string; path: string; headers: import('node:http').IncomingHttpHeaders; body: unknown },
    caller: AffinityCaller,
    group: string,
  ): AffinityMatch | undefined {
    const settings = this.settings.get();
    if (!settings.enabled || settings.rules.length === 0) return undefined;
    return matchAffinity(settings, call, caller, group);
  }

  /**
   * The session's pinned channel and key when they can serve this call now (not tried yet in it, and taking an
   * input of `inputTokens`); else undefined, and a pin that can no longer serve is dropped.
   */
  async pinned(m: AffinityMatch, tried: ReadonlySet<number>, inputTokens: number): Promise<PinnedChoice | undefined> {
    const stored = this.store.get(m.key);
    const pin = stored instanceof Promise ? await stored.catch(() => undefined) : stored;
    if (!pin) {
      countAffinity('miss');
      return undefined;
    }
    const usable = this.usable(pin, m, tried, inputTokens);
    if (typeof usable === 'string') {
      countAffinity(usable);
      if (usable === 'dropped') this.store.delete(m.key);
      return undefined;
    }
    countAffinity('hit');
    return usable;
  }

  /** The pin as a choice, or why it cannot serve: 'kept' (disabled, kept for its return) or 'dropped'. */
  private usable(
    pin: AffinityPin,
    m: AffinityMatch,
    tried: ReadonlySet<number>,
    inputTokens: number,
  ): PinnedChoice | 'kept' | 'dropped' | 'tried' {
    const ch = this.channels.get(pin.channelId);
    if (!ch) return 'dropped';
    if (ch.status !== ChannelStatus.Enabled) return this.settings.get().keepOnChannelDisabled ? 'kept' : 'dropped';
    if (tried.has(ch.id)) return 'tried';
    if (!ch.groups.includes(m.group) || !ch.models.includes(m.model)) return 'dropped';
    if (ch.maxInputTokens > 0 && inputTokens > ch.maxInputTokens) return 'tried';
    const keyIndex = pin.keyIndex;
    if (keyIndex >= ch.keys.length || ch.keyEnabled[keyIndex] !== true) return 'dropped';
    if (this.breakers.blocked(ch) || (ch.multiKey && this.breakers.keyBlocked(ch.id, keyIndex))) return 'dropped';
    const mapped = channelModel(ch, m.model);
    if ('error' in mapped || mapped.model !== pin.model) return 'dropped';
    return { ch, keyIndex, mapped };
  }

  /**
   * The call was served on `ch`/`keyIndex`: the session is pinned there (its TTL starts again) — unless it was
   * pinned elsewhere and switch_on_success is off, which keeps the old pin.
   */
  served(m: AffinityMatch, wasPinned: boolean | undefined, pin: AffinityPin): void {
    const settings: AffinitySettings = this.settings.get();
    if (wasPinned === false && !settings.switchOnSuccess) return;
    this.store.set(m.key, pin, m.rule.ttlMs);
  }

  /**
   * The pinned channel failed a call whose rule skips retries (skip_retry_on_failure): the pin goes, so the
   * session's next call is routed afresh. (Under other rules the call moves on, and served() decides the pin.)
   */
  failed(m: AffinityMatch): void {
    this.store.delete(m.key);
  }
}
