import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../connect.js';

/**
 * A token's own concurrency limit (`concurrency_limit`, calls in flight at once; 0: the TokenConcurrencyLimit
 * option's). Added only where the column is missing. PostgreSQL lists the tables of every schema: only the one
 * Tollway's tables are in (the current schema) is looked at.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const schema =
    dialect === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
      : undefined;
  const tables = await db.introspection.getTables();
  const tokens = tables.find((t) => t.name === 'tokens' && (schema === undefined || t.schema === schema));
  if (tokens?.columns.some((c) => c.name === 'concurrency_limit')) return;
  await db.schema
    .alterTable('tokens')
    .addColumn('concurrency_limit', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
