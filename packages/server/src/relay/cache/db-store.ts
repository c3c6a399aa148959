import type { Db } from '../../db/connect.js';
import { isUniqueViolation } from '../../db/unique.js';
import { SqliteAnswerStatements, type AnswerRow } from './sqlite-statements.js';
import { usageOf, usageText, type AnswerStore, type CachedAnswer, type StoredKey } from './store.js';

const toSeconds = (ms: number): number => Math.ceil(ms / 1000);
/** Stores between two deletions of expired answers (the table is counted again then). */
const PRUNE_EVERY = 256;

/**
 * Cached answers in the main database's `response_cache` table (SQLite, PostgreSQL, MySQL). Expiry is in whole
 * seconds (rounded up); a read never returns an answer past it. The table is counted when it may be over
 * `maxEntries` (this node's count of it says so) and every PRUNE_EVERY stores, not on each one.
 */
export class DbAnswerStore implements AnswerStore {
  /** The table's rows as last counted plus the answers inserted since (undefined: not counted yet). */
  private rows: number | undefined;
  private sincePrune = 0;
  /** On SQLite, the read and the write as statements prepared once (Kysely compiles and prepares per call). */
  private readonly sqlite: SqliteAnswerStatements | undefined;

  constructor(private readonly db: Db) {
    this.sqlite = db.sqlite && new SqliteAnswerStatements(db.sqlite);
  }

  async get(key: string, now: number): Promise<CachedAnswer | undefined> {
    const row: AnswerRow | undefined = this.sqlite
      ? this.sqlite.read(key)
      : await this.db.kysely
          .selectFrom('response_cache')
          .select(['model', 'status', 'content_type', 'body', 'usage', 'expires_at'])
          .where('cache_key', '=', key)
          .executeTakeFirst();
    if (!row || Number(row.expires_at) * 1000 <= now) return undefined;
    return {
      model: row.model,
      status: Number(row.status),
      contentType: row.content_type,
      body: row.body,
      usage: usageOf(row.usage),
      expiresAt: Number(row.expires_at) * 1000,
    };
  }

  async put(key: string, a: CachedAnswer, maxEntries: number): Promise<StoredKey[]> {
    const k = this.db.kysely;
    const values = {
      model: a.model,
      status: a.status,
      content_type: a.contentType,
      body: a.body,
      usage: usageText(a.usage),
      bytes: Buffer.byteLength(a.body),
      created_at: Math.floor(Date.now() / 1000),
      expires_at: toSeconds(a.expiresAt),
    };
    // A transaction open on SQLite's one connection (the writer's batch, between its slices) would take a write on
    // the handle as its own, and undo it with a rollback: the answer then goes through Kysely, after the commit.
    if (this.sqlite && !this.db.sqlite!.inTransaction) {
      if (this.sqlite.write(key, values) && this.rows !== undefined) this.rows++;
    } else
      try {
        await k
          .insertInto('response_cache')
          .values({ cache_key: key, ...values })
          .execute();
        if (this.rows !== undefined) this.rows++;
      } catch (err) {
        // Another call (or node) stored the same request first: its row takes this answer.
        if (!isUniqueViolation(err)) throw err;
        await k.updateTable('response_cache').set(values).where('cache_key', '=', key).execute();
      }
    // The table is counted (and its expired answers deleted) only when it may be full, or every PRUNE_EVERY stores.
    if (this.rows !== undefined && this.rows <= maxEntries && ++this.sincePrune < PRUNE_EVERY) return [];
    return this.prune(maxEntries);
  }

  /** Drops expired answers, then those soonest to expire past `maxEntries`; returns the keys it dropped. */
  private async prune(maxEntries: number): Promise<StoredKey[]> {
    const k = this.db.kysely;
    this.sincePrune = 0;
    const now = Math.floor(Date.now() / 1000);
    await k.deleteFrom('response_cache').where('expires_at', '<=', now).execute();
    const { n } = await k
      .selectFrom('response_cache')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    this.rows = Number(n);
    const excess = this.rows - maxEntries;
    if (excess <= 0) return [];
    const oldest = await k
      .selectFrom('response_cache')
      .select(['id', 'cache_key', 'expires_at'])
      .orderBy('expires_at', 'asc')
      .orderBy('id', 'asc')
      .limit(excess)
      .execute();
    await k
      .deleteFrom('response_cache')
      .where(
        'id',
        'in',
        oldest.map((r) => r.id),
      )
      .execute();
    this.rows -= oldest.length;
    return oldest.map((r) => ({ key: r.cache_key, expiresAt: Number(r.expires_at) * 1000 }));
  }

  async delete(key: string): Promise<void> {
    await this.db.kysely.deleteFrom('response_cache').where('cache_key', '=', key).execute();
  }

  async keys(now: number, limit: number): Promise<StoredKey[]> {
    const rows = await this.db.kysely
      .selectFrom('response_cache')
      .select(['cache_key', 'expires_at'])
      .where('expires_at', '>', Math.floor(now / 1000))
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ key: r.cache_key, expiresAt: Number(r.expires_at) * 1000 }));
  }
}
