import { z } from 'zod';

/** The transports a registered MCP server speaks. */
export const MCP_TRANSPORTS = ['http', 'sse', 'stdio'] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

/** Between a server's name and its tool's in the tools /mcp lists: `<server>__<tool>`. */
export const TOOL_SEPARATOR = '__';
const NAME = /^[a-z0-9_-]{1,64}$/;
const MAX_URL = 2048;
const MAX_COMMAND = 512;
const MAX_ARGS = 64;
const MAX_ARG = 1000;
const MAX_HEADERS = 32;
const MAX_HEADER_NAME = 128;
const MAX_HEADER_VALUE = 4096;
const MAX_LIST = 2000;
const MAX_GROUPS = 1000;
/** The largest per-call price (quota) a server may charge. */
export const MAX_CALL_PRICE = 1_000_000_000_000;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** Shown instead of a stored header's value. */
export const HEADER_MASK = '***';

/** Fields of a server as root writes them; on update an absent field keeps its value and `headers` replaces all. */
export const mcpServerFields = z.object({
  name: z
    .string()
    .regex(NAME, 'name: 1-64 of a-z, 0-9, _ and -')
    .refine((n) => !n.includes(TOOL_SEPARATOR), `name may not contain ${TOOL_SEPARATOR}`),
  transport: z.enum(MCP_TRANSPORTS),
  url: z.string().trim().max(MAX_URL),
  command: z.string().trim().max(MAX_COMMAND),
  args: z.array(z.string().max(MAX_ARG)).max(MAX_ARGS),
  headers: z
    .record(z.string().max(MAX_HEADER_NAME).regex(HEADER_NAME, 'a header name'), z.string().max(MAX_HEADER_VALUE))
    .refine((h) => Object.keys(h).length <= MAX_HEADERS, `at most ${MAX_HEADERS} headers`),
  enabled: z.boolean(),
  allow_tools: z.string().max(MAX_LIST),
  deny_tools: z.string().max(MAX_LIST),
  allow_groups: z.string().max(MAX_GROUPS),
  price: z.number().int().min(0).max(MAX_CALL_PRICE),
});
export const mcpServerCreateBody = mcpServerFields.partial().required({ name: true, transport: true });
export const mcpServerUpdateBody = mcpServerFields.partial();
export type McpServerBody = z.infer<typeof mcpServerUpdateBody>;

/** A registered server as the management API answers it: header values masked, never answered. */
export const mcpServerView = z.object({
  id: z.number(),
  name: z.string(),
  transport: z.enum(MCP_TRANSPORTS),
  url: z.string(),
  command: z.string(),
  args: z.array(z.string()),
  headers: z.record(z.string(), z.string()),
  enabled: z.boolean(),
  allow_tools: z.string(),
  deny_tools: z.string(),
  allow_groups: z.string(),
  price: z.number(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type McpServerView = z.infer<typeof mcpServerView>;

/** The entries of a comma (or newline) separated list, trimmed, empty ones dropped. */
export const listOf = (text: string): string[] =>
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

/** A tool is usable when the allow list is empty or names it, and the deny list does not (deny wins). */
export function toolAllowed(tool: string, allow: readonly string[], deny: readonly string[]): boolean {
  if (deny.some((d) => wildcardMatch(d, tool))) return false;
  return allow.length === 0 || allow.some((a) => wildcardMatch(a, tool));
}
