import { CUSTOM_OAUTH_BOOL_FIELDS, CUSTOM_OAUTH_STRING_FIELDS, CUSTOM_OAUTH_TEXT_FIELDS } from '@tollway/shared';
import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/** Room for the sealed client secret (CRYPTO_SECRET's envelope around new-api's 512 characters). */
const SEALED_SECRET_CHARS = 1024;

/**
 * Root-defined sign-in providers and the accounts users hold with them, as new-api names them
 * (custom_oauth_providers, user_oauth_bindings). The client secret is sealed at rest; booleans are 0/1.
 * A user holds at most one account per provider, and an account belongs to at most one user.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  let providers = col
    .id(db.schema.createTable('custom_oauth_providers'))
    .addColumn('client_secret', `varchar(${SEALED_SECRET_CHARS})`, (c) => c.notNull().defaultTo(''))
    .addColumn('auth_style', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0));
  for (const [name, size] of Object.entries(CUSTOM_OAUTH_STRING_FIELDS))
    providers = providers.addColumn(name, `varchar(${size})`, (c) => c.notNull().defaultTo(''));
  for (const name of CUSTOM_OAUTH_TEXT_FIELDS) providers = providers.addColumn(name, 'text', col.text);
  for (const name of CUSTOM_OAUTH_BOOL_FIELDS)
    providers = providers.addColumn(name, 'integer', (c) => c.notNull().defaultTo(0));
  await providers.execute();
  await db.schema.createIndex('ux_custom_oauth_slug').on('custom_oauth_providers').column('slug').unique().execute();

  await col
    .id(db.schema.createTable('user_oauth_bindings'))
    .addColumn('user_id', 'integer', (c) => c.notNull())
    .addColumn('provider_id', 'integer', (c) => c.notNull())
    .addColumn('provider_user_id', 'varchar(256)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('ux_user_provider')
    .on('user_oauth_bindings')
    .columns(['user_id', 'provider_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('ux_provider_userid')
    .on('user_oauth_bindings')
    .columns(['provider_id', 'provider_user_id'])
    .unique()
    .execute();
}
