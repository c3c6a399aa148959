import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

/** The process's Prometheus metrics; modules define theirs on it and GET /metrics serves it. */
export const metrics = new Registry();

/** Prometheus text of every metric. */
export function metricsText(): Promise<string> {
  return metrics.metrics();
}

export const METRICS_CONTENT_TYPE = metrics.contentType;

let processMetrics = false;

/** Adds the process metrics (CPU, memory, event loop lag, GC, handles) once per process. */
export function collectProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: metrics });
}

/**
 * A label value from an open set, bounded: the first `cap` distinct values are kept, later ones read `other`,
 * so a caller cannot grow the series without end.
 */
export class BoundedLabel {
  private readonly seen = new Set<string>();

  constructor(private readonly cap: number) {}

  of(value: string): string {
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.cap) return 'other';
    this.seen.add(value);
    return value;
  }
}

const rateLimitRefusals = new Counter({
  name: 'tollway_rate_limit_refusals_total',
  help: 'Calls refused by a rate limit, by the level whose limit refused them (token, user, group, channel, ip, ...)',
  labelNames: ['level', 'kind'] as const,
  registers: [metrics],
});

/** Counts one refusal by a rate limit at `level` (token, user, group, channel, ip); `kind` rpm, tpm or another window. */
export function countRateLimitRefusal(level: string, kind = 'rpm'): void {
  rateLimitRefusals.labels(level, kind).inc();
}

const concurrencyRefusals = new Counter({
  name: 'tollway_concurrency_refusals_total',
  help: 'Calls refused because the token or user had as many calls in flight as its concurrency limit allows',
  labelNames: ['level'] as const,
  registers: [metrics],
});

/** Counts one call refused by the concurrency limit of `level` (token or user). */
export function countConcurrencyRefusal(level: 'token' | 'user'): void {
  concurrencyRefusals.labels(level).inc();
}

const modelFallbacks = new Counter({
  name: 'tollway_model_fallbacks_total',
  help: "Calls moved to a fallback model after their model's channels were exhausted, by reason (5xx, 429, timeout, context_length)",
  labelNames: ['reason'] as const,
  registers: [metrics],
});

/** Counts one move of a call to its next fallback model, for `reason`. */
export function countModelFallback(reason: string): void {
  modelFallbacks.labels(reason).inc();
}

/** A channel's circuit breaker state as the gauge encodes it. */
export const CHANNEL_HEALTH_VALUE = { closed: 0, half_open: 1, open: 2 } as const;
export type ChannelHealthState = keyof typeof CHANNEL_HEALTH_VALUE;

const channelHealth = new Gauge({
  name: 'tollway_channel_health_state',
  help: 'Circuit breaker state per channel: 0 closed (healthy), 1 half-open (probing), 2 open (cooling down)',
  labelNames: ['channel'] as const,
  registers: [metrics],
});

/** Sets a channel's breaker state on the health gauge (the breakers call it on every change). */
export function setChannelHealth(channelId: number, state: ChannelHealthState): void {
  channelHealth.labels(String(channelId)).set(CHANNEL_HEALTH_VALUE[state]);
}

/** Drops a deleted channel's health series. */
export function clearChannelHealth(channelId: number): void {
  channelHealth.remove(String(channelId));
}

const storageErrors = new Counter({
  name: 'tollway_storage_errors_total',
  help: 'Errors talking to the database or Redis, by store and operation',
  labelNames: ['store', 'op'] as const,
  registers: [metrics],
});

/** Counts one database or Redis error (`op`: what was being done: writer batch, readiness ping, connection). */
export function countStorageError(store: 'database' | 'redis', op: string): void {
  storageErrors.labels(store, op).inc();
}

const responseCacheEvents = new Counter({
  name: 'tollway_response_cache_total',
  help: 'Response cache lookups and writes: hit (answered from the cache), miss (looked up, not found), store, evict',
  labelNames: ['event'] as const,
  registers: [metrics],
});

/** What the response cache did (relay/cache): a hit, a miss, an answer stored or evicted. */
export type ResponseCacheEvent = 'hit' | 'miss' | 'store' | 'evict';

/** Each event's series, looked up once (a miss is counted on the relay's hot path). */
const responseCacheSeries = {
  hit: responseCacheEvents.labels('hit'),
  miss: responseCacheEvents.labels('miss'),
  store: responseCacheEvents.labels('store'),
  evict: responseCacheEvents.labels('evict'),
} satisfies Record<ResponseCacheEvent, unknown>;

/** Counts one response cache event. */
export function countResponseCache(event: ResponseCacheEvent, n = 1): void {
  responseCacheSeries[event].inc(n);
}
