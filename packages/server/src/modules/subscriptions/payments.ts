import crypto from 'node:crypto';
import { ErrorCode, PAYMENT_METHODS, PLAN_PRICE_SCALE, type PaymentMethod } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../core/auth-user.js';
import { ApiError, coded } from '../../lib/errors.js';
import { randomString } from '../../lib/secrets.js';
import { configuredServerAddress } from '../../lib/server-address.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { CREEM_METHOD, STRIPE_METHOD } from '../topup/card-methods.js';
import { CREEM_LIVE_API, CREEM_TEST_API, createCreemCheckout } from '../topup/creem.js';
import { EPAY_TRADE_SUCCESS, epayPurchase, sameCents, type EpayParams } from '../topup/epay.js';
import { topUpsOf, type TopUpService } from '../topup/service.js';
import { createStripeCheckout, STRIPE_SECRET_PREFIXES } from '../topup/stripe.js';
import { holdingsOf, type HoldingsService } from './holdings.js';
import { EPAY_PROVIDER, planOrdersOf, type PlanOrders, type PlanProvider } from './plan-orders.js';
import type { PlanRow } from './store.js';

export const PLAN_PAY_MSG = {
  stripeOff: 'the administrator has not set up Stripe (an sk_ or rk_ API secret and the webhook secret)',
  creemOff: 'the administrator has not set up Creem (the API key and the webhook secret)',
  epayOff: 'the administrator has not set up Epay (PayAddress, EpayId, EpayKey)',
  noStripePrice: 'this plan cannot be paid with Stripe: it has no Stripe price (stripe_price_id)',
  noCreemProduct: 'this plan cannot be paid with Creem: it has no Creem product (creem_product_id)',
  priceTooLow: 'the price of this plan is too low to pay online',
  unknownMethod: 'this payment method does not exist',
  noAddress: 'the administrator has not set the server address, so plans cannot be paid online',
} as const;

/** Where Epay notifies a paid plan order and sends the buyer back (new-api's routes). */
export const PLAN_EPAY_NOTIFY_PATH = '/api/subscription/epay/notify';
export const PLAN_EPAY_RETURN_PATH = '/api/subscription/epay/return';
/** The console's wallet, where every payment page returns. */
export const WALLET_PATH = '/app/wallet';
const CENTS_PER_UNIT = 100;
const MICROS_PER_CENT = PLAN_PRICE_SCALE / CENTS_PER_UNIT;

/**
 * What an Epay callback (notify or return) came to: paid and settled, paid but the plan could not be granted (the
 * order closed failed), a status other than paid, or refused (not ours, unknown order, other money).
 */
export type EpayOutcome = 'paid' | 'unfulfilled' | 'unpaid' | 'refused';

export type PlanPaymentDeps = Pick<AppContext, 'db' | 'options' | 'config' | 'users' | 'log'>;

/** A plan's price in cents, rounded half up (the Epay form carries two decimals). */
const priceCents = (plan: PlanRow) => Math.round(Number(plan.price_micros) / MICROS_PER_CENT);
const asMoney = (cents: number) =>
  `${Math.floor(cents / CENTS_PER_UNIT)}.${String(cents % CENTS_PER_UNIT).padStart(2, '0')}`;

/** new-api's card reference of a plan order: sub_ref_ and the SHA-1 of the user, the time and a random part. */
function planReference(provider: string, userId: number): string {
  const seed = `sub-${provider}-ref-${userId}-${Date.now()}-${randomString(8)}`;
  return `sub_ref_${crypto.createHash('sha1').update(seed).digest('hex')}`;
}

/**
 * Buying a plan through a payment provider (new-api's /api/subscription/{stripe,creem,epay}/pay): a pending
 * subscription_orders row, then the provider's checkout. The provider's callback completes it through PlanOrders
 * (the card webhooks of modules/topup, or the Epay notify here), which grants the plan once.
 */
export class PlanPaymentService {
  constructor(
    private readonly deps: PlanPaymentDeps,
    private readonly holdings: HoldingsService,
    private readonly orders: PlanOrders,
    private readonly topUps: TopUpService,
  ) {}

  private get o() {
    return this.deps.options;
  }

  private get store() {
    return this.holdings.store;
  }

