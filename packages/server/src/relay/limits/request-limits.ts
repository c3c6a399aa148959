import { slidingHit, slidingRead, type WindowCounters } from '../../lib/window-counters.js';
import type { OptionsService } from '../../core/options/service.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import { relayErrors, type RelayError } from '../pipeline/errors.js';
import type { InboundCall } from '../pipeline/types.js';
import { MAX_TOKEN_LIMIT } from '../entry/validate.js';
import { passDuringOutage } from './outage.js';

type Log = { warn(obj: object, msg: string): void };

/** Tokens a TPM limit reserves for the answer of a call that sets no max_tokens (settled to the real count). */
export const UNBOUNDED_COMPLETION_ESTIMATE = 1024;

/** The tokens a call reserves under TPM limits: the prompt estimate (estimatePromptTokens) plus max_tokens (or the default). */
export function tokensEstimate(call: InboundCall, promptTokens: number): number {
  const limit =
    call.maxTokens > 0 ? Math.min(Math.floor(call.maxTokens), MAX_TOKEN_LIMIT) : UNBOUNDED_COMPLETION_ESTIMATE;
  return promptTokens + limit;
}

/** A request limit: at most `total` calls and `success` successful ones (0: no such limit) per sliding window. */
export interface RequestLimit {
  key: string;
  windowSeconds: number;
  total: number;
  success: number;
}

/** The limits that apply to a call: the model request limit per user (unless exempt) and the token's own. */
function limitsFor(o: OptionsService, auth: TokenAuth, group: string): RequestLimit[] {
  const out: RequestLimit[] = [];
  if (o.bool('ModelRequestRateLimitEnabled')) {
    const exempt = o.bool('global.rate_limit_exempt_enabled') && group === o.get('global.rate_limit_exempt_group');
    const minutes = o.num('ModelRequestRateLimitDurationMinutes');
    if (!exempt && minutes > 0)
      out.push({
        key: `mrl:${auth.userId}`,
        windowSeconds: minutes * 60,
        total: o.num('ModelRequestRateLimitCount'),
        success: o.num('ModelRequestRateLimitSuccessCount'),
      });
  }
  if (auth.rateLimit)
    out.push({
      key: `trl:${auth.tokenId}`,
      windowSeconds: auth.rateLimit.periodSeconds,
      total: auth.rateLimit.count,
      success: auth.rateLimit.success,
    });
  return out;
}

/**
 * Counts the call against every applicable window and refuses with 429 when the total count (all calls) or
 * the successful count of the window is used up. Returns what to count on success.
 */
export function checkRateLimits(
  counters: WindowCounters,
  o: OptionsService,
  auth: TokenAuth,
  group: string,
  log: Log,
): RequestLimit[] | Promise<RequestLimit[]> {
  const limits = limitsFor(o, auth, group);
  // No window applies (the usual call): the answer at once, no promise to wait a turn for.
  return limits.length === 0 ? limits : admitWithin(counters, limits, Date.now(), log);
}

/**
 * Counts a call made at `now` against each limit's sliding window (slidingCount: the current fixed window's count
 * plus the previous one's, weighted by the share still inside) and refuses with 429 once either count would pass
 * its limit. Fixed windows let a caller spend two windows' allowance in an instant across a boundary; new-api's
 * limiter (a log of timestamps) does not, and neither does this. A refused call counts towards the total. When the
 * counters (Redis) cannot be reached the call passes, as under every other limit (outage.ts).
 */
export async function admitWithin(
  counters: WindowCounters,
  limits: RequestLimit[],
  now: number,
  log: Log,
): Promise<RequestLimit[]> {
  let refusal: RelayError | undefined;
  try {
    refusal = await overLimit(counters, limits, now);
  } catch (err) {
    passDuringOutage(log, err, now, 'request limits: the counters cannot be reached; calls pass unlimited meanwhile');
    return limits;
  }
  if (refusal) throw refusal;
  return limits;
}

/** The refusal of the first limit the call would pass, if any (the call counted in each total on the way). */
async function overLimit(
  counters: WindowCounters,
  limits: RequestLimit[],
  now: number,
): Promise<RelayError | undefined> {
  for (const l of limits) {
    if (l.total > 0 && (await slidingHit(counters, `${l.key}:t`, l.windowSeconds, now)) > l.total)
      return relayErrors.rateLimited(`at most ${l.total} requests per ${l.windowSeconds / 60} minute(s)`);
    // The call, should it succeed, must not take the successful count past its limit.
    if (l.success > 0 && (await slidingRead(counters, `${l.key}:s`, l.windowSeconds, now)) + 1 > l.success)
      return relayErrors.rateLimited(`at most ${l.success} successful requests per ${l.windowSeconds / 60} minute(s)`);
  }
  return undefined;
}

/** Counts a successful call in its windows (fire and forget). */
export function countSuccess(counters: WindowCounters, limits: RequestLimit[], now = Date.now()): void {
  for (const l of limits)
    if (l.success > 0) void Promise.resolve(counters.incr(`${l.key}:s`, l.windowSeconds, now)).catch(() => undefined);
}
