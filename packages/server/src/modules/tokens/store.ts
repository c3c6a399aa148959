import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/connect.js';
import type { TokensTable } from '../../db/schema.js';

export type TokenRow = Selectable<TokensTable>;
export type NewToken = Insertable<TokensTable>;
export type TokenChanges = Updateable<TokensTable>;

/** SQL for the tokens table. Every statement is scoped to the owner: no call reads or changes another user's token. */
export class TokensStore {
  constructor(private readonly db: Db) {}

  private get k() {
    return this.db.kysely;
  }

  private owned(userId: number) {
    return this.k.selectFrom('tokens').where('user_id', '=', userId).where('deleted_at', 'is', null);
  }

  /** The owner's tokens, newest first; `name` matches part of the name, `key` part of the key. */
  async page(userId: number, opts: { offset: number; limit: number; name?: string; key?: string }): Promise<{ items: TokenRow[]; total: number }> {
    let base = this.owned(userId);
    // LIKE wildcards typed by the caller act as wildcards; the search never leaves the caller's own tokens.
    if (opts.name) base = base.where('name', 'like', `%${opts.name}%`);
    if (opts.key) base = base.where('key', 'like', `%${opts.key}%`);
    const [items, count] = await Promise.all([
      base.selectAll().orderBy('id', 'desc').limit(opts.limit).offset(opts.offset).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items, total: Number(count.n) };
  }

  findOwn(userId: number, id: number): Promise<TokenRow | undefined> {
    return this.owned(userId).selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Inserts the rows in one statement and returns them as stored (found again by their unique keys). */
  async insertMany(rows: NewToken[]): Promise<TokenRow[]> {
    await this.k.insertInto('tokens').values(rows).execute();
    const stored = await this.k
      .selectFrom('tokens')
      .selectAll()
      .where(
        'key',
        'in',
        rows.map((r) => r.key),
      )
      .orderBy('id')
      .execute();
    return stored;
  }

  /** The key of the owner's oldest token that can be used now (enabled, not expired, quota left); the playground bills it. */
  async usableKey(userId: number, now: number): Promise<string | undefined> {
    const row = await this.owned(userId)
      .select('key')
      .where('status', '=', 1)
      .where((eb) => eb.or([eb('expired_time', '=', -1), eb('expired_time', '>', now)]))
      .where((eb) => eb.or([eb('unlimited_quota', '=', 1), eb('remain_quota', '>', 0)]))
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return row?.key;
  }

  /** Changes the owner's token; false when it is not theirs or is deleted. */
  async update(userId: number, id: number, changes: TokenChanges): Promise<boolean> {
    if (Object.keys(changes).length === 0) return true;
    const res = await this.k.updateTable('tokens').set(changes).where('id', '=', id).where('user_id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async softDelete(userId: number, id: number, at: string): Promise<boolean> {
    const res = await this.k
      .updateTable('tokens')
      .set({ deleted_at: at })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }
}
