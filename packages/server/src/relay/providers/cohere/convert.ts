import { imageToUrl } from '../openai/chat.js';
import {
  emptyUsage,
  type IRMessage,
  type IRPart,
  type IRRequest,
  type IRStopReason,
  type IRStreamEvent,
  type IRUsage,
  type UpstreamFormat,
} from '../../ir/types.js';
import { parseData } from '../../ir/json-data.js';
import type {
  CohereContent,
  CohereMessage,
  CohereRequest,
  CohereResponse,
  CohereStreamEvent,
  CohereUsage,
} from './wire.js';

type StreamMessage = NonNullable<NonNullable<CohereStreamEvent['delta']>['message']>;

/**
 * Cohere Chat v2 (`POST /v2/chat`), upstream side: IR → request, response → IR, and the SSE stream
 * (message-start, content-delta, tool-call-start/-delta, message-end with usage) → IR events.
 * Usage: Cohere bills `usage.billed_units`; `usage.tokens` is the fallback when billed units are absent.
 */

const finishToIR: Record<string, IRStopReason> = {
  COMPLETE: 'stop',
  STOP_SEQUENCE: 'stop',
  MAX_TOKENS: 'length',
  TOOL_CALL: 'tool_calls',
  ERROR: 'error',
  TIMEOUT: 'error',
};

export function cohereUsageToIR(u: CohereUsage | undefined): IRUsage {
  const billed = u?.billed_units;
  const src = billed && (billed.input_tokens !== undefined || billed.output_tokens !== undefined) ? billed : u?.tokens;
  if (!src) return emptyUsage();
  return { ...emptyUsage(), inputTokens: Number(src.input_tokens ?? 0), outputTokens: Number(src.output_tokens ?? 0) };
}

function contentOf(parts: IRPart[]): string | CohereContent[] {
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => (p as { text: string }).text).join('');
  return parts.flatMap((p): CohereContent[] => {
    if (p.type === 'text') return [{ type: 'text', text: p.text }];
    if (p.type === 'image') return [{ type: 'image_url', image_url: { url: imageToUrl(p) } }];
    return [];
  });
}

function messageFromIR(m: IRMessage): CohereMessage[] {
  const results = m.parts.filter((p): p is Extract<IRPart, { type: 'tool_result' }> => p.type === 'tool_result');
  const rest = m.parts.filter((p) => p.type !== 'tool_result' && p.type !== 'thinking');
  const out: CohereMessage[] = results.map((r) => ({
    role: 'tool' as const,
    tool_call_id: r.toolCallId,
    content: r.content,
  }));
  if (m.role === 'assistant') {
    const calls = rest.filter((p): p is Extract<IRPart, { type: 'tool_call' }> => p.type === 'tool_call');
    const text = rest.filter((p) => p.type === 'text');
    const msg: Extract<CohereMessage, { role: 'assistant' }> = { role: 'assistant' };
    if (calls.length)
      msg.tool_calls = calls.map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: c.name, arguments: c.arguments },
      }));
    if (text.length) msg[calls.length ? 'tool_plan' : 'content'] = contentOf(text);
    out.push(msg);
  } else if (rest.length) out.push({ role: 'user', content: contentOf(rest) });
  return out;
}

function requestFromIR(ir: IRRequest): CohereRequest {
  const messages: CohereMessage[] = ir.system.length ? [{ role: 'system', content: ir.system.join('\n\n') }] : [];
  for (const m of ir.messages) messages.push(...messageFromIR(m));
  const body: CohereRequest = { model: ir.model, messages, stream: ir.stream };
  if (ir.maxTokens !== undefined) body.max_tokens = ir.maxTokens;
  if (ir.temperature !== undefined) body.temperature = ir.temperature;
  if (ir.topP !== undefined) body.p = ir.topP;
  if (ir.topK !== undefined) body.k = ir.topK;
  if (ir.stop?.length) body.stop_sequences = ir.stop;
  if (ir.tools?.length)
    body.tools = ir.tools.map((t) => ({
      type: 'function' as const,
      function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters },
    }));
  // Cohere has only REQUIRED and NONE; a named tool is forced by offering only that tool.
  if (ir.toolChoice === 'required') body.tool_choice = 'REQUIRED';
  else if (ir.toolChoice === 'none') body.tool_choice = 'NONE';
  else if (typeof ir.toolChoice === 'object' && body.tools) {
    const name = ir.toolChoice.name;
    body.tools = body.tools.filter((t) => t.function.name === name);
    body.tool_choice = 'REQUIRED';
  }
  if (ir.responseFormat)
    body.response_format =
      ir.responseFormat.type === 'json_schema'
        ? { type: 'json_object', json_schema: ir.responseFormat.schema }
        : { type: 'json_object' };
  if (ir.reasoning?.budgetTokens) body.thinking = { type: 'enabled', token_budget: ir.reasoning.budgetTokens };
  return body;
}

