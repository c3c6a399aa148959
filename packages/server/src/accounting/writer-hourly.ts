import { LogType } from '@tollway/shared';
import { sql, type Insertable, type Transaction } from 'kysely';
import type { DialectName } from '../db/connect.js';
import type { Database, LogsTable, QuotaDataTable } from '../db/schema.js';

/** One quota_data row's worth of usage. */
export type HourlyUsage = Omit<QuotaDataTable, 'id'>;

const SECONDS_PER_HOUR = 3600;
const ROWS_PER_UPSERT = 200;

/** The first second (UTC) of the hour holding `seconds`. */
export const hourOf = (seconds: number): number => seconds - (seconds % SECONDS_PER_HOUR);

/**
 * Sums a batch's consume logs per (user, hour, model): calls, prompt + completion tokens and quota. Sorted by
 * that key so every writer locks rows in the same order (no deadlock between nodes writing the same hours).
 */
export function hourlyUsage(logs: Insertable<LogsTable>[]): HourlyUsage[] {
  const sums = new Map<string, HourlyUsage>();
  for (const l of logs) {
    if (l.type !== LogType.Consume || !l.user_id) continue;
    const model = l.model_name ?? '';
    const hour = hourOf(Number(l.created_at));
    const key = `${l.user_id}\u0000${hour}\u0000${model}`;
    let s = sums.get(key);
    if (!s)
      sums.set(
        key,
        (s = {
          user_id: l.user_id,
          username: l.username ?? '',
          model_name: model,
          created_at: hour,
          token_used: 0,
          count: 0,
          quota: 0,
        }),
      );
    s.username = l.username ?? s.username;
    s.count += 1;
    s.token_used += Number(l.prompt_tokens ?? 0) + Number(l.completion_tokens ?? 0);
    s.quota += Number(l.quota ?? 0);
  }
  return [...sums.values()].sort(
    (a, b) =>
      a.user_id - b.user_id ||
      a.created_at - b.created_at ||
      (a.model_name < b.model_name ? -1 : a.model_name > b.model_name ? 1 : 0),
  );
}

/**
 * Adds the sums to quota_data in the caller's transaction: multi-row upserts that add to an existing row of the
 * same (user, hour, model) (ON CONFLICT … DO UPDATE on SQLite and PostgreSQL, ON DUPLICATE KEY UPDATE on MySQL).
 */
export async function upsertHourlyUsage(
  trx: Transaction<Database>,
  dialect: DialectName,
  rows: HourlyUsage[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_UPSERT) {
    const insert = trx.insertInto('quota_data').values(rows.slice(i, i + ROWS_PER_UPSERT));
    if (dialect === 'mysql') {
      const add = (c: 'count' | 'token_used' | 'quota') => sql<number>`${sql.ref(c)} + VALUES(${sql.ref(c)})`;
      await insert
        .onDuplicateKeyUpdate({
          username: sql`VALUES(${sql.ref('username')})`,
          count: add('count'),
          token_used: add('token_used'),
          quota: add('quota'),
        })
        .execute();
    } else {
      const add = (c: 'count' | 'token_used' | 'quota') =>
        sql<number>`${sql.ref(`quota_data.${c}`)} + ${sql.ref(`excluded.${c}`)}`;
      await insert
        .onConflict((oc) =>
          oc.columns(['user_id', 'created_at', 'model_name']).doUpdateSet({
            username: sql`${sql.ref('excluded.username')}`,
            count: add('count'),
            token_used: add('token_used'),
            quota: add('quota'),
          }),
        )
        .execute();
    }
  }
}
