import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
import type { Client, TestApp } from './app.js';
import { drainWriter } from './gateway.js';

/** Lets the gateway reach a local MCP server (a private address, its own port), as an administrator would. */
export async function allowLocalMcp(root: Client, port: number): Promise<void> {
  for (const [key, value] of [
    ['fetch_setting.allow_private_ip', 'true'],
    ['fetch_setting.allowed_ports', JSON.stringify([String(port)])],
  ])
    expect((await root.call('PUT', '/api/option/', { key, value })).body.success, key).toBe(true);
}

/** Registers each server (over Streamable HTTP at `url`) through the management API. */
export async function registerMcpServers(root: Client, url: string, servers: object[]): Promise<void> {
  for (const s of servers) {
    const res = await root.call('POST', '/api/mcp/servers/', { transport: 'http', url, ...s });
    expect(res.body.success, res.body.message).toBe(true);
  }
}

/**
 * Official SDK clients of the gateway's MCP endpoint, each with its session: `connect(key, path)` opens one (the
 * key as the bearer), `closeAll()` ends them (an afterAll's).
 */
export function mcpClients(base: () => string) {
  const open: McpClient[] = [];
  return {
    async connect(key: string | undefined, path = '/mcp') {
      const client = new McpClient({ name: 'tollway-test', version: '1.0.0' });
      const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
      const transport = new StreamableHTTPClientTransport(new URL(`${base()}${path}`), { requestInit: { headers } });
      await client.connect(transport);
      open.push(client);
      return { client, transport };
    },
    async closeAll() {
      for (const c of open.splice(0)) await c.close().catch(() => undefined);
    },
  };
}

/** The MCP tool calls' usage rows, oldest first (after the writer committed). */
export async function mcpLogs(t: TestApp) {
  await drainWriter(t);
  return t.database.db.kysely
    .selectFrom('logs')
    .selectAll()
    .where('model_name', 'like', 'mcp:%')
    .orderBy('id')
    .execute();
}
