import { ErrorCode as RpcCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RelayError } from '../../pipeline/errors.js';
import type { RelayContext } from '../../pipeline/services.js';
import { MCP_LIMITED } from '../call-limits.js';
import { callTool } from '../tool-call.js';
import { functionName, itemId, type McpToolset, type OfferedTool } from './toolset.js';

/** OpenAI's `mcp_call` error: a protocol refusal, or the tool's own error result. */
export type McpCallError =
  | { type: 'mcp_protocol_error'; code: number; message: string }
  | { type: 'mcp_tool_execution_error'; content: unknown };

/** OpenAI's `mcp_call` output item. */
export interface McpCallItem {
  type: 'mcp_call';
  id: string;
  server_label: string;
  name: string;
  arguments: string;
  output: string | null;
  error: McpCallError | null;
  status: 'completed' | 'failed';
  approval_request_id: null;
}

/** A model's function call, as a Responses answer carries it. */
export interface FunctionCall {
  call_id: string;
  name: string;
  arguments: string;
}

/** What the model reads back of a tool call: the text parts, other parts as JSON. */
function textOfResult(result: CallToolResult): string {
  return (result.content ?? []).map((p) => (p.type === 'text' ? p.text : JSON.stringify(p))).join('\n');
}

/** What the model reads back of a refused or failed call. */
export const outputForModel = (item: McpCallItem): string =>
  item.output ??
  (item.error?.type === 'mcp_protocol_error'
    ? `error: ${item.error.message}`
    : `error: ${JSON.stringify(item.error?.content ?? null)}`);

/** The MCP call path's own limit refusals (McpError data.code): the request stops. */
const STOPPING_CODES: Record<string, { status: number; type: string }> = {
  mcp_rate_limited: { status: 429, type: 'rate_limit_error' },
  mcp_concurrency_limited: { status: 429, type: 'rate_limit_error' },
};

/** The refusal that ends the whole request, when `err` is one (a short balance, a rate limit). */
function stoppingRefusal(err: unknown): RelayError | undefined {
  if (!(err instanceof McpError)) return undefined;
  // The billing path's own refusal (balance, period limit, budget), with its status and type.
  if (err.cause instanceof RelayError) return err.cause;
  const code = (err.data as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string') return undefined;
  const known = STOPPING_CODES[code];
  if (!known && err.code !== MCP_LIMITED) return undefined;
  const message = err.message.replace(/^MCP error -?\d+: /, '');
  return new RelayError(known?.status ?? 403, message, known?.type ?? 'tollway_error', code);
}

/**
 * Runs one function call of the model as an MCP tool call, through the MCP gateway's own call path (its checks,
 * per-token limits, price held and charged, a usage log row). A tool not offered to this caller, or arguments that
 * are not a JSON object, get an error item and never reach the server; a balance or limit refusal throws (the
 * request ends with it).
 */
export async function runToolCall(
  ctx: RelayContext,
  set: McpToolset,
  fc: FunctionCall,
  signal: AbortSignal,
  started?: (item: McpCallItem) => void,
): Promise<McpCallItem> {
  const offered: OfferedTool | undefined = set.offered.get(fc.name);
  const [label, tool] = offered ? [offered.label, offered.name] : splitName(fc.name, set);
  const item: McpCallItem = {
    type: 'mcp_call',
    id: itemId('mcp'),
    server_label: label,
    name: tool,
    arguments: fc.arguments,
    output: null,
    error: null,
    status: 'failed',
    approval_request_id: null,
  };
  started?.(item);
  const refuse = (code: number, message: string) => {
    item.error = { type: 'mcp_protocol_error', code, message };
    return item;
  };
  if (!offered) return refuse(RpcCode.InvalidParams, `tool ${tool.slice(0, 128)} is not available to this token`);
  let args: unknown;
  try {
    args = fc.arguments.trim() ? JSON.parse(fc.arguments) : {};
  } catch {
    return refuse(RpcCode.InvalidParams, 'the arguments are not valid JSON');
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return refuse(RpcCode.InvalidParams, 'the arguments must be a JSON object');
  try {
    const result = await callTool(
      ctx,
      set.session,
      offered.server,
      tool,
      { name: tool, arguments: args as Record<string, unknown> },
      { signal },
    );
    if (result.isError) item.error = { type: 'mcp_tool_execution_error', content: result.content ?? [] };
    else {
      item.output = textOfResult(result);
      item.status = 'completed';
    }
    return item;
  } catch (err) {
    const stop = stoppingRefusal(err);
    if (stop) throw stop;
    const e = err instanceof McpError ? err : undefined;
    return refuse(e?.code ?? RpcCode.InternalError, (e?.message ?? 'the tool call failed').slice(0, 500));
  }
}

/** The label and tool a function name of a tool that was not offered names (for its error item). */
function splitName(name: string, set: McpToolset): [string, string] {
  for (const label of set.servers.keys()) {
    const prefix = functionName(label, '');
    if (name.startsWith(prefix)) return [label, name.slice(prefix.length)];
  }
  return ['', name];
}
