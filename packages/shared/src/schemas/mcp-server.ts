import { z } from 'zod';
import { ErrorCode } from '../error-codes.js';
import { inputRule } from '../input-rules.js';
import {
  MCP_MAX_CALL_PRICE,
  MCP_MAX_CALLS_PER_MINUTE,
  MCP_MAX_CONCURRENT_CALLS,
  MCP_MAX_PATTERN_LIST,
  MCP_OAUTH_CLIENT_AUTH,
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
const MAX_OAUTH_TEXT = 512;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * OAuth 2.0 client credentials to the upstream (RFC 6749 §4.4): Tollway fetches a token at `oauth_token_url` and
 * sends it as `Authorization: Bearer`. The secret is sealed at rest and answered as MCP_HEADER_MASK; on update an
 * absent secret (or the mask sent back) keeps the stored one, '' removes it.
 */
const mcpOAuthFields = {
  oauth_token_url: z.string().trim().max(MAX_URL),
  oauth_client_id: z.string().trim().max(MAX_OAUTH_TEXT),
  oauth_client_secret: z.string().max(MAX_HEADER_VALUE),
  oauth_scope: z.string().trim().max(MAX_OAUTH_TEXT),
  oauth_audience: z.string().trim().max(MAX_OAUTH_TEXT),
  /** How Tollway authenticates to the token endpoint: HTTP Basic (the default) or the secret in the form. */
  oauth_client_auth: z.enum(MCP_OAUTH_CLIENT_AUTH),
};
/** As answered: the secret is MCP_HEADER_MASK when one is stored, else ''. */
const mcpOAuthView = {
  oauth_token_url: z.string(),
  oauth_client_id: z.string(),
  oauth_client_secret: z.string(),
  oauth_scope: z.string(),
  oauth_audience: z.string(),
  oauth_client_auth: z.enum(MCP_OAUTH_CLIENT_AUTH),
};

/** Fields of a server as an administrator writes them; on update an absent field keeps its value. */
export const mcpServerFields = z.object({
  name: z
    .string()
    .regex(NAME, 'name: 1-64 of a-z, 0-9, _ and -')
    .refine(
      (n) => !n.includes(MCP_TOOL_SEPARATOR),
      inputRule(ErrorCode.InputBadFormat, `name may not contain ${MCP_TOOL_SEPARATOR}`),
    ),
  transport: z.enum(MCP_TRANSPORTS),
  url: z.string().trim().max(MAX_URL),
  command: z.string().trim().max(MAX_COMMAND),
  args: z.array(z.string().max(MAX_ARG)).max(MAX_ARGS),
  headers: z
    .record(z.string().max(MAX_HEADER_NAME).regex(HEADER_NAME, 'a header name'), z.string().max(MAX_HEADER_VALUE))
    .refine(
      (h) => Object.keys(h).length <= MAX_HEADERS,
      inputRule(ErrorCode.InputTooMany, `at most ${MAX_HEADERS} headers`, { max: MAX_HEADERS }),
    ),
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
  ...mcpOAuthFields,
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
  ...mcpOAuthView,
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

/**
 * A registered server's health as GET /api/mcp/servers/:id/health (and /api/mcp/servers/health, every server)
 * answers it: its circuit breaker on the answering node (docs/operating/mcp.md, "Health"). Times in epoch seconds
 * (0: never / not open); `last_error` has no credential and no network address.
 */
export const mcpServerHealth = z.object({
  id: z.number(),
  name: z.string(),
  /** closed: calls pass; open: left out of lists, calls refused until open_until; half_open: one probe passes. */
  state: z.enum(['closed', 'open', 'half_open']),
  /** Connection failures and upstream errors in a row since the server last answered. */
  consecutive_failures: z.number(),
  /** Failures in a row that open the breaker (the option ChannelBreakerMinFailures). */
  failure_threshold: z.number(),
  open_until: z.number(),
  /** Openings since it last closed (each failed probe doubles the cool-down). */
  opens: z.number(),
  last_error: z.string(),
  last_error_at: z.number(),
  last_success_at: z.number(),
  /** The option ChannelBreakerEnabled: off, no breaker opens (state is always closed). */
  breaker_enabled: z.boolean(),
});
export type McpServerHealth = z.infer<typeof mcpServerHealth>;
