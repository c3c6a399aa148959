import type { TwoFactorChallenge } from '@tollway/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { twoFactorChallengeFor } from '../twofa/login.js';
import { toPublicUser } from '../users/public.js';
import type { UserRow } from '../users/store.js';
import type { SessionOrigin } from './session-origin.js';
import { startSession } from './sessions.js';

/**
 * The last step of every first-factor sign-in (password, directory, third-party, root-defined provider): a user with
 * two-factor sign-in on gets the pending second step, everyone else the session cookie and their public user.
 * `origin` says how they signed in; the session (now or after the second step) keeps it.
 */
export async function completeSignIn(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  user: UserRow,
  origin: SessionOrigin,
): Promise<TwoFactorChallenge | ReturnType<typeof toPublicUser>> {
  const challenge = await twoFactorChallengeFor(ctx, req, reply, user, origin);
  if (challenge) return challenge;
  await startSession(ctx, req, reply, user, origin);
  return toPublicUser(user);
}
