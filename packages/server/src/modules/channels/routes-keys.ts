import { idParam, queryBool } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { secureVerificationOf } from '../verify/service.js';
import { secureVerifyRoutes } from '../verify/routes.js';

/** new-api's default suffix of a copied channel's name. */
export const COPY_SUFFIX = '_复制';
const SUFFIX_MAX = 64;

const copyQuery = z.object({
  suffix: z.string().max(SUFFIX_MAX).optional(),
  reset_balance: queryBool.optional(),
});

/**
 * A channel's key in full (root, after a secure verification of the session) and channel copies. The step-up
 * route itself (POST /api/verify) is registered here as the key reveal is what needs it; guessing is limited
 * there (the per-address sign-in limit and the two-factor failure counts).
 */
export function channelKeyRoutes(r: Router): void {
  const tags = ['channels'];
  secureVerifyRoutes(r);
  r.add({
    method: 'POST',
    url: '/api/channel/:id/key',
    level: 'root',
    summary:
      'The full key text of a channel (every line of a multi-key channel); the session must have passed POST /api/verify within 5 minutes',
    tags,
    params: idParam,
    response: z.object({ key: z.string() }),
    audit: { action: 'channel.key_view', target: 'channel', fields: () => undefined },
    handler: async ({ ctx, req, reply, params }) => {
      await secureVerificationOf(ctx).assertVerified(req);
      const row = await ctx.channels.get(params.id);
      reply.header('cache-control', 'no-store');
      return { key: row.key };
    },
  });
  r.add({
    method: 'POST',
    url: '/api/channel/copy/:id',
    level: 'admin',
    summary: `Copy a channel with its key, models and settings; name + suffix (default ${COPY_SUFFIX}), reset_balance (default true) zeroes balance and used quota; data is {id}`,
    tags,
    params: idParam,
    query: copyQuery,
    response: z.object({ id: z.number().int() }),
    successMessage: 'channel copied',
    handler: async ({ ctx, params, query }) => ({
      id: await ctx.channels.copy(params.id, query.suffix ?? COPY_SUFFIX, query.reset_balance ?? true),
    }),
  });
}
