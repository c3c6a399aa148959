import crypto from 'node:crypto';
import { dec, ErrorCode, mul, roundToInt, type TopUpInfo } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import type { AuthUser } from '../../core/auth-user.js';
import { ApiError, coded } from '../../lib/errors.js';
import { randomString } from '../../lib/secrets.js';
import { configuredServerAddress } from '../../lib/server-address.js';
import { nowSeconds } from '../../lib/time.js';
import { perContext } from '../../per-context.js';
import { planOrdersOf } from '../subscriptions/plan-orders.js';
import { CREEM_METHOD, STRIPE_METHOD, type CardMethod } from './card-methods.js';
import {
  CREEM_CHECKOUT_COMPLETED,
  CREEM_LIVE_API,
  CREEM_ORDER_ONETIME,
  CREEM_ORDER_PAID,
  CREEM_TEST_API,
  createCreemCheckout,
  creemEvent,
  creemProducts,
  creemVerify,
  type CreemProduct,
} from './creem.js';
import { settlePaid, settleUnpaid, topUpPurchase, type Purchase } from './purchases.js';
import { AMOUNT_TOO_LOW, NO_CALLBACK_ADDRESS, topUpsOf, type TopUpDeps, type TopUpService } from './service.js';
import { createStripeCheckout, STRIPE_EVENTS, STRIPE_SECRET_PREFIXES, verifyStripeEvent } from './stripe.js';

export const STRIPE_DISABLED = 'the administrator has not enabled Stripe top-up';
export const CREEM_DISABLED = 'the administrator has not enabled Creem top-up';
export const PRODUCT_NOT_FOUND = 'the Creem product does not exist';
/** new-api's largest Stripe top-up, in units. */
export const STRIPE_MAX_UNITS = 10_000;
/** Where the payment page sends the user back (the console's wallet). */
const WALLET_PATH = '/app/wallet';

/** A webhook's answer: the HTTP status the provider sees (2xx stops its retries) and a short JSON body. */
export interface WebhookAnswer {
  status: number;
  body: { received: boolean; error?: string };
}
const RECEIVED: WebhookAnswer = { status: 200, body: { received: true } };
const refused = (status: number, error: string): WebhookAnswer => ({ status, body: { received: false, error } });

export type CardDeps = TopUpDeps & Pick<AppContext, 'config'>;

/** new-api's order reference: ref_ and the SHA-1 of the user, the time and a random part. */
function orderReference(prefix: string, userId: number): string {
  const seed = `${prefix}-${userId}-${Date.now()}-${randomString(8)}`;
  return `ref_${crypto.createHash('sha1').update(seed).digest('hex')}`;
}

/**
 * Card payments of the wallet, as new-api has them: Stripe Checkout (units × the StripePriceId price, credited
 * units × QuotaPerUnit) and Creem (one of CreemProducts, credited its quota). Orders are top_ups rows; a webhook
 * completes an order through the Purchases (top-ups, then plan orders), exactly once however often it is delivered.
 */
export class CardPaymentService {
  private readonly purchases: readonly Purchase[];

  constructor(
    private readonly deps: CardDeps,
    private readonly topUps: TopUpService,
    /** Plan orders (modules/subscriptions), paid by the same webhooks. */
    private readonly plans: Purchase,
  ) {
    this.purchases = [topUpPurchase(topUps, deps.log), plans];
  }

  private get o() {
    return this.deps.options;
  }

  private stripeSecret(): string {
    return this.o.get('StripeApiSecret').trim();
  }

  stripeEnabled(): boolean {
    return (
      this.stripeSecret() !== '' &&
      this.o.get('StripeWebhookSecret').trim() !== '' &&
      this.o.get('StripePriceId').trim() !== ''
    );
  }

  private products(): CreemProduct[] {
    return creemProducts(this.o.json<unknown>('CreemProducts'));
  }

  creemEnabled(): boolean {
    return this.o.get('CreemApiKey').trim() !== '' && this.products().length > 0;
  }

  /** The fields of /api/user/topup/info new-api's console reads to offer Stripe and Creem. */
  info(): Pick<TopUpInfo, 'enable_stripe_topup' | 'stripe_min_topup' | 'enable_creem_topup' | 'creem_products'> & {
    stripe_method?: TopUpInfo['pay_methods'][number];
  } {
    const stripe = this.stripeEnabled();
    const min = this.o.num('StripeMinTopUp');
    return {
      enable_stripe_topup: stripe,
      stripe_min_topup: min,
      enable_creem_topup: this.creemEnabled(),
      creem_products: JSON.stringify(this.products()),
      ...(stripe
        ? {
            stripe_method: {
              name: 'Stripe',
              type: STRIPE_METHOD,
              color: 'rgba(var(--semi-purple-5), 1)',
              min_topup: String(min),
            },
          }
        : {}),
    };
  }

