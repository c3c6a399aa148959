import { idParam, mcpServerHealth } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { mcpServersOf } from './service.js';

const tags = ['mcp'];

/** Each registered server's health: its circuit breaker on the answering node (docs/operating/mcp.md "Health"). */
export function mcpHealthRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/mcp/servers/health',
    level: 'admin',
    summary:
      "Every registered MCP server's health on this node: breaker state, failures in a row, when an open breaker lets a probe through, the last error (no credentials, no addresses)",
    tags,
    response: z.array(mcpServerHealth),
    handler: ({ ctx }) => mcpServersOf(ctx).healthOfAll(),
  });
  r.add({
    method: 'GET',
    url: '/api/mcp/servers/:id/health',
    level: 'admin',
    summary: "One registered MCP server's health on this node (its breaker)",
    tags,
    params: idParam,
    response: mcpServerHealth,
    handler: ({ ctx, params }) => mcpServersOf(ctx).health(params.id),
  });
}