interface DecodeState {
  started: boolean;
  /** Tool-call index of the call being streamed (the event's `index`, or counted). */
  toolIndex: number;
}

const deltaMessage = (j: CohereStreamEvent): StreamMessage => j.delta?.message ?? {};

export const cohereChat: UpstreamFormat<DecodeState> = {
  name: 'cohere',
  requestFromIR,
  responseToIR(body) {
    const b = body as CohereResponse;
    const msg: NonNullable<CohereResponse['message']> = b.message ?? {};
    // The tool plan (the model's reasoning before it calls tools) reads as thinking.
    const parts: IRPart[] = msg.tool_plan ? [{ type: 'thinking', text: String(msg.tool_plan) }] : [];
    for (const c of Array.isArray(msg.content) ? msg.content : []) {
      if (c.type === 'thinking') parts.push({ type: 'thinking', text: String(c.thinking ?? '') });
      else if (c.type === 'text') parts.push({ type: 'text', text: String(c.text ?? '') });
    }
    for (const tc of msg.tool_calls ?? [])
      parts.push({
        type: 'tool_call',
        id: String(tc.id ?? ''),
        name: String(tc.function?.name ?? ''),
        arguments: String(tc.function?.arguments ?? '{}'),
      });
    return {
      id: String(b.id ?? ''),
      model: '',
      parts,
      stopReason: finishToIR[String(b.finish_reason)] ?? 'stop',
      usage: cohereUsageToIR(b.usage),
    };
  },
  newDecodeState: () => ({ started: false, toolIndex: -1 }),
  decodeEvent(state, { data }) {
    const j = parseData(data) as CohereStreamEvent | undefined;
    if (!j) return [];
    const out: IRStreamEvent[] = [];
    if (!state.started) {
      state.started = true;
      out.push({ type: 'start', id: String(j.id ?? ''), model: '' });
    }
    const m = deltaMessage(j);
    switch (j.type) {
      case 'content-delta': {
        const c = m.content ?? {};
        if (c.thinking) out.push({ type: 'thinking', text: String(c.thinking) });
        if (c.text) out.push({ type: 'text', text: String(c.text) });
        break;
      }
      case 'tool-plan-delta':
        if (m.tool_plan) out.push({ type: 'thinking', text: String(m.tool_plan) });
        break;
      case 'tool-call-start': {
        const tc = m.tool_calls ?? {};
        state.toolIndex = typeof j.index === 'number' ? j.index : state.toolIndex + 1;
        out.push({
          type: 'tool_call_start',
          index: state.toolIndex,
          id: String(tc.id ?? `call_${state.toolIndex}`),
          name: String(tc.function?.name ?? ''),
        });
        if (tc.function?.arguments)
          out.push({ type: 'tool_call_args', index: state.toolIndex, args: String(tc.function.arguments) });
        break;
      }
      case 'tool-call-delta': {
        const args = m.tool_calls?.function?.arguments;
        if (args) out.push({ type: 'tool_call_args', index: Math.max(0, state.toolIndex), args: String(args) });
        break;
      }
      case 'message-end': {
        const d = j.delta ?? {};
        if (d.error) out.push({ type: 'error', message: String(d.error) });
        out.push({ type: 'stop', reason: finishToIR[String(d.finish_reason)] ?? 'stop' });
        if (d.usage) out.push({ type: 'usage', usage: cohereUsageToIR(d.usage) });
        out.push({ type: 'end' });
        break;
      }
    }
    return out;
  },
};
