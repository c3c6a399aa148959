import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/connect.js';
import type { PasskeyCredentialsTable } from '../../db/schema-passkeys.js';

export type PasskeyRow = Selectable<PasskeyCredentialsTable>;
export type NewPasskey = Omit<Insertable<PasskeyCredentialsTable>, 'id'>;

/** SQL for passkeys: at most one per user (as new-api keeps them), found by user or by credential id. */
export class PasskeyStore {
  constructor(private readonly db: Db) {}

  private get k() {
    return this.db.kysely;
  }

  findByUser(userId: number): Promise<PasskeyRow | undefined> {
    return this.k.selectFrom('passkey_credentials').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  findByCredentialId(credentialId: string): Promise<PasskeyRow | undefined> {
    return this.k
      .selectFrom('passkey_credentials')
      .selectAll()
      .where('credential_id', '=', credentialId)
      .executeTakeFirst();
  }

  /** Stores the user's passkey in place of the one they had (a user holds one). */
  async replace(row: NewPasskey): Promise<void> {
    await this.k.transaction().execute(async (tx) => {
      await tx.deleteFrom('passkey_credentials').where('user_id', '=', row.user_id).execute();
      await tx.insertInto('passkey_credentials').values(row).execute();
    });
  }

  /**
   * Records a verified assertion: the new signature counter and the time. The counter only moves forward: false
   * when another assertion already took this counter (or a later one) meanwhile.
   */
  async recordUse(id: number, previousCount: number, signCount: number, now: number): Promise<boolean> {
    const res = await this.k
      .updateTable('passkey_credentials')
      .set({ sign_count: signCount, last_used_at: now, updated_at: now })
      .where('id', '=', id)
      .where('sign_count', '=', previousCount)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Removes the user's passkey; false when they had none. */
  async removeByUser(userId: number): Promise<boolean> {
    const res = await this.k.deleteFrom('passkey_credentials').where('user_id', '=', userId).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
