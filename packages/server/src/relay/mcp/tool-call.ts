import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  ErrorCode as RpcCode,
  McpError,
  type CallToolRequest,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { OpenedMcpServer } from '../../modules/mcp-servers/service.js';
import type { TokenAuth } from '../entry/auth-cache.js';
import { RelayError } from '../pipeline/errors.js';
import type { RelayContext } from '../pipeline/services.js';
import { loggedArguments } from './arguments.js';
import { closeToolCall, openToolCall, type ToolCallStatus } from './billing.js';
import { admitToolCall } from './call-limits.js';
import { loadCallerRules } from './caller-rules.js';
import type { ToolCatalog } from './catalog.js';
import { admitToolCallUpstream, toolCallEnded, upstreamNoVerdict, upstreamOutcome } from './health.js';
import { toolUsable } from './permissions.js';

/** How long a tool call may go without a word from its upstream (progress resets it). */
export const MCP_TOOL_IDLE_TIMEOUT_MS = 120_000;
/** How long a tool call may take in all, progress or not. */
export const MCP_TOOL_MAX_MS = 30 * 60_000;

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a tool call needs of its session (or request): the caller as of now, upstream clients, their tool lists. */
export interface ToolCallSession {
  caller: { auth: TokenAuth; group: string; ip: string };
  upstream(server: OpenedMcpServer): Promise<Client>;
  readonly catalog: ToolCatalog;
}

/** Where a call's caller is: its cancellation, and (MCP clients) where progress notifications go. */
export type ToolCallChannel = Pick<Extra, 'signal'> & Partial<Pick<Extra, 'sendNotification'>>;

const bytesOf = (v: unknown): number => (v === undefined ? 0 : Buffer.byteLength(JSON.stringify(v)));

async function clientOf(ctx: RelayContext, session: ToolCallSession, server: OpenedMcpServer): Promise<Client> {
  try {
    return await session.upstream(server);
  } catch (err) {
    upstreamOutcome(ctx, server, err);
    ctx.log.warn({ err, mcpServer: server.name }, 'MCP upstream connection failed');
    throw new McpError(RpcCode.InternalError, `MCP server ${server.name} cannot be reached`);
  }
}

/** The server's tools this caller may use (server lists, read-only rule, token / organization / group lists). */
export async function usableTools(
  ctx: RelayContext,
  session: ToolCallSession,
  server: OpenedMcpServer,
): Promise<Tool[]> {
  const client = await session.upstream(server);
  if (!client.getServerCapabilities()?.tools) return [];
  const [tools, rules] = await Promise.all([
    session.catalog.list(server, client),
    loadCallerRules(ctx, session.caller.auth, session.caller.group),
  ]);
  return tools.filter((t) => toolUsable(server, t, rules));
}

/**
 * One tools/call proxied to its upstream, after every check: the tool must be one the server lists and this caller
 * may use (else refused, nothing held), the server's per-token limits admit it; then held and billed at the
 * server's price (refused before the upstream call when the balance is short), progress passed on to the caller,
 * the caller's cancellation passed upstream, one usage log row at the end. `exposed` is the name the caller used.
 */
async function checkedToolCall(
  ctx: RelayContext,
  session: ToolCallSession,
  server: OpenedMcpServer,
  tool: string,
  params: CallToolRequest['params'],
  channel: ToolCallChannel,
): Promise<CallToolResult> {
  const client = await clientOf(ctx, session, server);
  let listed: Tool | undefined;
  try {
    listed = await session.catalog.find(server, client, tool);
  } catch (err) {
    upstreamOutcome(ctx, server, err);
    ctx.log.warn({ err, mcpServer: server.name }, 'MCP upstream tool list failed');
    throw new McpError(RpcCode.InternalError, `MCP server ${server.name} cannot be reached`);
  }
  const rules = await loadCallerRules(ctx, session.caller.auth, session.caller.group);
  if (!listed || !toolUsable(server, listed, rules))
    throw new McpError(RpcCode.InvalidParams, `tool ${params.name.slice(0, 128)} is not available to this token`);
  const release = await admitToolCall(ctx, server, session.caller.auth);
  try {
    return await billedCall(ctx, session, client, server, tool, params, channel);
  } finally {
    release();
  }
}

/** A tool call, gated by the server's breaker (health.ts): refused at once, nothing held, while it is open. */
export async function callTool(...args: Parameters<typeof checkedToolCall>): Promise<CallToolResult> {
  admitToolCallUpstream(args[0], args[2]);
  try {
    return await checkedToolCall(...args);
  } finally {
    upstreamNoVerdict(args[0], args[2]);
  }
}

async function billedCall(
  ctx: RelayContext,
  session: ToolCallSession,
  client: Client,
  server: OpenedMcpServer,
  tool: string,
  params: CallToolRequest['params'],
  channel: ToolCallChannel,
): Promise<CallToolResult> {
  const args = Number(server.log_arguments) === 1 ? loggedArguments(params.arguments) : '';
  let bill;
  try {
    bill = await openToolCall(ctx, session.caller, server.name, tool, server.price, args);
  } catch (err) {
    if (err instanceof RelayError) {
      // The relay's refusal stays the cause: a caller of another protocol (the Responses loop) answers it as is.
      const refusal = new McpError(RpcCode.InvalidRequest, err.message, { code: err.code });
      refusal.cause = err;
      throw refusal;
    }
    throw err;
  }
  const token = params._meta?.progressToken;
  const notify = channel.sendNotification;
  let progress = 0;
  const outcome = { requestBytes: bytesOf(params.arguments), responseBytes: 0, progress: 0 };
  try {
    const result = (await client.callTool(
      { name: tool, ...(params.arguments ? { arguments: params.arguments } : {}) },
      undefined,
      {
        signal: channel.signal,
        timeout: MCP_TOOL_IDLE_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: MCP_TOOL_MAX_MS,
        ...(token === undefined || !notify
          ? {}
          : {
              onprogress: (p) => {
                progress++;
                void notify({ method: 'notifications/progress', params: { ...p, progressToken: token } }).catch(
                  () => undefined,
                );
              },
            }),
      },
    )) as CallToolResult;
    const status: ToolCallStatus = result.isError ? 'tool_error' : 'ok';
    toolCallEnded(ctx, server, status, bill.started);
    await closeToolCall(ctx, bill, { ...outcome, status, responseBytes: bytesOf(result), progress });
    return result;
  } catch (err) {
    const status: ToolCallStatus = channel.signal.aborted ? 'cancelled' : 'error';
    const message = err instanceof Error ? err.message : String(err);
    toolCallEnded(ctx, server, status, bill.started, err);
    await closeToolCall(ctx, bill, { ...outcome, status, progress, error: message });
    throw err instanceof McpError ? err : new McpError(RpcCode.InternalError, message.slice(0, 500));
  }
}
