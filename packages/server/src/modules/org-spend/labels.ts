import type { Db } from '../../db/connect.js';

/** Ids asked for in one `IN (…)` list. */
const IDS_PER_QUERY = 500;

async function byIds<T>(ids: readonly number[], read: (chunk: number[]) => Promise<T[]>): Promise<T[]> {
  const wanted = [...new Set(ids.filter((id) => id > 0))];
  const out: T[] = [];
  for (let i = 0; i < wanted.length; i += IDS_PER_QUERY) out.push(...(await read(wanted.slice(i, i + IDS_PER_QUERY))));
  return out;
}

/**
 * Names for people of what calls are attributed to, read from the main database (the logs may live in another one,
 * so nothing is joined): usernames of members, names of the organization's teams and of its wallet's tokens.
 */
export class SpendLabels {
  constructor(private readonly db: Db) {}

  /** users.username by id (members since removed keep their name; deleted accounts are absent). */
  async usernames(ids: readonly number[]): Promise<Map<number, string>> {
    const rows = await byIds(ids, (chunk) =>
      this.db.kysely.selectFrom('users').select(['id', 'username']).where('id', 'in', chunk).execute(),
    );
    return new Map(rows.map((r) => [r.id, r.username]));
  }

  /** Every team of the organization (ORG_TEAMS_MAX at most) by id. */
  async teams(orgId: number): Promise<Map<number, string>> {
    const rows = await this.db.kysely
      .selectFrom('org_teams')
      .select(['id', 'name'])
      .where('org_id', '=', orgId)
      .execute();
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  /** The current names of the wallet's tokens by id. */
  async tokens(walletUserId: number, ids: readonly number[]): Promise<Map<number, string>> {
    const rows = await byIds(ids, (chunk) =>
      this.db.kysely
        .selectFrom('tokens')
        .select(['id', 'name'])
        .where('user_id', '=', walletUserId)
        .where('id', 'in', chunk)
        .execute(),
    );
    return new Map(rows.map((r) => [r.id, r.name]));
  }
}
