import { ErrorCode, loginBody, registerBody, userPublic } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { emailOf } from '../email/service.js';
import { sessionRoutes } from './session-routes.js';
import { refuseUnlessScriptCall } from '../../http/same-site.js';
import { endSession } from './sessions.js';
import { completeSignIn } from './sign-in.js';
import { SessionOrigins } from './session-origin.js';
import { requireTurnstile, turnstileQuery } from './turnstile.js';

/** Login, logout, registration and the caller's own sessions. */
export function authRoutes(r: Router): void {
  sessionRoutes(r);
  r.add({
    method: 'POST',
    url: '/api/user/login',
    level: 'public',
    rateLimit: 'critical',
    summary:
      'Log in with username (or email) and password; sets the session cookie, or (two-factor sign-in on) answers {require_2fa, flow_token, expires_at} for POST /api/user/login/2fa',
    tags: ['auth'],
    body: loginBody,
    query: z.object({ turnstile: turnstileQuery }),
    response: userPublic,
    successMessage: 'login success',
    handler: async ({ ctx, body, query, reply, req }) => {
      await requireTurnstile(ctx, req, query.turnstile);
      const user = await ctx.users.login(body.username, body.password);
      return completeSignIn(ctx, req, reply, user, SessionOrigins.password);
    },
  });
  r.add({
    method: 'GET',
    url: '/api/user/logout',
    level: 'public',
    summary:
      "Log out: ends the caller's session on every node and clears the session cookie (refused when the browser marks the request cross-site or as loading an image, frame or page)",
    tags: ['auth'],
    handler: async ({ ctx, reply, req }) => {
      refuseUnlessScriptCall(
        req,
        'log out from the console: a link on another site or an image cannot sign you out',
        ErrorCode.LogoutCrossSite,
      );
      await endSession(ctx, req, reply);
      return undefined;
    },
  });
  r.add({
    method: 'POST',
    url: '/api/user/register',
    level: 'public',
    rateLimit: 'critical',
    summary:
      'Register a new account (honours RegisterEnabled, PasswordRegisterEnabled, EmailVerificationEnabled with a mailed code, invite codes)',
    tags: ['auth'],
    body: registerBody,
    query: z.object({ turnstile: turnstileQuery }),
    successMessage: 'register success',
    handler: async ({ ctx, body, query, req }) => {
      await requireTurnstile(ctx, req, query.turnstile);
      await ctx.users.register(body, (email, code) => emailOf(ctx).consumeVerificationCode(email, code));
      return undefined;
    },
  });
}
