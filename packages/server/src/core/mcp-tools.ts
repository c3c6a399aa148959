import type { McpServerTool } from '@tollway/shared';

/**
 * Lists a registered MCP server's tools for the console: connects to it, reads every page of its tool list and
 * says which ones its own rules let through (the relay implements it; set on AppContext at start-up, so the
 * registry's routes need no import of the relay). A server that cannot be reached is a coded refusal.
 */
export type McpToolsProbe = (serverId: number) => Promise<McpServerTool[]>;
