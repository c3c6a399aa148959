import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { pino, type Logger } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { migrateToLatest } from '../../src/db/migrate.js';
import { balanceMetrics } from '../../src/accounting/balance-metrics.js';
import type { BalanceKind, Hold, LedgerRecord } from '../../src/accounting/ledger.js';
import { RedisLedger, type RedisLedgerOptions } from '../../src/accounting/redis-ledger.js';
import { REDIS_CLIENT_OPTIONS } from '../../src/lib/cluster-bus.js';
import { createTestDatabase, type TestDatabase } from './databases.js';
import { dropRedisKeys, newRedisPrefix, TEST_REDIS } from './redis.js';
import { planBalanceLoader } from '../../src/core/subscriptions/balances.js';
import { tokenRow } from './token-row.js';
import { userRow } from './user-row.js';

/** Log lines a ledger wrote (parsed pino JSON). */
export type LogLine = Record<string, unknown> & { msg: string; level: number };

export function capturingLog(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) });
  return { log, lines };
}

/**
 * Redis ledgers over a real PostgreSQL database and Redis (a prefix of the suite's own), with one funded user
 * and one limited token. `commit` plays the durable writer's part: the ledger's hooks around a transaction
 * that subtracts the records' charges, as accounting/writer.ts does.
 */
export interface LedgerWorld {
  database: TestDatabase;
  redis: Redis;
  prefix: string;
  userId: number;
  tokenId: number;
  /** The user's subscription (user_subscriptions.id) holding `quota` per period: the ledger's plan balance. */
  planId: number;
  ledger(opts?: RedisLedgerOptions): RedisLedger;
  /** `lagMs`: a pause between the transaction and the ledger's `committed` (a busy event loop). */
  commit(ledger: RedisLedger, records: LedgerRecord[], opts?: { fail?: boolean; lagMs?: number }): Promise<void>;
  /** The database value of a balance. */
  db(kind: BalanceKind, id: number): Promise<number>;
  /** The Redis hash of a balance. */
  hash(kind: BalanceKind, id: number): Promise<Record<string, string>>;
  key(kind: BalanceKind, id: number): string;
  /** Stops every ledger made so far, empties the prefix and funds the user and token again. */
  reset(): Promise<void>;
}

/** The value of a balance metric's counter for one kind of balance. */
export async function counter(c: typeof balanceMetrics.repairs, kind: string): Promise<number> {
  return (await c.get()).values.find((v) => v.labels.kind === kind)?.value ?? 0;
}

