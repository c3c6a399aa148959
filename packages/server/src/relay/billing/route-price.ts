import { computeQuota, type Usage } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import type { OptionsService } from '../../core/options/service.js';
import { exportChannelLoadMetrics } from '../../core/routing/load-metrics.js';
import { RoutingStrategies, type ReferencePrice } from '../../core/routing/strategies.js';
import { resolvePrice } from './price.js';

/**
 * The call lowest_price prices each channel's model at: 1,000 prompt and 250 completion tokens (a chat turn), so
 * per-token prices (ratios, expressions) and per-call prices compare on one scale.
 */
export const REFERENCE_USAGE: Usage = { promptTokens: 1000, completionTokens: 250 };

/** The pricing engine's quota for REFERENCE_USAGE on a model at group ratio 1; undefined when it has no price. */
export function referencePrice(o: OptionsService): ReferencePrice {
  return (model) => {
    const resolved = resolvePrice(o, model, '', false);
    if (!resolved) return undefined;
    try {
      return computeQuota({ ...resolved.price, groupRatio: 1 }, REFERENCE_USAGE, o.num('QuotaPerUnit'));
    } catch {
      // An expression that fails without a request's facts: no comparable price.
      return undefined;
    }
  };
}

/** Channel choice inside a priority tier follows the RoutingStrategy option; the per-channel load is in /metrics. */
export function routeByStrategies(ctx: Pick<AppContext, 'channelCache' | 'options'>): void {
  ctx.channelCache.routeBy(new RoutingStrategies(ctx.options, referencePrice(ctx.options)));
  exportChannelLoadMetrics(ctx.channelCache.load);
}
