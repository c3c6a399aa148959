import type { OutgoingHttpHeaders } from 'node:http';
import type { CachedChannel } from '../../core/routing/channel-cache.js';
import type { OptionsService } from '../../core/options/service.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import { RelayError } from '../pipeline/errors.js';
import { MemoryLimitStore } from './memory-store.js';
import { passDuringOutage } from './outage.js';
import { RedisLimitStore } from './redis-store.js';
import { countRefusal } from './refusals.js';
import type { LimitBucket, LimitCheck, LimitStore } from './types.js';
import { minuteWindow, remaining, secondsToReset } from './window.js';
import type { Redis } from 'ioredis';

/** What the limits need of the application: its options, Redis when clustered, a log for Redis errors. */
export interface LimitsContext {
  options: OptionsService;
  redis: Redis | undefined;
  config: { redisKeyPrefix: string };
  log: { warn(obj: object, msg: string): void };
}

/** A call (or a channel attempt) counted in its buckets: what to settle or give back at the end. */
export interface RateAdmission {
  buckets: LimitBucket[];
  window: number;
  /** Tokens reserved at admission. */
  tokens: number;
  headers: OutgoingHttpHeaders;
}

/** Group → its limits per minute (the GroupRateLimits option). */
type GroupLimits = Record<string, { rpm?: number; tpm?: number }>;

const stores = new WeakMap<object, LimitStore>();

/** One store per application: Redis when configured, else this node's memory. */
export function rateLimitStore(ctx: LimitsContext): LimitStore {
  let s = stores.get(ctx.options);
  if (!s) {
    const redis = ctx.redis;
    s = redis
      ? new RedisLimitStore(redis, ctx.config.redisKeyPrefix, (err) =>
          ctx.log.warn({ err }, 'rate limits: adjusting a Redis counter failed'),
        )
      : new MemoryLimitStore();
    stores.set(ctx.options, s);
  }
  return s;
}

/** The caller's buckets (token, user, group) that set a limit; empty when none does. */
export function callerBuckets(o: OptionsService, auth: TokenAuth, group: string): LimitBucket[] {
  const out: LimitBucket[] = [];
  const m = auth.perMinute;
  if (m.tokenRpm > 0 || m.tokenTpm > 0)
    out.push({ level: 'token', id: String(auth.tokenId), rpm: m.tokenRpm, tpm: m.tokenTpm });
  if (m.userRpm > 0 || m.userTpm > 0)
    out.push({ level: 'user', id: String(auth.userId), rpm: m.userRpm, tpm: m.userTpm });
  const g = o.json<GroupLimits>('GroupRateLimits')[group];
  if (g && ((g.rpm ?? 0) > 0 || (g.tpm ?? 0) > 0))
    out.push({ level: 'group', id: group, rpm: g.rpm ?? 0, tpm: g.tpm ?? 0 });
  return out;
}

/** A channel's own limits (setting.rpm_limit / setting.tpm_limit), protecting the upstream account's. */
export function channelBucket(ch: CachedChannel): LimitBucket | undefined {
  const rpm = Number(ch.setting.rpm_limit ?? 0) || 0;
  const tpm = Number(ch.setting.tpm_limit ?? 0) || 0;
  return rpm > 0 || tpm > 0 ? { level: 'channel', id: String(ch.id), rpm, tpm } : undefined;
}

/**
 * The x-ratelimit-* headers of the tightest bucket for requests and for tokens (those whose limit is set), and
 * `retry-after` on a refusal.
 */
export function rateHeaders(buckets: LimitBucket[], c: LimitCheck, now: number): OutgoingHttpHeaders {
  const reset = `${secondsToReset(minuteWindow(now), now)}s`;
  const h: OutgoingHttpHeaders = {};
  let req: [number, number] | undefined;
  let tok: [number, number] | undefined;
  buckets.forEach((b, i) => {
    const used = c.used[i]!;
    if (b.rpm > 0 && (!req || remaining(b.rpm, used.requests) < req[1])) req = [b.rpm, remaining(b.rpm, used.requests)];
    if (b.tpm > 0 && (!tok || remaining(b.tpm, used.tokens) < tok[1])) tok = [b.tpm, remaining(b.tpm, used.tokens)];
  });
  if (req)
    Object.assign(h, {
      'x-ratelimit-limit-requests': String(req[0]),
      'x-ratelimit-remaining-requests': String(req[1]),
      'x-ratelimit-reset-requests': reset,
    });
  if (tok)
    Object.assign(h, {
      'x-ratelimit-limit-tokens': String(tok[0]),
      'x-ratelimit-remaining-tokens': String(tok[1]),
      'x-ratelimit-reset-tokens': reset,
    });
  if (c.refused) h['retry-after'] = String(secondsToReset(minuteWindow(now), now));
  return h;
}

