import { logRow, periodRemaining } from '@tollway/shared';
import { z } from 'zod';
import { splitList } from '../../core/routing/channel-row.js';
import type { Router } from '../../http/route.js';
import { logsOf } from '../logs/service.js';
import { tokenOfApiKey } from './key-auth.js';
import { periodUsageOf } from './period-usage.js';

const tokenUsage = z.object({
  object: z.literal('token_usage'),
  name: z.string(),
  total_granted: z.number(),
  total_used: z.number(),
  total_available: z.number(),
  unlimited_quota: z.boolean(),
  model_limits: z.record(z.string(), z.boolean()),
  model_limits_enabled: z.boolean(),
  expires_at: z.number(),
  /** Tollway's: what is left of each period limit of the key and of its owner (empty when none is set). */
  period_limits: z.array(periodRemaining),
});

/** A token's model limit list (comma separated) as new-api answers it: model → true. */
const modelLimitsMap = (text: string): Record<string, boolean> =>
  Object.fromEntries(splitList(text).map((m) => [m, true]));

/**
 * The read-only calls new-api answers for an API key rather than a session (Authorization: Bearer sk-…): the
 * key's own usage and its latest logs. Declared public: the handler authenticates the key (key-auth.ts). Under the
 * per-address limit of sign-in, as in new-api: each call looks a presented key up in the database.
 */
export function tokenKeyRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/usage/token/',
    level: 'public',
    apiKey: true,
    rateLimit: 'critical',
    summary:
      "The API key's quota (Authorization: Bearer sk-…): granted, used, available, model limits, expiry (0: never); new-api's shape, code true",
    tags: ['tokens'],
    response: tokenUsage,
    raw: true,
    handler: async ({ ctx, req, reply }) => {
      const t = await tokenOfApiKey(ctx, req);
      const remain = Number(t.remain_quota);
      const used = Number(t.used_quota);
      const expires = Number(t.expired_time);
      const data: z.infer<typeof tokenUsage> = {
        object: 'token_usage',
        name: t.name,
        total_granted: remain + used,
        total_used: used,
        total_available: remain,
        unlimited_quota: t.unlimited_quota === 1,
        model_limits: modelLimitsMap(t.model_limits),
        model_limits_enabled: t.model_limits_enabled === 1,
        expires_at: expires === -1 ? 0 : expires,
        period_limits: await periodUsageOf(
          ctx,
          { tokenId: t.id, userId: t.user_id },
          t,
          await ctx.usersStore.findById(t.user_id),
        ),
      };
      // new-api answers this call with `code: true` where its other calls say `success`; both are sent.
      return reply.send({ success: true, code: true, message: 'ok', data });
    },
  });
  r.add({
    method: 'GET',
    url: '/api/log/token',
    level: 'public',
    apiKey: true,
    rateLimit: 'critical',
    summary: "The API key's latest 100 logs, newest first, as its owner sees them (Authorization: Bearer sk-…)",
    tags: ['logs'],
    response: z.array(logRow),
    handler: async ({ ctx, req }) => {
      const t = await tokenOfApiKey(ctx, req);
      return logsOf(ctx).recentOfToken(t.user_id, t.id);
    },
  });
}
