import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../connect.js';

/**
 * tokens.key holds a deterministically sealed key when CRYPTO_SECRET is set (`enc:d1:` and 86 characters for a
 * 48-character key): the column grows from 64 to 128 characters. SQLite does not enforce VARCHAR lengths.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') await sql`ALTER TABLE tokens ALTER COLUMN "key" TYPE varchar(128)`.execute(db);
  if (dialect === 'mysql') await sql`ALTER TABLE tokens MODIFY \`key\` varchar(128) NOT NULL`.execute(db);
}
