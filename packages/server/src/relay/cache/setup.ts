import type { AppContext } from '../../context.js';
import { DbAnswerStore } from './db-store.js';
import { RedisAnswerStore } from './redis-store.js';
import { ResponseCache } from './response-cache.js';
import { SemanticIndex } from './semantic.js';

/** The response cache, started: its answers in Redis when one is configured (shared by the cluster), else in the database. */
export async function startResponseCache(ctx: AppContext): Promise<ResponseCache> {
  const store = ctx.redis ? new RedisAnswerStore(ctx.redis, ctx.config.redisKeyPrefix) : new DbAnswerStore(ctx.db);
  const semantic = new SemanticIndex(ctx.db, ctx.bus, ctx.log);
  const cache = new ResponseCache(ctx.options, store, ctx.bus, ctx.log, semantic);
  await cache.start();
  return cache;
}
