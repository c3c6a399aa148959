import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { DataRow, UserDataRow } from '@tollway/shared';
import type { Db } from '../../db/connect.js';
import type { Database } from '../../db/schema.js';

/** Which hourly rows to read: a time range (inclusive, on the hour's start) and at most one user. */
export interface DataScope {
  start: number;
  end: number;
  userId?: number;
  username?: string;
}

/**
 * Reads the hourly aggregates the durable writer keeps in quota_data (it is the only writer). Each query uses
 * one index: (user_id, created_at, …) for a user's own view, (username, created_at) or (created_at) for admins.
 */
export class DataStore {
  constructor(private readonly db: Db) {}

  /** Usage per model and hour summed over the users in scope, oldest hour first. */
  async hourly(scope: DataScope): Promise<DataRow[]> {
    const rows = await this.db.kysely
      .selectFrom('quota_data')
      .where(inScope(scope))
      .select(['model_name', 'created_at', ...sums()])
      .groupBy(['created_at', 'model_name'])
      .orderBy('created_at')
      .orderBy('model_name')
      .execute();
    return rows.map((r) => ({ model_name: r.model_name, created_at: Number(r.created_at), count: Number(r.count), token_used: Number(r.token_used), quota: Number(r.quota) }));
  }

  /** Usage per user and hour summed over models, oldest hour first (then by username). */
  async hourlyByUser(scope: Pick<DataScope, 'start' | 'end'>): Promise<UserDataRow[]> {
    const rows = await this.db.kysely
      .selectFrom('quota_data')
      .where(inScope(scope))
      .select(['username', 'created_at', ...sums()])
      .groupBy(['created_at', 'username'])
      .orderBy('created_at')
      .orderBy('username')
      .execute();
    return rows.map((r) => ({ username: r.username, created_at: Number(r.created_at), count: Number(r.count), token_used: Number(r.token_used), quota: Number(r.quota) }));
  }
}

/** The summed counters of a group of hourly rows. */
const sums = () => [
  sql<string | number>`sum(${sql.ref('count')})`.as('count'),
  sql<string | number>`sum(${sql.ref('token_used')})`.as('token_used'),
  sql<string | number>`sum(${sql.ref('quota')})`.as('quota'),
];

/** The rows of a scope: hours in [start, end], of one user when one is named. */
const inScope = (scope: DataScope) => (eb: ExpressionBuilder<Database, 'quota_data'>) => {
  const c: Expression<SqlBool>[] = [eb('created_at', '>=', scope.start), eb('created_at', '<=', scope.end)];
  if (scope.userId !== undefined) c.push(eb('user_id', '=', scope.userId));
  if (scope.username) c.push(eb('username', '=', scope.username));
  return eb.and(c);
};
