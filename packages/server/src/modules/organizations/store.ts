import { OrgStatus, type OrgRole } from '@tollway/shared';
import type { Kysely, Selectable } from 'kysely';
import type { Db } from '../../db/connect.js';
import { likeText } from '../../db/like.js';
import type { Database } from '../../db/schema.js';
import type { OrgMembersTable } from '../../db/schema-organizations.js';
import { newUserRow } from '../users/store.js';
import type { OrgRow } from './access.js';

export type MemberRow = Selectable<OrgMembersTable>;

/** A member with the account fields the member list shows. */
export interface MemberView extends MemberRow {
  username: string;
  display_name: string;
  email: string;
}

/** The wallet account's username: `@` never appears in a person's username (newUsername), so none can take it. */
export const walletUsername = (orgId: number): string => `org@${orgId}`;

/** Inserts a row and answers its id (MySQL: insertId; the others: RETURNING). */
export async function insertId<T extends keyof Database & string>(
  db: Db,
  k: Kysely<Database>,
  table: T,
  values: Record<string, unknown>,
): Promise<number> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one helper for every table of this module
  const q = k.insertInto(table).values(values as any);
  if (db.dialect === 'mysql') return Number((await q.executeTakeFirstOrThrow()).insertId);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const row = (await (q as any).returning('id').executeTakeFirstOrThrow()) as { id: number };
  return Number(row.id);
}

/** SQL of organizations and their members. */
export class OrganizationsStore {
  constructor(readonly db: Db) {}

  private get k(): Kysely<Database> {
    return this.db.kysely;
  }

  /**
   * Creates an organization, its wallet account (users.org_id, no password, the creator's group) and the creator as
   * its owner, all or nothing.
   */
  async create(name: string, creator: { id: number; group: string }, now: number): Promise<number> {
    return this.k.transaction().execute(async (trx) => {
      const orgId = await insertId(this.db, trx, 'organizations', {
        name,
        wallet_user_id: 0,
        status: OrgStatus.Enabled,
        created_by: creator.id,
        created_at: now,
      });
      const walletId = await insertId(
        this.db,
        trx,
        'users',
        newUserRow({
          username: walletUsername(orgId),
          // No password: nobody signs in to a wallet account (and no session opens on one).
          password: '',
          display_name: name,
          group: creator.group || 'default',
          aff_code: `org${orgId}w`,
          created_at: now,
          org_id: orgId,
        }),
      );
      await trx.updateTable('organizations').set({ wallet_user_id: walletId }).where('id', '=', orgId).execute();
      await trx
        .insertInto('org_members')
        .values({ org_id: orgId, user_id: creator.id, role: 'owner', created_at: now })
        .execute();
      return orgId;
    });
  }

  countCreatedBy(userId: number): Promise<number> {
    return this.k
      .selectFrom('organizations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('created_by', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  /** The organizations `userId` belongs to, with their role. */
  ofMember(userId: number): Promise<(OrgRow & { role: string })[]> {
    return this.k
      .selectFrom('org_members as m')
      .innerJoin('organizations as o', 'o.id', 'm.org_id')
      .selectAll('o')
      .select('m.role')
      .where('m.user_id', '=', userId)
      .where('o.deleted_at', 'is', null)
      .orderBy('o.id')
      .execute();
  }

  /** Every organization (system admins), newest first, optionally by name. */
  async page(offset: number, limit: number, keyword: string): Promise<{ rows: OrgRow[]; total: number }> {
    let q = this.k.selectFrom('organizations').where('deleted_at', 'is', null);
    if (keyword) q = q.where(likeText('name', keyword, 'contains'));
    const [rows, total] = await Promise.all([
      q.selectAll().orderBy('id', 'desc').offset(offset).limit(limit).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(total.n) };
  }

  /** Wallet balances of organizations by wallet account id. */
  async wallets(ids: number[]): Promise<Map<number, { quota: number; used_quota: number; status: number }>> {
    if (!ids.length) return new Map();
    const rows = await this.k
      .selectFrom('users')
      .select(['id', 'quota', 'used_quota', 'status'])
      .where('id', 'in', ids)
      .execute();
    return new Map(
      rows.map((r) => [r.id, { quota: Number(r.quota), used_quota: Number(r.used_quota), status: r.status }]),
    );
  }

  async memberCounts(orgIds: number[]): Promise<Map<number, number>> {
    if (!orgIds.length) return new Map();
    const rows = await this.k
      .selectFrom('org_members')
      .select(['org_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('org_id', 'in', orgIds)
      .groupBy('org_id')
      .execute();
    return new Map(rows.map((r) => [r.org_id, Number(r.n)]));
  }

  async update(orgId: number, fields: Partial<Omit<OrgRow, 'id'>>): Promise<void> {
    if (Object.keys(fields).length === 0) return;
    await this.k.updateTable('organizations').set(fields).where('id', '=', orgId).execute();
  }

  members(orgId: number): Promise<MemberView[]> {
    return this.k
      .selectFrom('org_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .selectAll('m')
      .select(['u.username', 'u.display_name', 'u.email'])
      .where('m.org_id', '=', orgId)
      .orderBy('m.id')
      .execute();
  }

  member(orgId: number, userId: number): Promise<MemberRow | undefined> {
    return this.k
      .selectFrom('org_members')
      .selectAll()
      .where('org_id', '=', orgId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  countMembers(orgId: number, role?: OrgRole): Promise<number> {
    let q = this.k
      .selectFrom('org_members')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', orgId);
    if (role) q = q.where('role', '=', role);
    return q.executeTakeFirstOrThrow().then((r) => Number(r.n));
  }

  async setRole(orgId: number, userId: number, role: OrgRole): Promise<void> {
    await this.k
      .updateTable('org_members')
      .set({ role })
      .where('org_id', '=', orgId)
      .where('user_id', '=', userId)
      .execute();
  }

  /** Team memberships of members of `orgId`: user id → team ids. */
  async teamIdsByMember(orgId: number): Promise<Map<number, number[]>> {
    const rows = await this.k
      .selectFrom('org_team_members')
      .select(['user_id', 'team_id'])
      .where('org_id', '=', orgId)
      .orderBy('team_id')
      .execute();
    const out = new Map<number, number[]>();
    for (const r of rows) out.set(r.user_id, [...(out.get(r.user_id) ?? []), r.team_id]);
    return out;
  }
}
