import { idParam, mcpServerTool, mcpUsageAnswer, mcpUsageQuery } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { mcpUsageOf } from './usage.js';

const tags = ['mcp'];

/** The console's views of the registry (docs/operating/mcp.md "The console"): a server's tools and the calls made. */
export function mcpConsoleRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/mcp/servers/:id/tools',
    level: 'admin',
    summary:
      "A registered MCP server's tools, read from the server now (every page): name, description, annotations and whether the server's own rules (allow/deny lists, read-only) let each through",
    tags,
    params: idParam,
    response: z.array(mcpServerTool),
    handler: ({ ctx, params }) => ctx.mcpTools(params.id),
  });
  r.add({
    method: 'GET',
    url: '/api/mcp/usage',
    level: 'admin',
    summary:
      'MCP tool calls of a time range from the usage logs: per server and tool the calls, calls by status, quota charged and average duration; calls per day and server',
    tags,
    query: mcpUsageQuery,
    response: mcpUsageAnswer,
    handler: ({ ctx, query }) => mcpUsageOf(ctx).report(query),
  });
}
