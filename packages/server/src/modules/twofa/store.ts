import type { Selectable } from 'kysely';
import type { Db } from '../../db/connect.js';
import { isUniqueViolation } from '../../db/unique.js';
import type { TwoFactorTable } from '../../db/schema.js';

export type TwoFactorRow = Selectable<TwoFactorTable>;

/** SQL for two-factor settings and backup codes. */
export class TwoFactorStore {
  constructor(private readonly db: Db) {}

  private get k() {
    return this.db.kysely;
  }

  find(userId: number): Promise<TwoFactorRow | undefined> {
    return this.k.selectFrom('two_factor').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  async isEnabled(userId: number): Promise<boolean> {
    const row = await this.k
      .selectFrom('two_factor')
      .select('enabled')
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(row?.enabled ?? 0) === 1;
  }

  /**
   * Replaces a setup that was never confirmed (never an enabled one) with a new secret and backup codes; false
   * while 2FA is on. Of two setups at the same moment one wins, the other is refused like an enabled one.
   */
  async startSetup(userId: number, secret: string, codeHashes: string[], now: number): Promise<boolean> {
    return this.replaceSetup(userId, secret, codeHashes, now).catch((err: unknown) => {
      if (isUniqueViolation(err)) return false;
      throw err;
    });
  }

  private replaceSetup(userId: number, secret: string, codeHashes: string[], now: number): Promise<boolean> {
    return this.k.transaction().execute(async (tx) => {
      await tx.deleteFrom('two_factor').where('user_id', '=', userId).where('enabled', '=', 0).execute();
      const enabled = await tx
        .selectFrom('two_factor')
        .select('user_id')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (enabled) return false;
      await tx.deleteFrom('two_factor_backup_codes').where('user_id', '=', userId).execute();
      await tx
        .insertInto('two_factor')
        .values({ user_id: userId, secret, enabled: 0, last_used_step: 0, created_at: now, enabled_at: 0 })
        .execute();
      await tx
        .insertInto('two_factor_backup_codes')
        .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: 0 })))
        .execute();
      return true;
    });
  }

  /** Marks `step` used when it is later than the last used one; false when a code of that step (or later) was taken. */
  async claimStep(userId: number, step: number): Promise<boolean> {
    const res = await this.k
      .updateTable('two_factor')
      .set({ last_used_step: step })
      .where('user_id', '=', userId)
      .where('last_used_step', '<', step)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Confirms a pending setup; false when there was none (or it was enabled meanwhile). */
  async enable(userId: number, now: number): Promise<boolean> {
    const res = await this.k
      .updateTable('two_factor')
      .set({ enabled: 1, enabled_at: now })
      .where('user_id', '=', userId)
      .where('enabled', '=', 0)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Removes the user's two-factor settings and codes; true when 2FA was enabled. */
  /** Deletes the user's secret (enabled or pending) and backup codes: for an account that is gone. */
  async erase(userId: number): Promise<void> {
    await this.k.transaction().execute(async (tx) => {
      await tx.deleteFrom('two_factor').where('user_id', '=', userId).execute();
      await tx.deleteFrom('two_factor_backup_codes').where('user_id', '=', userId).execute();
    });
  }

  async remove(userId: number): Promise<boolean> {
    return this.k.transaction().execute(async (tx) => {
      const res = await tx
        .deleteFrom('two_factor')
        .where('user_id', '=', userId)
        .where('enabled', '=', 1)
        .executeTakeFirst();
      if (Number(res.numDeletedRows) === 0) return false;
      await tx.deleteFrom('two_factor_backup_codes').where('user_id', '=', userId).execute();
      return true;
    });
  }

  unusedCodes(userId: number): Promise<{ id: number; code_hash: string }[]> {
    return this.k
      .selectFrom('two_factor_backup_codes')
      .select(['id', 'code_hash'])
      .where('user_id', '=', userId)
      .where('used_at', '=', 0)
      .execute();
  }

  async countUnused(userId: number): Promise<number> {
    const row = await this.k
      .selectFrom('two_factor_backup_codes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('used_at', '=', 0)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Spends one backup code; false when another request spent it first. */
  async spendCode(id: number, now: number): Promise<boolean> {
    const res = await this.k
      .updateTable('two_factor_backup_codes')
      .set({ used_at: now })
      .where('id', '=', id)
      .where('used_at', '=', 0)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async replaceCodes(userId: number, codeHashes: string[]): Promise<void> {
    await this.k.transaction().execute(async (tx) => {
      await tx.deleteFrom('two_factor_backup_codes').where('user_id', '=', userId).execute();
      await tx
        .insertInto('two_factor_backup_codes')
        .values(codeHashes.map((code_hash) => ({ user_id: userId, code_hash, used_at: 0 })))
        .execute();
    });
  }

  async countEnabled(): Promise<number> {
    const row = await this.k
      .selectFrom('two_factor')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('enabled', '=', 1)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Users not deleted (the base of the share with 2FA). */
  async countUsers(): Promise<number> {
    const row = await this.k
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
