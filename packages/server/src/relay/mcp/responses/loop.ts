import type { Identified } from '../../entry/authenticate.js';
import type { RelayRequest } from '../../entry/request.js';
import type { RelayContext } from '../../pipeline/services.js';
import type { Body, InboundCall } from '../../pipeline/types.js';
import { outputForModel, runToolCall, type FunctionCall, type McpCallItem } from './calls.js';
import { addUsage, modelRound, type ResponsesAnswer } from './round.js';
import { mcpSpecsOf, type McpToolSpec } from './spec.js';
import type { LoopEvents } from './stream.js';
import { closeToolset, functionName, openToolset, type McpToolset } from './toolset.js';

/**
 * Model rounds one request may run. Rounds before the last may call MCP tools; the last is asked to answer without
 * them (tool_choice "none"), and the answer says it was cut short (status "incomplete", reason "max_tool_rounds").
 */
export const MCP_RESPONSES_ROUNDS_MAX = 8;
/** incomplete_details.reason of an answer whose model still wanted tools when the rounds ran out. */
export const ROUNDS_EXHAUSTED = 'max_tool_rounds';

type Item = Body;

const isMcp = (t: unknown) => (t as { type?: unknown } | null)?.type === 'mcp';

/**
 * The caller's input as the model reads it: `mcp_call` items of an earlier answer (a conversation sent back
 * whole) become the function call and output they were, for a server this request names; other MCP items (tool
 * lists, approvals) are Tollway's and OpenAI's bookkeeping, not the model's, and are left out.
 */
function inputOf(input: unknown, specs: McpToolSpec[]): Item[] {
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  if (!Array.isArray(input)) return [];
  const labels = new Set(specs.map((s) => s.label));
  return (input as Item[]).flatMap((item): Item[] => {
    const type = item?.type;
    if (type === 'mcp_call') {
      const c = item as unknown as McpCallItem;
      if (!labels.has(String(c.server_label))) return [];
      const callId = String(c.id ?? '');
      return [
        {
          type: 'function_call',
          call_id: callId,
          name: functionName(String(c.server_label), String(c.name)),
          arguments: String(c.arguments ?? '{}'),
        },
        { type: 'function_call_output', call_id: callId, output: outputForModel(c) },
      ];
    }
    if (type === 'mcp_list_tools' || type === 'mcp_approval_request' || type === 'mcp_approval_response') return [];
    return [item];
  });
}

/** The tool_choice of a round: a forced MCP tool (or "required") holds for the first round only. */
function choiceOf(choice: unknown, round: number, last: boolean): unknown {
  if (last) return 'none';
  const c = choice as { type?: unknown; server_label?: unknown; name?: unknown } | undefined;
  if (c && typeof c === 'object' && c.type === 'mcp') {
    if (round > 1) return 'auto';
    return typeof c.name === 'string'
      ? { type: 'function', name: functionName(String(c.server_label), c.name) }
      : 'required';
  }
  if (choice === 'required' && round > 1) return 'auto';
  return choice;
}

/** The caller's tools as its answer shows them: an `mcp` tool's headers and authorization are not echoed. */
export const echoedTools = (tools: unknown[]): unknown[] =>
  tools.map((t) => {
    if (!isMcp(t)) return t;
    const { headers: _h, authorization: _a, ...rest } = t as Body;
    return rest;
  });

const functionCallsOf = (output: Item[]): (Item & FunctionCall)[] =>
  output.filter(
    (o): o is Item & FunctionCall =>
      o.type === 'function_call' && typeof o.name === 'string' && typeof o.arguments === 'string',
  );

/**
 * A Responses call with `mcp` tools, run by Tollway: the tools resolved to registered servers and listed, offered
 * to the model as functions; each round's calls of them run through the MCP gateway and fed back, until the model
 * answers (or calls a function of the caller's own, which the caller gets), or the rounds run out. Every model
 * round is a relay call billed and logged as any; every tool call is billed and logged as /mcp's. The answer's
 * output: the `mcp_list_tools` items, then each round's messages and `mcp_call` items, then the last round's output.
 */
export async function runMcpResponse(
  ctx: RelayContext,
  req: RelayRequest,
  who: Identified,
  call: InboundCall,
  events?: LoopEvents,
): Promise<ResponsesAnswer> {
  const tools = call.body.tools as unknown[];
  const specs = mcpSpecsOf(tools);
  const gone = new AbortController();
  const socket = req.raw.socket;
  const onGone = () => gone.abort();
  socket?.once('close', onGone);
  let set: McpToolset | undefined;
  try {
    set = await openToolset(ctx, { ...who, ip: req.ip }, specs);
    const ownTools = tools.filter((t) => !isMcp(t));
    const input = inputOf(call.body.input, specs);
    for (const list of set.lists) events?.listed(list);
    const output: Item[] = [...(set.lists as unknown as Item[])];
    let usage: Record<string, unknown> | undefined;
    for (let round = 1; ; round++) {
      const last = round >= MCP_RESPONSES_ROUNDS_MAX;
      const body: Body = {
        ...call.body,
        input,
        tools: [...ownTools, ...set.functions],
        stream: false,
      };
      const choice = choiceOf(call.body.tool_choice, round, last);
      if (choice === undefined) delete body.tool_choice;
      else body.tool_choice = choice;
      const answer = await modelRound(ctx, req, who, call, body, gone.signal);
      usage = addUsage(usage, answer.usage);
      const produced = answer.output ?? [];
      const calls = functionCallsOf(produced);
      // Every call of a name that is not one of the caller's functions is an MCP call (one not offered is refused).
      const ours = calls.filter((c) => !ownToolNamed(ownTools, c.name));
      if (!ours.length || last) {
        const final = produced.filter((o) => !ours.includes(o as Item & FunctionCall));
        return finish(answer, [...output, ...final], usage, tools, last);
      }
      // This round's messages and calls go on to the next round's input and into the answer, each call with its result.
      for (const item of produced) {
        if (item.type === 'message') {
          events?.produced(item);
          output.push(item);
          input.push(item);
        }
      }
      for (const fc of ours) {
        const done = await runToolCall(ctx, set, fc, gone.signal, (item) => events?.calling(item));
        events?.called(done);
        output.push(done as unknown as Item);
        input.push(
          { type: 'function_call', call_id: fc.call_id, name: fc.name, arguments: fc.arguments },
          { type: 'function_call_output', call_id: fc.call_id, output: outputForModel(done) },
        );
      }
      // A function of the caller's own in the same round: the caller runs it, so the answer ends here.
      const foreign = calls.filter((c) => !ours.includes(c));
      if (foreign.length) return finish(answer, [...output, ...foreign], usage, tools, false);
    }
  } finally {
    socket?.off('close', onGone);
    if (set) await closeToolset(set, gone.signal.aborted);
  }
}

const ownToolNamed = (own: unknown[], name: string): boolean =>
  own.some((t) => (t as { name?: unknown } | null)?.name === name);

/** The caller's answer: the last round's response with the whole output, the summed usage and the caller's tools. */
function finish(
  answer: ResponsesAnswer,
  output: Item[],
  usage: Record<string, unknown> | undefined,
  tools: unknown[],
  exhausted: boolean,
): ResponsesAnswer {
  return {
    ...answer,
    output,
    ...(usage ? { usage } : {}),
    tools: echoedTools(tools),
    ...(exhausted ? { status: 'incomplete', incomplete_details: { reason: ROUNDS_EXHAUSTED } } : {}),
  };
}
