import { openAIUsageToIR, responsesUsageFromIR, responsesUsageNames, type OpenAIUsage } from './usage.js';
import type { IRStopReason, IRUsage } from '../../ir/types.js';
import type {
  ResponsesOutputFunctionCall,
  ResponsesOutputItem,
  ResponsesOutputMessage,
  ResponsesOutputReasoning,
  ResponsesOutputText,
  ResponsesResponse,
  ResponsesResponseObject,
  ResponsesUsage,
} from './wire.js';

/**
 * The Responses API's objects as Tollway reads and writes them, whole answers and streams alike: usage, the stop
 * reason of a Response, output item ids, the output items and the Response object itself.
 */

/** Responses usage (input_tokens include cached tokens) → IR usage, and back. */
export const usageToIR = (u: OpenAIUsage | undefined | null): IRUsage => openAIUsageToIR(u, responsesUsageNames);
export const usageFromIR = (u: IRUsage): ResponsesUsage => responsesUsageFromIR(u);

/** Stop reason of a Responses object: its status, why it is incomplete, and whether it calls functions. */
export function stopToIR(r: ResponsesResponse, calledTools = false): IRStopReason {
  if (r.status === 'incomplete') return r.incomplete_details?.reason === 'content_filter' ? 'content_filter' : 'length';
  if (r.status === 'failed') return 'error';
  return calledTools || (r.output ?? []).some((i) => i?.type === 'function_call') ? 'tool_calls' : 'stop';
}

export type Status = 'completed' | 'incomplete' | 'failed';
export const statusOf = (reason: IRStopReason | undefined): Status =>
  reason === 'length' || reason === 'content_filter' ? 'incomplete' : reason === 'error' ? 'failed' : 'completed';
export const itemStatus = (reason: IRStopReason | undefined): 'completed' | 'incomplete' =>
  statusOf(reason) === 'incomplete' ? 'incomplete' : 'completed';

export const responseId = (id: string): string => (id.startsWith('resp_') ? id : `resp_${id}`);
/** Output item ids derive from the response id and the item's position, so they are stable and unique. */
export const itemId = (prefix: 'msg' | 'fc' | 'rs', responseId: string, outputIndex: number): string =>
  `${prefix}_${responseId.replace(/^resp_/, '')}_${outputIndex}`;

export const outputText = (text: string): ResponsesOutputText => ({
  type: 'output_text',
  annotations: [],
  logprobs: [],
  text,
});
export const messageItem = (id: string, texts: string[], status: string): ResponsesOutputMessage => ({
  id,
  type: 'message',
  status,
  role: 'assistant',
  content: texts.map(outputText),
});
export const reasoningItem = (id: string, texts: string[]): ResponsesOutputReasoning => ({
  id,
  type: 'reasoning',
  summary: texts.map((text) => ({ type: 'summary_text', text })),
});
export const functionCallItem = (
  id: string,
  callId: string,
  name: string,
  args: string,
  status: string,
): ResponsesOutputFunctionCall => ({
  id,
  type: 'function_call',
  status,
  arguments: args,
  call_id: callId,
  name,
});

/**
 * A whole Response object. Request echoes the IR does not carry (tools, sampling, text format…) take the API's
 * defaults; every field the SDK's `Response` type requires is present. Usage is left out until it is known (the
 * SDK types it optional, not nullable).
 */
export function responseObject(o: {
  id: string;
  model: string;
  createdAt: number;
  output: ResponsesOutputItem[];
  status: Status | 'in_progress';
  reason?: IRStopReason;
  usage: IRUsage | null;
  error?: string;
}): ResponsesResponseObject {
  return {
    id: o.id,
    object: 'response',
    // No access program was asked for (the API's implicit Standard).
    access_programs: null,
    created_at: o.createdAt,
    status: o.status,
    error: o.status === 'failed' ? { code: 'server_error', message: o.error ?? 'The upstream model failed.' } : null,
    incomplete_details:
      o.status === 'incomplete'
        ? { reason: o.reason === 'content_filter' ? 'content_filter' : 'max_output_tokens' }
        : null,
    instructions: null,
    max_output_tokens: null,
    model: o.model,
    output: o.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    temperature: 1,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    ...(o.usage ? { usage: usageFromIR(o.usage) } : {}),
    metadata: {},
  };
}
