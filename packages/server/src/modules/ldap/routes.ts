import { ldapBindingStatus, ldapLoginBody, userPublic } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { SessionOrigins } from '../auth/session-origin.js';
import { completeSignIn } from '../auth/sign-in.js';
import { requireTurnstile, turnstileQuery } from '../auth/turnstile.js';
import { ldapOf } from './service.js';
import { ldapBindingsOf } from './binding.js';

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
  r.add({
    method: 'GET',
    url: '/api/user/ldap/binding',
    level: 'user',
    summary: "The caller's bound directory (LDAP) account: {bound, username}",
    tags: ['auth'],
    response: ldapBindingStatus,
    handler: ({ ctx, user }) => ldapBindingsOf(ctx).status(user!),
  });
  r.add({
    method: 'POST',
    url: '/api/user/ldap/binding',
    level: 'user',
    rateLimit: 'critical',
    summary:
      "Bind a directory (LDAP) account to the caller by its username and password (refused when another user holds it); the caller's previous one is released",
    tags: ['auth'],
    body: ldapLoginBody,
    response: z.object({ username: z.string() }),
    successMessage: 'bound',
    handler: ({ ctx, user, body }) => ldapBindingsOf(ctx).bind(user!, body.username, body.password),
  });
  r.add({
    method: 'DELETE',
    url: '/api/user/ldap/binding',
    level: 'user',
    summary:
      "Release the caller's directory (LDAP) account and end the sessions it signed in (refused when it is the only way to sign in)",
    tags: ['auth'],
    successMessage: 'unbound',
    handler: ({ ctx, user }) => ldapBindingsOf(ctx).unbind(user!),
  });
}
