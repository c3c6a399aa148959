import path from 'node:path';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { dialects } from '../support/databases.js';
import { useGateway } from '../support/fixture.js';
import { lastLogOf } from '../support/gateway.js';

const SCRIPT = path.resolve(import.meta.dirname, '../support/mcp-stdio-server.ts');

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A local MCP server over stdio, with MCP_STDIO_ENABLED: registered with its command (no shell), started by the
 * gateway on a session's first use, its tools listed and called through /mcp, its process ended with the session.
 */
describe.each(dialects)('MCP gateway, stdio servers (%s)', (dialect) => {
  const g = useGateway(
    dialect,
    { user: 'stdio-caller', quota: 1_000, env: { MCP_STDIO_ENABLED: 'true' } },
    async (gw) => {
      const res = await gw.root.call('POST', '/api/mcp/servers/', {
        name: 'local',
        transport: 'stdio',
        command: process.execPath,
        args: [SCRIPT],
      });
      expect(res.body.success, res.body.message).toBe(true);
    },
  );

  it('starts the command, proxies its tools and ends its process with the session', async () => {
    const client = new McpClient({ name: 'tollway-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${g.base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${g.key}` } },
    });
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['local__whoami']);
    const result = await client.callTool({ name: 'local__whoami', arguments: { word: 'hi' } });
    const text = (result.content as { text: string }[])[0]!.text;
    const match = /^pid (\d+) heard hi$/.exec(text);
    expect(match, text).not.toBeNull();
    const pid = Number(match![1]);
    expect(alive(pid)).toBe(true);
    const row = await lastLogOf(g.t, 'mcp:local/whoami');
    expect(JSON.parse(row.other)).toMatchObject({ mcp_server: 'local', mcp_tool: 'whoami', mcp_status: 'ok' });
    await transport.terminateSession();
    await client.close();
    await expect.poll(() => alive(pid), { timeout: 5_000 }).toBe(false);
  });
});
