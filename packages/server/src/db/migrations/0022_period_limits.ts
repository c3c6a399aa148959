import type { Kysely } from 'kysely';

/**
 * Period limits of an API token and of a user (0: none): quota per calendar day, ISO week and calendar month, quota
 * per rolling 5 hours (bigint: quota amounts go up to QUOTA_MAX), and requests per calendar day. Their counters
 * live in the limit store (memory or Redis), not here (relay/limits/period-limits.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['tokens', 'users']) {
    for (const name of ['quota_per_day', 'quota_per_week', 'quota_per_month', 'quota_per_5h']) {
      await db.schema
        .alterTable(table)
        .addColumn(name, 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    }
    await db.schema
      .alterTable(table)
      .addColumn('requests_per_day', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  }
}
