import { z } from 'zod';
import {
  MCP_MAX_CALL_PRICE,
  MCP_MAX_CALLS_PER_MINUTE,
  MCP_MAX_CONCURRENT_CALLS,
  MCP_MAX_PATTERN_LIST,
  MCP_TOOL_SEPARATOR,
  MCP_TRANSPORTS,
} from '../mcp.js';

const NAME = /^[a-z0-9_-]{1,64}$/;
const MAX_URL = 2048;
const MAX_COMMAND = 512;
const MAX_ARGS = 64;
const MAX_ARG = 1000;
const MAX_HEADERS = 32;
const MAX_HEADER_NAME = 128;
const MAX_HEADER_VALUE = 4096;
const MAX_GROUPS = 1000;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** Fields of a server as an administrator writes them; on update an absent field keeps its value. */
export const mcpServerFields = z.object({
  name: z
    .string()
    .regex(NAME, 'name: 1-64 of a-z, 0-9, _ and -')
    .refine((n) => !n.includes(MCP_TOOL_SEPARATOR), `name may not contain ${MCP_TOOL_SEPARATOR}`),
  transport: z.enum(MCP_TRANSPORTS),
  url: z.string().trim().max(MAX_URL),
  command: z.string().trim().max(MAX_COMMAND),
  args: z.array(z.string().max(MAX_ARG)).max(MAX_ARGS),
  headers: z
    .record(z.string().max(MAX_HEADER_NAME).regex(HEADER_NAME, 'a header name'), z.string().max(MAX_HEADER_VALUE))
    .refine((h) => Object.keys(h).length <= MAX_HEADERS, `at most ${MAX_HEADERS} headers`),
  enabled: z.boolean(),
  allow_tools: z.string().max(MCP_MAX_PATTERN_LIST),
  deny_tools: z.string().max(MCP_MAX_PATTERN_LIST),
  allow_groups: z.string().max(MAX_GROUPS),
  price: z.number().int().min(0).max(MCP_MAX_CALL_PRICE),
  /** Only tools the server annotates `readOnlyHint: true` are listed and callable. */
  read_only: z.boolean(),
  /** Tool calls per minute one token may make on this server (0: no limit). */
  rate_limit: z.number().int().min(0).max(MCP_MAX_CALLS_PER_MINUTE),
  /** Tool calls one token may have in flight on this server (0: no limit). */
  max_concurrent: z.number().int().min(0).max(MCP_MAX_CONCURRENT_CALLS),
  /** Whether a call's arguments are kept in its log row (values under secret-looking names masked). */
  log_arguments: z.boolean(),
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
  read_only: z.boolean(),
  rate_limit: z.number(),
  max_concurrent: z.number(),
  log_arguments: z.boolean(),
  created_at: z.number(),
  updated_at: z.number(),
});
export type McpServerView = z.infer<typeof mcpServerView>;

/** A token's or an organization's tool lists: `<server>__<tool>` patterns (`*` any characters). */
export const mcpToolListFields = {
  mcp_allow_tools: z.string().trim().max(MCP_MAX_PATTERN_LIST),
  mcp_deny_tools: z.string().trim().max(MCP_MAX_PATTERN_LIST),
};

/** The option mcp_setting.group_tools: user group → its allow and deny lists ('' none). */
export const mcpGroupTools = z.record(
  z.string().max(64),
  z.object({
    allow: mcpToolListFields.mcp_allow_tools.default(''),
    deny: mcpToolListFields.mcp_deny_tools.default(''),
  }),
);
export type McpGroupTools = z.infer<typeof mcpGroupTools>;
