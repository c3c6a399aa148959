import type { ServerResponse } from 'node:http';
import type { TokenAuth } from '../entry/auth-cache.js';
import { countConcurrencyRefusal } from '../../lib/metrics.js';
import { relayErrors } from '../pipeline/errors.js';
import type { LimitsContext } from './admission.js';
import { passDuringOutage } from './outage.js';
import {
  MemoryConcurrencyStore,
  RedisConcurrencyStore,
  type ConcurrencyLease,
  type ConcurrencySlot,
  type ConcurrencyStore,
} from './concurrency-store.js';

/**
 * Calls in flight per token (its own concurrency_limit, else TokenConcurrencyLimit) and per user
 * (UserConcurrencyLimit); 0: none. A call over either is refused with a 429 before anything is held or sent, never
 * queued. The place is taken when the call is admitted and given back when its response closes: answered, failed,
 * refused later on, or the client gone.
 */
export interface ConcurrencyLimits {
  token: number;
  user: number;
}

/** A refused call's retry-after: places free up as calls end, so a second is a fair wait. */
const RETRY_AFTER_SECONDS = '1';

const stores = new WeakMap<object, ConcurrencyStore>();

/** One store per application: Redis leases when configured, else this node's counts. */
export function concurrencyStore(ctx: LimitsContext): ConcurrencyStore {
  let s = stores.get(ctx.options);
  if (!s) {
    s = ctx.redis
      ? new RedisConcurrencyStore(ctx.redis, ctx.config.redisKeyPrefix, (err) =>
          ctx.log.warn({ err }, 'concurrency limits: a Redis lease command failed'),
        )
      : new MemoryConcurrencyStore();
    stores.set(ctx.options, s);
  }
  return s;
}

/** The slots that limit a caller; undefined when no limit is set (the common case: no allocation). */
function slotsOf(limits: ConcurrencyLimits, auth: TokenAuth): ConcurrencySlot[] | undefined {
  // A token's own limit wins over the option's.
  const token = auth.concurrencyLimit > 0 ? auth.concurrencyLimit : limits.token;
  if (token <= 0 && limits.user <= 0) return undefined;
  const slots: ConcurrencySlot[] = [];
  if (token > 0) slots.push({ level: 'token', id: String(auth.tokenId), limit: token });
  if (limits.user > 0) slots.push({ level: 'user', id: String(auth.userId), limit: limits.user });
  return slots;
}

/**
 * Takes the call's place under its token's and user's concurrency limits, released when `res` closes; undefined
 * (no promise) when no limit is set. Throws the 429 when a limit is reached.
 */
export function enterCall(
  ctx: LimitsContext,
  limits: ConcurrencyLimits,
  auth: TokenAuth,
  res: ServerResponse,
): Promise<void> | undefined {
  const slots = slotsOf(limits, auth);
  return slots && takePlace(ctx, slots, res);
}

async function takePlace(ctx: LimitsContext, slots: ConcurrencySlot[], res: ServerResponse): Promise<void> {
  const store = concurrencyStore(ctx);
  let taken: ConcurrencyLease | number;
  try {
    taken = await store.acquire(slots);
  } catch (err) {
    passDuringOutage(
      ctx.log,
      err,
      Date.now(),
      'concurrency limits: Redis cannot be reached; calls pass unlimited meanwhile',
    );
    return;
  }
  if (typeof taken === 'number') {
    const full = slots[taken]!;
    countConcurrencyRefusal(full.level);
    const e = relayErrors.concurrencyLimited(full.level, full.limit);
    e.headers = { 'retry-after': RETRY_AFTER_SECONDS };
    throw e;
  }
  const lease = taken;
  // The client may have gone while the place was taken: its close is past, so the place goes back now.
  if (res.closed) store.release(lease);
  else res.once('close', () => store.release(lease));
}
