import { sql, type Kysely } from 'kysely';
import type { Offsets } from './context.js';
import type { TableReport } from './report.js';
import { num } from './values.js';

/**
 * The quota columns whose totals must be the same before and after an import. An optional one is compared only when
 * the source has the column (new-api's plans held by users: from 0.10 on, and not in its first per-model schema).
 */
export const QUOTA_SUMS = [
  { table: 'users', column: 'quota' },
  { table: 'users', column: 'used_quota' },
  { table: 'tokens', column: 'remain_quota' },
  { table: 'user_subscriptions', column: 'amount_total', optional: true },
  { table: 'user_subscriptions', column: 'amount_used', optional: true },
] as const;

export interface QuotaCheck {
  label: string;
  before: number;
  /** Sum over rows skipped with a reason (they are not in the target). */
  skipped: number;
  after: number;
  ok: boolean;
  /** Why the sums were not compared (a re-run: rows already there may have been used in Tollway since). */
  unchecked?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Kysely<any>;

async function total(k: Loose, table: string, column: string, range?: { from: number; to: number }): Promise<number> {
  let q = k.selectFrom(table).select(sql<number>`coalesce(sum(${sql.ref(column)}), 0)`.as('s'));
  if (range) q = q.where('id', '>', range.from).where('id', '<=', range.to);
  return num(((await q.executeTakeFirst()) as { s: unknown } | undefined)?.s);
}

async function maxId(k: Loose, table: string): Promise<number> {
  return num(
    (
      (await k
        .selectFrom(table)
        .select(sql<number>`max(id)`.as('m'))
        .executeTakeFirst()) as { m: unknown } | undefined
    )?.m,
  );
}

/** Source totals and the largest source id of each summed table (the imported rows' id range in the target). */
export async function sourceSums(
  src: Loose,
  tables: Map<string, Set<string>>,
): Promise<{ sums: Map<string, number>; maxIds: Map<string, number> }> {
  const sums = new Map<string, number>();
  const maxIds = new Map<string, number>();
  for (const entry of QUOTA_SUMS) {
    const { table, column } = entry;
    if ('optional' in entry && !tables.get(table)?.has(column)) continue;
    sums.set(`${table}.${column}`, await total(src, table, column));
    maxIds.set(table, await maxId(src, table));
  }
  return { sums, maxIds };
}

/** Compares the source totals with the imported rows' totals in the target, less what was skipped. */
export async function checkSums(
  dst: Loose,
  before: Awaited<ReturnType<typeof sourceSums>>,
  off: Offsets,
  reports: Map<string, TableReport>,
  rerun = false,
): Promise<QuotaCheck[]> {
  const out: QuotaCheck[] = [];
  for (const { table, column } of QUOTA_SUMS) {
    const label = `${table}.${column}`;
    if (!before.sums.has(label)) continue;
    const offset = off[table];
    const after = await total(dst, table, column, { from: offset, to: offset + (before.maxIds.get(table) ?? 0) });
    const skipped = reports.get(table)?.skippedSums.get(column) ?? 0;
    const was = before.sums.get(label) ?? 0;
    const present = reports.get(table)?.present ?? 0;
    if (rerun && present > 0) {
      const unchecked = `not compared: ${present} row(s) were already there (a re-run; they may have been used in Tollway since)`;
      out.push({ label, before: was, skipped, after, ok: true, unchecked });
    } else out.push({ label, before: was, skipped, after, ok: was - skipped === after });
  }
  return out;
}
