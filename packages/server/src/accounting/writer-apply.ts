import { sql, type Insertable, type Transaction } from 'kysely';
import type { DialectName } from '../db/connect.js';
import type { TimeSlicer } from '../lib/time-slice.js';
import type { Database, LogsTable } from '../db/schema.js';
import type { LedgerRecord } from './ledger.js';
import { owedLogsMarker } from './sqlite-log-worker.js';
import { hourlyUsage, upsertHourlyUsage } from './writer-hourly.js';
import { claimOnce, type OnceClaim } from './writer-once.js';
import type { SqliteBatchStatements } from './writer-sqlite.js';
import { insertLogsPostgres } from './writer-postgres.js';

/** One settled call (or a log-only event) as the writer persists it. */
export interface WriteRecord extends LedgerRecord {
  channelId: number;
  /** Counts as a request for users.request_count. */
  countsRequest: boolean;
  log?: Insertable<LogsTable>;
  /** Applies once per task row (a task's charge or refund); later copies are dropped. */
  once?: OnceClaim;
}

const LOG_ROWS_PER_INSERT = 200;

interface Sum {
  quota: number;
  requests: number;
}

function sumBy(records: WriteRecord[], key: (r: WriteRecord) => number | undefined): Map<number, Sum> {
  const out = new Map<number, Sum>();
  for (const r of records) {
    const id = key(r);
    if (!id) continue;
    const s = out.get(id) ?? { quota: 0, requests: 0 };
    s.quota += r.quota;
    s.requests += r.countsRequest ? 1 : 0;
    out.set(id, s);
  }
  return out;
}

/** Which parts of a batch a database takes: both, or with a separate log database one each. */
export interface BatchParts {
  /** Users', tokens' and channels' counters, and the hourly aggregates. */
  counters: boolean;
  /** The log rows. */
  logs: boolean;
  /**
   * The log rows go in a transaction of their own afterwards (SQLite's log worker): the counters' transaction records
   * that they are owed (sqlite-log-worker.ts), and only then.
   */
  owedLogs?: boolean;
  /** The main database's dialect when the data dashboard is on: the consume logs' sums go to quota_data. */
  hourly?: DialectName;
  /** On SQLite: prepared statements on the transaction's own handle, used instead of Kysely's built queries. */
  sqlite?: SqliteBatchStatements;
  /** The logs go to PostgreSQL: as one JSON parameter per statement instead of a parameter per cell. */
  postgresLogs?: boolean;
  /** On SQLite (a synchronous driver): gives the event loop a turn between statements, the transaction open. */
  slicer?: TimeSlicer;
}

/**
 * Applies one batch (the given parts) inside a transaction: counters aggregated per user, token and channel
 * (one statement each), logs as multi-row inserts, with `hourly` the consume logs' sums added to quota_data,
 * and the batch id so a replay never applies it twice to this database. With the counters, records that apply once
 * per task row are claimed first; copies go to `dropped` (a logs-only part gets the records already filtered).
 */
export async function applyBatch(
  trx: Transaction<Database>,
  batchId: string,
  all: WriteRecord[],
  now: number,
  parts: BatchParts,
  dropped: WriteRecord[] = [],
): Promise<boolean> {
  const fast = parts.sqlite;
  const seen = fast
    ? fast.batchApplied(batchId)
    : await trx.selectFrom('writer_batches').select('id').where('id', '=', batchId).executeTakeFirst();
  if (seen) return false;
  let records = all;
  if (parts.counters) {
    const claimed = await claimOnce(trx, batchId, all);
    records = claimed.kept;
    dropped.push(...claimed.dropped);
  }
  const logs = records.flatMap((r) => (r.log ? [r.log] : []));
  if (parts.counters) await applyCounters(trx, records, logs, parts.hourly, fast);
  await parts.slicer?.due();
  if (parts.logs) {
    if (fast) await fast.insertLogs(logs, parts.slicer);
    else if (parts.postgresLogs) await insertLogsPostgres(trx, logs);
    else
      for (let i = 0; i < logs.length; i += LOG_ROWS_PER_INSERT) {
        await trx
          .insertInto('logs')
          .values(logs.slice(i, i + LOG_ROWS_PER_INSERT))
          .execute();
      }
  }
  const ids = parts.owedLogs && logs.length ? [batchId, owedLogsMarker(batchId)] : [batchId];
  for (const id of ids) {
    if (fast) fast.recordBatch(id, now);
    else await trx.insertInto('writer_batches').values({ id, applied_at: now }).execute();
  }
  return true;
}

async function applyCounters(
  trx: Transaction<Database>,
  records: WriteRecord[],
  logs: Insertable<LogsTable>[],
  hourly: DialectName | undefined,
  fast: SqliteBatchStatements | undefined,
): Promise<void> {
  // A wallet's charge leaves users.quota; a plan's leaves the subscription (the user's usage counts both).
  for (const wallet of [true, false]) {
    for (const [id, s] of sumBy(records, (r) => (!r.planId === wallet ? r.userId : undefined))) {
      if (s.quota === 0 && s.requests === 0) continue;
      const spent = wallet ? s.quota : 0;
      if (fast) fast.chargeUser(id, spent, s.quota, s.requests);
      else
        await trx
          .updateTable('users')
          .set({
            quota: sql`quota - ${spent}`,
            used_quota: sql`used_quota + ${s.quota}`,
            request_count: sql`request_count + ${s.requests}`,
          })
          .where('id', '=', id)
          .execute();
    }
  }
  for (const [id, s] of sumBy(records, (r) => r.planId)) {
    if (s.quota === 0) continue;
    if (fast) fast.chargePlan(id, s.quota);
    else
      await trx
        .updateTable('user_subscriptions')
        .set({ amount_used: sql`amount_used + ${s.quota}` })
        .where('id', '=', id)
        .execute();
  }
  for (const limited of [true, false]) {
    for (const [id, s] of sumBy(records, (r) => (r.tokenLimited === limited ? r.tokenId : undefined))) {
      if (s.quota === 0) continue;
      if (fast) {
        fast.chargeToken(id, s.quota, limited);
        continue;
      }
      const set = limited
        ? { remain_quota: sql<number>`remain_quota - ${s.quota}`, used_quota: sql<number>`used_quota + ${s.quota}` }
        : { used_quota: sql<number>`used_quota + ${s.quota}` };
      await trx.updateTable('tokens').set(set).where('id', '=', id).execute();
    }
  }
  for (const [id, s] of sumBy(records, (r) => r.channelId)) {
    if (s.quota === 0) continue;
    if (fast) fast.chargeChannel(id, s.quota);
    else
      await trx
        .updateTable('channels')
        .set({ used_quota: sql`used_quota + ${s.quota}` })
        .where('id', '=', id)
        .execute();
  }
  if (!hourly) return;
  const sums = hourlyUsage(logs);
  if (fast) fast.upsertHourly(sums);
  else await upsertHourlyUsage(trx, hourly, sums);
}
