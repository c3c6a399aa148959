import { request } from 'undici';
import { guardedDispatcher } from '../../lib/outbound-dispatcher.js';
import { fetchPolicy } from '../../lib/outbound-guard.js';
import { BodyTooLarge, readCapped } from '../../lib/read-capped.js';
import { MCP_SERVERS_MAX } from '../../modules/mcp-servers/store.js';
import type { OpenedMcpServer } from '../../modules/mcp-servers/service.js';
import { perContext } from '../../per-context.js';
import type { RelayContext } from '../pipeline/services.js';
import { CredentialCache } from '../providers/credential-cache.js';

/** How long one token request may take (connection, answer and body). */
export const MCP_OAUTH_TIMEOUT_MS = 10_000;
/** Most of a token endpoint's answer read. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** A token's lifetime when the endpoint names none (RFC 6749 §5.1 makes expires_in optional). */
export const MCP_OAUTH_DEFAULT_LIFETIME_S = 300;
/** A new token is fetched this long before the cached one expires (at most a tenth of a short token's life). */
export const MCP_OAUTH_REFRESH_MARGIN_MS = 30_000;
/** Longest `error` code of a token endpoint's refusal repeated in a message. */
const MAX_ERROR_CODE = 64;

/**
 * A token endpoint failure: its message is what the caller may see ("cannot be reached"); `detail` (logs and the
 * server's health) names the endpoint's host and what went wrong, never a credential.
 */
export class McpOAuthError extends Error {
  constructor(
    server: string,
    readonly detail: string,
  ) {
    super(`MCP server ${server} cannot be reached`);
  }
}

interface TokenAnswer {
  access_token?: unknown;
  token_type?: unknown;
  expires_in?: unknown;
  error?: unknown;
}

/** An RFC 6749 §5.2 error code as safe text (printable ASCII, short), or ''. */
const errorCodeOf = (v: unknown): string =>
  typeof v === 'string' ? v.replace(/[^\x20-\x7e]/g, '').slice(0, MAX_ERROR_CODE) : '';

/** RFC 6749 §2.3.1: the client id and secret are form-encoded before they are joined for HTTP Basic. */
const formEncode = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');

/**
 * Access tokens of the upstream MCP servers registered with OAuth client credentials (RFC 6749 §4.4), fetched at
 * the server's token endpoint through the outbound guard and cached per server version until shortly before they
 * expire; concurrent connections of one server share one request. Bounded by the registry's size.
 */
export class McpOAuthTokens {
  private readonly cache: CredentialCache<string>;

  constructor(
    private readonly ctx: RelayContext,
    private readonly now: () => number = Date.now,
  ) {
    // The refresh margin is applied per token (see lifetimeMs), so the cache's own is 0.
    this.cache = new CredentialCache(MCP_SERVERS_MAX, 0, now);
  }

  private static key(server: OpenedMcpServer): string {
    return `${server.id}:${server.updated_at}`;
  }

  /**
   * The server's access token: the cached one while fresh, else a new one. `refused`: the token the upstream
   * just answered 401 to; it is dropped (unless another call already replaced it) and a new one fetched.
   */
  token(server: OpenedMcpServer, refused?: string): Promise<string> {
    const key = McpOAuthTokens.key(server);
    if (refused !== undefined && this.cache.fresh(key) === refused) this.cache.drop(key);
    return this.cache.obtain(key, () => this.fetchToken(server));
  }

  private async fetchToken(server: OpenedMcpServer): Promise<{ value: string; expiresAt: number }> {
    let host: string;
    try {
      host = new URL(server.oauth_token_url).host;
    } catch {
      throw new McpOAuthError(server.name, 'OAuth token URL is not a valid URL');
    }
    const form = new URLSearchParams({ grant_type: 'client_credentials' });
    if (server.oauth_scope) form.set('scope', server.oauth_scope);
    if (server.oauth_audience) form.set('audience', server.oauth_audience);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/x-www-form-urlencoded',
    };
    if (server.oauth_client_auth === 'client_secret_post') {
      form.set('client_id', server.oauth_client_id);
      form.set('client_secret', server.oauth_client_secret);
    } else {
      const basic = `${formEncode(server.oauth_client_id)}:${formEncode(server.oauth_client_secret)}`;
      headers.authorization = `Basic ${Buffer.from(basic).toString('base64')}`;
    }
    let status: number;
    let text: string;
    try {
      const res = await request(server.oauth_token_url, {
        method: 'POST',
        headers,
        body: form.toString(),
        dispatcher: guardedDispatcher(() => fetchPolicy(this.ctx.options)),
        headersTimeout: MCP_OAUTH_TIMEOUT_MS,
        bodyTimeout: MCP_OAUTH_TIMEOUT_MS,
        signal: AbortSignal.timeout(MCP_OAUTH_TIMEOUT_MS),
      });
      status = res.statusCode;
      text = await readCapped(res.body, MAX_ANSWER_BYTES);
    } catch (err) {
      const why = err instanceof BodyTooLarge ? err.message : ((err as Error).message ?? String(err));
      throw new McpOAuthError(server.name, `OAuth token request to ${host} failed: ${why.slice(0, 200)}`);
    }
    let answer: TokenAnswer = {};
    try {
      answer = JSON.parse(text) as TokenAnswer;
    } catch {
      // reported below
    }
    if (status !== 200 || typeof answer.access_token !== 'string' || !answer.access_token) {
      // Only the endpoint's error code is repeated: its description or body is never echoed.
      const code = errorCodeOf(answer?.error);
      throw new McpOAuthError(
        server.name,
        `OAuth token endpoint ${host} answered HTTP ${status}${code ? ` (${code})` : ''} without an access token`,
      );
    }
    const type = typeof answer.token_type === 'string' ? answer.token_type : 'bearer';
    if (type.toLowerCase() !== 'bearer')
      throw new McpOAuthError(
        server.name,
        `OAuth token endpoint ${host} gave a ${errorCodeOf(type)} token, not a bearer token`,
      );
    return { value: answer.access_token, expiresAt: this.now() + lifetimeMs(answer.expires_in) };
  }
}

/** How long a token is used: its lifetime less the refresh margin (a tenth of it for short-lived tokens). */
function lifetimeMs(expiresIn: unknown): number {
  const seconds = Number(expiresIn);
  const life = (Number.isFinite(seconds) && seconds > 0 ? seconds : MCP_OAUTH_DEFAULT_LIFETIME_S) * 1000;
  return life - Math.min(MCP_OAUTH_REFRESH_MARGIN_MS, life / 10);
}

/** The node's OAuth tokens of upstream MCP servers. */
export const mcpOAuthOf = perContext((ctx) => new McpOAuthTokens(ctx as RelayContext));
