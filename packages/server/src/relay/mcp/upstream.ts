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
import { mcpOAuthOf } from './oauth.js';

/** How long connecting to an upstream server (its initialize handshake) may take. */
export const MCP_CONNECT_TIMEOUT_MS = 15_000;
/** Pages of an upstream's tools, resources or prompts read for one list (each page is the upstream's size). */
export const MCP_LIST_PAGES_MAX = 20;

const HTTP_UNAUTHORIZED = 401;

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

/**
 * The server's fetch: guarded, and for a server with OAuth client credentials each request carries the server's
 * access token (`Authorization: Bearer`, over any registered header of that name); a 401 from the server fetches
 * a new token once and sends the request again. A token endpoint failure fails the request (McpOAuthError).
 */
function serverFetch(ctx: RelayContext, server: OpenedMcpServer): FetchLike {
  const base = guardedFetch(ctx);
  if (!server.oauth_token_url) return base;
  const tokens = mcpOAuthOf(ctx);
  const send = (url: string | URL, init: RequestInit | undefined, token: string) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return base(url, { ...init, headers });
  };
  return async (url, init) => {
    const token = await tokens.token(server);
    const res = await send(url, init, token);
    if (res.status !== HTTP_UNAUTHORIZED) return res;
    await res.body?.cancel().catch(() => undefined);
    return send(url, init, await tokens.token(server, token));
  };
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
  const opts = { requestInit: { headers: server.headers }, fetch: serverFetch(ctx, server) };
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
