import { MCP_TOOL_SEPARATOR, mcpListOf, toolAllowed, type McpToolLists } from '@tollway/shared';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { OpenedMcpServer } from '../../modules/mcp-servers/service.js';

/** What a caller of the MCP endpoint may reach: the group its calls are billed in. */
export interface McpCaller {
  group: string;
}

/**
 * The caller's own tool lists, each over `<server>__<tool>` names: its token's, its organization's (organization
 * tokens) and its group's (the mcp_setting.group_tools option). Every list must let a tool through.
 */
export interface CallerToolRules {
  lists: readonly McpToolLists[];
}

/** Rules that let every tool through (no list set). */
export const NO_CALLER_RULES: CallerToolRules = { lists: [] };

/** Whether the caller's group may use the server (its allow_groups list; empty: every group). */
export function serverPermitted(server: OpenedMcpServer, caller: McpCaller): boolean {
  if (Number(server.enabled) !== 1) return false;
  const groups = mcpListOf(server.allow_groups);
  return groups.length === 0 || groups.includes(caller.group);
}

/** Whether the server's allow/deny lists let the tool (or prompt) named `name` be used. */
export function toolPermitted(server: OpenedMcpServer, name: string): boolean {
  return toolAllowed(name, mcpListOf(server.allow_tools), mcpListOf(server.deny_tools));
}

/** Whether every one of the caller's lists lets `<server>__<tool>` through. */
export function callerPermits(rules: CallerToolRules, server: string, name: string): boolean {
  const full = `${server}${MCP_TOOL_SEPARATOR}${name}`;
  return rules.lists.every((l) => toolAllowed(full, mcpListOf(l.allow), mcpListOf(l.deny)));
}

/**
 * Whether a tool the server listed may be used by this caller: the server's lists, the server's read-only rule
 * (only tools annotated `readOnlyHint: true`), and the caller's token, organization and group lists.
 */
export function toolUsable(server: OpenedMcpServer, tool: Tool, rules: CallerToolRules): boolean {
  if (!toolPermitted(server, tool.name)) return false;
  if (Number(server.read_only) === 1 && tool.annotations?.readOnlyHint !== true) return false;
  return callerPermits(rules, server.name, tool.name);
}

/** `<server>__<name>` on /mcp (every server); the name itself on /mcp/<server>. */
export const exposedName = (server: string, name: string, single: boolean): string =>
  single ? name : `${server}${MCP_TOOL_SEPARATOR}${name}`;

/** The server and the upstream name of an exposed name; undefined when it names no server. */
export function splitExposed(
  exposed: string,
  single: string | undefined,
): { server: string; name: string } | undefined {
  if (single) return { server: single, name: exposed };
  const at = exposed.indexOf(MCP_TOOL_SEPARATOR);
  if (at <= 0) return undefined;
  return { server: exposed.slice(0, at), name: exposed.slice(at + MCP_TOOL_SEPARATOR.length) };
}
