import crypto from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { Role } from '@tollway/shared';
import type { AppContext } from '../../context.js';
import { nowSeconds } from '../../lib/time.js';
import { auditStoreOf } from '../audit/trail.js';
import { targetIdText } from '../audit/naming.js';
import type { AuthUser } from '../../core/auth-user.js';
import type { ChannelsStore } from './store.js';

/** The audit action of a search in which root named a channel by its whole key. */
export const KEY_LOOKUP_ACTION = 'channel.search_key';
const MAX_USER_AGENT = 255;
const MAX_IP = 64;

const digest = (s: string): Buffer => crypto.createHash('sha256').update(s).digest();

/**
 * Channels having `keyword` as one whole key (a multi-key channel: one of its lines). Keys are compared as
 * SHA-256 digests with a constant-time comparison, so neither a prefix nor the time taken tells anything;
 * keys sealed with CRYPTO_SECRET are opened in memory (a sealed column cannot be searched in SQL).
 */
export async function channelsWithKey(store: ChannelsStore, keyword: string): Promise<number[]> {
  const wanted = digest(keyword);
  const out: number[] = [];
  for (const row of await store.keys()) {
    let hit = false;
    for (const line of row.key.split('\n')) if (crypto.timingSafeEqual(digest(line.trim()), wanted)) hit = true;
    if (hit) out.push(row.id);
  }
  return out;
}

/**
 * Root's whole-key lookup of a channel search: the ids of the channels the keyword is a key of, each lookup that
 * found one recorded in the audit log (the key itself never is). Nobody else's keyword is compared with keys.
 */
export async function keyLookup(
  ctx: AppContext,
  req: FastifyRequest,
  user: AuthUser | undefined,
  keyword: string | undefined,
): Promise<number[]> {
  if (!keyword || !user || user.role < Role.Root) return [];
  const ids = await channelsWithKey(ctx.channels.store, keyword);
  if (ids.length === 0) return ids;
  await auditStoreOf(ctx)
    .insert({
      created_at: nowSeconds(),
      actor_id: user.id,
      actor_name: user.username,
      actor_role: user.role,
      action: KEY_LOOKUP_ACTION,
      target_type: 'channel',
      target_id: targetIdText(ids.join(',')),
      outcome: 'ok',
      ip: (req.ip ?? '').slice(0, MAX_IP),
      user_agent: String(req.headers['user-agent'] ?? '').slice(0, MAX_USER_AGENT),
      detail: JSON.stringify({ route: 'GET /api/channel/search', matched: ids.length }),
    })
    .catch((err: unknown) => ctx.log.warn({ err, action: KEY_LOOKUP_ACTION }, 'audit log write failed'));
  return ids;
}
