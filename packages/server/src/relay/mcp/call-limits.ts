import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { OpenedMcpServer } from '../../modules/mcp-servers/service.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import { rateLimitStore } from '../limits/admission.js';
import { concurrencyStore } from '../limits/concurrency.js';
import { minuteWindow, secondsToReset } from '../limits/window.js';
import type { RelayContext } from '../pipeline/services.js';

/** The JSON-RPC error code of a tool call refused by a limit (in the implementation-defined server range). */
export const MCP_LIMITED = -32029;

/** The counter of one token on one server: tool calls per minute and in flight are per (server, token). */
const counterOf = (server: OpenedMcpServer, auth: TokenAuth) => `mcp:${server.id}:${auth.tokenId}`;

const refuse = (message: string, code: string, retryAfter: number) =>
  new McpError(MCP_LIMITED, message, { code, retry_after: retryAfter });

/**
 * Admits a tool call under the server's per-token limits (docs/operating/mcp.md): `rate_limit` calls per minute
 * (a refused call is not counted) and `max_concurrent` in flight. Counted in memory on one node, in Redis across
 * a cluster, as the relay's limits are. Returns the release of the call's place (a no-op without a concurrency
 * limit); throws the refusal, before anything is held.
 */
export async function admitToolCall(ctx: RelayContext, server: OpenedMcpServer, auth: TokenAuth): Promise<() => void> {
  const id = counterOf(server, auth);
  // In flight first: a call refused there is not counted in the minute.
  const release = await takePlace(ctx, server, id);
  try {
    await countInMinute(ctx, server, id);
  } catch (err) {
    release();
    throw err;
  }
  return release;
}

/** Takes the call's place under `max_concurrent`: its release (a no-op without a limit). */
async function takePlace(ctx: RelayContext, server: OpenedMcpServer, id: string): Promise<() => void> {
  const inFlight = Number(server.max_concurrent);
  if (inFlight <= 0) return () => undefined;
  const store = concurrencyStore(ctx);
  let taken;
  try {
    taken = await store.acquire([{ level: 'token', id, limit: inFlight }]);
  } catch (err) {
    // A limiter never takes the gateway down: Redis unreachable lets the call through (as the relay's limits).
    ctx.log.warn({ err }, 'MCP concurrency limit: Redis cannot be reached; the call passes unlimited');
    return () => undefined;
  }
  if (typeof taken === 'number')
    throw refuse(
      `concurrency limit: at most ${inFlight} calls of this token in flight on MCP server ${server.name}`,
      'mcp_concurrency_limited',
      1,
    );
  const lease = taken;
  return () => store.release(lease);
}

/** Counts the call in its minute under `rate_limit` (a refused call is not counted). */
async function countInMinute(ctx: RelayContext, server: OpenedMcpServer, id: string): Promise<void> {
  const perMinute = Number(server.rate_limit);
  if (perMinute <= 0) return;
  const now = Date.now();
  let check;
  try {
    check = await rateLimitStore(ctx).check([{ level: 'token', id, rpm: perMinute, tpm: 0 }], 0, now);
  } catch (err) {
    ctx.log.warn({ err }, 'MCP rate limit: Redis cannot be reached; the call passes unlimited');
    return;
  }
  if (check.refused)
    throw refuse(
      `rate limit: at most ${perMinute} calls per minute of this token on MCP server ${server.name}`,
      'mcp_rate_limited',
      secondsToReset(minuteWindow(now), now),
    );
}