/** Polls `check` until it holds (or fails after `timeoutMs`). */
export async function until(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Σ of the hash's outstanding fields (`o:<node>`), optionally of the given nodes only. */
export function outstanding(h: Record<string, string>, nodes?: string[]): number {
  return Object.entries(h)
    .filter(([f]) => f.startsWith('o:') && (!nodes || nodes.includes(f.slice(2))))
    .reduce((n, [, v]) => n + Number(v), 0);
}

/** The write record of a settled call charged to the user and the token. */
export function charged(w: LedgerWorld, quota: number, lease: Hold): LedgerRecord {
  return { userId: w.userId, tokenId: w.tokenId, tokenLimited: true, quota, lease };
}

export function useLedgerWorld(quota: number): LedgerWorld {
  const prefix = newRedisPrefix();
  const ledgers: RedisLedger[] = [];
  const w: Partial<LedgerWorld> = { prefix };
  const key = (kind: BalanceKind, id: number) =>
    `${prefix}bal:${kind === 'users' ? 'u' : kind === 'tokens' ? 't' : 'p'}:${id}`;
  beforeAll(async () => {
    const database = await createTestDatabase('postgres');
    await migrateToLatest(database.db);
    const k = database.db.kysely;
    const user = await k
      .insertInto('users')
      .values(userRow('ledger', { quota, aff_code: 'ledger' }))
      .returning('id')
      .executeTakeFirstOrThrow();
    const token = await k
      .insertInto('tokens')
      .values(
        tokenRow('ledger-token-key', {
          user_id: user.id,
          name: 't',
          remain_quota: quota,
          rate_limit_period: 0,
          rate_limit_count: 0,
          rate_limit_success: 0,
        }),
      )
      .returning('id')
      .executeTakeFirstOrThrow();
    const plan = await k
      .insertInto('user_subscriptions')
      .values({
        user_id: user.id,
        plan_id: 1,
        amount_total: quota,
        amount_used: 0,
        start_time: 0,
        end_time: 4_102_444_800,
        status: 'active',
        source: 'admin',
        last_reset_time: 0,
        next_reset_time: 0,
        upgrade_group: '',
        prev_user_group: '',
        created_at: 0,
        updated_at: 0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const loadPlans = planBalanceLoader(database.db);
    const loadUsers = async (ids: number[]) =>
      new Map(
        (
          await k
            .selectFrom('users')
            .select(['id', 'quota'])
            .where('id', 'in', ids)
            .where('deleted_at', 'is', null)
            .execute()
        ).map((r) => [r.id, Number(r.quota)]),
      );
    const loadTokens = async (ids: number[]) =>
      new Map(
        (await k.selectFrom('tokens').select(['id', 'remain_quota']).where('id', 'in', ids).execute()).map((r) => [
          r.id,
          Number(r.remain_quota),
        ]),
      );
    // The client as the server configures it (auto-pipelined), so concurrent scripts share writes as in production.
    const redis = new Redis(TEST_REDIS, REDIS_CLIENT_OPTIONS);
    Object.assign(w, {
      database,
      redis,
      userId: user.id,
      tokenId: token.id,
      planId: plan.id,
      key,
      ledger(opts: RedisLedgerOptions = {}) {
        const l = new RedisLedger(redis, prefix, loadUsers, loadTokens, { loadPlans, ...opts });
        ledgers.push(l);
        return l;
      },
      async commit(ledger: RedisLedger, records: LedgerRecord[], opts: { fail?: boolean; lagMs?: number } = {}) {
        // The writer logs a failed fence and goes ahead.
        await ledger.beforeCommit(records).catch(() => undefined);
        try {
          await k.transaction().execute(async (trx) => {
            for (const r of records) {
              if (r.planId)
                await trx
                  .updateTable('user_subscriptions')
                  .set({ amount_used: sql`amount_used + ${r.quota}` })
                  .where('id', '=', r.planId)
                  .execute();
              else
                await trx
                  .updateTable('users')
                  .set({ quota: sql`quota - ${r.quota}` })
                  .where('id', '=', r.userId)
                  .execute();
              if (r.tokenLimited)
                await trx
                  .updateTable('tokens')
                  .set({ remain_quota: sql`remain_quota - ${r.quota}` })
                  .where('id', '=', r.tokenId)
                  .execute();
            }
            if (opts.fail) throw new Error('commit refused (test)');
          });
        } catch (err) {
          ledger.commitFailed(records);
          throw err;
        }
        if (opts.lagMs) await new Promise((r) => setTimeout(r, opts.lagMs));
        ledger.committed(records);
        await ledger.whenReleased();
      },
      async db(kind: BalanceKind, id: number) {
        if (kind === 'plans') return (await loadPlans([id])).get(id)!;
        if (kind === 'users')
          return Number(
            (await k.selectFrom('users').select('quota').where('id', '=', id).executeTakeFirstOrThrow()).quota,
          );
        return Number(
          (await k.selectFrom('tokens').select('remain_quota').where('id', '=', id).executeTakeFirstOrThrow())
            .remain_quota,
        );
      },
      hash: (kind: BalanceKind, id: number) => redis.hgetall(key(kind, id)),
      async reset() {
        for (const l of ledgers.splice(0)) await l.stop().catch(() => undefined);
        await dropRedisKeys(prefix);
        await k.updateTable('users').set({ quota, deleted_at: null }).where('id', '=', user.id).execute();
        await k.updateTable('tokens').set({ remain_quota: quota }).where('id', '=', token.id).execute();
        await k.updateTable('user_subscriptions').set({ amount_used: 0 }).where('id', '=', plan.id).execute();
      },
    } satisfies Omit<LedgerWorld, 'prefix'>);
  }, 60_000);
  afterAll(async () => {
    for (const l of ledgers) await l.stop().catch(() => undefined);
    w.redis?.disconnect();
    await w.database?.drop();
    await dropRedisKeys(prefix);
  });
  return w as LedgerWorld;
}
