import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';
import { columns } from './helpers.js';

/**
 * The MCP gateway's registry (docs/operating/mcp.md): the MCP servers root and administrators register. A remote
 * server (`http`: Streamable HTTP, `sse`: the older HTTP+SSE transport) has a URL; a local one (`stdio`) a command
 * and its arguments, started only when MCP_STDIO_ENABLED is set. `headers` is a JSON object of request headers
 * (credentials), sealed at rest like channel keys. Tool lists are comma-separated `*` patterns; `price` is the quota
 * one tool call costs (0: free).
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const col = columns(dialect);
  await col
    .id(db.schema.createTable('mcp_servers'))
    .addColumn('name', 'varchar(64)', (c) => c.notNull())
    .addColumn('transport', 'varchar(16)', (c) => c.notNull())
    .addColumn('url', 'varchar(2048)', (c) => c.notNull().defaultTo(''))
    .addColumn('command', 'varchar(512)', (c) => c.notNull().defaultTo(''))
    .addColumn('args', 'varchar(4000)', (c) => c.notNull().defaultTo('[]'))
    .addColumn('headers', col.longText, col.text)
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('allow_tools', 'varchar(2000)', (c) => c.notNull().defaultTo(''))
    .addColumn('deny_tools', 'varchar(2000)', (c) => c.notNull().defaultTo(''))
    .addColumn('allow_groups', 'varchar(1000)', (c) => c.notNull().defaultTo(''))
    .addColumn('price', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('ux_mcp_servers_name').on('mcp_servers').column('name').unique().execute();
}
