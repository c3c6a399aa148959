import type { Db } from '../../db/connect.js';
import { likeText } from '../../db/like.js';
import type { Selectable } from 'kysely';
import type { SessionsTable, UsersTable } from '../../db/schema.js';

export type SessionRow = SessionsTable;

/**
 * SQL for the sessions table. A session counts while its row exists and has not expired. Sessions are ended
 * only through auth/credential-events.ts (the credential table), or by expiry (session-prune.ts).
 */
export class SessionStore {
  constructor(private readonly db: Db) {}

  private get k() {
    return this.db.kysely;
  }

  async create(row: SessionRow): Promise<void> {
    await this.k.insertInto('sessions').values(row).execute();
  }

  /** The live (not deleted) user of the unexpired session `key` held by `uid`: one indexed query. */
  userOf(key: string, uid: number, now: number): Promise<Selectable<UsersTable> | undefined> {
    return this.k
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .selectAll('users')
      .where('sessions.id', '=', key)
      .where('sessions.user_id', '=', uid)
      .where('sessions.expires_at', '>', now)
      .where('users.deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** Ends the session `key` when it belongs to `userId`; false when there is no such session of theirs. */
  async deleteOwn(userId: number, key: string): Promise<boolean> {
    const res = await this.k
      .deleteFrom('sessions')
      .where('id', '=', key)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** Ends every session of `userId` (but `exceptKey`, when given); returns how many ended. */
  async deleteForUser(userId: number, exceptKey?: string): Promise<number> {
    let q = this.k.deleteFrom('sessions').where('user_id', '=', userId);
    if (exceptKey) q = q.where('id', '!=', exceptKey);
    const res = await q.executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /**
   * Ends the sessions signed in by `origin` (or, for a family ending in ':', by any origin it starts), of `userId`
   * alone or of everyone when it is undefined.
   */
  async deleteByOrigin(origin: string, userId?: number): Promise<number> {
    let q = origin.endsWith(':')
      ? this.k.deleteFrom('sessions').where(likeText('origin', origin, 'starts'))
      : this.k.deleteFrom('sessions').where('origin', '=', origin);
    if (userId !== undefined) q = q.where('user_id', '=', userId);
    const res = await q.executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** The user's unexpired sessions, newest first. */
  listForUser(userId: number, now: number): Promise<SessionRow[]> {
    return this.k
      .selectFrom('sessions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .execute();
  }

  /** Deletes the sessions that expired at or before `now`; returns how many. */
  async deleteExpired(now: number): Promise<number> {
    const res = await this.k.deleteFrom('sessions').where('expires_at', '<=', now).executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
