import type { OpenedMcpServer } from '../../modules/mcp-servers/service.js';
import { listOf, TOOL_SEPARATOR, toolAllowed } from '../../modules/mcp-servers/rules.js';

/** What a caller of the MCP endpoint may reach: the group its calls are billed in. */
export interface McpCaller {
  group: string;
}

/** Whether the caller's group may use the server (its allow_groups list; empty: every group). */
export function serverPermitted(server: OpenedMcpServer, caller: McpCaller): boolean {
  if (Number(server.enabled) !== 1) return false;
  const groups = listOf(server.allow_groups);
  return groups.length === 0 || groups.includes(caller.group);
}

/** Whether the server's allow/deny lists let the tool (or prompt) named `name` be used. */
export function toolPermitted(server: OpenedMcpServer, name: string): boolean {
  return toolAllowed(name, listOf(server.allow_tools), listOf(server.deny_tools));
}

/** `<server>__<name>` on /mcp (every server); the name itself on /mcp/<server>. */
export const exposedName = (server: string, name: string, single: boolean): string =>
  single ? name : `${server}${TOOL_SEPARATOR}${name}`;

/** The server and the upstream name of an exposed name; undefined when it names no server. */
export function splitExposed(
  exposed: string,
  single: string | undefined,
): { server: string; name: string } | undefined {
  if (single) return { server: single, name: exposed };
  const at = exposed.indexOf(TOOL_SEPARATOR);
  if (at <= 0) return undefined;
  return { server: exposed.slice(0, at), name: exposed.slice(at + TOOL_SEPARATOR.length) };
}
