import type { Insertable, Selectable } from 'kysely';
import type { Db } from '../../db/connect.js';
import type { McpServersTable } from '../../db/schema-mcp.js';

export type McpServerRow = Selectable<McpServersTable>;
export type NewMcpServerRow = Omit<Insertable<McpServersTable>, 'id'>;

/** The most servers the registry holds (every session may connect to each). */
export const MCP_SERVERS_MAX = 200;

/** SQL for the MCP servers' registry (headers as stored: sealed). */
export class McpServersStore {
  constructor(private readonly db: Db) {}

  private get k() {
    return this.db.kysely;
  }

  list(enabledOnly = false): Promise<McpServerRow[]> {
    let q = this.k.selectFrom('mcp_servers').selectAll().orderBy('id').limit(MCP_SERVERS_MAX);
    if (enabledOnly) q = q.where('enabled', '=', 1);
    return q.execute();
  }

  async count(): Promise<number> {
    const row = await this.k
      .selectFrom('mcp_servers')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  find(id: number): Promise<McpServerRow | undefined> {
    return this.k.selectFrom('mcp_servers').selectAll().where('id', '=', id).executeTakeFirst();
  }

  findByName(name: string): Promise<McpServerRow | undefined> {
    return this.k.selectFrom('mcp_servers').selectAll().where('name', '=', name).executeTakeFirst();
  }

  async nameTaken(name: string, exceptId = 0): Promise<boolean> {
    const row = await this.k
      .selectFrom('mcp_servers')
      .select('id')
      .where('name', '=', name)
      .where('id', '!=', exceptId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async insert(row: NewMcpServerRow): Promise<number> {
    // MySQL has no RETURNING: its insertId is the row's.
    if (this.db.dialect === 'mysql')
      return Number((await this.k.insertInto('mcp_servers').values(row).executeTakeFirstOrThrow()).insertId);
    return (await this.k.insertInto('mcp_servers').values(row).returning('id').executeTakeFirstOrThrow()).id;
  }

  async update(id: number, row: Partial<NewMcpServerRow>): Promise<void> {
    await this.k.updateTable('mcp_servers').set(row).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<boolean> {
    const res = await this.k.deleteFrom('mcp_servers').where('id', '=', id).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
