import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../connect.js';

/**
 * new-api's token switch `cross_group_retry` (0/1): for a token of the `auto` group, a call whose group has no
 * channel left moves on to the next of the auto groups (relay/pipeline/auto-group.ts). Added only where the column
 * is missing (a database that new-api's own schema created has it already). PostgreSQL lists the tables of every
 * schema: only the one Tollway's tables are in (the current schema) is looked at.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const schema =
    dialect === 'postgres'
      ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s
      : undefined;
  const tables = await db.introspection.getTables();
  const tokens = tables.find((t) => t.name === 'tokens' && (schema === undefined || t.schema === schema));
  if (tokens?.columns.some((c) => c.name === 'cross_group_retry')) return;
  await db.schema
    .alterTable('tokens')
    .addColumn('cross_group_retry', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
