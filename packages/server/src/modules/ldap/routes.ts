import { ldapLoginBody, userPublic } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { SessionOrigins } from '../auth/session-origin.js';
import { completeSignIn } from '../auth/sign-in.js';
import { requireTurnstile, turnstileQuery } from '../auth/turnstile.js';
import { ldapOf } from './service.js';

/** Directory (LDAP / Active Directory) sign-in. */
export function ldapRoutes(r: Router): void {
  r.add({
    method: 'POST',
    url: '/api/user/login/ldap',
    level: 'public',
    rateLimit: 'critical',
    summary:
      'Sign in with a directory (LDAP / Active Directory) username and password (LDAPEnabled): the user bound to the directory account, or a new one (LDAPAutoRegister), with the group and role LDAPGroupMapping / LDAPRoleMapping give; sets the session cookie, or (two-factor sign-in on) answers {require_2fa, flow_token, expires_at} for POST /api/user/login/2fa',
    tags: ['auth'],
    body: ldapLoginBody,
    query: z.object({ turnstile: turnstileQuery }),
    response: userPublic,
    successMessage: 'login success',
    handler: async ({ ctx, body, query, reply, req }) => {
      await requireTurnstile(ctx, req, query.turnstile);
      const user = await ldapOf(ctx).signIn(body.username, body.password);
      return completeSignIn(ctx, req, reply, user, SessionOrigins.ldap);
    },
  });
}
