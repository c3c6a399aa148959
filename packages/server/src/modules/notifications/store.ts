import type { Db } from '../../db/connect.js';

/** What deciding and sending a low-quota warning needs of a user. */
export interface WarningUser {
  id: number;
  username: string;
  email: string;
  /** The committed balance. */
  quota: number;
  setting: string;
  /** Unix seconds of the last warning; 0 while armed. */
  warnedAt: number;
}

const USERS_PER_SELECT = 500;

/** SQL of the low-quota warnings: users.quota_warned_at is claimed and cleared by conditional UPDATEs. */
export class QuotaWarningStore {
  constructor(private readonly db: Db) {}

  /** The live users among `ids`, read in chunks of a few hundred ids. */
  async users(ids: number[]): Promise<WarningUser[]> {
    const out: WarningUser[] = [];
    for (let i = 0; i < ids.length; i += USERS_PER_SELECT) {
      const rows = await this.db.kysely
        .selectFrom('users')
        .select(['id', 'username', 'email', 'quota', 'setting', 'quota_warned_at'])
        .where('id', 'in', ids.slice(i, i + USERS_PER_SELECT))
        .where('deleted_at', 'is', null)
        .execute();
      for (const r of rows)
        out.push({
          id: r.id,
          username: r.username,
          email: r.email ?? '',
          quota: Number(r.quota),
          setting: r.setting ?? '',
          warnedAt: Number(r.quota_warned_at),
        });
    }
    return out;
  }

  /**
   * Marks the user warned at `now` when they are armed and their balance is below `threshold`, in one
   * statement: true for exactly one caller however many nodes try at once.
   */
  async claim(id: number, threshold: number, now: number): Promise<boolean> {
    const res = await this.db.kysely
      .updateTable('users')
      .set({ quota_warned_at: now })
      .where('id', '=', id)
      .where('quota_warned_at', '=', 0)
      .where('quota', '<', threshold)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  /** Arms the user again when their balance is at or above `threshold`; true when it was disarmed. */
  async rearm(id: number, threshold: number): Promise<boolean> {
    const res = await this.db.kysely
      .updateTable('users')
      .set({ quota_warned_at: 0 })
      .where('id', '=', id)
      .where('quota_warned_at', '<>', 0)
      .where('quota', '>=', threshold)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }
}
