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

/** SQL of the low-quota warnings: users.quota_warned_at is claimed and cleared by conditional UPDATEs. */
export class QuotaWarningStore {
  constructor(private readonly db: Db) {}

  async user(id: number): Promise<WarningUser | undefined> {
    const r = await this.db.kysely
      .selectFrom('users')
      .select(['id', 'username', 'email', 'quota', 'setting', 'quota_warned_at'])
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (!r) return undefined;
    return { id: r.id, username: r.username, email: r.email ?? '', quota: Number(r.quota), setting: r.setting ?? '', warnedAt: Number(r.quota_warned_at) };
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
