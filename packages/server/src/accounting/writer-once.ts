import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * A record that applies once per task row: the first batch to stamp the row's column with its id applies it,
 * every later copy (a refund sent again after a crash, by another node's sweep, a replay) is dropped. A refund
 * applies only once the charge it returns has.
 */
export interface OnceClaim {
  table: 'midjourneys' | 'tasks';
  id: number;
  column: 'charge_batch' | 'refund_batch';
}

interface Claimed {
  once?: OnceClaim;
}

const keyOf = (c: OnceClaim) => `${c.table}:${c.id}:${c.column}`;

/**
 * Stamps each claim of a batch (inside its transaction, in record order) and splits the records into those that
 * apply and those dropped as copies.
 */
export async function claimOnce<R extends Claimed>(
  trx: Transaction<Database>,
  batchId: string,
  records: R[],
): Promise<{ kept: R[]; dropped: R[] }> {
  if (!records.some((r) => r.once)) return { kept: records, dropped: [] };
  const kept: R[] = [];
  const dropped: R[] = [];
  const seen = new Set<string>();
  for (const r of records) {
    const c = r.once;
    if (!c) {
      kept.push(r);
      continue;
    }
    const key = keyOf(c);
    let hit = false;
    if (!seen.has(key)) {
      seen.add(key);
      const res = await trx
        .updateTable(c.table)
        .set({ [c.column]: batchId } as never)
        .where('id', '=', c.id)
        .where(c.column, '=', '')
        .$if(c.column === 'refund_batch', (q) => q.where('charge_batch', '<>', ''))
        .executeTakeFirst();
      hit = Number(res.numUpdatedRows) > 0;
    }
    (hit ? kept : dropped).push(r);
  }
  return { kept, dropped };
}

/**
 * The records of a batch whose claims that batch stamped (read after its counters committed): what a separate
 * log database takes, the same on a replay.
 */
export async function stampedBy<R extends Claimed>(db: Kysely<Database>, batchId: string, records: R[]): Promise<R[]> {
  if (!records.some((r) => r.once)) return records;
  const seen = new Set<string>();
  const out: R[] = [];
  for (const r of records) {
    const c = r.once;
    if (!c) {
      out.push(r);
      continue;
    }
    const key = keyOf(c);
    if (seen.has(key)) continue;
    seen.add(key);
    const row = await db.selectFrom(c.table).select(c.column).where('id', '=', c.id).executeTakeFirst();
    if (row && (row as Record<string, unknown>)[c.column] === batchId) out.push(r);
  }
  return out;
}
