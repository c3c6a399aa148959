import { ChannelStatus } from '@tollway/shared';
import { channelModel, chooseKey, type CachedChannel } from '../../core/routing/channel-cache.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import { RelayError, relayErrors } from './errors.js';
import type { Hold, ReserveTarget } from '../../accounting/ledger.js';
import { resolvePrice, type ResolvedPrice } from '../billing/price.js';
import { checkRateLimits } from '../limits/request-limits.js';
import { admitCaller, settleAdmission, type RateAdmission } from '../limits/admission.js';
import type { RelayContext } from './services.js';
import { periodLimitsOf } from '../../core/period-limits/service.js';
import { admitPeriodRequest } from '../limits/period-refusal.js';
import type { PeriodTarget } from '../limits/period-ledger.js';
import { payersOf } from '../billing/payers.js';
import type { ActivePlan } from '../entry/active-plans.js';
import { nowSeconds } from '../../lib/time.js';

/** How admitModel words the refusal of a model nobody can call now. */
export type UnservedRefusal = 'as-found' | 'unserved-or-disabled';

/**
 * Stage 2 — the model: allowed for the token, priced for the group, served by a channel that takes `inputTokens`
 * (the estimated prompt; else a 400, before anything is counted); rate limits counted (`tokens` reserved under
 * TPM limits). With 'unserved-or-disabled' (chat and realtime calls), a model nobody can call now is refused as
 * unservedOrDisabled says.
 */
export async function admitModel(
  ctx: RelayContext,
  auth: TokenAuth,
  group: string,
  model: string,
  tokens = 0,
  inputTokens = 0,
  refusal: UnservedRefusal = 'as-found',
): Promise<{
  price: ResolvedPrice;
  limits: Awaited<ReturnType<typeof checkRateLimits>>;
  rate: RateAdmission | undefined;
}> {
  try {
    if (auth.modelLimits && !auth.modelLimits.has(model)) throw relayErrors.modelNotAllowed(model);
    const price = resolvePrice(ctx.options, model, group, auth.acceptUnsetRatio);
    if (!price) throw relayErrors.unpriced(model);
    const inputLimit = ctx.channelCache.inputLimit(group, model);
    if (inputLimit === undefined) throw relayErrors.noChannel(group, model);
    if (inputTokens > inputLimit) throw relayErrors.inputTooLarge(inputTokens, model, inputLimit);
    const checked = checkRateLimits(ctx.counters, ctx.options, auth, group, ctx.log);
    const limits = Array.isArray(checked) ? checked : await checked;
    const counting = admitCaller(ctx, auth, group, tokens);
    const rate = counting && (await counting);
    if (auth.periods)
      await admitPeriodRequest(periodLimitsOf(ctx), auth.periods).catch((err: unknown) => {
        settleAdmission(ctx, rate, 0);
        throw err;
      });
    return { price, limits, rate };
  } catch (err) {
    throw refusal === 'unserved-or-disabled' ? unservedOrDisabled(ctx, err, group, model) : err;
  }
}

/**
 * Which refusal a model nobody can call now gets: not served in the group at all → 404 model_not_found (also for
 * an unpriced name no channel has: most likely a typo); served only by disabled channels → 503, worth a later
 * retry (unless it is unpriced: re-enabling would not help); served but unpriced → the price error as it is.
 */
export function unservedOrDisabled(ctx: RelayContext, err: unknown, group: string, model: string): unknown {
  if (!(err instanceof RelayError)) return err;
  const unpriced = err.code === 'model_price_not_set';
  if (!unpriced && err.code !== 'model_not_found') return err;
  if (unpriced && ctx.channelCache.hasModel(group, model)) return err;
  const disabled = ctx.channelCache
    .all()
    .some((ch) => ch.status !== ChannelStatus.Enabled && ch.groups.includes(group) && ch.models.includes(model));
  if (unpriced) return disabled ? err : relayErrors.noChannel(group, model);
  return disabled ? relayErrors.channelsUnavailable(group, model) : err;
}

/**
 * Stage 3 — reserve: up to `amount` (at least `minimum`, default all of it) held from the payer (a subscription
 * plan or the wallet, relay/billing/payers.ts) and (for a limited token) the token, or the quota error.
 */
export async function reserveQuota(
  ctx: RelayContext,
  auth: TokenAuth,
  amount: number,
  minimum = amount,
): Promise<{ target: ReserveTarget; hold: Hold; plan?: ActivePlan }> {
  // The period limits ride on the target: every hold of the call counts under them (limits/period-ledger.ts).
  const base: PeriodTarget = { userId: auth.userId, tokenId: auth.unlimited ? undefined : auth.tokenId };
  if (auth.periods) base.periods = auth.periods;
  // The user's plans and wallet in the order the billing preference says; the first with room holds it all, and
  // the call's later holds and its charge stay on that payer (the target carries it).
  const payers = payersOf(auth, nowSeconds());
  for (const plan of payers) {
    const target: PeriodTarget = plan ? { ...base, planId: plan.id } : base;
    const hold = await ctx.relay.ledger.reserve(target, amount, minimum);
    if (hold === 'token') throw relayErrors.tokenExhausted();
    if (hold !== 'user') return plan ? { target, hold, plan } : { target, hold };
  }
  if (auth.billing === 'subscription_only') throw relayErrors.subscriptionQuota(payers.length > 0);
  throw relayErrors.userQuota();
}

/** A channel chosen for one attempt: its key (undefined: none usable) and the model, mapped and as sent upstream. */
export interface ChannelChoice {
  ch: CachedChannel;
  keyIndex: number | undefined;
  mapped: ReturnType<typeof channelModel>;
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
): ChannelChoice | undefined {
  const ch = ctx.channelCache.select(group, model, tried, attempt, inputTokens);
  if (!ch) return undefined;
  tried.add(ch.id);
  return { ch, keyIndex: chooseKey(ch, Math.random, ctx.breakers), mapped: channelModel(ch, model) };
}
