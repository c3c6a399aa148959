import {
  affTransferBody,
  periodLimitValues,
  updateSelfBody,
  userPublic,
  userSetting,
  userSettingPatch,
} from '@tollway/shared';
import { limitSetOfValues } from '../../core/period-limits/counters.js';
import { periodLimitsOf } from '../../core/period-limits/service.js';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { sessionCookie } from '../auth/session.js';
import { sealedSessionOf, startSession } from '../auth/sessions.js';
import { SessionOrigins } from '../auth/session-origin.js';
import { toPublicUser } from './public.js';
import { openSettingSecret } from '../../lib/setting-secret.js';

/** The caller's own account: profile, password, access token, invites, notification settings. */
export function selfRoutes(r: Router): void {
  const tags = ['self'];
  r.add({
    method: 'GET',
    url: '/api/user/self',
    level: 'user',
    summary: 'The logged-in user (the only view that shows their own webhook secret)',
    tags,
    response: userPublic,
    handler: async ({ ctx, user }) => {
      const u = await ctx.users.get(user!.id);
      const limits = limitSetOfValues(periodLimitValues(u));
      return {
        ...toPublicUser(u),
        setting: openSettingSecret(u.setting, ctx.secretBox),
        ...(limits && {
          period_limits: await periodLimitsOf(ctx).remaining({
            tokenId: 0,
            userId: u.id,
            token: undefined,
            user: limits,
          }),
        }),
      };
    },
  });
  r.add({
    method: 'PUT',
    url: '/api/user/self',
    level: 'user',
    summary:
      'Update own display name or password (password change needs original_password; it ends all own sessions, and a caller signed in by cookie gets a new one)',
    tags,
    body: updateSelfBody,
    successMessage: 'user updated',
    handler: async ({ ctx, user, body, req, reply }) => {
      await ctx.users.updateSelf(user!.id, body);
      // The password change ended every session; the browser that made it stays signed in with a fresh one.
      if (body.password && sealedSessionOf(ctx, req))
        await startSession(ctx, req, reply, user!, SessionOrigins.password);
      return undefined;
    },
  });
  r.add({
    method: 'DELETE',
    url: '/api/user/self',
    level: 'user',
    summary: 'Delete own account (soft delete; history is kept)',
    tags,
    successMessage: 'account deleted',
    handler: async ({ ctx, user, reply, req }) => {
      await ctx.users.deleteSelf(user!.id);
      reply.header('set-cookie', sessionCookie('', 0, req.protocol === 'https'));
      return undefined;
    },
  });
  r.add({
    method: 'GET',
    url: '/api/user/token',
    level: 'user',
    summary: 'Generate (replace) the system access token and return it',
    tags,
    response: z.string(),
    handler: ({ ctx, user }) => ctx.users.regenerateAccessToken(user!.id),
  });
  r.add({
    method: 'GET',
    url: '/api/user/aff',
    level: 'user',
    summary: 'Own invite code',
    tags,
    response: z.string(),
    handler: ({ ctx, user }) => ctx.users.affCode(user!.id),
  });
  r.add({
    method: 'POST',
    url: '/api/user/aff_transfer',
    level: 'user',
    summary: 'Move invite rewards (aff_quota) to the balance; minimum one quota unit',
    tags,
    body: affTransferBody,
    successMessage: 'transfer completed',
    handler: async ({ ctx, user, body }) => {
      await ctx.users.transferAffQuota(user!.id, body.quota);
      return undefined;
    },
  });
  r.add({
    method: 'PUT',
    url: '/api/user/setting',
    level: 'user',
    summary: 'Notification and price settings (webhook URL must be https)',
    tags,
    body: userSettingPatch,
    response: userSetting,
    successMessage: 'settings updated',
    handler: ({ ctx, user, body }) => ctx.users.updateSetting(user!.id, body),
  });
}
