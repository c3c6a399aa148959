import { creemPayBody, stripePayBody } from '@tollway/shared';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { Router } from '../../http/route.js';
import { rawBodyOf } from '../../http/raw-body.js';
import { CREEM_SIGNATURE_HEADER } from './creem.js';
import { cardsOf, type WebhookAnswer } from './card-service.js';

const STRIPE_SIGNATURE_HEADER = 'stripe-signature';
const HTTP_SERVER_ERROR = 500;

const headerOf = (value: string | string[] | undefined) => (Array.isArray(value) ? (value[0] ?? '') : (value ?? ''));

/** Card payments of the wallet (new-api's routes): Stripe Checkout and Creem, and their signed webhooks. */
export function cardPaymentRoutes(r: Router): void {
  const tags = ['top-up'];
  r.add({
    method: 'POST',
    url: '/api/user/stripe/amount',
    level: 'user',
    summary: 'Payable money for a Stripe amount: StripeUnitPrice × units × TopupGroupRatio of the caller group',
    tags,
    body: stripePayBody,
    response: z.string(),
    successMessage: 'success',
    handler: ({ ctx, user, body }) => cardsOf(ctx).stripeAmount(user!, body.amount),
  });
  r.add({
    method: 'POST',
    url: '/api/user/stripe/pay',
    level: 'user',
    rateLimit: 'critical',
    summary: 'Create a pending order and its Stripe Checkout Session; data.pay_link is the payment page',
    tags,
    body: stripePayBody,
    response: z.object({ pay_link: z.string() }),
    successMessage: 'success',
    handler: ({ ctx, user, body }) => cardsOf(ctx).stripePay(user!, body.amount),
  });
  r.add({
    method: 'POST',
    url: '/api/user/creem/pay',
    level: 'user',
    rateLimit: 'critical',
    summary: 'Create a pending order for one of CreemProducts and its Creem checkout; data.checkout_url, data.order_id',
    tags,
    body: creemPayBody,
    response: z.object({ checkout_url: z.string(), order_id: z.string() }),
    successMessage: 'success',
    handler: ({ ctx, user, body }) => cardsOf(ctx).creemPay(user!, body.product_id),
  });
  const webhook = (
    url: string,
    header: string,
    summary: string,
    handle: (ctx: AppContext, payload: Buffer, signature: string) => Promise<WebhookAnswer>,
  ) =>
    r.add({
      method: 'POST',
      url,
      level: 'public',
      summary,
      tags,
      raw: true,
      rawBody: true,
      handler: async ({ ctx, req, reply }) => {
        const answer = await handle(ctx, rawBodyOf(req), headerOf(req.headers[header])).catch(
          (err: unknown): WebhookAnswer => {
            // Not acknowledged: the provider delivers the event again later.
            ctx.log.error({ err, url }, 'payment webhook failed');
            return { status: HTTP_SERVER_ERROR, body: { received: false, error: 'internal error' } };
          },
        );
        return reply.status(answer.status).send(answer.body);
      },
    });
  webhook(
    '/api/stripe/webhook',
    STRIPE_SIGNATURE_HEADER,
    'Stripe webhook (Stripe-Signature over the raw body): completes a paid Checkout Session order once; 400 unsigned',
    (ctx, payload, signature) => cardsOf(ctx).stripeWebhook(payload, signature),
  );
  webhook(
    '/api/creem/webhook',
    CREEM_SIGNATURE_HEADER,
    'Creem webhook (creem-signature: HMAC-SHA256 of the raw body): completes a paid order once; 400 unsigned',
    (ctx, payload, signature) => cardsOf(ctx).creemWebhook(payload, signature),
  );
}
