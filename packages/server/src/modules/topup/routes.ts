import { complianceInfo } from '../options/compliance.js';
import {
  epayNotifyParams,
  paged,
  topUpAmountBody,
  topUpCompleteBody,
  topUpInfo,
  topUpListQuery,
  topUpPayBody,
  topUpRecord,
} from '@tollway/shared';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { NOTIFY_PATH, topUpsOf } from './service.js';
import { cardsOf } from './card-service.js';
import { cardPaymentRoutes } from './routes-cards.js';

/** Epay sends its notify as a query string (GET) or a form body (POST). */
export function notifyParams(req: FastifyRequest): Record<string, string> {
  const fromBody =
    req.method === 'POST' && req.body && typeof req.body === 'object' && Object.keys(req.body).length > 0;
  const parsed = epayNotifyParams.safeParse(fromBody ? req.body : req.query);
  return parsed.success ? parsed.data : {};
}

/** Online top-up of the wallet: price, Epay order, the payment notify, the top-up records, and card payments. */
export function topUpRoutes(r: Router): void {
  const tags = ['top-up'];
  r.add({
    method: 'GET',
    url: '/api/user/topup/info',
    level: 'user',
    summary:
      'Whether online top-up is on, the minimum, price, the caller group ratio, payment methods, preset amounts, top-up link',
    tags,
    response: topUpInfo,
    handler: ({ ctx, user }) => {
      const { stripe_method, ...cards } = cardsOf(ctx).info();
      const info = topUpsOf(ctx).info(user!);
      return {
        ...info,
        ...cards,
        ...complianceInfo(ctx.options),
        pay_methods: stripe_method ? [...info.pay_methods, stripe_method] : info.pay_methods,
      };
    },
  });
  r.add({
    method: 'POST',
    url: '/api/user/amount',
    level: 'user',
    summary: 'Payable money for an amount: Price × amount × TopupGroupRatio of the caller group (two decimals)',
    tags,
    body: topUpAmountBody,
    response: z.string(),
    successMessage: 'success',
    handler: ({ ctx, user, body }) => topUpsOf(ctx).amount(user!, body.amount),
  });
  r.add({
    method: 'POST',
    url: '/api/user/pay',
    level: 'user',
    summary: 'Create a pending Epay order; answers data (signed form fields) and url (submit.php) to post them to',
    tags,
    body: topUpPayBody,
    response: z.record(z.string(), z.string()),
    raw: true,
    handler: async ({ ctx, user, body, reply }) => {
      const { url, fields } = await topUpsOf(ctx).pay(user!, body.amount, body.payment_method);
      return reply.send({ success: true, message: 'success', data: fields, url });
    },
  });
  for (const method of ['GET', 'POST'] as const) {
    r.add({
      method,
      url: NOTIFY_PATH,
      level: 'public',
      summary: 'Epay payment notify (signed); answers the text success or fail',
      tags,
      raw: true,
      handler: async ({ ctx, req, reply }) => {
        const answer = await topUpsOf(ctx)
          .notify(notifyParams(req))
          .catch((err: unknown) => {
            ctx.log.error({ err }, 'epay notify failed');
            return 'fail';
          });
        return reply.type('text/plain; charset=utf-8').send(answer);
      },
    });
  }
  r.add({
    method: 'GET',
    url: '/api/user/topup/self',
    level: 'user',
    summary: 'Own top-up records, newest first (p, page_size, keyword: part of the trade number)',
    tags,
    query: topUpListQuery,
    response: paged(topUpRecord),
    handler: ({ ctx, user, query }) => topUpsOf(ctx).page(query, user!.id),
  });
  r.add({
    method: 'GET',
    url: '/api/user/topup',
    level: 'admin',
    summary: 'All top-up records, newest first (p, page_size, keyword: part of the trade number)',
    tags,
    query: topUpListQuery,
    response: paged(topUpRecord),
    handler: ({ ctx, query }) => topUpsOf(ctx).page(query),
  });
  r.add({
    method: 'POST',
    url: '/api/user/topup/complete',
    level: 'admin',
    summary: 'Mark a pending order paid and credit it (once), for a payment confirmed outside the notify',
    tags,
    body: topUpCompleteBody,
    successMessage: 'top-up completed',
    handler: ({ ctx, body }) => topUpsOf(ctx).completeByAdmin(body.trade_no),
  });
  cardPaymentRoutes(r);
}
