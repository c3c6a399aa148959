import { LogType } from '@tollway/shared';
import { Redis } from 'ioredis';
import type { Db } from '../../src/db/connect.js';
import type { CallOutcome, TokenKind } from './crash-load.js';

/** The ids whose balances the crash test follows. */
export interface Accounts {
  userId: number;
  channelId: number;
  tokens: Record<TokenKind, number>;
}

/** Counters of the followed rows, as the database holds them. */
export interface Counters {
  userQuota: number;
  userUsed: number;
  requestCount: number;
  limitedRemain: number;
  limitedUsed: number;
  unlimitedUsed: number;
  channelUsed: number;
}

interface ConsumeRow {
  request_id: string;
  quota: number;
  token_id: number;
  channel_id: number;
}

export async function readCounters(db: Db, a: Accounts): Promise<Counters> {
  const k = db.kysely;
  const user = await k
    .selectFrom('users')
    .select(['quota', 'used_quota', 'request_count'])
    .where('id', '=', a.userId)
    .executeTakeFirstOrThrow();
  const limited = await k
    .selectFrom('tokens')
    .select(['remain_quota', 'used_quota'])
    .where('id', '=', a.tokens.limited)
    .executeTakeFirstOrThrow();
  const unlimited = await k
    .selectFrom('tokens')
    .select(['used_quota'])
    .where('id', '=', a.tokens.unlimited)
    .executeTakeFirstOrThrow();
  const channel = await k
    .selectFrom('channels')
    .select(['used_quota'])
    .where('id', '=', a.channelId)
    .executeTakeFirstOrThrow();
  return {
    userQuota: Number(user.quota),
    userUsed: Number(user.used_quota),
    requestCount: Number(user.request_count),
    limitedRemain: Number(limited.remain_quota),
    limitedUsed: Number(limited.used_quota),
    unlimitedUsed: Number(unlimited.used_quota),
    channelUsed: Number(channel.used_quota),
  };
}

async function consumeRows(db: Db, userId: number): Promise<ConsumeRow[]> {
  const rows = await db.kysely
    .selectFrom('logs')
    .select(['request_id', 'quota', 'token_id', 'channel_id'])
    .where('type', '=', LogType.Consume)
    .where('user_id', '=', userId)
    .execute();
  return rows.map((r) => ({
    request_id: r.request_id,
    quota: Number(r.quota),
    token_id: Number(r.token_id),
    channel_id: Number(r.channel_id),
  }));
}

/**
 * What went wrong with billing across the crashes; every field is 0 when each delivered call is billed exactly
 * once and nothing else is billed beyond its reservation.
 */
export interface BillingAudit {
  /** Delivered answers that carried no request id header. */
  deliveredWithoutRequestId: number;
  /** Delivered calls minus consume rows, when there are fewer rows (counts alone, ids aside). */
  rowsShortOfDelivered: number;
  /** Delivered calls with no consume row of their id. */
  deliveredNotBilled: number;
  /** Request ids with two or more consume rows. */
  billedTwice: number;
  /** Consume rows with an empty request_id. */
  rowsWithoutRequestId: number;
  /** Rows charging more than their call's reservation could be. */
  rowsOverReservation: number;
  /** Rows of calls the client never saw answered, beyond the number of calls cut before any answer. */
  rowsOfUnseenCalls: number;
  /** Complete error answers (non-200) with a consume row. */
  errorAnswersBilled: number;
}

/** How the billed rows sum up: what the counters should read. */
export interface Billed {
  rows: number;
  total: number;
  byToken: Record<TokenKind, number>;
  /** Rows naming the channel (a call billed on recovery may name none: it had not reached one). */
  byChannel: number;
}

