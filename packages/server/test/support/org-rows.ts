import crypto from 'node:crypto';
import type { OrgRole } from '@tollway/shared';
import type { Db } from '../../src/db/connect.js';
import type { Database } from '../../src/db/schema.js';
import type { TestApp } from './app.js';
import { tokenRow } from './token-row.js';
import { userRow } from './user-row.js';

/**
 * Organizations written straight to the tables (before and beside the organization routes): the organization, its
 * wallet account (users.org_id), members, teams and organization tokens, as docs/operating/organizations.md lays
 * them out. Every id is the database's.
 */
async function insertId<T extends keyof Database & string>(db: Db, table: T, values: object): Promise<number> {
  const k = db.kysely as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
  if (db.dialect === 'mysql')
    return Number((await k.insertInto(table).values(values).executeTakeFirstOrThrow()).insertId);
  const row = await k.insertInto(table).values(values).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

export interface OrgFixture {
  orgId: number;
  walletUserId: number;
}

/** An organization with its wallet account holding `quota`; reseller at `markupBp` when given. */
export async function insertOrg(
  t: TestApp,
  name: string,
  opts: { quota?: number; markupBp?: number; webhookUrl?: string; webhookSecret?: string } = {},
): Promise<OrgFixture> {
  const db = t.database.db;
  const walletUserId = await insertId(
    db,
    'users',
    userRow(`org-${name}`.slice(0, 20), { quota: opts.quota ?? 0, aff_code: crypto.randomBytes(4).toString('hex') }),
  );
  const orgId = await insertId(db, 'organizations', {
    name,
    wallet_user_id: walletUserId,
    reseller: opts.markupBp ? 1 : 0,
    markup_bp: opts.markupBp ?? 0,
    alert_webhook_url: opts.webhookUrl ?? '',
    alert_webhook_secret: opts.webhookSecret ? t.runtime.ctx.secretBox.seal(opts.webhookSecret) : '',
    created_at: Math.floor(Date.now() / 1000),
  });
  await db.kysely.updateTable('users').set({ org_id: orgId }).where('id', '=', walletUserId).execute();
  return { orgId, walletUserId };
}

/** Makes user `userId` a member of the organization in `role`. */
export async function insertMember(t: TestApp, orgId: number, userId: number, role: OrgRole): Promise<void> {
  await insertId(t.database.db, 'org_members', { org_id: orgId, user_id: userId, role, created_at: 0 });
}

/** A team of the organization with `members`; its id. */
export async function insertTeam(t: TestApp, orgId: number, name: string, members: number[] = []): Promise<number> {
  const teamId = await insertId(t.database.db, 'org_teams', { org_id: orgId, name, created_at: 0 });
  for (const userId of members)
    await insertId(t.database.db, 'org_team_members', { org_id: orgId, team_id: teamId, user_id: userId });
  return teamId;
}

/** An organization token: drawn from the wallet, held by `memberId` in `teamId` (0: none); its `sk-` key and id. */
export async function insertOrgToken(
  t: TestApp,
  org: OrgFixture,
  memberId: number,
  teamId = 0,
  name = 'org-token',
): Promise<{ key: string; id: number }> {
  const key = crypto.randomBytes(24).toString('hex');
  const id = await insertId(
    t.database.db,
    'tokens',
    tokenRow(t.runtime.ctx.secretBox.sealFixed(key), {
      user_id: org.walletUserId,
      name,
      unlimited_quota: 1,
      created_time: Math.floor(Date.now() / 1000),
      member_id: memberId,
      team_id: teamId,
    } as Parameters<typeof tokenRow>[1]),
  );
  return { key: `sk-${key}`, id };
}
