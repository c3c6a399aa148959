import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { configuredServerAddress } from '../../lib/server-address.js';
import { identifyBySession } from '../auth/guard.js';

/**
 * The redirect_uri origin of a code exchange (built-in and root-defined providers): ServerAddress when set, else
 * where this browser came back to. It is sent only to the provider, which refuses any redirect_uri other than the one
 * its authorize step used, and is never put in a link for someone else (mailed links use lib/server-address.ts alone).
 */
export function redirectOrigin(ctx: AppContext, req: FastifyRequest): string {
  return configuredServerAddress(ctx.options) ?? `${req.protocol}://${req.host}`.replace(/\/+$/, '');
}

/** The New-Api-User header a console call carries ('' when absent): it cannot be sent by a link from another site. */
export const consoleUserHeader = (req: FastifyRequest): string => String(req.headers['new-api-user'] ?? '');

/**
 * The row key of the caller's session when a signed-in console asks (session cookie and its own New-Api-User):
 * the sign-in it starts is then a bind of that session; '' otherwise (oauth/state.ts).
 */
export async function bindingSessionKey(ctx: AppContext, req: FastifyRequest): Promise<string> {
  const session = await identifyBySession(req, ctx);
  return session && consoleUserHeader(req) === String(session.user.id) ? session.key : '';
}
