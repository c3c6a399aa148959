import type { Kysely } from 'kysely';
import type { DialectName } from '../connect.js';

/**
 * The MCP gateway's permissions and limits (docs/operating/mcp.md). On a server: `read_only` (only tools annotated
 * read-only), `rate_limit` (tool calls per minute per token), `max_concurrent` (calls in flight per token) and
 * `log_arguments` (a call's arguments kept in its log row, secrets masked). On a token and an organization:
 * `mcp_allow_tools` / `mcp_deny_tools`, comma-separated `<server>__<tool>` patterns ('' none).
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  const addInt = (table: string, column: string) =>
    db.schema
      .alterTable(table)
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  const addList = (table: string, column: string) =>
    db.schema
      .alterTable(table)
      .addColumn(column, 'varchar(2000)', (c) => c.notNull().defaultTo(''))
      .execute();
  for (const column of ['read_only', 'rate_limit', 'max_concurrent', 'log_arguments'])
    await addInt('mcp_servers', column);
  for (const table of ['tokens', 'organizations']) {
    await addList(table, 'mcp_allow_tools');
    await addList(table, 'mcp_deny_tools');
  }
}
