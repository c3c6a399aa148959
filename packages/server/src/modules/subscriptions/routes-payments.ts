import { subscriptionEpayBody, subscriptionPlanIdBody } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { notifyParams } from '../topup/routes.js';
import { PLAN_EPAY_NOTIFY_PATH, PLAN_EPAY_RETURN_PATH, planPaymentsOf, type EpayOutcome } from './payments.js';

const HTTP_FOUND = 302;

/**
 * Paying for a plan through a provider (new-api's routes): Stripe Checkout, Creem, Epay, and Epay's notify and
 * return. Stripe's and Creem's webhooks are the wallet's (/api/stripe/webhook, /api/creem/webhook).
 */
export function subscriptionPaymentRoutes(r: Router): void {
  const tags = ['subscription'];
  r.add({
    method: 'POST',
    url: '/api/subscription/stripe/pay',
    level: 'user',
    rateLimit: 'critical',
    summary:
      "Create a pending plan order and a Stripe Checkout Session (subscription mode, the plan's stripe_price_id)",
    tags,
    body: subscriptionPlanIdBody,
    response: z.object({ pay_link: z.string() }),
    successMessage: 'success',
    handler: ({ ctx, user, body }) => planPaymentsOf(ctx).stripePay(user!, body.plan_id),
  });
  r.add({
    method: 'POST',
    url: '/api/subscription/creem/pay',
    level: 'user',
    rateLimit: 'critical',
    summary: "Create a pending plan order and a Creem checkout of the plan's creem_product_id",
    tags,
    body: subscriptionPlanIdBody,
    response: z.object({ checkout_url: z.string(), order_id: z.string() }),
    successMessage: 'success',
    handler: ({ ctx, user, body }) => planPaymentsOf(ctx).creemPay(user!, body.plan_id),
  });
  r.add({
    method: 'POST',
    url: '/api/subscription/epay/pay',
    level: 'user',
    rateLimit: 'critical',
    summary: 'Create a pending plan order for Epay; answers data (signed form fields) and url (submit.php)',
    tags,
    body: subscriptionEpayBody,
    response: z.record(z.string(), z.string()),
    raw: true,
    handler: async ({ ctx, user, body, reply }) => {
      const { url, fields } = await planPaymentsOf(ctx).epayPay(user!, body.plan_id, body.payment_method);
      return reply.send({ success: true, message: 'success', data: fields, url });
    },
  });
  for (const method of ['GET', 'POST'] as const) {
    r.add({
      method,
      url: PLAN_EPAY_NOTIFY_PATH,
      level: 'public',
      summary: 'Epay notify of a plan order (signed); answers the text success or fail',
      tags,
      raw: true,
      handler: async ({ ctx, req, reply }) => {
        const outcome = await planPaymentsOf(ctx)
          .epayCallback(notifyParams(req))
          .catch((err: unknown): EpayOutcome => {
            ctx.log.error({ err }, 'plan epay notify failed');
            return 'refused';
          });
        return reply.type('text/plain; charset=utf-8').send(outcome === 'refused' ? 'fail' : 'success');
      },
    });
    r.add({
      method,
      url: PLAN_EPAY_RETURN_PATH,
      level: 'public',
      summary:
        "The buyer's return from Epay (signed; a paid order is completed as by the notify); redirects to the wallet",
      tags,
      raw: true,
      handler: async ({ ctx, req, reply }) => {
        const payments = planPaymentsOf(ctx);
        const outcome = await payments.epayCallback(notifyParams(req)).catch((err: unknown): EpayOutcome => {
          ctx.log.error({ err }, 'plan epay return failed');
          return 'refused';
        });
        return reply.redirect(payments.returnUrl(outcome), HTTP_FOUND);
      },
    });
  }
}
