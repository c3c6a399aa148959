import { LogType } from '@tollway/shared';
import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/connect.js';
import { selectPage, type RowWindow, type Slice } from '../../db/paged-select.js';
import type { Database } from '../../db/schema.js';
import type { LogRecord } from '../logs/store.js';

/**
 * Which of an organization's consume logs a query reads: its wallet account's calls (logs.user_id), narrowed by the
 * caller's filters and, for a member without spend.all, to their own calls (ownMemberId), whatever the filters say.
 */
export interface SpendScope {
  walletUserId: number;
  /** Set for a caller who may see only their own calls: their users.id. */
  ownMemberId?: number;
  /** Inclusive created_at bounds (0 or absent: none). */
  start?: number;
  end?: number;
  member_id?: number;
  team_id?: number;
  token_id?: number;
  token_name?: string;
  model_name?: string;
  tag?: string;
}

/** The sums of a set of calls as the database answers them (PostgreSQL and MySQL sum to strings). */
export interface SumsRow {
  quota: string | number | null;
  billed_quota: string | number | null;
  requests: string | number;
  prompt_tokens: string | number | null;
  completion_tokens: string | number | null;
}

/** One group of a breakdown: its key (a column's value, a tag set, or a 15-minute bucket) and its sums. */
export type GroupRow = SumsRow & { k: string | number; name?: string | null };

/** The columns an export line needs (not the call's content or `other`). */
export const EXPORT_COLUMNS = [
  'id',
  'created_at',
  'member_id',
  'team_id',
  'token_id',
  'token_name',
  'model_name',
  'tags',
  'prompt_tokens',
  'completion_tokens',
  'quota',
  'billed_quota',
  'request_id',
] as const;
export type ExportRecord = Pick<LogRecord, (typeof EXPORT_COLUMNS)[number]>;

/** Where an export page ends: the last row read (newest first, so the next page is older). */
export interface ExportCursor {
  created_at: number;
  id: number;
}

/** Seconds in a day bucket: every time zone's offset is a multiple of 15 minutes, so a bucket never spans two days. */
export const DAY_BUCKET_SECONDS = 900;

/** The escape character of a tag's LIKE pattern (the same in the three dialects when named in ESCAPE). */
const LIKE_ESCAPE = '!';
const likeLiteral = (s: string) => s.replace(/[!%_]/g, (c) => LIKE_ESCAPE + c);

/** The WHERE clause: wallet and type first ((user_id, created_at) or (user_id, member_id, created_at) index). */
function conditions(s: SpendScope) {
  return (eb: ExpressionBuilder<Database, 'logs'>) => {
    const c: Expression<SqlBool>[] = [eb('user_id', '=', s.walletUserId), eb('type', '=', LogType.Consume)];
    if (s.ownMemberId !== undefined) c.push(eb('member_id', '=', s.ownMemberId));
    if (s.member_id !== undefined) c.push(eb('member_id', '=', s.member_id));
    if (s.team_id !== undefined) c.push(eb('team_id', '=', s.team_id));
    if (s.token_id !== undefined) c.push(eb('token_id', '=', s.token_id));
    if (s.token_name) c.push(eb('token_name', '=', s.token_name));
    if (s.model_name) c.push(eb('model_name', '=', s.model_name));
    if (s.tag) c.push(sql<SqlBool>`tags like ${`%,${likeLiteral(s.tag)},%`} escape ${sql.lit(LIKE_ESCAPE)}`);
    if (s.start) c.push(eb('created_at', '>=', s.start));
    if (s.end) c.push(eb('created_at', '<=', s.end));
    return eb.and(c);
  };
}

/** The sums of a breakdown row: billed is a reseller's price when one was recorded, the charge otherwise. */
const SUMS = [
  sql<string | number | null>`sum(quota)`.as('quota'),
  sql<string | number | null>`sum(case when billed_quota > 0 then billed_quota else quota end)`.as('billed_quota'),
  sql<string | number>`count(*)`.as('requests'),
  sql<string | number | null>`sum(prompt_tokens)`.as('prompt_tokens'),
  sql<string | number | null>`sum(completion_tokens)`.as('completion_tokens'),
] as const;

/** What a breakdown groups by in SQL. */
export type GroupKey = 'team_id' | 'member_id' | 'token_id' | 'model_name' | 'tags' | 'day_bucket';

const KEY_EXPR: Record<GroupKey, RawBuilder<string | number>> = {
  team_id: sql`team_id`,
  member_id: sql`member_id`,
  token_id: sql`token_id`,
  model_name: sql`model_name`,
  tags: sql`tags`,
  day_bucket: sql`created_at - created_at % ${sql.lit(DAY_BUCKET_SECONDS)}`,
};

/** SQL of an organization's attributed calls in the log database (read only; the relay's writer inserts them). */
export class OrgSpendStore {
  constructor(private readonly logDb: Db) {}

  private get k() {
    return this.logDb.kysely;
  }

  /** One page of the calls, newest first. */
  page(s: SpendScope, window: RowWindow): Promise<Slice<LogRecord>> {
    const base = this.k.selectFrom('logs').where(conditions(s));
    return selectPage(base, (q) => q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc'), window);
  }

  /** The sums of every matching call. */
  totals(s: SpendScope): Promise<SumsRow> {
    return this.k.selectFrom('logs').where(conditions(s)).select(SUMS).executeTakeFirstOrThrow();
  }

  /**
   * The sums per value of `key` (GROUP BY in the database). For tags, the groups are tag sets ordered by quota, at
   * most `limit` of them; `name` is the token's name as last logged when grouping by token.
   */
  grouped(s: SpendScope, key: GroupKey, limit?: number): Promise<GroupRow[]> {
    const expr = KEY_EXPR[key];
    let q = this.k
      .selectFrom('logs')
      .where(conditions(s))
      .select([expr.as('k'), ...SUMS])
      .$if(key === 'token_id', (b) => b.select(sql<string | null>`max(token_name)`.as('name')))
      .groupBy(expr);
    if (limit !== undefined)
      q = q
        .orderBy(sql`sum(quota)`, 'desc')
        .orderBy(expr)
        .limit(limit);
    return q.execute() as Promise<GroupRow[]>;
  }

  /** How many calls match. */
  async count(s: SpendScope): Promise<number> {
    const row = await this.k
      .selectFrom('logs')
      .where(conditions(s))
      .select(sql<string | number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Up to `limit` calls older than `after` (newest first; the first page without `after`), export columns only. */
  exportPage(s: SpendScope, after: ExportCursor | undefined, limit: number): Promise<ExportRecord[]> {
    return this.k
      .selectFrom('logs')
      .where(conditions(s))
      .$if(after !== undefined, (q) =>
        q.where((eb) =>
          eb.or([
            eb('created_at', '<', after!.created_at),
            eb.and([eb('created_at', '=', after!.created_at), eb('id', '<', after!.id)]),
          ]),
        ),
      )
      .select(EXPORT_COLUMNS)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }
}
