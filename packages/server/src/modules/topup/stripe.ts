import Stripe from 'stripe';

/**
 * Stripe Checkout through the official library: a Checkout Session for a top-up or a plan, and the webhook's
 * signature check. No rules here (they are in card-service.ts and subscriptions/payments.ts): only Stripe's wire.
 */

/** Longest wait for Stripe's answer when a session is created. */
const STRIPE_TIMEOUT_MS = 20_000;
/** The library retries a failed create once, with the same idempotency key (Stripe answers the first session). */
const STRIPE_NETWORK_RETRIES = 1;

/** Secret (sk_) and restricted (rk_) keys: new-api refuses any other kind of API secret. */
export const STRIPE_SECRET_PREFIXES = ['sk_', 'rk_'] as const;

/** The events the webhook acts on; any other verified event is answered 200 and ignored. */
export const STRIPE_EVENTS = {
  completed: 'checkout.session.completed',
  asyncSucceeded: 'checkout.session.async_payment_succeeded',
  asyncFailed: 'checkout.session.async_payment_failed',
  expired: 'checkout.session.expired',
} as const;

export interface StripeCheckoutRequest {
  /** The API secret (StripeApiSecret). */
  secret: string;
  /** Our order's trade number, sent as client_reference_id: the webhook finds the order by it. */
  reference: string;
  priceId: string;
  /** Units of the price (the Checkout line's quantity). */
  quantity: number;
  successUrl: string;
  cancelUrl: string;
  allowPromotionCodes: boolean;
  /** Prefilled on the payment page when the user has one. */
  email?: string;
  /** payment (a top-up, the default) or subscription (a plan's recurring price). */
  mode?: 'payment' | 'subscription';
}

/** host, port and protocol of the API's base address (STRIPE_API_BASE), as the library takes them. */
function addressOf(apiBase: string): { host: string; port: number | undefined; protocol: 'http' | 'https' } {
  const url = new URL(apiBase);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port ? Number(url.port) : undefined, protocol };
}

/** Creates a Checkout Session (payment mode unless told); answers its hosted page's URL. */
export async function createStripeCheckout(apiBase: string, req: StripeCheckoutRequest): Promise<string> {
  const { host, port, protocol } = addressOf(apiBase);
  const stripe = new Stripe(req.secret, {
    host,
    ...(port !== undefined ? { port } : {}),
    protocol,
    timeout: STRIPE_TIMEOUT_MS,
    maxNetworkRetries: STRIPE_NETWORK_RETRIES,
  });
  const session = await stripe.checkout.sessions.create(
    {
      mode: req.mode ?? 'payment',
      client_reference_id: req.reference,
      success_url: req.successUrl,
      cancel_url: req.cancelUrl,
      line_items: [{ price: req.priceId, quantity: req.quantity }],
      allow_promotion_codes: req.allowPromotionCodes,
      // Subscription mode always makes a customer (Stripe refuses customer_creation there).
      ...(req.mode === 'subscription' ? {} : { customer_creation: 'always' as const }),
      ...(req.email ? { customer_email: req.email } : {}),
    },
    // One order is one session, whatever the retries.
    { idempotencyKey: `tollway-${req.reference}` },
  );
  if (!session.url) throw new Error('Stripe answered a Checkout Session without a URL');
  return session.url;
}

/** What the webhook reads of a Checkout Session event. */
export interface StripeSessionEvent {
  type: string;
  id: string;
  reference: string;
  /** open, complete or expired. */
  status: string;
  /** paid, unpaid (an asynchronous method not settled yet) or no_payment_required. */
  paymentStatus: string;
  amountTotal: number | null;
  currency: string;
}

/**
 * The event if `signature` (the Stripe-Signature header) signs exactly `payload` with `secret` within the library's
 * tolerance; undefined otherwise. Events of other kinds than Checkout Sessions come back with an empty reference.
 */
export function verifyStripeEvent(payload: Buffer, signature: string, secret: string): StripeSessionEvent | undefined {
  let event: Stripe.Event;
  try {
    event = Stripe.webhooks.constructEvent(payload, signature, secret);
  } catch {
    return undefined;
  }
  const object = event.data.object as Partial<Stripe.Checkout.Session>;
  const isSession = object.object === 'checkout.session';
  return {
    type: event.type,
    id: event.id,
    reference: isSession ? (object.client_reference_id ?? '') : '',
    status: isSession ? (object.status ?? '') : '',
    paymentStatus: isSession ? (object.payment_status ?? '') : '',
    amountTotal: isSession ? (object.amount_total ?? null) : null,
    currency: isSession ? (object.currency ?? '') : '',
  };
}
