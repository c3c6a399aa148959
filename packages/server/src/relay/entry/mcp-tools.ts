import { ErrorCode, type McpServerTool } from '@tollway/shared';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { coded } from '../../lib/errors.js';
import { mcpServersOf, type OpenedMcpServer } from '../../modules/mcp-servers/service.js';
import { NO_CALLER_RULES, toolUsable } from '../mcp/permissions.js';
import { allPages, connectUpstream } from '../mcp/upstream.js';
import type { RelayContext } from '../pipeline/services.js';

/** The longest tool description answered to the console (the server's own text may be long). */
const DESCRIPTION_MAX = 2000;
const BAD_GATEWAY = 502;

const unreachable = (server: OpenedMcpServer) =>
  coded(
    ErrorCode.McpServerUnreachable,
    `the MCP server ${server.name} could not be reached or did not list its tools`,
    { name: server.name },
    BAD_GATEWAY,
  );

function viewOf(server: OpenedMcpServer, tool: Tool): McpServerTool {
  return {
    name: tool.name,
    description: (tool.description ?? '').slice(0, DESCRIPTION_MAX),
    annotations: { ...(tool.annotations ?? {}) },
    read_only: tool.annotations?.readOnlyHint === true,
    permitted: toolUsable(server, tool, NO_CALLER_RULES),
  };
}

/**
 * A registered server's tools as its own rules see them (allow/deny lists, read-only), for the console: one
 * connection, every page read, then closed. Why a connection failed is logged, never answered (it may name an
 * internal address).
 */
export async function listMcpServerTools(ctx: RelayContext, serverId: number): Promise<McpServerTool[]> {
  const registry = mcpServersOf(ctx);
  const server = registry.opened(await registry.row(serverId));
  let tools: Tool[];
  try {
    const client = await connectUpstream(ctx, server);
    try {
      tools = await allPages(async (cursor) => {
        const r = await client.listTools(cursor ? { cursor } : undefined);
        return { items: r.tools, next: r.nextCursor };
      });
    } finally {
      await client.close().catch(() => undefined);
    }
  } catch (err) {
    ctx.log.warn({ err, server: server.name }, 'MCP server tool list failed');
    throw unreachable(server);
  }
  return tools.map((t) => viewOf(server, t));
}
