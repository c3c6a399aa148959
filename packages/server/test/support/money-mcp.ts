import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode as RpcCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { drainWriter } from './gateway.js';
import type { GatewayFixture } from './fixture.js';
import { UPSTREAM_FAILS, type MockMcp } from './mock-mcp.js';

/**
 * MCP tool calls as a money property surface (money-mcp-property.test.ts): a priced server registered on the
 * gateway, tool calls made by the official SDK client through /mcp, and what each call came to for the client.
 */

/**
 * What a property run asks of a tool call: answered, answered with a tool error, cancelled by the client, its client
 * gone (the connection dropped mid-call, no cancellation sent), failed upstream.
 */
export const MCP_CALL_KINDS = [
  'ok',
  'tool_error',
  'cancelled',
  'client_leaves',
  'upstream_fails',
  'unknown_tool',
] as const;
export type McpCallKind = (typeof MCP_CALL_KINDS)[number];

const TOOL_OF: Record<McpCallKind, string> = {
  ok: 'echo',
  tool_error: 'fails',
  cancelled: 'wait_forever',
  client_leaves: 'wait_forever',
  upstream_fails: UPSTREAM_FAILS,
  unknown_tool: 'not_a_tool_of_this_server',
};

/**
 * How a call ended for the client: a result (served), refused by the gateway for its balance, refused for naming a
 * tool the server does not list (unavailable), failed, or cancelled by the client.
 */
export type McpOutcome = 'served' | 'refused' | 'unavailable' | 'failed' | 'cancelled';

/** Failures in a row that would open an MCP server's breaker: more than one run's calls. */
const MCP_BREAKER_NEVER = 1000;

/**
 * Lets the gateway reach the mock (a private address, its own port), as an administrator would. Every failed call
 * must reach the upstream: no server's breaker opens within a run (mcp-health.test.ts tests the breaker).
 */
export async function allowMockMcp(gw: GatewayFixture<MockMcp>): Promise<void> {
  for (const [key, value] of [
    ['fetch_setting.allow_private_ip', 'true'],
    ['fetch_setting.allowed_ports', JSON.stringify([String(gw.mock.port)])],
    ['ChannelBreakerMinFailures', String(MCP_BREAKER_NEVER)],
  ])
    expect((await gw.root.call('PUT', '/api/option/', { key, value })).body.success, key).toBe(true);
}

let servers = 0;
/** Registers the mock as a new server charging `price` a call; its name. */
export async function pricedMcpServer(gw: GatewayFixture<MockMcp>, price: number): Promise<string> {
  const name = `priced-${process.pid % 1000}-${++servers}`;
  const res = await gw.root.call('POST', '/api/mcp/servers/', { name, transport: 'http', url: gw.mock.url, price });
  expect(res.body.success, res.body.message).toBe(true);
  return name;
}

/** An SDK client with a session on the gateway's /mcp for `key`. */
export async function mcpClient(gw: { base: string }, key: string): Promise<McpClient> {
  const client = new McpClient({ name: 'money-property', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${gw.base}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/**
 * One tool call of `kind` on `server`. A cancelled call is cancelled by the client once the upstream has started it
 * (its first progress notification), so the gateway holds its price while it runs.
 */
export async function callMcpTool(
  gw: { base: string },
  key: string,
  client: McpClient,
  server: string,
  kind: McpCallKind,
): Promise<McpOutcome> {
  if (kind === 'client_leaves') return leaveMidCall(gw, key, client, `${server}__${TOOL_OF[kind]}`);
  const abort = new AbortController();
  try {
    await client.callTool(
      { name: `${server}__${TOOL_OF[kind]}`, arguments: kind === 'ok' ? { text: 'money' } : {} },
      undefined,
      kind === 'cancelled' ? { signal: abort.signal, onprogress: () => abort.abort('the client stopped it') } : {},
    );
    return 'served';
  } catch (err) {
    if (abort.signal.aborted) return 'cancelled';
    // The gateway refuses a short balance as an invalid request (its relay code in data), before the upstream.
    if (err instanceof McpError && err.code === RpcCode.InvalidRequest) return 'refused';
    if (err instanceof McpError && err.code === RpcCode.InvalidParams) return 'unavailable';
    if (err instanceof McpError && err.code === RpcCode.InternalError) return 'failed';
    throw err;
  }
}

let leaving = 0;
/**
 * A tool call POSTed on the client's session whose connection the client drops once the upstream has started it
 * (its first progress event), sending no cancellation; refused when the gateway answers an error instead.
 */
async function leaveMidCall(gw: { base: string }, key: string, client: McpClient, name: string): Promise<McpOutcome> {
  const transport = client.transport as StreamableHTTPClientTransport;
  const abort = new AbortController();
  const res = await fetch(`${gw.base}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'mcp-session-id': transport.sessionId!,
      'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: `leaving-${++leaving}`,
      method: 'tools/call',
      params: { name, arguments: {}, _meta: { progressToken: `leaving-${leaving}` } },
    }),
    signal: abort.signal,
  });
  const reader = res.body!.getReader();
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      if (text.includes('notifications/progress')) {
        abort.abort();
        return 'cancelled';
      }
      if (text.includes('"error"')) break;
    }
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  }
  abort.abort();
  // No progress: the gateway refused the call (a short balance) before the upstream.
  expect(text, 'a refusal').toContain(String(RpcCode.InvalidRequest));
  return 'refused';
}

export interface McpLogRow {
  quota: number;
  status: string;
  price: number;
}

/** The MCP usage rows of `userId` (after the writer committed): each row's charge, status and price. */
export async function mcpLogRows<M>(gw: GatewayFixture<M>, userId: number): Promise<McpLogRow[]> {
  await drainWriter(gw.t);
  const rows = await gw.t.database.db.kysely
    .selectFrom('logs')
    .select(['quota', 'other'])
    .where('user_id', '=', userId)
    .where('model_name', 'like', 'mcp:%')
    .execute();
  return rows.map((r) => {
    const other = JSON.parse(r.other) as { mcp_status: string; mcp_price: number };
    return { quota: Number(r.quota), status: other.mcp_status, price: Number(other.mcp_price) };
  });
}