  /** Units for a Stripe amount: StripeMinTopUp, whole units, at most STRIPE_MAX_UNITS and QUOTA_MAX. */
  private stripeUnits(amount: number): number {
    const units = this.topUps.units(amount, this.o.num('StripeMinTopUp'));
    if (units > STRIPE_MAX_UNITS)
      throw coded(
        ErrorCode.InputTooLarge,
        `the top-up amount cannot be more than ${this.topUps.minAmount(STRIPE_MAX_UNITS)}`,
        {
          field: 'amount',
          max: this.topUps.minAmount(STRIPE_MAX_UNITS),
        },
      );
    return units;
  }

  /** StripeUnitPrice × units × the group's TopupGroupRatio, half up to the cent, as text with two decimals. */
  private stripePayable(units: number, group: string): string {
    const cents = roundToInt(
      mul(mul(mul(dec(units), dec(this.o.num('StripeUnitPrice'))), dec(this.topUps.groupRatio(group))), dec(100)),
    );
    if (cents < 1n) throw coded(ErrorCode.TopUpAmountTooLow, AMOUNT_TOO_LOW);
    return `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
  }

  /** POST /api/user/stripe/amount: what the user would pay. */
  stripeAmount(user: AuthUser, amount: number): string {
    return this.stripePayable(this.stripeUnits(amount), user.group);
  }

  private walletUrl(): string {
    const address = configuredServerAddress(this.o);
    if (!address) throw coded(ErrorCode.TopUpNoCallback, NO_CALLBACK_ADDRESS);
    return `${address}${WALLET_PATH}`;
  }

  /** POST /api/user/stripe/pay: a pending order, then its Checkout Session; answers the payment page. */
  async stripePay(user: AuthUser, amount: number): Promise<{ pay_link: string }> {
    if (!this.stripeEnabled()) throw coded(ErrorCode.TopUpDisabled, STRIPE_DISABLED);
    const secret = this.stripeSecret();
    if (!STRIPE_SECRET_PREFIXES.some((p) => secret.startsWith(p)))
      throw coded(
        ErrorCode.TopUpCheckoutFailed,
        'the Stripe API secret must be a secret (sk_) or restricted (rk_) key',
        {
          provider: 'Stripe',
        },
      );
    const units = this.stripeUnits(amount);
    const money = this.stripePayable(units, user.group);
    const wallet = this.walletUrl();
    const reference = orderReference('tollway-ref', user.id);
    const row = await this.deps.users.get(user.id);
    await this.openOrder(user.id, reference, units, Number(money), STRIPE_METHOD);
    const payLink = await this.orFail(reference, 'Stripe', () =>
      createStripeCheckout(this.deps.config.stripeApiBase, {
        secret,
        reference,
        priceId: this.o.get('StripePriceId').trim(),
        quantity: units,
        successUrl: wallet,
        cancelUrl: wallet,
        allowPromotionCodes: this.o.bool('StripePromotionCodesEnabled'),
        email: row.email || undefined,
      }),
    );
    return { pay_link: payLink };
  }

  /** POST /api/user/creem/pay: a pending order for the product, then Creem's checkout; answers its page. */
  async creemPay(user: AuthUser, productId: string): Promise<{ checkout_url: string; order_id: string }> {
    if (!this.creemEnabled()) throw coded(ErrorCode.TopUpDisabled, CREEM_DISABLED);
    const product = this.products().find((p) => p.productId === productId);
    if (!product) throw coded(ErrorCode.TopUpProductNotFound, PRODUCT_NOT_FOUND);
    const reference = orderReference('creem-api-ref', user.id);
    const row = await this.deps.users.get(user.id);
    await this.openOrder(user.id, reference, product.quota, product.price, CREEM_METHOD);
    const apiBase = this.deps.config.creemApiBase ?? (this.o.bool('CreemTestMode') ? CREEM_TEST_API : CREEM_LIVE_API);
    const checkoutUrl = await this.orFail(reference, 'Creem', () =>
      createCreemCheckout({
        apiBase,
        apiKey: this.o.get('CreemApiKey').trim(),
        product,
        reference,
        email: row.email,
        username: row.username,
      }),
    );
    return { checkout_url: checkoutUrl, order_id: reference };
  }

  private openOrder(userId: number, reference: string, amount: number, money: number, method: CardMethod) {
    return this.topUps.store.insert({
      user_id: userId,
      amount,
      money,
      trade_no: reference,
      payment_method: method,
      create_time: nowSeconds(),
      complete_time: 0,
      status: 'pending',
    });
  }

  /** The provider's checkout; when it cannot be started the order is closed failed (it can never be paid). */
  private async orFail(reference: string, provider: string, start: () => Promise<string>): Promise<string> {
    try {
      return await start();
    } catch (err) {
      await this.topUps.store.closeUnpaid(reference, 'failed');
      this.deps.log.warn({ err, trade_no: reference, provider }, 'checkout could not be started');
      if (err instanceof ApiError) throw err;
      throw coded(ErrorCode.TopUpCheckoutFailed, `${provider} did not start the payment`, { provider });
    }
  }

  /**
   * POST /api/stripe/webhook: 400 unless Stripe-Signature signs the raw body with StripeWebhookSecret (nothing is
   * read from an unsigned body). A paid Checkout Session completes its order (once); a failed asynchronous payment
   * closes it failed, an expired session expired; everything else is acknowledged and ignored.
   */
  async stripeWebhook(payload: Buffer, signature: string): Promise<WebhookAnswer> {
    const secret = this.o.get('StripeWebhookSecret').trim();
    if (!secret) return refused(400, 'the Stripe webhook secret is not set');
    const event = verifyStripeEvent(payload, signature, secret);
    if (!event) return refused(400, 'invalid signature');
    const settle = async () => {
      const reported = JSON.stringify({
        event: event.id,
        event_type: event.type,
        amount_total: event.amountTotal,
        currency: event.currency.toUpperCase(),
      });
      const result = await settlePaid(this.purchases, event.reference, STRIPE_METHOD, reported);
      this.deps.log.info(
        {
          event: event.id,
          trade_no: event.reference,
          result,
          amount_total: event.amountTotal,
          currency: event.currency,
        },
        'stripe payment',
      );
    };
    switch (event.type) {
      case STRIPE_EVENTS.completed:
        // An asynchronous method (a bank debit) completes the session unpaid; its async_payment_succeeded pays it.
        if (event.status === 'complete' && event.paymentStatus !== 'unpaid') await settle();
        break;
      case STRIPE_EVENTS.asyncSucceeded:
        await settle();
        break;
      case STRIPE_EVENTS.asyncFailed:
        await settleUnpaid(this.purchases, event.reference, STRIPE_METHOD, 'failed');
        break;
      case STRIPE_EVENTS.expired:
        if (event.status === 'expired') await settleUnpaid(this.purchases, event.reference, STRIPE_METHOD, 'expired');
        break;
    }
    return RECEIVED;
  }

  /**
   * POST /api/creem/webhook: 400 unless creem-signature is the HMAC of the raw body under CreemWebhookSecret (always
   * while no secret is set, test mode included; new-api answers 401, which here would read as a sign-in refusal).
   * checkout.completed with a paid order completes the order named by request_id (once): a plan order whatever the
   * order's type (a plan's product may be recurring), a top-up only for a one-time order.
   */
  async creemWebhook(payload: Buffer, signature: string): Promise<WebhookAnswer> {
    if (!creemVerify(payload, signature, this.o.get('CreemWebhookSecret').trim()))
      return refused(400, 'invalid signature');
    let parsed;
    try {
      parsed = creemEvent.safeParse(JSON.parse(payload.toString('utf8')));
    } catch {
      return refused(400, 'malformed event');
    }
    if (!parsed.success) return refused(400, 'malformed event');
    const event = parsed.data;
    if (event.eventType !== CREEM_CHECKOUT_COMPLETED || event.object.order?.status !== CREEM_ORDER_PAID)
      return RECEIVED;
    const reference = event.object.request_id ?? '';
    if (!reference) return refused(400, 'the event has no request_id');
    const purchases = event.object.order.type === CREEM_ORDER_ONETIME ? this.purchases : [this.plans];
    const reported = JSON.stringify({ event: event.id, order: event.object.order.id, type: event.object.order.type });
    const result = await settlePaid(purchases, reference, CREEM_METHOD, reported);
    this.deps.log.info({ event: event.id, trade_no: reference, order: event.object.order.id, result }, 'creem payment');
    return RECEIVED;
  }
}

export const cardsOf = perContext((ctx) => new CardPaymentService(ctx, topUpsOf(ctx), planOrdersOf(ctx)));
