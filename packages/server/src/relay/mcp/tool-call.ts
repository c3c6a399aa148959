import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode as RpcCode,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js';
import type { OpenedMcpServer } from '../../modules/mcp-servers/service.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import { RelayError } from '../pipeline/errors.js';
import type { RelayContext } from '../pipeline/services.js';
import { closeToolCall, openToolCall, type ToolCallStatus } from './billing.js';

/** How long a tool call may go without a word from its upstream (progress resets it). */
export const MCP_TOOL_IDLE_TIMEOUT_MS = 120_000;
/** How long a tool call may take in all, progress or not. */
export const MCP_TOOL_MAX_MS = 30 * 60_000;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a tool call needs of its session: the caller as of this request, and the upstream's client. */
export interface ToolCallSession {
  caller: { auth: TokenAuth; group: string; ip: string };
  upstream(server: OpenedMcpServer): Promise<Client>;
}

const bytesOf = (v: unknown): number => (v === undefined ? 0 : Buffer.byteLength(JSON.stringify(v)));

/**
 * One tools/call proxied to its upstream: held and billed at the server's price (refused before the upstream call
 * when the balance is short), progress passed on to the caller, the caller's cancellation passed upstream, one
 * usage log row at the end.
 */
export async function callTool(
  ctx: RelayContext,
  session: ToolCallSession,
  server: OpenedMcpServer,
  tool: string,
  params: CallToolRequest['params'],
  extra: Extra,
): Promise<CallToolResult> {
  let client;
  try {
    client = await session.upstream(server);
  } catch (err) {
    ctx.log.warn({ err, mcpServer: server.name }, 'MCP upstream connection failed');
    throw new McpError(RpcCode.InternalError, `MCP server ${server.name} cannot be reached`);
  }
  let bill;
  try {
    bill = await openToolCall(ctx, session.caller, server.name, tool, server.price);
  } catch (err) {
    if (err instanceof RelayError) throw new McpError(RpcCode.InvalidRequest, err.message, { code: err.code });
    throw err;
  }
  const token = params._meta?.progressToken;
  let progress = 0;
  const outcome = { requestBytes: bytesOf(params.arguments), responseBytes: 0, progress: 0 };
  try {
    const result = (await client.callTool(
      { name: tool, ...(params.arguments ? { arguments: params.arguments } : {}) },
      undefined,
      {
        signal: extra.signal,
        timeout: MCP_TOOL_IDLE_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: MCP_TOOL_MAX_MS,
        ...(token === undefined
          ? {}
          : {
              onprogress: (p) => {
                progress++;
                void extra
                  .sendNotification({ method: 'notifications/progress', params: { ...p, progressToken: token } })
                  .catch(() => undefined);
              },
            }),
      },
    )) as CallToolResult;
    const status: ToolCallStatus = result.isError ? 'tool_error' : 'ok';
    await closeToolCall(ctx, bill, { ...outcome, status, responseBytes: bytesOf(result), progress });
    return result;
  } catch (err) {
    const status: ToolCallStatus = extra.signal.aborted ? 'cancelled' : 'error';
    const message = err instanceof Error ? err.message : String(err);
    await closeToolCall(ctx, bill, { ...outcome, status, progress, error: message });
    throw err instanceof McpError ? err : new McpError(RpcCode.InternalError, message.slice(0, 500));
  }
}
