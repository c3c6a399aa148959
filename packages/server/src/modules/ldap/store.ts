import { Role, UserStatus } from '@tollway/shared';
import type { Kysely } from 'kysely';
import type { Db } from '../../db/connect.js';
import type { Database } from '../../db/schema.js';
import { nowSeconds } from '../../lib/time.js';
import { SessionOrigins } from '../auth/session-origin.js';
import { OAuthStore } from '../oauth/store.js';
import type { UserRow } from '../users/store.js';

/** The provider key of directory accounts in user_identities (beside github, oidc, ...). */
export const LDAP_IDENTITY = 'ldap';

/** A user with live directory sessions: their directory name and their newest directory sign-in. */
export interface DirectorySessionHolder {
  userId: number;
  externalId: string;
  lastSignIn: number;
}

/**
 * SQL for directory accounts. They live in user_identities, the table that gives every third-party account to at
 * most one user (its primary key (provider, external_id) refuses a second holder), under provider 'ldap' and the
 * lower-cased LDAPUsernameAttribute value.
 */
export class LdapStore {
  constructor(private readonly db: Db) {}

  /** The user (deleted ones included) holding the directory account `externalId`. */
  findHolder(externalId: string): Promise<UserRow | undefined> {
    return this.db.kysely
      .selectFrom('user_identities')
      .innerJoin('users', 'users.id', 'user_identities.user_id')
      .selectAll('users')
      .where('user_identities.provider', '=', LDAP_IDENTITY)
      .where('user_identities.external_id', '=', externalId)
      .executeTakeFirst();
  }

  /** Records `userId` as the holder, in the caller's transaction; the unique violation when someone holds it. */
  async claim(k: Kysely<Database>, externalId: string, userId: number): Promise<void> {
    await k
      .insertInto('user_identities')
      .values({ provider: LDAP_IDENTITY, external_id: externalId, user_id: userId, created_at: nowSeconds() })
      .execute();
  }

  /** The directory account bound to `userId`, if any. */
  async externalIdOf(userId: number): Promise<string | undefined> {
    const row = await this.db.kysely
      .selectFrom('user_identities')
      .select('external_id')
      .where('provider', '=', LDAP_IDENTITY)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row?.external_id;
  }

  /**
   * Binds `externalId` to `userId` in one transaction: the user's previous directory account is released and the
   * new one claimed (the unique violation when another user holds it).
   */
  async bind(userId: number, externalId: string): Promise<void> {
    await this.db.kysely.transaction().execute(async (trx) => {
      await this.releaseIn(trx, userId);
      await this.claim(trx, externalId, userId);
    });
  }

  /** Releases the user's directory account. */
  async release(userId: number): Promise<void> {
    await this.db.kysely.transaction().execute((trx) => this.releaseIn(trx, userId));
  }

  // Read first and delete by primary key: a delete by user_id matching nothing takes gap locks on MySQL that
  // deadlock two binds running at once (as oauth/store.ts does).
  private async releaseIn(trx: Kysely<Database>, userId: number): Promise<void> {
    const rows = await trx
      .selectFrom('user_identities')
      .select('external_id')
      .where('provider', '=', LDAP_IDENTITY)
      .where('user_id', '=', userId)
      .execute();
    for (const row of rows)
      await trx
        .deleteFrom('user_identities')
        .where('provider', '=', LDAP_IDENTITY)
        .where('external_id', '=', row.external_id)
        .execute();
  }

  /** The users holding unexpired directory sessions, with their directory account and newest such sign-in. */
  async sessionHolders(now: number): Promise<DirectorySessionHolder[]> {
    const rows = await this.db.kysely
      .selectFrom('sessions')
      .innerJoin('user_identities', (j) =>
        j.onRef('user_identities.user_id', '=', 'sessions.user_id').on('user_identities.provider', '=', LDAP_IDENTITY),
      )
      .select(['sessions.user_id', 'user_identities.external_id'])
      .select((eb) => eb.fn.max('sessions.created_at').as('last'))
      .where('sessions.origin', '=', SessionOrigins.ldap)
      .where('sessions.expires_at', '>', now)
      .groupBy(['sessions.user_id', 'user_identities.external_id'])
      .execute();
    return rows.map((r) => ({ userId: Number(r.user_id), externalId: r.external_id, lastSignIn: Number(r.last) }));
  }

  /** Every live, enabled user below root with a directory account bound, and that account. */
  async boundUsers(): Promise<{ userId: number; externalId: string }[]> {
    const rows = await this.db.kysely
      .selectFrom('user_identities')
      .innerJoin('users', 'users.id', 'user_identities.user_id')
      .select(['users.id', 'user_identities.external_id'])
      .where('user_identities.provider', '=', LDAP_IDENTITY)
      .where('users.deleted_at', 'is', null)
      .where('users.status', '=', UserStatus.Enabled)
      .where('users.role', '<', Role.Root)
      .execute();
    return rows.map((r) => ({ userId: Number(r.id), externalId: r.external_id }));
  }

  /** The highest user id (0 without users), the start of `ldap_<n>` names (the query the OAuth sign-ins use). */
  maxUserId(): Promise<number> {
    return new OAuthStore(this.db).maxUserId();
  }
}
