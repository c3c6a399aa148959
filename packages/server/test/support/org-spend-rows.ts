import { tagsColumn, type OrgRole, type SpendReport } from '@tollway/shared';
import type { Insertable } from 'kysely';
import type { Db } from '../../src/db/connect.js';
import type { LogsTable } from '../../src/db/schema.js';
import { logRow } from './log-row.js';
import { tokenRow } from './token-row.js';
import { userRow } from './user-row.js';

/** An id of a row just inserted (MySQL answers insertId; the others RETURNING). */
async function insertedId(
  db: Db,
  insert: { returningId(): Promise<number>; insertId(): Promise<bigint | undefined> },
): Promise<number> {
  return db.dialect === 'mysql' ? Number(await insert.insertId()) : insert.returningId();
}

/** An organization written straight to the tables (the org routes are not needed): its wallet account and row. */
export interface SeededOrg {
  id: number;
  walletUserId: number;
  walletUsername: string;
}

export async function seedOrg(
  db: Db,
  name: string,
  opts: { reseller?: boolean; markupBp?: number } = {},
): Promise<SeededOrg> {
  const k = db.kysely;
  const walletUsername = `org-${name}`.slice(0, 20);
  const walletUserId = await insertedId(db, {
    returningId: async () =>
      (await k.insertInto('users').values(userRow(walletUsername)).returning('id').executeTakeFirstOrThrow()).id,
    insertId: async () =>
      (await k.insertInto('users').values(userRow(walletUsername)).executeTakeFirstOrThrow()).insertId,
  });
  const org = {
    name,
    wallet_user_id: walletUserId,
    reseller: opts.reseller ? 1 : 0,
    markup_bp: opts.markupBp ?? 0,
    created_at: 1,
    deleted_at: null,
  };
  const id = await insertedId(db, {
    returningId: async () =>
      (await k.insertInto('organizations').values(org).returning('id').executeTakeFirstOrThrow()).id,
    insertId: async () => (await k.insertInto('organizations').values(org).executeTakeFirstOrThrow()).insertId,
  });
  await k.updateTable('users').set({ org_id: id }).where('id', '=', walletUserId).execute();
  return { id, walletUserId, walletUsername };
}

export async function addMember(db: Db, orgId: number, userId: number, role: OrgRole): Promise<void> {
  await db.kysely.insertInto('org_members').values({ org_id: orgId, user_id: userId, role, created_at: 1 }).execute();
}

export async function addTeam(db: Db, orgId: number, name: string): Promise<number> {
  const k = db.kysely;
  const row = { org_id: orgId, name, created_at: 1 };
  return insertedId(db, {
    returningId: async () => (await k.insertInto('org_teams').values(row).returning('id').executeTakeFirstOrThrow()).id,
    insertId: async () => (await k.insertInto('org_teams').values(row).executeTakeFirstOrThrow()).insertId,
  });
}

/** A token of the organization's wallet held by `memberId` in `teamId`. */
export async function addOrgToken(
  db: Db,
  org: SeededOrg,
  name: string,
  memberId: number,
  teamId: number,
): Promise<number> {
  const k = db.kysely;
  const row = {
    ...tokenRow(`k${name}${org.id}`.padEnd(48, 'x'), { user_id: org.walletUserId, name }),
    member_id: memberId,
    team_id: teamId,
  };
  return insertedId(db, {
    returningId: async () => (await k.insertInto('tokens').values(row).returning('id').executeTakeFirstOrThrow()).id,
    insertId: async () => (await k.insertInto('tokens').values(row).executeTakeFirstOrThrow()).insertId,
  });
}

/** What one seeded call of an organization is: whom and what it is attributed to and what it cost. */
export interface OrgCall {
  at: number;
  member: number;
  team: number;
  token: number;
  tokenName: string;
  model: string;
  tags: string[];
  quota: number;
  billed?: number;
  prompt?: number;
  completion?: number;
  requestId?: string;
  /** Another log type than consume (never counted as spend). */
  type?: number;
}

/** A consume log of the organization's wallet, as the relay writes it (member, team, tags, billed_quota). */
export function orgLogRow(org: SeededOrg, c: OrgCall): Insertable<LogsTable> {
  return {
    ...logRow({
      user_id: org.walletUserId,
      username: org.walletUsername,
      created_at: c.at,
      type: c.type ?? 2,
      token_id: c.token,
      token_name: c.tokenName,
      model_name: c.model,
      quota: c.quota,
      prompt_tokens: c.prompt ?? 0,
      completion_tokens: c.completion ?? 0,
      request_id: c.requestId ?? '',
    }),
    member_id: c.member,
    team_id: c.team,
    tags: tagsColumn(c.tags),
    billed_quota: c.billed ?? 0,
  };
}

/** Inserts the calls into the log database in batches. */
export async function insertOrgCalls(logDb: Db, org: SeededOrg, calls: readonly OrgCall[]): Promise<void> {
  const BATCH = 200;
  for (let i = 0; i < calls.length; i += BATCH)
    await logDb.kysely
      .insertInto('logs')
      .values(calls.slice(i, i + BATCH).map((c) => orgLogRow(org, c)))
      .execute();
}

/** RFC 4180 as a spreadsheet reads it (quoted cells with doubled quotes, CRLF lines). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  return rows;
}

/** Sums of no call. */
export const zero = (): SpendReport['total'] => ({
  quota: 0,
  billed_quota: 0,
  requests: 0,
  prompt_tokens: 0,
  completion_tokens: 0,
});
/** The sums a spend report must give for `calls` (billed: the reseller price when recorded, else quota). */
export function sumOf(calls: readonly OrgCall[]): SpendReport['total'] {
  const s = zero();
  for (const c of calls) {
    s.quota += c.quota;
    s.billed_quota += c.billed && c.billed > 0 ? c.billed : c.quota;
    s.requests += 1;
    s.prompt_tokens += c.prompt ?? 0;
    s.completion_tokens += c.completion ?? 0;
  }
  return s;
}
