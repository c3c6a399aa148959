import { ErrorCode, UserStatus } from '@tollway/shared';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { forbidden, unauthorized } from '../../lib/errors.js';
import { tokensOf } from './service.js';
import type { TokenRow } from './store.js';

/** Longer presented keys are refused before any lookup (the relay's bound too). */
const MAX_PRESENTED_KEY = 128;
const BEARER = /^bearer\s+/i;
const KEY_PREFIX = 'sk-';

/**
 * The token of the API key in `Authorization` (Bearer and sk- optional), for the read-only calls new-api makes
 * with a key instead of a session (its TokenAuthReadOnly): the token may be disabled, expired or used up and
 * still read its own usage; its owner must not be banned. 401 without a key or with an unknown one.
 */
export async function tokenOfApiKey(ctx: AppContext, req: FastifyRequest): Promise<TokenRow> {
  const header = req.headers.authorization?.trim();
  if (!header) throw unauthorized('no API key given (Authorization: Bearer sk-…)', ErrorCode.ApiKeyMissing);
  let key = header.replace(BEARER, '').trim();
  if (key.startsWith(KEY_PREFIX)) key = key.slice(KEY_PREFIX.length);
  const token = key && key.length <= MAX_PRESENTED_KEY ? await tokensOf(ctx).store.findByKey(key) : undefined;
  if (!token) throw unauthorized('invalid API key', ErrorCode.ApiKeyInvalid);
  const owner = await ctx.usersStore.findById(token.user_id);
  if (owner?.status !== UserStatus.Enabled) throw forbidden('user has been banned', ErrorCode.UserBanned);
  return token;
}
