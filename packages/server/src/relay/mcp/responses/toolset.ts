import crypto from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { mcpServersOf, type OpenedMcpServer } from '../../../modules/mcp-servers/service.js';
import type { Identified } from '../../entry/authenticate.js';
import type { RelayContext } from '../../pipeline/services.js';
import { ToolCatalog } from '../catalog.js';
import { readThroughBreaker } from '../health.js';
import { exposedName, serverPermitted } from '../permissions.js';
import { usableTools, type ToolCallSession } from '../tool-call.js';
import { connectUpstream } from '../upstream.js';
import { mcpRefusal, sameServerUrl, type McpToolSpec } from './spec.js';

/** A tool offered to the model: the function name it sees, and the MCP server and tool it stands for. */
export interface OfferedTool {
  server: OpenedMcpServer;
  label: string;
  name: string;
}

/** OpenAI's `mcp_list_tools` output item. */
export interface McpListToolsItem {
  type: 'mcp_list_tools';
  id: string;
  server_label: string;
  tools: { name: string; description?: string | null; input_schema: unknown; annotations?: unknown }[];
  error: string | null;
}

/** The MCP side of one Responses call: the servers' tool lists, the tools offered, the upstream clients opened. */
export interface McpToolset {
  lists: McpListToolsItem[];
  /** Function name → the MCP tool (only tools the caller may use, within the request's allowed_tools). */
  offered: Map<string, OfferedTool>;
  /** Server label → the registered server (to name a tool the model calls that was not offered). */
  servers: Map<string, OpenedMcpServer>;
  /** The function tools given to the model in place of the `mcp` tools. */
  functions: Record<string, unknown>[];
  /** The request's side of the MCP call path: the caller, its upstream clients and their tool lists. */
  session: ToolCallSession;
  /** The upstream client of each server reached (closed at the end of the request). */
  clients: Map<number, Promise<Client>>;
}

/** How long the upstream clients of a cancelled request stay open for the cancellation to reach their servers. */
export const MCP_CANCEL_GRACE_MS = 2_000;

export const itemId = (prefix: string): string => `${prefix}_${crypto.randomBytes(12).toString('hex')}`;

/** The function name the model sees for `tool` of the server labelled `label`. */
export const functionName = (label: string, tool: string): string => exposedName(label, tool, false);

/** A function name every Responses upstream takes (OpenAI's rule): a tool whose name would break it is not offered. */
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Of the tools the caller may use, those the request's allowed_tools asks for (and a model can be given). */
const askedTools = (spec: McpToolSpec, tools: Tool[]): Tool[] =>
  tools.filter(
    (t) =>
      FUNCTION_NAME.test(functionName(spec.label, t.name)) &&
      (!spec.names || spec.names.has(t.name)) &&
      (!spec.readOnly || t.annotations?.readOnlyHint === true),
  );

/** A request's session on the MCP call path: one upstream client per server, opened on first use. */
function requestSession(ctx: RelayContext, who: Identified & { ip: string }, clients: Map<number, Promise<Client>>) {
  const session: ToolCallSession = {
    caller: { auth: who.auth, group: who.group, ip: who.ip },
    catalog: new ToolCatalog(),
    upstream(server: OpenedMcpServer) {
      let client = clients.get(server.id);
      if (!client) {
        client = connectUpstream(ctx, server);
        clients.set(server.id, client);
      }
      return client;
    },
  };
  return session;
}

/**
 * The tools the caller may use on `server`, read as /mcp reads its lists: not asked while the server's breaker is
 * open, and the outcome told to the breaker. A server that cannot be listed gives the error its item says.
 */
async function listedTools(
  ctx: RelayContext,
  session: ToolCallSession,
  server: OpenedMcpServer,
): Promise<Tool[] | string> {
  const r = await readThroughBreaker(ctx, server, 'MCP upstream list failed (Responses mcp tool)', () =>
    usableTools(ctx, session, server),
  );
  if ('value' in r) return r.value;
  return 'unavailable' in r
    ? `MCP server ${server.name} is unavailable after repeated failures`
    : `MCP server ${server.name} cannot be reached`;
}

/**
 * Resolves each `mcp` tool to a registered server the caller may use (an unknown or refused label, or a
 * server_url that is not the server's own, is a 400: nothing is fetched from a caller's URL), then lists each
 * server's tools the caller may use (the MCP gateway's own rules: server, token, organization and group lists,
 * read-only servers) through Tollway's own connection (its registered headers; the caller's are never sent).
 * A server that cannot be listed gets its `mcp_list_tools` item with the error, and offers no tools.
 */
export async function openToolset(
  ctx: RelayContext,
  who: Identified & { ip: string },
  specs: McpToolSpec[],
): Promise<McpToolset> {
  const registered = await mcpServersOf(ctx).enabledServers();
  const clients = new Map<number, Promise<Client>>();
  const session = requestSession(ctx, who, clients);
  const set: McpToolset = { lists: [], offered: new Map(), servers: new Map(), functions: [], session, clients };
  const resolved = specs.map((spec) => {
    const server = registered.find((s) => s.name === spec.label && serverPermitted(s, who));
    if (!server)
      throw mcpRefusal(
        `MCP server ${spec.label.slice(0, 64)} is not registered or not available to this token`,
        'mcp_server_not_found',
        'tools',
      );
    if (spec.url !== undefined && (server.transport === 'stdio' || !sameServerUrl(spec.url, server.url)))
      throw mcpRefusal(
        `server_url of ${server.name} is not the registered server's: Tollway reaches registered MCP servers only ` +
          '(leave server_url out)',
        'mcp_server_url_refused',
        'tools',
      );
    return { spec, server };
  });
  for (const { spec, server } of resolved) {
    set.servers.set(spec.label, server);
    const item: McpListToolsItem = {
      type: 'mcp_list_tools',
      id: itemId('mcpl'),
      server_label: spec.label,
      tools: [],
      error: null,
    };
    set.lists.push(item);
    const tools = await listedTools(ctx, session, server);
    if (typeof tools === 'string') {
      item.error = tools;
      continue;
    }
    for (const t of askedTools(spec, tools)) {
      const name = functionName(spec.label, t.name);
      set.offered.set(name, { server, label: spec.label, name: t.name });
      item.tools.push({
        name: t.name,
        description: t.description ?? null,
        input_schema: t.inputSchema,
        ...(t.annotations ? { annotations: t.annotations } : {}),
      });
      set.functions.push({
        type: 'function',
        name,
        ...(t.description ? { description: t.description } : {}),
        parameters: t.inputSchema,
        strict: false,
      });
    }
  }
  return set;
}

/**
 * Closes every upstream client the request opened; a cancelled request's a moment later, so the cancellation of a
 * tool call in flight (notifications/cancelled, sent as the call is aborted) reaches its server first.
 */
export async function closeToolset(set: McpToolset, cancelled: boolean): Promise<void> {
  const clients = [...set.clients.values()];
  set.clients.clear();
  const close = () => Promise.allSettled(clients.map(async (c) => (await c).close()));
  if (!cancelled) await close();
  else setTimeout(() => void close(), MCP_CANCEL_GRACE_MS).unref();
}