/** The 429 of a refused call, with its headers. */
export function rateRefusal(
  b: LimitBucket,
  kind: 'requests' | 'tokens',
  tokens: number,
  headers: OutgoingHttpHeaders,
): RelayError {
  const limit = kind === 'requests' ? `${b.rpm} requests per minute` : `${b.tpm} tokens per minute`;
  const message =
    kind === 'tokens' && tokens > b.tpm
      ? `request too large: it needs about ${tokens} tokens, more than the ${b.level} limit of ${limit}`
      : `too many requests: the ${b.level} limit of ${limit} is reached; retry later`;
  const e = new RelayError(429, message, 'rate_limit_error', 'rate_limited');
  e.headers = headers;
  return e;
}

/** The counts of a check, or undefined when the store failed (warned). */
async function checked(
  ctx: LimitsContext,
  buckets: LimitBucket[],
  tokens: number,
  now: number,
): Promise<LimitCheck | undefined> {
  try {
    return await rateLimitStore(ctx).check(buckets, tokens, now);
  } catch (err) {
    passDuringOutage(ctx.log, err, now, 'rate limits: the counters cannot be reached; calls pass unlimited meanwhile');
    return undefined;
  }
}

/**
 * Counts a call against its token, user and group limits (one store call; none, and no promise, when no limit
 * is set): the admission to settle, undefined when nothing limits the call, or the 429 thrown.
 */
export function admitCaller(
  ctx: LimitsContext,
  auth: TokenAuth,
  group: string,
  tokens: number,
  now = Date.now(),
): Promise<RateAdmission | undefined> | undefined {
  const buckets = callerBuckets(ctx.options, auth, group);
  return buckets.length ? countCaller(ctx, buckets, tokens, now) : undefined;
}

async function countCaller(
  ctx: LimitsContext,
  buckets: LimitBucket[],
  tokens: number,
  now: number,
): Promise<RateAdmission | undefined> {
  const c = await checked(ctx, buckets, tokens, now);
  if (!c) return undefined;
  const headers = rateHeaders(buckets, c, now);
  if (c.refused) {
    const b = buckets[c.refused.index]!;
    countRefusal(b.level, c.refused.kind);
    throw rateRefusal(b, c.refused.kind, tokens, headers);
  }
  return { buckets, window: c.window, tokens, headers };
}

/**
 * Counts an attempt against its channel's limits: the admission, undefined (and no promise) when the channel
 * sets none, or the refusal (the caller skips the channel). The channel's counts are the operator's: a refusal
 * tells the caller only when to retry.
 */
export function admitChannel(
  ctx: LimitsContext,
  ch: CachedChannel,
  tokens: number,
  now = Date.now(),
): Promise<RateAdmission | RelayError | undefined> | undefined {
  const b = channelBucket(ch);
  return b ? countChannel(ctx, b, tokens, now) : undefined;
}

async function countChannel(
  ctx: LimitsContext,
  b: LimitBucket,
  tokens: number,
  now: number,
): Promise<RateAdmission | RelayError | undefined> {
  const c = await checked(ctx, [b], tokens, now);
  if (!c) return undefined;
  if (c.refused) {
    countRefusal('channel', c.refused.kind);
    return rateRefusal(b, c.refused.kind, tokens, { 'retry-after': String(secondsToReset(minuteWindow(now), now)) });
  }
  return { buckets: [b], window: c.window, tokens, headers: {} };
}

/** Settles a reservation to the tokens actually used (0 gives it all back). */
export function settleAdmission(ctx: LimitsContext, a: RateAdmission | undefined, usedTokens: number): void {
  if (!a || usedTokens === a.tokens) return;
  rateLimitStore(ctx).adjust(a.buckets, a.window, usedTokens - a.tokens);
}
