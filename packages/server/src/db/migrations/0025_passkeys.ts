import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * Passkeys (WebAuthn credentials) as new-api's `passkey_credentials` table holds them: one per user, the credential
 * id and COSE public key in standard base64, the signature counter, the authenticator's flags, transports (a JSON
 * list) and attachment. Times are epoch seconds (0: never), as Tollway's other tables keep them.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  await col
    .id(db.schema.createTable('passkey_credentials'))
    .addColumn('user_id', 'integer', (c) => c.notNull().unique())
    .addColumn('credential_id', 'varchar(512)', (c) => c.notNull().unique())
    .addColumn('public_key', 'text', col.text)
    .addColumn('attestation_type', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('aaguid', 'varchar(512)', (c) => c.notNull().defaultTo(''))
    .addColumn('sign_count', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('clone_warning', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('user_present', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('user_verified', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('backup_eligible', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('backup_state', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('transports', 'text', col.text)
    .addColumn('attachment', 'varchar(32)', (c) => c.notNull().defaultTo(''))
    .addColumn('last_used_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
