/**
 * The MCP gateway's rules shared by server and console (docs/operating/mcp.md): tool name patterns and the limits
 * of a registered server's fields.
 */

/** The transports a registered MCP server speaks. */
export const MCP_TRANSPORTS = ['http', 'sse', 'stdio'] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

/** Between a server's name and its tool's in the tools /mcp lists: `<server>__<tool>`. */
export const MCP_TOOL_SEPARATOR = '__';
/** The largest per-call price (quota) a server may charge. */
export const MCP_MAX_CALL_PRICE = 1_000_000_000_000;
/** The most tool calls per minute, and in flight, a server may allow one token (0: no limit). */
export const MCP_MAX_CALLS_PER_MINUTE = 1_000_000;
export const MCP_MAX_CONCURRENT_CALLS = 10_000;
/** Longest pattern list (server, token, organization). */
export const MCP_MAX_PATTERN_LIST = 2000;
/** How Tollway authenticates to an upstream's OAuth token endpoint (RFC 7591 token_endpoint_auth_method names). */
export const MCP_OAUTH_CLIENT_AUTH = ['client_secret_basic', 'client_secret_post'] as const;
export type McpOAuthClientAuth = (typeof MCP_OAUTH_CLIENT_AUTH)[number];
/** Shown instead of a stored header's value (and a stored OAuth client secret). */
export const MCP_HEADER_MASK = '***';

/** The entries of a comma (or newline) separated list, trimmed, empty ones dropped. */
export const mcpListOf = (text: string): string[] =>
  text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * Whether `text` matches `pattern`, where `*` stands for any run of characters (no other special character):
 * a plain two-pointer matcher, linear in practice and never a RegExp built from the pattern.
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t]) {
      p++;
      t++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++mark;
    } else return false;
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

/** A name is usable when the allow list is empty or names it, and the deny list does not (deny wins). */
export function toolAllowed(tool: string, allow: readonly string[], deny: readonly string[]): boolean {
  if (deny.some((d) => wildcardMatch(d, tool))) return false;
  return allow.length === 0 || allow.some((a) => wildcardMatch(a, tool));
}

/** An allow list and a deny list of patterns, as a token, an organization or a group sets them ('' none). */
export interface McpToolLists {
  allow: string;
  deny: string;
}
