import { ErrorCode as RpcCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { healthError, mcpHealthOf, type McpServerRef } from '../../modules/mcp-servers/health.js';
import { countMcpToolCall } from '../../modules/mcp-servers/metrics.js';
import type { RelayContext } from '../pipeline/services.js';
import type { ToolCallStatus } from './billing.js';

/** The error detail (logs, health) of a failure whose message is only "cannot be reached" (an OAuth failure). */
const detailOf = (err: unknown): unknown => {
  const detail = (err as { detail?: unknown } | undefined)?.detail;
  return typeof detail === 'string' ? { message: detail } : err;
};

/**
 * A tool call may go to the server (its breaker is not open, or lets this one through as its probe); else it is
 * refused at once with a JSON-RPC error, before anything is held.
 */
export function admitToolCallUpstream(ctx: RelayContext, server: McpServerRef): void {
  const health = mcpHealthOf(ctx);
  if (health.admit(server)) return;
  countMcpToolCall(server.name, 'unavailable');
  const retryAfter = health.retryAfter(server.id);
  throw new McpError(
    RpcCode.InternalError,
    `MCP server ${server.name} is unavailable after repeated failures${retryAfter ? `; retry in ${retryAfter} s` : ''}`,
    { retry_after: retryAfter },
  );
}

/** Whether a list may ask the server now (an open breaker leaves it out). */
const upstreamAdmitted = (ctx: RelayContext, server: McpServerRef): boolean => mcpHealthOf(ctx).admit(server);

/** How a read through the breaker ended: its value, or why there is none (left out, or failed: logged). */
export type BreakerRead<T> = { value: T } | { unavailable: true } | { failed: unknown };

/**
 * One read of a server (a list) through its breaker: not asked while the breaker is open, its outcome recorded
 * (answered or failed), a half-open probe given back when the read had no verdict. A failure is logged with `what`.
 */
export async function readThroughBreaker<T>(
  ctx: RelayContext,
  server: McpServerRef,
  what: string,
  read: () => Promise<T>,
): Promise<BreakerRead<T>> {
  if (!upstreamAdmitted(ctx, server)) return { unavailable: true };
  try {
    const value = await read();
    upstreamOutcome(ctx, server);
    return { value };
  } catch (err) {
    upstreamOutcome(ctx, server, err);
    ctx.log.warn({ err, mcpServer: server.name }, what);
    return { failed: err };
  } finally {
    upstreamNoVerdict(ctx, server);
  }
}

/**
 * How a request to the server ended: answered (no error, or a JSON-RPC error of the server's own: it is alive) or
 * failed (no connection, a token endpoint failure, an HTTP error, a timeout, the connection closed).
 */
export function upstreamOutcome(ctx: RelayContext, server: McpServerRef, err?: unknown): void {
  const answered =
    err === undefined ||
    (err instanceof McpError && err.code !== RpcCode.RequestTimeout && err.code !== RpcCode.ConnectionClosed);
  mcpHealthOf(ctx).record(server, answered ? 'success' : 'failure', answered ? '' : healthError(detailOf(err)));
}

/** A request with no verdict on the server (refused here, cancelled): a half-open breaker's probe is given again. */
export const upstreamNoVerdict = (ctx: RelayContext, server: McpServerRef): void =>
  mcpHealthOf(ctx).record(server, 'neutral');

/** A billed tool call ended: counted and timed (metrics), and its outcome told to the server's breaker. */
export function toolCallEnded(
  ctx: RelayContext,
  server: McpServerRef,
  status: ToolCallStatus,
  started: number,
  err?: unknown,
): void {
  countMcpToolCall(server.name, status, Date.now() - started);
  if (status === 'cancelled') upstreamNoVerdict(ctx, server);
  else upstreamOutcome(ctx, server, status === 'error' ? err : undefined);
}
