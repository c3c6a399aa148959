import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { requireTurnstile, turnstileQuery as turnstile } from '../auth/turnstile.js';
import { emailOf } from './service.js';

const email = z.string().max(256);

/** Mailed verification codes, binding an email, and password reset by mailed link. */
export function emailRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/verification',
    level: 'public',
    rateLimit: 'critical',
    summary:
      'Mail a 6-character verification code (valid 10 minutes, single use) to an unused address allowed by the email restrictions',
    tags: ['auth'],
    query: z.object({ email, turnstile }),
    successMessage: 'verification code sent, please check your mailbox',
    handler: async ({ ctx, query, req }) => {
      await requireTurnstile(ctx, req, query.turnstile);
      await emailOf(ctx).sendVerificationCode(query.email);
      return undefined;
    },
  });
  // new-api's console sends the email and code in the query (older) or in a JSON body (current): both bind.
  const bindInput = z.object({ email, code: z.string().max(32) });
  const bindSummary = "Set the caller's email with the code mailed to it by /api/verification";
  r.add({
    method: 'GET',
    url: '/api/oauth/email/bind',
    level: 'user',
    rateLimit: 'critical',
    summary: `${bindSummary} (email and code in the query)`,
    tags: ['self'],
    query: bindInput,
    successMessage: 'email bound',
    handler: ({ ctx, user, query }) => emailOf(ctx).bindEmail(user!.id, query.email, query.code),
  });
  r.add({
    method: 'POST',
    url: '/api/oauth/email/bind',
    level: 'user',
    rateLimit: 'critical',
    summary: `${bindSummary} (email and code in a JSON body)`,
    tags: ['self'],
    body: bindInput,
    successMessage: 'email bound',
    handler: ({ ctx, user, body }) => emailOf(ctx).bindEmail(user!.id, body.email, body.code),
  });
  r.add({
    method: 'GET',
    url: '/api/reset_password',
    level: 'public',
    rateLimit: 'critical',
    summary:
      'Mail a password reset link on ServerAddress (valid 15 minutes, single use); the same answer whether or not the address has an account; refused while ServerAddress is unset',
    tags: ['auth'],
    query: z.object({ email, turnstile }),
    successMessage: 'if an account uses this email, a reset link has been sent to it; please check your mailbox',
    handler: async ({ ctx, query, req }) => {
      await requireTurnstile(ctx, req, query.turnstile);
      await emailOf(ctx).sendPasswordReset(query.email);
      return undefined;
    },
  });
  r.add({
    method: 'POST',
    url: '/api/user/reset',
    level: 'public',
    rateLimit: 'critical',
    summary: 'Confirm a reset link: the account gets a new random password, returned in data',
    tags: ['auth'],
    body: z.object({ email: z.string().max(256), token: z.string().max(128) }),
    response: z.string(),
    successMessage: 'password reset done',
    handler: ({ ctx, body }) => emailOf(ctx).resetPassword(body.email, body.token),
  });
}
