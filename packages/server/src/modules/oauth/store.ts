import type { Kysely } from 'kysely';
import type { Db } from '../../db/connect.js';
import type { Database } from '../../db/schema.js';
import { nowSeconds } from '../../lib/time.js';
import type { UserRow } from '../users/store.js';
import type { ProviderInfo } from './account.js';

/**
 * SQL for third-party accounts. user_identities decides who holds an account: its primary key (provider,
 * external_id) refuses a second holder, so of two sign-ins or binds racing for one account only one commits.
 * The users columns (github_id, ...) are kept equal to it for the API, in the same transaction.
 */
export class OAuthStore {
  constructor(private readonly db: Db) {}

  /** The user (deleted ones included: a deleted account keeps its bindings) holding the provider's account `id`. */
  findHolder(p: ProviderInfo, id: string): Promise<UserRow | undefined> {
    if (!id) return Promise.resolve(undefined);
    return this.db.kysely
      .selectFrom('user_identities')
      .innerJoin('users', 'users.id', 'user_identities.user_id')
      .selectAll('users')
      .where('user_identities.provider', '=', p.key)
      .where('user_identities.external_id', '=', id)
      .executeTakeFirst();
  }

  /**
   * Records that user `userId` holds the account `id`, in the caller's transaction `k`; throws the database's
   * unique violation when another user holds it.
   */
  async claim(k: Kysely<Database>, p: ProviderInfo, id: string, userId: number): Promise<void> {
    await k
      .insertInto('user_identities')
      .values({ provider: p.key, external_id: id, user_id: userId, created_at: nowSeconds() })
      .execute();
  }

  /**
   * Binds the account `id` to `userId` in one transaction: the user's previous account of this provider is
   * released, the new one claimed (throws the unique violation when another user holds it) and the column set.
   */
  async bind(p: ProviderInfo, userId: number, id: string): Promise<void> {
    await this.db.kysely.transaction().execute(async (trx) => {
      // Read first and delete by primary key: a delete by user_id that matches nothing would take gap locks on
      // MySQL that deadlock two binds running at once.
      const previous = await trx
        .selectFrom('user_identities')
        .select('external_id')
        .where('provider', '=', p.key)
        .where('user_id', '=', userId)
        .execute();
      for (const row of previous) {
        await trx
          .deleteFrom('user_identities')
          .where('provider', '=', p.key)
          .where('external_id', '=', row.external_id)
          .execute();
      }
      await this.claim(trx, p, id, userId);
      await trx
        .updateTable('users')
        .set({ [p.field]: id })
        .where('id', '=', userId)
        .execute();
    });
  }

  /** Releases the user's account of the provider: the identity row and the column, in one transaction. */
  async unbind(p: ProviderInfo, userId: number): Promise<void> {
    await this.db.kysely.transaction().execute(async (trx) => {
      // By primary key, as in bind (a delete by user_id takes gap locks on MySQL).
      const rows = await trx
        .selectFrom('user_identities')
        .select('external_id')
        .where('provider', '=', p.key)
        .where('user_id', '=', userId)
        .execute();
      for (const row of rows)
        await trx
          .deleteFrom('user_identities')
          .where('provider', '=', p.key)
          .where('external_id', '=', row.external_id)
          .execute();
      await trx
        .updateTable('users')
        .set({ [p.field]: '' })
        .where('id', '=', userId)
        .execute();
    });
  }

  /** The highest user id (0 without users), the start of `<prefix>_<n>` names. */
  async maxUserId(): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('users')
      .select((eb) => eb.fn.max('id').as('m'))
      .executeTakeFirst();
    return Number(row?.m ?? 0);
  }
}
