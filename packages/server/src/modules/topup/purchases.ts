import type { Logger } from 'pino';
import type { CardMethod } from './card-methods.js';
import type { TopUpService } from './service.js';

/** What a paid delivery did: completed the order, found it completed, or closed it unfulfillable (refused). */
export type PaidResult = 'completed' | 'already' | 'refused';

/**
 * What a provider's webhook does with the order it names, whatever the order buys. A top-up credits quota; a plan
 * purchase (modules/subscriptions/plan-orders.ts) grants a plan from its own table, tried by the same webhooks with
 * the same reference (the trade number sent to the provider), so the webhooks need not change.
 */
export interface Purchase {
  /**
   * Paid: completed once (`payload`: what the provider reported, kept with the order where it has room). undefined
   * when the reference is not an order of this kind for this provider.
   */
  paid(reference: string, provider: CardMethod, payload?: string): Promise<PaidResult | undefined>;
  /** Closed unpaid (payment failed, checkout expired). undefined when not an order of this kind for this provider. */
  unpaid(reference: string, provider: CardMethod, status: 'failed' | 'expired'): Promise<boolean | undefined>;
}

/** Top-up orders (top_ups): an order of another provider is not this one's, so it is never completed here. */
export function topUpPurchase(topUps: TopUpService, log: Logger): Purchase {
  const find = async (reference: string, provider: CardMethod) => {
    const order = reference ? await topUps.store.findByTradeNo(reference) : undefined;
    if (order && order.payment_method !== provider) {
      log.warn(
        { trade_no: reference, provider, method: order.payment_method },
        'webhook names an order of another method',
      );
      return undefined;
    }
    return order;
  };
  return {
    async paid(reference, provider) {
      const order = await find(reference, provider);
      if (!order) return undefined;
      return (await topUps.complete(order)) ? 'completed' : 'already';
    },
    async unpaid(reference, provider, status) {
      const order = await find(reference, provider);
      return order ? topUps.store.closeUnpaid(order.trade_no, status) : undefined;
    },
  };
}

/** Settles a webhook's order through the first Purchase that knows it; 'unknown' when none does (ignored). */
export async function settlePaid(
  purchases: readonly Purchase[],
  reference: string,
  provider: CardMethod,
  payload?: string,
): Promise<PaidResult | 'unknown'> {
  for (const p of purchases) {
    const done = await p.paid(reference, provider, payload);
    if (done) return done;
  }
  return 'unknown';
}

export async function settleUnpaid(
  purchases: readonly Purchase[],
  reference: string,
  provider: CardMethod,
  status: 'failed' | 'expired',
): Promise<void> {
  for (const p of purchases) if ((await p.unpaid(reference, provider, status)) !== undefined) return;
}