export async function auditBilling(
  db: Db,
  a: Accounts,
  outcomes: CallOutcome[],
  bound: (o: CallOutcome) => number,
): Promise<{ audit: BillingAudit; billed: Billed }> {
  const rows = await consumeRows(db, a.userId);
  const byId = new Map<string, ConsumeRow[]>();
  for (const r of rows) byId.set(r.request_id, [...(byId.get(r.request_id) ?? []), r]);
  const known = new Map<string, CallOutcome>();
  for (const o of outcomes) if (o.id) known.set(o.id, o);
  const delivered = outcomes.filter((o) => o.kind === 'delivered');
  const maxBound = Math.max(0, ...outcomes.map(bound));
  const unseenRows = rows.filter((r) => r.request_id && !known.has(r.request_id)).length;
  const cutBeforeAnswer = outcomes.filter((o) => o.kind === 'cut' && !o.id).length;
  const audit: BillingAudit = {
    deliveredWithoutRequestId: delivered.filter((o) => !o.id).length,
    rowsShortOfDelivered: Math.max(0, delivered.length - rows.length),
    deliveredNotBilled: delivered.filter((o) => o.id && !byId.has(o.id)).length,
    billedTwice: [...byId.entries()].filter(([id, rs]) => id && rs.length > 1).length,
    rowsWithoutRequestId: byId.get('')?.length ?? 0,
    rowsOverReservation: rows.filter(
      (r) => r.quota > (known.has(r.request_id) ? bound(known.get(r.request_id)!) : maxBound),
    ).length,
    rowsOfUnseenCalls: Math.max(0, unseenRows - cutBeforeAnswer),
    errorAnswersBilled: outcomes.filter((o) => o.kind === 'error' && o.id && byId.has(o.id)).length,
  };
  const sum = (rs: ConsumeRow[]) => rs.reduce((s, r) => s + r.quota, 0);
  const ofToken = (id: number) => sum(rows.filter((r) => r.token_id === id));
  const billed: Billed = {
    rows: rows.length,
    total: sum(rows),
    byToken: { limited: ofToken(a.tokens.limited), unlimited: ofToken(a.tokens.unlimited) },
    byChannel: sum(rows.filter((r) => r.channel_id === a.channelId)),
  };
  return { audit, billed };
}

/** The counters the billed rows call for, from the counters before any load. */
export function expectedCounters(initial: Counters, billed: Billed): Counters {
  return {
    userQuota: initial.userQuota - billed.total,
    userUsed: initial.userUsed + billed.total,
    requestCount: initial.requestCount + billed.rows,
    limitedRemain: initial.limitedRemain - billed.byToken.limited,
    limitedUsed: initial.limitedUsed + billed.byToken.limited,
    unlimitedUsed: initial.unlimitedUsed + billed.byToken.unlimited,
    channelUsed: initial.channelUsed + billed.byChannel,
  };
}

/** Spendable balances in Redis (the hashes' `b`), undefined where Redis holds none. */
export interface RedisBalances {
  user: number | undefined;
  limitedToken: number | undefined;
}

export async function readRedisBalances(url: string, prefix: string, a: Accounts): Promise<RedisBalances> {
  const redis = new Redis(url);
  try {
    const [u, t] = await Promise.all([
      redis.hget(`${prefix}bal:u:${a.userId}`, 'b'),
      redis.hget(`${prefix}bal:t:${a.tokens.limited}`, 'b'),
    ]);
    return { user: u === null ? undefined : Number(u), limitedToken: t === null ? undefined : Number(t) };
  } finally {
    redis.disconnect();
  }
}

/** The spendable balances in Redis beside the database's, once they agree or at `timeoutMs`. */
export async function untilRedisAgrees(
  redis: { url: string; prefix: string },
  db: Db,
  a: Accounts,
  o: { timeoutMs: number; pollMs: number },
): Promise<{ redis: RedisBalances; database: RedisBalances }> {
  const deadline = Date.now() + o.timeoutMs;
  for (;;) {
    const [inRedis, counters] = await Promise.all([readRedisBalances(redis.url, redis.prefix, a), readCounters(db, a)]);
    const database = { user: counters.userQuota, limitedToken: counters.limitedRemain };
    if ((inRedis.user === database.user && inRedis.limitedToken === database.limitedToken) || Date.now() > deadline)
      return { redis: inRedis, database };
    await new Promise((r) => setTimeout(r, o.pollMs));
  }
}
