import {
  createRedemptionBody,
  idParam,
  pageQuery,
  paged,
  redeemBody,
  redemptionBatchDisableBody,
  redemptionNameQuery,
  redemptionPublic,
  redemptionSearchQuery,
  updateRedemptionBody,
  updateRedemptionQuery,
} from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { redemptionsOf } from './service.js';

/** Redemption code management (administrators) and redeeming a code (any logged-in user). */
export function redemptionRoutes(r: Router): void {
  const tags = ['redemption'];
  r.add({
    method: 'GET',
    url: '/api/redemption/',
    level: 'admin',
    summary: 'Paged redemption codes, newest first',
    tags,
    query: pageQuery,
    response: paged(redemptionPublic),
    handler: ({ ctx, query }) => redemptionsOf(ctx).page(query),
  });
  r.add({
    method: 'GET',
    url: '/api/redemption/search',
    level: 'admin',
    summary: 'Search codes: keyword matches part of the name, the whole key or the id',
    tags,
    query: redemptionSearchQuery,
    response: paged(redemptionPublic),
    handler: ({ ctx, query }) => redemptionsOf(ctx).page(query),
  });
  r.add({
    method: 'GET',
    url: '/api/redemption/count-by-name',
    level: 'admin',
    summary: 'How many codes carry this exact name (shown before delete-by-name)',
    tags,
    query: redemptionNameQuery,
    response: z.number().int(),
    handler: ({ ctx, query }) => redemptionsOf(ctx).countByName(query.name),
  });
  r.add({
    method: 'GET',
    url: '/api/redemption/:id',
    level: 'admin',
    summary: 'One redemption code',
    tags,
    params: idParam,
    response: redemptionPublic,
    handler: ({ ctx, params }) => redemptionsOf(ctx).get(params.id),
  });
  r.add({
    method: 'POST',
    url: '/api/redemption/',
    level: 'admin',
    summary: 'Create count (1-100) codes, or one with a custom key; returns their keys',
    tags,
    body: createRedemptionBody,
    response: z.array(z.string()),
    successMessage: 'redemption codes created',
    handler: ({ ctx, user, body }) => redemptionsOf(ctx).create(user!, body),
  });
  r.add({
    method: 'PUT',
    url: '/api/redemption/',
    level: 'admin',
    summary: 'Edit an unused code (fields present change); ?status_only=true enables (1) or disables (2)',
    tags,
    query: updateRedemptionQuery,
    body: updateRedemptionBody,
    response: redemptionPublic,
    successMessage: 'redemption code updated',
    handler: ({ ctx, body, query }) => redemptionsOf(ctx).update(body, query.status_only === true),
  });
  r.add({
    method: 'PUT',
    url: '/api/redemption/batch-disable',
    level: 'admin',
    summary: 'Disable the unused codes among ids; returns how many changed',
    tags,
    body: redemptionBatchDisableBody,
    response: z.number().int(),
    handler: ({ ctx, body }) => redemptionsOf(ctx).disableMany(body.ids),
  });
  r.add({
    method: 'DELETE',
    url: '/api/redemption/delete-by-name',
    level: 'admin',
    summary: 'Delete every code with this exact name (irreversible); returns how many',
    tags,
    query: redemptionNameQuery,
    response: z.number().int(),
    handler: ({ ctx, query }) => redemptionsOf(ctx).deleteByName(query.name),
  });
  r.add({
    method: 'DELETE',
    url: '/api/redemption/delete-disabled',
    level: 'admin',
    summary: 'Delete every disabled code; returns how many',
    tags,
    response: z.number().int(),
    handler: ({ ctx }) => redemptionsOf(ctx).deleteDisabled(),
  });
  r.add({
    method: 'DELETE',
    url: '/api/redemption/invalid',
    level: 'admin',
    summary: 'Delete every code nobody can redeem any more (used, disabled, expired, out of uses); returns how many',
    tags,
    response: z.number().int(),
    handler: ({ ctx }) => redemptionsOf(ctx).deleteInvalid(),
  });
  r.add({
    method: 'DELETE',
    url: '/api/redemption/:id',
    level: 'admin',
    summary: 'Delete a code',
    tags,
    params: idParam,
    successMessage: 'redemption code deleted',
    handler: ({ ctx, params }) => redemptionsOf(ctx).remove(params.id),
  });
  r.add({
    method: 'POST',
    url: '/api/user/topup',
    level: 'user',
    summary: 'Redeem a code: data is the quota credited; is_gift says whether it was a gift code',
    tags,
    // Guessing codes is throttled per IP like logins (CRITICAL_RATE_LIMIT), as new-api does.
    rateLimit: 'critical',
    body: redeemBody,
    response: z.number().int(),
    raw: true,
    handler: async ({ ctx, user, body, reply }) => {
      const { quota, isGift } = await redemptionsOf(ctx).redeem(user!, body.key);
      return reply.send({ success: true, message: 'redeemed', data: quota, is_gift: isGift });
    },
  });
}
