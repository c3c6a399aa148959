import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * OAuth 2.0 client credentials for upstream MCP servers (docs/operating/mcp.md, "Upstream credentials (OAuth)"):
 * Tollway fetches an access token at `oauth_token_url` (RFC 6749 §4.4) with the client id and secret and sends it
 * as a bearer token to the server. The secret is sealed at rest like headers; `oauth_client_auth` is how the client
 * authenticates to the token endpoint ('client_secret_basic', the default, or 'client_secret_post').
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  const add = (column: string, type: 'varchar(2048)' | 'varchar(512)' | 'varchar(32)') =>
    db.schema
      .alterTable('mcp_servers')
      .addColumn(column, type, (c) => c.notNull().defaultTo(''))
      .execute();
  await add('oauth_token_url', 'varchar(2048)');
  await add('oauth_client_id', 'varchar(512)');
  await add('oauth_scope', 'varchar(512)');
  await add('oauth_audience', 'varchar(512)');
  await add('oauth_client_auth', 'varchar(32)');
  await db.schema.alterTable('mcp_servers').addColumn('oauth_client_secret', col.longText, col.text).execute();
}
