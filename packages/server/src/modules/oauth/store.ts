import type { Db } from '../../db/connect.js';
import type { UserRow } from '../users/store.js';
import type { ExternalIdField } from './account.js';

/** SQL for third-party account ids on the users table. */
export class OAuthStore {
  constructor(private readonly db: Db) {}

  /** The user (deleted ones included: a deleted account keeps its bindings) holding `id` in `field`. */
  findByExternalId(field: ExternalIdField, id: string): Promise<UserRow | undefined> {
    if (!id) return Promise.resolve(undefined);
    return this.db.kysely.selectFrom('users').selectAll().where(field, '=', id).orderBy('id').executeTakeFirst();
  }

  async bind(userId: number, field: ExternalIdField, id: string): Promise<void> {
    await this.db.kysely
      .updateTable('users')
      .set({ [field]: id })
      .where('id', '=', userId)
      .execute();
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