  /** The plan if it is on sale and the user may buy it once more (the cap is checked again when it is granted). */
  private async onSale(userId: number, planId: number): Promise<PlanRow> {
    const plan = await this.holdings.planOnSale(planId);
    await this.holdings.assertUnderCap(this.deps.db.kysely, userId, plan);
    return plan;
  }

  private walletUrl(): string {
    const address = configuredServerAddress(this.o);
    if (!address) throw coded(ErrorCode.TopUpNoCallback, PLAN_PAY_MSG.noAddress);
    return `${address}${WALLET_PATH}`;
  }

  private async openOrder(userId: number, plan: PlanRow, tradeNo: string, method: string, provider: PlanProvider) {
    await this.store.insertOrder(this.deps.db.kysely, {
      user_id: userId,
      plan_id: plan.id,
      money: Number(plan.price_micros) / PLAN_PRICE_SCALE,
      trade_no: tradeNo,
      payment_method: method,
      payment_provider: provider,
      status: 'pending',
      create_time: nowSeconds(),
      complete_time: 0,
      provider_payload: '',
    });
  }

  /** The provider's checkout; when it cannot be started the order is closed failed (it can never be paid). */
  private async orFail(tradeNo: string, provider: string, start: () => Promise<string>): Promise<string> {
    try {
      return await start();
    } catch (err) {
      await this.store.closeOrder(this.deps.db.kysely, tradeNo, 'failed', nowSeconds());
      this.deps.log.warn({ err, trade_no: tradeNo, provider }, 'plan checkout could not be started');
      if (err instanceof ApiError) throw err;
      throw coded(ErrorCode.TopUpCheckoutFailed, `${provider} did not start the payment`, { provider });
    }
  }

  /** POST /api/subscription/stripe/pay: a Checkout Session in subscription mode for the plan's Stripe price. */
  async stripePay(user: AuthUser, planId: number): Promise<{ pay_link: string }> {
    const plan = await this.onSale(user.id, planId);
    const priceId = plan.stripe_price_id.trim();
    if (!priceId) throw coded(ErrorCode.SubscriptionPlanNoProduct, PLAN_PAY_MSG.noStripePrice, { method: 'Stripe' });
    const secret = this.o.get('StripeApiSecret').trim();
    if (!STRIPE_SECRET_PREFIXES.some((p) => secret.startsWith(p)) || !this.o.get('StripeWebhookSecret').trim())
      throw coded(ErrorCode.SubscriptionPaymentOff, PLAN_PAY_MSG.stripeOff, { method: 'Stripe' });
    const wallet = this.walletUrl();
    const row = await this.deps.users.get(user.id);
    const tradeNo = planReference(STRIPE_METHOD, user.id);
    await this.openOrder(user.id, plan, tradeNo, STRIPE_METHOD, STRIPE_METHOD);
    const payLink = await this.orFail(tradeNo, 'Stripe', () =>
      createStripeCheckout(this.deps.config.stripeApiBase, {
        secret,
        reference: tradeNo,
        priceId,
        quantity: 1,
        mode: 'subscription',
        successUrl: wallet,
        cancelUrl: wallet,
        allowPromotionCodes: this.o.bool('StripePromotionCodesEnabled'),
        email: row.email || undefined,
      }),
    );
    return { pay_link: payLink };
  }

  /** POST /api/subscription/creem/pay: a Creem checkout of the plan's Creem product. */
  async creemPay(user: AuthUser, planId: number): Promise<{ checkout_url: string; order_id: string }> {
    const plan = await this.onSale(user.id, planId);
    const productId = plan.creem_product_id.trim();
    if (!productId) throw coded(ErrorCode.SubscriptionPlanNoProduct, PLAN_PAY_MSG.noCreemProduct, { method: 'Creem' });
    const apiKey = this.o.get('CreemApiKey').trim();
    // The webhook refuses every event while no secret is set, so an order could never be completed.
    if (!apiKey || !this.o.get('CreemWebhookSecret').trim())
      throw coded(ErrorCode.SubscriptionPaymentOff, PLAN_PAY_MSG.creemOff, { method: 'Creem' });
    const row = await this.deps.users.get(user.id);
    const tradeNo = planReference(CREEM_METHOD, user.id);
    await this.openOrder(user.id, plan, tradeNo, CREEM_METHOD, CREEM_METHOD);
    const apiBase = this.deps.config.creemApiBase ?? (this.o.bool('CreemTestMode') ? CREEM_TEST_API : CREEM_LIVE_API);
    const product = {
      productId,
      name: plan.title,
      price: Number(plan.price_micros) / PLAN_PRICE_SCALE,
      currency: plan.currency || 'USD',
      // A plan credits no quota: it grants the plan.
      quota: 0,
    };
    const checkoutUrl = await this.orFail(tradeNo, 'Creem', () =>
      createCreemCheckout({ apiBase, apiKey, product, reference: tradeNo, email: row.email, username: row.username }),
    );
    return { checkout_url: checkoutUrl, order_id: tradeNo };
  }

