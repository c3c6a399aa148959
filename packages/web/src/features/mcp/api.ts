import type {
  McpServerBody,
  McpServerHealth,
  McpServerTool,
  McpServerView,
  McpUsageAnswer,
  McpUsageQuery,
} from '@tollway/shared';
import { apiDelete, apiGet, apiPost, apiPut } from '../../lib/api';

/** A registered MCP server as the admin API answers it (header values masked). */
export type McpServer = McpServerView;

export const MCP_SERVERS_KEY = ['mcp-servers'] as const;
export const MCP_USAGE_KEY = ['mcp-usage'] as const;
export const MCP_HEALTH_KEY = ['mcp-health'] as const;

const BASE = '/api/mcp/servers';

export const fetchServers = () => apiGet<McpServer[]>(`${BASE}/`);
export const fetchServer = (id: number) => apiGet<McpServer>(`${BASE}/${id}`);
export const createServer = (body: McpServerBody) => apiPost<McpServer>(`${BASE}/`, body);
export const updateServer = (id: number, body: McpServerBody) => apiPut<McpServer>(`${BASE}/${id}`, body);
export const deleteServer = (id: number) => apiDelete(`${BASE}/${id}`);
/** Every server's breaker on the answering node. */
export const fetchHealth = () => apiGet<McpServerHealth[]>(`${BASE}/health`);
/** The server's tools, read from the server now (it may be slow or unreachable: a refusal then). */
export const fetchTools = (id: number) => apiGet<McpServerTool[]>(`${BASE}/${id}/tools`);

export function fetchUsage(q: McpUsageQuery): Promise<McpUsageAnswer> {
  const params = new URLSearchParams({
    start_timestamp: String(q.start_timestamp),
    end_timestamp: String(q.end_timestamp),
    utc_offset: String(q.utc_offset),
  });
  if (q.server) params.set('server', q.server);
  return apiGet<McpUsageAnswer>(`/api/mcp/usage?${params}`);
}
