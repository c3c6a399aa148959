import {
  idParam,
  twoFactorChallenge,
  twoFactorCodeBody,
  twoFactorLoginBody,
  twoFactorSetup,
  twoFactorStatus,
  userPublic,
} from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { currentSessionKey } from '../auth/sessions.js';
import { toPublicUser } from '../users/public.js';
import { completeTwoFactorLogin } from './login.js';
import { twoFactorOf } from './service.js';

/** Two-factor sign-in: the caller's own settings, the sign-in's second step, and administrator reset. */
export function twoFactorRoutes(r: Router): void {
  const tags = ['self'];
  r.add({
    method: 'GET',
    url: '/api/user/2fa/status',
    level: 'user',
    summary:
      'Whether two-factor sign-in is on, locked by wrong codes, how many backup codes are left, and whether it is required',
    tags,
    response: twoFactorStatus,
    handler: ({ ctx, user }) => twoFactorOf(ctx).status(user!),
  });
  r.add({
    method: 'POST',
    url: '/api/user/2fa/setup',
    level: 'user',
    summary:
      'Start (or restart) setting up two-factor sign-in: a new secret, its otpauth:// address and 10 backup codes, shown once',
    tags,
    response: twoFactorSetup,
    successMessage: 'scan the QR code with an authenticator app and enter the code to finish',
    handler: ({ ctx, user }) => twoFactorOf(ctx).setup(user!),
  });
  r.add({
    method: 'POST',
    url: '/api/user/2fa/enable',
    level: 'user',
    summary:
      "Turn two-factor sign-in on with a code from the authenticator; the user's other sessions and access token end",
    tags,
    body: twoFactorCodeBody,
    successMessage: 'two-factor authentication enabled',
    handler: async ({ ctx, user, body, req }) => {
      await twoFactorOf(ctx).enable(user!.id, body.code, req.ip);
      // Sign-ins made before (perhaps by someone holding only the password) must not outlive the switch.
      await ctx.users.credentials.apply('two_factor_enabled', user!.id, currentSessionKey(ctx, req));
      return undefined;
    },
  });
  r.add({
    method: 'POST',
    url: '/api/user/2fa/disable',
    level: 'user',
    summary: 'Turn two-factor sign-in off with a current code or a backup code',
    tags,
    body: twoFactorCodeBody,
    successMessage: 'two-factor authentication disabled',
    handler: async ({ ctx, user, body, req }) => {
      await twoFactorOf(ctx).disable(user!.id, body.code, req.ip);
      await ctx.users.credentials.apply('two_factor_disabled', user!.id, currentSessionKey(ctx, req));
      return undefined;
    },
  });
  r.add({
    method: 'POST',
    url: '/api/user/2fa/backup_codes',
    level: 'user',
    summary: 'Replace the backup codes (shown once) with a current authenticator code',
    tags,
    body: twoFactorCodeBody,
    response: z.object({ backup_codes: z.array(z.string()) }),
    successMessage: 'backup codes regenerated',
    handler: async ({ ctx, user, body, req }) => ({
      backup_codes: await twoFactorOf(ctx).regenerateBackupCodes(user!.id, body.code, req.ip),
    }),
  });
  r.add({
    method: 'POST',
    url: '/api/user/login/2fa',
    level: 'public',
    rateLimit: 'critical',
    summary: `Second step of a sign-in that answered ${JSON.stringify(Object.keys(twoFactorChallenge.shape))}: a code or backup code for the pending sign-in (flow_token, else its cookie); sets the session cookie`,
    tags: ['auth'],
    body: twoFactorLoginBody,
    response: userPublic,
    successMessage: 'login success',
    handler: async ({ ctx, body, req, reply }) =>
      toPublicUser(await completeTwoFactorLogin(ctx, req, reply, body.code, body.flow_token)),
  });
  r.add({
    method: 'GET',
    url: '/api/user/2fa/stats',
    level: 'admin',
    summary: 'How many users have two-factor sign-in on',
    tags: ['users'],
    response: z.object({ total_users: z.number().int(), enabled_users: z.number().int(), enabled_rate: z.string() }),
    handler: ({ ctx }) => twoFactorOf(ctx).stats(),
  });
  r.add({
    method: 'DELETE',
    url: '/api/user/:id/2fa',
    level: 'admin',
    summary:
      "Turn off a user's two-factor sign-in and end their sessions and access token (only for users below the caller's role)",
    tags: ['users'],
    params: idParam,
    successMessage: 'two-factor authentication of the user has been reset',
    handler: async ({ ctx, user, params }) => {
      await twoFactorOf(ctx).adminReset(user!, params.id);
      await ctx.users.credentials.apply('two_factor_reset_by_admin', params.id);
      return undefined;
    },
  });
}
