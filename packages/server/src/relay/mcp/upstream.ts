import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike, Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import type { OpenedMcpServer } from '../../modules/mcp-servers/service.js';
import { guardedDispatcher } from '../../lib/outbound-dispatcher.js';
import { fetchPolicy } from '../../lib/outbound-guard.js';
import type { RelayContext } from '../pipeline/services.js';

/** How long connecting to an upstream server (its initialize handshake) may take. */
export const MCP_CONNECT_TIMEOUT_MS = 15_000;
/** Pages of an upstream's tools, resources or prompts read for one list (each page is the upstream's size). */
export const MCP_LIST_PAGES_MAX = 20;

/** The name and version Tollway gives as an MCP client to upstream servers. */
const CLIENT_INFO = { name: 'tollway-mcp-gateway', version: '0.1.0' };

/** A fetch whose every request (and redirect hop) goes through the outbound guard. */
function guardedFetch(ctx: RelayContext): FetchLike {
  const dispatcher: Dispatcher = guardedDispatcher(() => fetchPolicy(ctx.options));
  return (url, init) =>
    undiciFetch(url, { ...(init as object), dispatcher } as Parameters<
      typeof undiciFetch
    >[1]) as unknown as Promise<Response>;
}

/** The client transport a registered server is reached over. */
function transportFor(ctx: RelayContext, server: OpenedMcpServer): Transport {
  if (server.transport === 'stdio') {
    if (!ctx.config.mcpStdioEnabled) throw new Error('stdio MCP servers are off (MCP_STDIO_ENABLED)');
    // The command from the registry, started without a shell, with the SDK's minimal environment (no secrets).
    return new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: getDefaultEnvironment(),
      stderr: 'ignore',
    });
  }
  const opts = { requestInit: { headers: server.headers }, fetch: guardedFetch(ctx) };
  const url = new URL(server.url);
  // SSE: the older HTTP+SSE transport, kept for servers that have not moved to Streamable HTTP.
  return server.transport === 'sse' ? new SSEClientTransport(url, opts) : new StreamableHTTPClientTransport(url, opts);
}

/** A client connected to `server` (its initialize handshake done). */
export async function connectUpstream(ctx: RelayContext, server: OpenedMcpServer): Promise<Client> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  await client.connect(transportFor(ctx, server), { timeout: MCP_CONNECT_TIMEOUT_MS });
  return client;
}

/** Every page of a cursor-paged list, at most MCP_LIST_PAGES_MAX. */
export async function allPages<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; next?: string }>) {
  const out: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < MCP_LIST_PAGES_MAX; i++) {
    const { items, next } = await page(cursor);
    out.push(...items);
    if (!next) break;
    cursor = next;
  }
  return out;
}
