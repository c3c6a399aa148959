import type { Kysely } from 'kysely';

/**
 * Requests and tokens per minute for an API token and for a user (0: no limit). Group limits are an option
 * (GroupRateLimits) and channel limits live in the channel's setting JSON.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['tokens', 'users']) {
    for (const name of ['rpm_limit', 'tpm_limit']) {
      await db.schema
        .alterTable(table)
        .addColumn(name, 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    }
  }
}
