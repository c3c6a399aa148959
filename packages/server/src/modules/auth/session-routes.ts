import { ErrorCode, sessionView } from '@tollway/shared';
import { z } from 'zod';
import { notFound } from '../../lib/errors.js';
import type { Router } from '../../http/route.js';
import { nowSeconds } from '../../lib/time.js';
import { currentSessionKey, sessionStoreOf } from './sessions.js';

const sessionKeyParam = z.object({
  id: z.string().regex(/^[0-9a-f]{64}$/, 'id must be a session id from GET /api/user/sessions'),
});

/** The caller's own console sessions: list them, sign out one, or sign out all the others. */
export function sessionRoutes(r: Router): void {
  const tags = ['self'];
  r.add({
    method: 'GET',
    url: '/api/user/sessions',
    level: 'user',
    summary:
      'Own signed-in sessions (browser address and agent, how they signed in, when they started and expire), newest first',
    tags,
    response: z.array(sessionView),
    handler: async ({ ctx, user, req }) => {
      const current = currentSessionKey(ctx, req);
      const rows = await sessionStoreOf(ctx).listForUser(user!.id, nowSeconds());
      return rows.map((s) => ({
        id: s.id,
        created_at: Number(s.created_at),
        expires_at: Number(s.expires_at),
        ip: s.ip,
        user_agent: s.user_agent,
        origin: s.origin,
        current: s.id === current,
      }));
    },
  });
  r.add({
    method: 'DELETE',
    url: '/api/user/sessions',
    level: 'user',
    summary:
      'Sign out everywhere: every other session of the caller ends (the one making the call stays) and so does the access token; returns how many sessions ended',
    tags,
    response: z.number().int(),
    successMessage: 'other sessions signed out',
    handler: ({ ctx, user, req }) =>
      ctx.users.credentials.apply('sign_out_everywhere', user!.id, currentSessionKey(ctx, req)),
  });
  r.add({
    method: 'DELETE',
    url: '/api/user/sessions/:id',
    level: 'user',
    summary: 'Sign out one of the caller’s own sessions (by the id GET /api/user/sessions gives)',
    tags,
    params: sessionKeyParam,
    successMessage: 'session signed out',
    handler: async ({ ctx, user, params }) => {
      // The same event as a logout, of the session named (one of the caller's own).
      if ((await ctx.users.credentials.apply('logout', user!.id, params.id)) === 0)
        throw notFound('session not found', ErrorCode.SessionNotFound);
      return undefined;
    },
  });
}
