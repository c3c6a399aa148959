import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/connect.js';
import { likeText } from '../../db/like.js';
import { selectPage } from '../../db/paged-select.js';
import type { TokensTable } from '../../db/schema.js';
import type { SecretBox } from '../../lib/secret-box.js';

export type TokenRow = Selectable<TokensTable>;
export type NewToken = Insertable<TokensTable>;
export type TokenChanges = Updateable<TokensTable>;

/**
 * SQL for the tokens table. Every statement is scoped to the owner: no call reads or changes another user's token.
 * With CRYPTO_SECRET, keys are stored deterministically sealed (the relay finds them by equality) and opened here:
 * callers only see plaintext keys.
 */
export class TokensStore {
  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
  ) {}

  private open = (row: TokenRow): TokenRow => ({ ...row, key: this.box.open(row.key) });

  private get k() {
    return this.db.kysely;
  }

  private owned(userId: number) {
    return this.k.selectFrom('tokens').where('user_id', '=', userId).where('deleted_at', 'is', null);
  }

  /** How many tokens the owner has (deleted ones not counted). */
  async countOwn(userId: number): Promise<number> {
    const row = await this.owned(userId)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** The owner's tokens, newest first; `name` matches part of the name, `key` part of the key. */
  async page(
    userId: number,
    opts: { offset: number; limit: number; name?: string; key?: string },
  ): Promise<{ items: TokenRow[]; total: number }> {
    let base = this.owned(userId);
    // The caller's text is literal (db/like.ts); the search never leaves the caller's own tokens.
    if (opts.name) base = base.where(likeText('name', opts.name));
    if (opts.key && this.box.enabled) return this.pageByKeyPart(base, opts.key, opts.offset, opts.limit);
    if (opts.key) base = base.where(likeText('key', opts.key));
    const { items, total } = await selectPage(base, (q) => q.selectAll().orderBy('id', 'desc'), opts);
    return { items: items.map(this.open), total };
  }

  /** Sealed keys cannot be matched in SQL: the owner's tokens are opened and matched in memory (a user has few). */
  private async pageByKeyPart(
    base: ReturnType<TokensStore['owned']>,
    part: string,
    offset: number,
    limit: number,
  ): Promise<{ items: TokenRow[]; total: number }> {
    const all = (await base.selectAll().orderBy('id', 'desc').execute())
      .map(this.open)
      .filter((t) => t.key.includes(part));
    return { items: all.slice(offset, offset + limit), total: all.length };
  }

  /** The quota the token has used (0 for an unknown id). */
  async usedQuota(id: number): Promise<number> {
    const row = await this.k.selectFrom('tokens').select('used_quota').where('id', '=', id).executeTakeFirst();
    return Number(row?.used_quota ?? 0);
  }

  async findOwn(userId: number, id: number): Promise<TokenRow | undefined> {
    const row = await this.owned(userId).selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.open(row);
  }

  /** The live token of a presented key (without sk-), whoever owns it: the read-only calls made with a key. */
  async findByKey(key: string): Promise<TokenRow | undefined> {
    const row = await this.k
      .selectFrom('tokens')
      .selectAll()
      .where('key', '=', this.box.sealFixed(key))
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row && this.open(row);
  }

  /** The owner's live tokens among `ids` (others' and deleted ones are left out). */
  async findOwnMany(userId: number, ids: number[]): Promise<TokenRow[]> {
    const rows = await this.owned(userId).selectAll().where('id', 'in', ids).orderBy('id').execute();
    return rows.map(this.open);
  }

  /** Inserts the rows in one statement and returns them as stored (found again by their unique keys). */
  async insertMany(plain: NewToken[]): Promise<TokenRow[]> {
    const rows = plain.map((r) => ({ ...r, key: this.box.sealFixed(r.key) }));
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
    return stored.map(this.open);
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
    return row && this.box.open(row.key);
  }

  /** Changes the owner's token; false when it is not theirs or is deleted. */
  async update(userId: number, id: number, changes: TokenChanges): Promise<boolean> {
    if (Object.keys(changes).length === 0) return true;
    const res = await this.k
      .updateTable('tokens')
      .set(changes)
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async softDelete(userId: number, id: number, at: string): Promise<boolean> {
    return (await this.softDeleteMany(userId, [id], at)) === 1;
  }

  /** Soft-deletes the owner's live tokens among `ids`; returns how many. */
  async softDeleteMany(userId: number, ids: number[], at: string): Promise<number> {
    const res = await this.k
      .updateTable('tokens')
      .set({ deleted_at: at })
      .where('id', 'in', ids)
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }
}
