import type { Redis } from 'ioredis';
import { BoundedMap } from '../../lib/bounded-map.js';

/** What one session (rule × group × key fingerprint) used over its window: new-api's usage cache statistics. */
export interface AffinityUsageStats {
  rule_name: string;
  using_group: string;
  key_fp: string;
  /** How cached tokens relate to prompt tokens in the counts: OpenAI's (inside) or Anthropic's (beside), or mixed. */
  cached_token_rate_mode: string;
  hit: number;
  total: number;
  window_seconds: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  prompt_cache_hit_tokens: number;
  last_seen_at: number;
}

/** A served call of a session, as the statistics count it. */
export interface AffinityUsageCall {
  rule: string;
  group: string;
  fingerprint: string;
  windowMs: number;
  /** 'cached_over_prompt' (OpenAI: cache reads inside the prompt) or 'cached_over_prompt_plus_cached' (Anthropic). */
  mode: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
}

type Counters = Omit<AffinityUsageStats, 'rule_name' | 'using_group' | 'key_fp'>;

const MIXED = 'mixed';
const MS = 1000;
const NUMBER_FIELDS = [
  'hit',
  'total',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cached_tokens',
  'prompt_cache_hit_tokens',
] as const;

const entryKey = (rule: string, group: string, fp: string): string => `${rule}\n${group}\n${fp}`;

const empty = (): Counters => ({
  cached_token_rate_mode: '',
  hit: 0,
  total: 0,
  window_seconds: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
  total_tokens: 0,
  cached_tokens: 0,
  prompt_cache_hit_tokens: 0,
  last_seen_at: 0,
});

/** Per-session usage counters, each kept for its rule's TTL from the session's last call; Redis hashes in a cluster. */
export class AffinityUsage {
  private map: BoundedMap<string, Counters> | undefined;

  constructor(
    /** channel_affinity_setting.max_entries: the sessions one node counts (a change empties the map). */
    private readonly maxEntries: () => number,
    private readonly redis?: { client: Redis; keyPrefix: string },
  ) {}

  /** This node's counters (without Redis). */
  get memory(): BoundedMap<string, Counters> {
    const cap = this.maxEntries();
    if (this.map?.capacity !== cap) this.map = new BoundedMap({ maxEntries: cap });
    return this.map;
  }

  private redisKey(key: string): string {
    return `${this.redis!.keyPrefix}affinity-usage:${Buffer.from(key).toString('base64url')}`;
  }

  observe(c: AffinityUsageCall): void {
    const key = entryKey(c.rule, c.group, c.fingerprint);
    const hit = c.cachedTokens > 0 ? 1 : 0;
    const now = Math.floor(Date.now() / MS);
    if (this.redis) {
      const k = this.redisKey(key);
      this.redis.client
        .multi()
        .hincrby(k, 'hit', hit)
        .hincrby(k, 'total', 1)
        .hincrby(k, 'prompt_tokens', c.promptTokens)
        .hincrby(k, 'completion_tokens', c.completionTokens)
        .hincrby(k, 'total_tokens', c.promptTokens + c.completionTokens)
        .hincrby(k, 'cached_tokens', c.cachedTokens)
        .hset(k, 'last_seen_at', now, 'window_seconds', Math.round(c.windowMs / MS), `mode:${c.mode}`, 1)
        .pexpire(k, c.windowMs)
        .exec()
        .catch(() => undefined);
      return;
    }
    const s = this.memory.get(key) ?? empty();
    s.cached_token_rate_mode = s.cached_token_rate_mode === '' || s.cached_token_rate_mode === c.mode ? c.mode : MIXED;
    s.hit += hit;
    s.total++;
    s.prompt_tokens += c.promptTokens;
    s.completion_tokens += c.completionTokens;
    s.total_tokens += c.promptTokens + c.completionTokens;
    s.cached_tokens += c.cachedTokens;
    s.window_seconds = Math.round(c.windowMs / MS);
    s.last_seen_at = now;
    this.memory.set(key, s, c.windowMs);
  }

  async stats(rule: string, group: string, fingerprint: string): Promise<AffinityUsageStats> {
    const key = entryKey(rule, group, fingerprint);
    const head = { rule_name: rule, using_group: group, key_fp: fingerprint };
    if (!this.redis) return { ...head, ...(this.memory.get(key) ?? empty()) };
    const hash = await this.redis.client.hgetall(this.redisKey(key));
    const s = empty();
    for (const f of NUMBER_FIELDS) s[f] = Number(hash[f] ?? 0);
    s.window_seconds = Number(hash.window_seconds ?? 0);
    s.last_seen_at = Number(hash.last_seen_at ?? 0);
    const modes = Object.keys(hash)
      .filter((f) => f.startsWith('mode:'))
      .map((f) => f.slice('mode:'.length));
    s.cached_token_rate_mode = modes.length > 1 ? MIXED : (modes[0] ?? '');
    return { ...head, ...s };
  }
}
