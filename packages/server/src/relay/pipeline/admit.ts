import { channelModel, chooseKey, type CachedChannel } from '../../core/routing/channel-cache.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import { relayErrors } from './errors.js';
import type { Hold, ReserveTarget } from '../../accounting/ledger.js';
import { resolvePrice, type ResolvedPrice } from '../billing/price.js';
import { checkRateLimits } from '../limits/request-limits.js';
import { admitCaller, type RateAdmission } from '../limits/admission.js';
import type { RelayContext } from './services.js';

/**
 * Stage 2 — the model: allowed for the token, priced for the group, served by a channel that takes `inputTokens`
 * (the estimated prompt; else a 400, before anything is counted); rate limits counted (`tokens` reserved under
 * TPM limits).
 */
export async function admitModel(
  ctx: RelayContext,
  auth: TokenAuth,
  group: string,
  model: string,
  tokens = 0,
  inputTokens = 0,
): Promise<{
  price: ResolvedPrice;
  limits: Awaited<ReturnType<typeof checkRateLimits>>;
  rate: RateAdmission | undefined;
}> {
  if (auth.modelLimits && !auth.modelLimits.has(model)) throw relayErrors.modelNotAllowed(model);
  const price = resolvePrice(ctx.options, model, group, auth.acceptUnsetRatio);
  if (!price) throw relayErrors.unpriced(model);
  const inputLimit = ctx.channelCache.inputLimit(group, model);
  if (inputLimit === undefined) throw relayErrors.noChannel(group, model);
  if (inputTokens > inputLimit) throw relayErrors.inputTooLarge(inputTokens, model, inputLimit);
  const limits = await checkRateLimits(ctx.counters, ctx.options, auth, group);
  const counting = admitCaller(ctx, auth, group, tokens);
  const rate = counting && (await counting);
  return { price, limits, rate };
}

/**
 * Stage 3 — reserve: up to `amount` (at least `minimum`, default all of it) held from the user and (for a limited
 * token) the token, or the quota error.
 */
export async function reserveQuota(
  ctx: RelayContext,
  auth: TokenAuth,
  amount: number,
  minimum = amount,
): Promise<{ target: ReserveTarget; hold: Hold }> {
  const target = { userId: auth.userId, tokenId: auth.unlimited ? undefined : auth.tokenId };
  const hold = await ctx.relay.ledger.reserve(target, amount, minimum);
  if (hold === 'user') throw relayErrors.userQuota();
  if (hold === 'token') throw relayErrors.tokenExhausted();
  return { target, hold };
}

/**
 * Stage 4's choice — the next channel not tried yet (recorded as tried) that takes `inputTokens`, its key index and
 * the model: mapped (for billing and logs) and as sent upstream (prefixed).
 */
export function nextChannel(
  ctx: RelayContext,
  group: string,
  model: string,
  tried: Set<number>,
  attempt: number,
  inputTokens = 0,
): { ch: CachedChannel; keyIndex: number | undefined; mapped: ReturnType<typeof channelModel> } | undefined {
  const ch = ctx.channelCache.select(group, model, tried, attempt, inputTokens);
  if (!ch) return undefined;
  tried.add(ch.id);
  return { ch, keyIndex: chooseKey(ch, Math.random, ctx.breakers), mapped: channelModel(ch, model) };
}