  /** POST /api/subscription/epay/pay: a pending order and the signed Epay form (as the wallet's Epay top-up). */
  async epayPay(
    user: AuthUser,
    planId: number,
    method: string,
  ): Promise<{ url: string; fields: Record<string, string> }> {
    const merchant = this.topUps.merchant();
    if (!merchant) throw coded(ErrorCode.SubscriptionPaymentOff, PLAN_PAY_MSG.epayOff, { method: 'Epay' });
    const plan = await this.onSale(user.id, planId);
    const cents = priceCents(plan);
    if (cents < 1) throw coded(ErrorCode.TopUpAmountTooLow, PLAN_PAY_MSG.priceTooLow);
    if (!Object.hasOwn(PAYMENT_METHODS, method))
      throw coded(ErrorCode.SubscriptionPayMethodUnknown, PLAN_PAY_MSG.unknownMethod);
    const type = PAYMENT_METHODS[method as PaymentMethod];
    const callback = this.topUps.epayCallbackBase();
    if (!callback) throw coded(ErrorCode.TopUpNoCallback, PLAN_PAY_MSG.noAddress);
    const tradeNo = `SUBUSR${user.id}NO${randomString(6)}${nowSeconds()}`;
    await this.openOrder(user.id, plan, tradeNo, type, EPAY_PROVIDER);
    return epayPurchase(merchant, {
      type,
      outTradeNo: tradeNo,
      notifyUrl: `${callback}${PLAN_EPAY_NOTIFY_PATH}`,
      returnUrl: `${callback}${PLAN_EPAY_RETURN_PATH}`,
      name: `SUB:${plan.title}`,
      money: asMoney(cents),
    });
  }

  /**
   * An Epay callback of a plan order (the notify, or the buyer's return, both signed): refused unless the signature
   * and merchant are ours and it names an Epay plan order for the money asked; a paid one completes it (once).
   */
  async epayCallback(params: EpayParams): Promise<EpayOutcome> {
    if (!this.topUps.verifiedEpay(params)) return 'refused';
    if (params.trade_status !== EPAY_TRADE_SUCCESS) return 'unpaid';
    const order = await this.orders.find(params.out_trade_no ?? '', EPAY_PROVIDER);
    if (!order) {
      this.deps.log.warn({ trade_no: params.out_trade_no }, 'epay callback for an unknown plan order');
      return 'refused';
    }
    if (!sameCents(params.money, order.money)) {
      this.deps.log.warn(
        { trade_no: order.trade_no, paid: params.money, expected: order.money },
        'epay callback money differs from the plan order',
      );
      return 'refused';
    }
    const reported = Object.fromEntries(Object.entries(params).filter(([k]) => k !== 'sign' && k !== 'sign_type'));
    const result = await this.orders.complete(order, JSON.stringify(reported));
    this.deps.log.info({ trade_no: order.trade_no, result }, 'epay plan payment');
    return result === 'refused' ? 'unfulfilled' : 'paid';
  }

  /** Where the buyer's return lands: the console's wallet, with new-api's pay=success|pending|fail. */
  returnUrl(outcome: EpayOutcome): string {
    const pay = outcome === 'paid' ? 'success' : outcome === 'unpaid' ? 'pending' : 'fail';
    return `${configuredServerAddress(this.o) ?? ''}${WALLET_PATH}?pay=${pay}`;
  }
}

export const planPaymentsOf = perContext(
  (ctx) => new PlanPaymentService(ctx, holdingsOf(ctx), planOrdersOf(ctx), topUpsOf(ctx)),
);
