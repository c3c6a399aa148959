import {
  createTokenBody,
  idParam,
  paged,
  tokenIdsBody,
  tokenKeyAnswer,
  tokenKeysAnswer,
  tokenPageQuery,
  tokenPublic,
  tokenSearchQuery,
  updateTokenBody,
  updateTokenQuery,
} from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { tokensOf } from './service.js';
import { withPeriodUsage } from './period-usage.js';

/**
 * The caller's own API tokens (level user). Lists and details mask keys; the answer that creates tokens and the
 * reveal calls give them in full, without the sk- prefix (the console shows sk-<key>). Nobody, administrators
 * included, reaches another user's tokens here: they are "not found". The reveal calls stay outside the
 * per-address sign-in limit, which they would share with sign-in: a console copies keys often.
 */
export function tokenRoutes(r: Router): void {
  const tags = ['tokens'];
  r.add({
    method: 'GET',
    url: '/api/token/',
    level: 'user',
    summary: 'Own tokens, newest first (p, size or page_size)',
    tags,
    query: tokenPageQuery,
    response: paged(tokenPublic),
    handler: async ({ ctx, user, query }) => {
      const page = await tokensOf(ctx).page(user!.id, query);
      return { ...page, items: await withPeriodUsage(ctx, page.items) };
    },
  });
  r.add({
    method: 'GET',
    url: '/api/token/search',
    level: 'user',
    summary: 'Search own tokens by part of the name (keyword) and of the key (token, sk- optional)',
    tags,
    query: tokenSearchQuery,
    response: paged(tokenPublic),
    handler: async ({ ctx, user, query }) => {
      const page = await tokensOf(ctx).page(user!.id, query);
      return { ...page, items: await withPeriodUsage(ctx, page.items) };
    },
  });
  r.add({
    method: 'GET',
    url: '/api/token/:id',
    level: 'user',
    summary: 'One own token',
    tags,
    params: idParam,
    response: tokenPublic,
    handler: async ({ ctx, user, params }) =>
      (await withPeriodUsage(ctx, [await tokensOf(ctx).get(user!.id, params.id)]))[0]!,
  });
  r.add({
    method: 'POST',
    url: '/api/token/:id/key',
    level: 'user',
    summary: 'The full key of one own token (without sk-)',
    tags,
    params: idParam,
    response: tokenKeyAnswer,
    handler: ({ ctx, user, params, reply }) => {
      reply.header('cache-control', 'no-store');
      return tokensOf(ctx).key(user!.id, params.id);
    },
  });
  r.add({
    method: 'POST',
    url: '/api/token/batch/keys',
    level: 'user',
    summary: 'The full keys of up to 100 own tokens, by id ({keys: {id: key}}; ids that are not yours are absent)',
    tags,
    body: tokenIdsBody,
    response: tokenKeysAnswer,
    handler: ({ ctx, user, body, reply }) => {
      reply.header('cache-control', 'no-store');
      return tokensOf(ctx).keys(user!.id, body.ids);
    },
  });
  r.add({
    method: 'POST',
    url: '/api/token/batch',
    level: 'user',
    summary: 'Delete own tokens by id ({ids}); data is the count deleted (ids that are not yours are ignored)',
    tags,
    body: tokenIdsBody,
    response: z.number().int(),
    handler: ({ ctx, user, body }) => tokensOf(ctx).removeMany(user!.id, body.ids),
  });
  r.add({
    method: 'POST',
    url: '/api/token/',
    level: 'user',
    summary: 'Create count (1-100) tokens; returns them with their full keys',
    tags,
    body: createTokenBody,
    response: z.array(tokenPublic),
    successMessage: 'token created',
    handler: ({ ctx, user, body }) => tokensOf(ctx).create(user!, body),
  });
  r.add({
    method: 'PUT',
    url: '/api/token/',
    level: 'user',
    summary: 'Update an own token (fields present change); ?status_only=true changes only the status',
    tags,
    query: updateTokenQuery,
    body: updateTokenBody,
    response: tokenPublic,
    successMessage: 'token updated',
    handler: ({ ctx, user, body, query }) => tokensOf(ctx).update(user!, body, query.status_only === true),
  });
  r.add({
    method: 'DELETE',
    url: '/api/token/:id',
    level: 'user',
    summary: 'Delete an own token (its key stops working at once)',
    tags,
    params: idParam,
    successMessage: 'token deleted',
    handler: async ({ ctx, user, params }) => {
      await tokensOf(ctx).remove(user!.id, params.id);
      return undefined;
    },
  });
}
