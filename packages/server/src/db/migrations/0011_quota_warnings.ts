import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';

/**
 * users.quota_warned_at: when the user was last warned that their quota fell below the warning threshold
 * (unix seconds), 0 while armed. Claimed by one conditional UPDATE so only one node sends a warning, and
 * cleared once the balance is seen at or above the threshold again.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('quota_warned_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
