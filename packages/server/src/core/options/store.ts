import type { Db } from '../../db/connect.js';

/** SQL for the options table. */
export class OptionsStore {
  constructor(private readonly db: Db) {}

  async all(): Promise<{ key: string; value: string }[]> {
    const rows = await this.db.kysely.selectFrom('options').select(['key', 'value']).execute();
    return rows.map((r) => ({ key: r.key, value: r.value ?? '' }));
  }

  /** Inserts or replaces one key in a single statement. */
  async upsert(key: string, value: string): Promise<void> {
    const q = this.db.kysely.insertInto('options').values({ key, value });
    if (this.db.dialect === 'mysql') await q.onDuplicateKeyUpdate({ value }).execute();
    else await q.onConflict((oc) => oc.column('key').doUpdateSet({ value })).execute();
  }
}
