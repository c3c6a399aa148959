import { idParam, MCP_HEADER_MASK, mcpServerCreateBody, mcpServerUpdateBody, mcpServerView } from '@tollway/shared';
import { z } from 'zod';
import type { AuditedCall, RouteAudit, Router } from '../../http/route.js';
import { mcpHealthRoutes } from './routes-health.js';
import { mcpConsoleRoutes } from './routes-tools.js';
import { mcpServersOf } from './service.js';

const tags = ['mcp'];
const base = '/api/mcp/servers';

/** A write's audit entry: the header names only (their values are credentials), every other field as sent. */
function audited(action: string): RouteAudit {
  return {
    action,
    target: 'mcp_server',
    fields: (c: AuditedCall) => {
      const body = (c.body ?? {}) as Record<string, unknown>;
      const headers = body.headers as Record<string, unknown> | undefined;
      const { oauth_client_secret: secret, ...rest } = headers ? { ...body, headers: Object.keys(headers) } : body;
      // The OAuth client secret: only what happened to it (the mask sent back keeps it).
      if (secret === undefined || secret === MCP_HEADER_MASK) return rest;
      return { ...rest, oauth_client_secret: secret ? 'changed' : 'removed' };
    },
  };
}

/** The MCP gateway's registry of servers (docs/operating/mcp.md): administrators only. */
export function mcpServerRoutes(r: Router): void {
  mcpHealthRoutes(r);
  mcpConsoleRoutes(r);
  r.add({
    method: 'GET',
    url: `${base}/`,
    level: 'admin',
    summary: 'Every registered MCP server (header values are masked, never answered)',
    tags,
    response: z.array(mcpServerView),
    handler: ({ ctx }) => mcpServersOf(ctx).list(),
  });
  r.add({
    method: 'GET',
    url: `${base}/:id`,
    level: 'admin',
    summary: 'One registered MCP server (header values masked)',
    tags,
    params: idParam,
    response: mcpServerView,
    handler: ({ ctx, params }) => mcpServersOf(ctx).get(params.id),
  });
  r.add({
    method: 'POST',
    url: `${base}/`,
    level: 'admin',
    summary:
      'Register an MCP server: http (Streamable HTTP) or sse with a URL the outbound guard allows, or stdio (a command, only with MCP_STDIO_ENABLED); headers are sealed at rest',
    tags,
    body: mcpServerCreateBody,
    response: mcpServerView,
    successMessage: 'created',
    audit: audited('mcp_server.create'),
    handler: ({ ctx, body }) => mcpServersOf(ctx).create(body),
  });
  r.add({
    method: 'PUT',
    url: `${base}/:id`,
    level: 'admin',
    summary: "Change an MCP server's present fields (headers, when sent, replace every stored header)",
    tags,
    params: idParam,
    body: mcpServerUpdateBody,
    response: mcpServerView,
    successMessage: 'updated',
    audit: audited('mcp_server.update'),
    handler: ({ ctx, params, body }) => mcpServersOf(ctx).update(params.id, body),
  });
  r.add({
    method: 'DELETE',
    url: `${base}/:id`,
    level: 'admin',
    summary: 'Remove an MCP server from the registry',
    tags,
    params: idParam,
    successMessage: 'deleted',
    audit: audited('mcp_server.delete'),
    handler: async ({ ctx, params }) => {
      await mcpServersOf(ctx).delete(params.id);
      return undefined;
    },
  });
}
