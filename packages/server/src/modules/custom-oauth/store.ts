import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/connect.js';
import type { CustomOAuthProvidersTable } from '../../db/schema-custom-oauth.js';
import { nowSeconds } from '../../lib/time.js';
import type { UserRow } from '../users/store.js';

export type ProviderRow = Selectable<CustomOAuthProvidersTable>;
export type NewProviderRow = Omit<Insertable<CustomOAuthProvidersTable>, 'id'>;

export interface BindingRow {
  provider_id: number;
  provider_user_id: string;
}

/** SQL for custom providers and the accounts users hold with them (the client secret as stored: sealed). */
export class CustomOAuthStore {
  constructor(private readonly db: Db) {}

  private get k() {
    return this.db.kysely;
  }

  list(enabledOnly = false): Promise<ProviderRow[]> {
    let q = this.k.selectFrom('custom_oauth_providers').selectAll().orderBy('id');
    if (enabledOnly) q = q.where('enabled', '=', 1);
    return q.execute();
  }

  find(id: number): Promise<ProviderRow | undefined> {
    return this.k.selectFrom('custom_oauth_providers').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findBySlug(slug: string): Promise<ProviderRow | undefined> {
    return this.k.selectFrom('custom_oauth_providers').selectAll().where('slug', '=', slug).executeTakeFirst();
  }

  async slugTaken(slug: string, exceptId = 0): Promise<boolean> {
    const row = await this.k
      .selectFrom('custom_oauth_providers')
      .select('id')
      .where('slug', '=', slug)
      .where('id', '!=', exceptId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async insert(row: NewProviderRow): Promise<number> {
    // MySQL has no RETURNING: its insertId is the row's.
    if (this.db.dialect === 'mysql')
      return Number((await this.k.insertInto('custom_oauth_providers').values(row).executeTakeFirstOrThrow()).insertId);
    return (await this.k.insertInto('custom_oauth_providers').values(row).returning('id').executeTakeFirstOrThrow()).id;
  }

  async update(id: number, row: Partial<NewProviderRow>): Promise<void> {
    await this.k.updateTable('custom_oauth_providers').set(row).where('id', '=', id).execute();
  }

  /** Deletes the provider and every binding to it in one transaction; returns the users who held one. */
  async delete(id: number): Promise<number[]> {
    return this.k.transaction().execute(async (trx) => {
      const holders = await trx
        .selectFrom('user_oauth_bindings')
        .select('user_id')
        .where('provider_id', '=', id)
        .execute();
      await trx.deleteFrom('user_oauth_bindings').where('provider_id', '=', id).execute();
      await trx.deleteFrom('custom_oauth_providers').where('id', '=', id).execute();
      return holders.map((h) => h.user_id);
    });
  }

  /** The user (deleted ones included) holding the provider's account `externalId`. */
  findHolder(providerId: number, externalId: string): Promise<UserRow | undefined> {
    return this.k
      .selectFrom('user_oauth_bindings')
      .innerJoin('users', 'users.id', 'user_oauth_bindings.user_id')
      .selectAll('users')
      .where('user_oauth_bindings.provider_id', '=', providerId)
      .where('user_oauth_bindings.provider_user_id', '=', externalId)
      .executeTakeFirst();
  }

  bindingsOf(userId: number): Promise<BindingRow[]> {
    return this.k
      .selectFrom('user_oauth_bindings')
      .select(['provider_id', 'provider_user_id'])
      .where('user_id', '=', userId)
      .orderBy('provider_id')
      .execute();
  }

  async bindingOf(userId: number, providerId: number): Promise<BindingRow | undefined> {
    return this.k
      .selectFrom('user_oauth_bindings')
      .select(['provider_id', 'provider_user_id'])
      .where('user_id', '=', userId)
      .where('provider_id', '=', providerId)
      .executeTakeFirst();
  }

  /**
   * Binds the account to the user, replacing the user's previous account with the provider; throws the
   * database's unique violation when another user holds the account. `k` is the caller's transaction if any.
   */
  async bind(userId: number, providerId: number, externalId: string, k = this.k): Promise<void> {
    const previous = await k
      .selectFrom('user_oauth_bindings')
      .select('id')
      .where('user_id', '=', userId)
      .where('provider_id', '=', providerId)
      .executeTakeFirst();
    if (previous) await k.deleteFrom('user_oauth_bindings').where('id', '=', previous.id).execute();
    await k
      .insertInto('user_oauth_bindings')
      .values({ user_id: userId, provider_id: providerId, provider_user_id: externalId, created_at: nowSeconds() })
      .execute();
  }

  /** Releases the user's account with the provider; false when none was bound. */
  async unbind(userId: number, providerId: number): Promise<boolean> {
    const row = await this.bindingOf(userId, providerId);
    if (!row) return false;
    await this.k
      .deleteFrom('user_oauth_bindings')
      .where('user_id', '=', userId)
      .where('provider_id', '=', providerId)
      .execute();
    return true;
  }
}
