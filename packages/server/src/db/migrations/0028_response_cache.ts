import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * The response cache's answers (relay/cache): one row per cache key, the answer's bytes and the usage it was billed
 * on, dropped at `expires_at` (and the oldest first when the cache is full); used when no Redis is configured. And
 * semantic mode's prompt embeddings (`response_cache_vectors`), kept here whichever store holds the answers.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  await col
    .id(db.schema.createTable('response_cache'))
    .addColumn('cache_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('model', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'integer', (c) => c.notNull().defaultTo(200))
    .addColumn('content_type', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('body', col.longText, col.text)
    .addColumn('usage', 'text', col.text)
    .addColumn('bytes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('expires_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('ux_response_cache_key').on('response_cache').column('cache_key').unique().execute();
  await db.schema.createIndex('idx_response_cache_expires').on('response_cache').column('expires_at').execute();
  // Semantic mode: the prompt embedding of each stored answer, by partition (scope and parameters), float32 base64.
  await col
    .id(db.schema.createTable('response_cache_vectors'))
    .addColumn('cache_key', 'varchar(64)', (c) => c.notNull())
    .addColumn('part', 'varchar(64)', (c) => c.notNull())
    .addColumn('vector', 'text', col.text)
    .addColumn('expires_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('idx_response_cache_vectors_expires')
    .on('response_cache_vectors')
    .column('expires_at')
    .execute();
}
