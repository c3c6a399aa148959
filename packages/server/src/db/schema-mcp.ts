import type { Generated } from 'kysely';

/** An MCP server of the gateway's registry (migration 0030). */
export interface McpServersTable {
  id: Generated<number>;
  /** [a-z0-9_-], unique: the prefix of its tools (`<name>__<tool>`) and the path /mcp/<name>. */
  name: string;
  /** 'http' (Streamable HTTP), 'sse' (HTTP+SSE) or 'stdio'. */
  transport: string;
  url: Generated<string>;
  /** stdio: the program run (no shell) and its arguments (a JSON array of strings). */
  command: Generated<string>;
  args: Generated<string>;
  /** A JSON object of request headers, sealed with CRYPTO_SECRET like channel keys ('' none). */
  headers: string;
  enabled: Generated<number>;
  /** Comma-separated tool name patterns (`*` any characters); '' allows every tool / denies none. */
  allow_tools: Generated<string>;
  deny_tools: Generated<string>;
  /** Comma-separated user groups that may use the server ('' every group). */
  allow_groups: Generated<string>;
  /** Quota charged per tool call (0 free). */
  price: Generated<number>;
  /** 0/1 (migration 0031): only tools annotated `readOnlyHint: true` are listed and callable. */
  read_only: Generated<number>;
  /** Tool calls per minute, and in flight, one token may make on this server (0: no limit). */
  rate_limit: Generated<number>;
  max_concurrent: Generated<number>;
  /** 0/1: a call's arguments are kept in its log row (secret-looking values masked). */
  log_arguments: Generated<number>;
  /** OAuth 2.0 client credentials (migration 0032; '' none): the token endpoint, the client, scope, audience. */
  oauth_token_url: Generated<string>;
  oauth_client_id: Generated<string>;
  /** The client secret, sealed with CRYPTO_SECRET ('' or null: none). */
  oauth_client_secret: Generated<string | null>;
  oauth_scope: Generated<string>;
  oauth_audience: Generated<string>;
  /** How the client authenticates to the token endpoint: 'client_secret_basic' ('' too) or 'client_secret_post'. */
  oauth_client_auth: Generated<string>;
  created_at: Generated<number>;
  updated_at: Generated<number>;
}
