import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerHealth } from '@tollway/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { mcpHealthOf } from '../../src/modules/mcp-servers/health.js';
import { createUserClient, setupRoot, type Client } from '../support/app.js';
import { addToken, listen, setQuota } from '../support/gateway.js';
import { startMockMcp, UPSTREAM_FAILS, type MockMcp } from '../support/mock-mcp.js';
import { useTwoNodes } from '../support/two-nodes.js';

const MIN_FAILURES = 2;
/** Long enough that the breaker is still open when node B is asked, even under load. */
const COOLDOWN_S = 30;

/** Two nodes on PostgreSQL and Redis: an MCP server's breaker opened by one node's calls is open on the other. */
describe('MCP server breakers across two nodes', () => {
  let mock: MockMcp;
  let root: Client;
  let key = '';
  let bases: string[] = [];
  let flakyId = 0;
  const open: McpClient[] = [];
  const nodes = useTwoNodes({}, async ({ a, b }) => {
    mock = await startMockMcp();
    root = await setupRoot(a.app);
    for (const [k, value] of Object.entries({
      'fetch_setting.allow_private_ip': 'true',
      'fetch_setting.allowed_ports': JSON.stringify([String(mock.port)]),
      ChannelBreakerMinFailures: String(MIN_FAILURES),
      ChannelBreakerCooldownSeconds: String(COOLDOWN_S),
    }))
      expect((await root.call('PUT', '/api/option/', { key: k, value })).body.success, k).toBe(true);
    const res = await root.call('POST', '/api/mcp/servers/', { name: 'flaky', transport: 'http', url: mock.url });
    expect(res.body.success, res.body.message).toBe(true);
    flakyId = (res.body.data as { id: number }).id;
    const u = await createUserClient(a.app, root, 'mcp-cluster-user');
    await setQuota(root, u.userId!, 1_000);
    key = (await addToken(a, u.userId!, {})).key;
    bases = [await listen(a), await listen(b)];
    // Node B reads the options on its next reload; the test sets them there as they are in the database.
    await b.runtime.ctx.options.load();
  });
  afterAll(async () => {
    for (const c of open) await c.close().catch(() => undefined);
    await mock?.close();
  });

  const connect = async (node: number) => {
    const client = new McpClient({ name: 'cluster-test', version: '1.0.0' });
    const headers = { authorization: `Bearer ${key}` };
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${bases[node]}/mcp`), { requestInit: { headers } }),
    );
    open.push(client);
    return client;
  };
  /** The server's breaker state as a node sees it (node A through its API, node B in its memory). */
  const stateOn = async (node: number): Promise<McpServerHealth['state']> => {
    if (node === 1) return mcpHealthOf(nodes.b.runtime.ctx).health({ id: flakyId, name: 'flaky' }).state;
    return (await root.call<McpServerHealth>('GET', `/api/mcp/servers/${flakyId}/health`)).body.data!.state;
  };

  it('node B leaves out and refuses a server node A found failing, and closes it when A does', async () => {
    const onA = await connect(0);
    const onB = await connect(1);
    expect((await onB.listTools()).tools.map((t) => t.name)).toContain('flaky__echo');
    for (let i = 0; i < MIN_FAILURES; i++)
      expect(await onA.callTool({ name: `flaky__${UPSTREAM_FAILS}` }).catch((e: unknown) => e)).toBeInstanceOf(
        McpError,
      );
    expect(await stateOn(0)).toBe('open');
    await expect.poll(() => stateOn(1), { timeout: 5_000 }).toBe('open');
    const echoes = mock.calls.echo ?? 0;
    const refused = await onB.callTool({ name: 'flaky__echo', arguments: { text: 'x' } }).catch((e: unknown) => e);
    expect((refused as McpError).message).toContain('MCP server flaky is unavailable');
    expect(mock.calls.echo ?? 0).toBe(echoes);
    expect((await onB.listTools()).tools.map((t) => t.name)).not.toContain('flaky__echo');
    // An administrator edits the server on node A: its breaker closes on both nodes.
    expect((await root.call('PUT', `/api/mcp/servers/${flakyId}`, { price: 0 })).body.success).toBe(true);
    await expect.poll(() => stateOn(1), { timeout: 5_000 }).toBe('closed');
    expect((await onB.callTool({ name: 'flaky__echo', arguments: { text: 'y' } })).content).toEqual([
      { type: 'text', text: 'echo: y' },
    ]);
  });
});
