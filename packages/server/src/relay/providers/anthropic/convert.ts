import {
  decodeEvent,
  encodeEvent,
  messageId,
  newDecodeState,
  newEncodeState,
  stopFromIR,
  stopToIR,
  usageFromIR,
  usageToIR,
  type AnthropicDecodeState,
  type AnthropicEncodeState,
} from './stream.js';
import { addStructuredOutput, responseFormatFromAnthropic, structuredText, structuredTool } from './structured.js';
import { countPromptAsChat } from './prompt-count.js';
import type { IRMessage, IRPart, IRRequest, IRResponse, IRRole, IRToolChoice, WireFormat } from '../../ir/types.js';
import type {
  AnthropicBlock,
  AnthropicImageSource,
  AnthropicMessage,
  AnthropicRequest,
  AnthropicResponse,
  AnthropicTextBlock,
  AnthropicToolChoice,
} from './wire.js';

/** max_tokens is required by Anthropic; used when the IR request has none (the relay may pass its configured default). */
export const DEFAULT_MAX_TOKENS = 8192;

/** Thinking budget for a reasoning effort given without a budget. */
export const effortBudget: Record<'minimal' | 'low' | 'medium' | 'high', number> = {
  minimal: 1024,
  low: 1024,
  medium: 4096,
  high: 16384,
};

/** Anthropic's smallest thinking budget. */
const MIN_BUDGET = 1024;

const textOfBlocks = (content: string | AnthropicBlock[] | null | undefined): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .filter((b): b is AnthropicTextBlock => b?.type === 'text')
          .map((b) => String(b.text ?? ''))
          .join('\n')
      : '';

function imageToIR(source: AnthropicImageSource | undefined): IRPart | undefined {
  if (source?.type === 'base64')
    return { type: 'image', data: String(source.data ?? ''), mediaType: String(source.media_type ?? 'image/png') };
  if (source?.type === 'url') return { type: 'image', url: String(source.url ?? '') };
  return undefined;
}

/** One content block → an IR part; documents, file references and server-tool blocks have none. */
function blockToIR(b: AnthropicBlock, toolNames: Map<string, string>): IRPart | undefined {
  switch (b?.type) {
    case 'text':
      return { type: 'text', text: String(b.text ?? '') };
    case 'image':
      return imageToIR(b.source);
    case 'tool_use':
      toolNames.set(String(b.id ?? ''), String(b.name ?? ''));
      return {
        type: 'tool_call',
        id: String(b.id ?? ''),
        name: String(b.name ?? ''),
        arguments: JSON.stringify(b.input ?? {}),
      };
    case 'tool_result': {
      const id = String(b.tool_use_id ?? '');
      const name = toolNames.get(id);
      return {
        type: 'tool_result',
        toolCallId: id,
        ...(name ? { name } : {}),
        content: textOfBlocks(b.content),
        ...(b.is_error ? { isError: true } : {}),
      };
    }
    case 'thinking':
      return {
        type: 'thinking',
        text: String(b.thinking ?? ''),
        ...(b.signature ? { signature: String(b.signature) } : {}),
      };
    case 'redacted_thinking':
      // The opaque payload travels in `signature` so other formats, which read `text`, see nothing.
      return { type: 'thinking', text: '', signature: String(b.data ?? ''), redacted: true };
    default:
      return undefined;
  }
}

/**
 * Anthropic messages → IR messages. Tool results, which Anthropic puts in user messages, become 'tool' messages;
 * a user message mixing them with other content splits into runs, in order.
 */
function messagesToIR(messages: AnthropicMessage[]): IRMessage[] {
  const out: IRMessage[] = [];
  const toolNames = new Map<string, string>();
  for (const m of messages) {
    const role: IRRole = m.role === 'assistant' ? 'assistant' : 'user';
    if (!Array.isArray(m.content)) {
      const text = typeof m.content === 'string' ? m.content : '';
      out.push({ role, parts: text ? [{ type: 'text', text }] : [] });
      continue;
    }
    let cur: IRMessage | undefined;
    for (const b of m.content) {
      const part = blockToIR(b, toolNames);
      if (!part) continue;
      const r: IRRole = part.type === 'tool_result' ? 'tool' : role;
      if (cur?.role !== r) out.push((cur = { role: r, parts: [] }));
      cur.parts.push(part);
    }
    if (!cur) out.push({ role, parts: [] });
  }
  return out;
}

function toolChoiceToIR(tc: AnthropicToolChoice | undefined): IRToolChoice | undefined {
  switch (tc?.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { name: String(tc.name ?? '') };
    default:
      return undefined;
  }
}

/** Tool-call arguments (JSON text) → the input object Anthropic wants. */
function inputOf(args: string): Record<string, unknown> {
  try {
    const v = JSON.parse(args);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

function partToBlocks(p: IRPart, role: IRRole): AnthropicBlock[] {
  switch (p.type) {
    case 'text':
      return p.text ? [{ type: 'text', text: p.text }] : [];
    case 'image': {
      const m = p.url ? /^data:([^;,]+);base64,(.*)$/s.exec(p.url) : null;
      if (m) return [{ type: 'image', source: { type: 'base64', media_type: m[1]!, data: m[2]! } }];
      if (p.url) return [{ type: 'image', source: { type: 'url', url: p.url } }];
      return [
        { type: 'image', source: { type: 'base64', media_type: p.mediaType ?? 'image/png', data: p.data ?? '' } },
      ];
    }
    case 'tool_call':
      return [{ type: 'tool_use', id: p.id, name: p.name, input: inputOf(p.arguments) }];
    case 'tool_result':
      return [
        {
          type: 'tool_result',
          tool_use_id: p.toolCallId,
          ...(p.content ? { content: p.content } : {}),
          ...(p.isError ? { is_error: true } : {}),
        },
      ];
    case 'thinking':
      // Anthropic verifies thinking it gets back: only signed (or redacted) assistant thinking can be sent.
      if (role !== 'assistant' || !p.signature) return [];
      return p.redacted
        ? [{ type: 'redacted_thinking', data: p.signature }]
        : [{ type: 'thinking', thinking: p.text, signature: p.signature }];
    case 'audio':
      return [];
  }
}

/** IR messages → Anthropic messages: empty ones dropped, same-role neighbours merged, tool results first. */
function messagesFromIR(messages: IRMessage[]): AnthropicMessage[] {
  const merged: { role: 'user' | 'assistant'; content: AnthropicBlock[] }[] = [];
  for (const m of messages) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const blocks = m.parts.flatMap((p) => partToBlocks(p, m.role));
    if (!blocks.length) continue;
    const last = merged.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else merged.push({ role, content: blocks });
  }
  return merged.map(({ role, content }) => {
    if (role === 'user')
      content = [
        ...content.filter((b) => b.type === 'tool_result'),
        ...content.filter((b) => b.type !== 'tool_result'),
      ];
    const first = content[0];
    return { role, content: content.length === 1 && first!.type === 'text' ? first!.text : content };
  });
}

/** Thinking budget and max_tokens together: Anthropic wants 1024 ≤ budget_tokens < max_tokens. */
function budgetAndMax(ir: IRRequest, defaultMaxTokens: number): { maxTokens: number; budget?: number } {
  const wanted = ir.reasoning?.budgetTokens ?? (ir.reasoning?.effort ? effortBudget[ir.reasoning.effort] : undefined);
  if (wanted === undefined || wanted <= 0) return { maxTokens: ir.maxTokens ?? defaultMaxTokens };
  const budget = Math.max(MIN_BUDGET, wanted);
  if (ir.maxTokens === undefined)
    return { maxTokens: budget < defaultMaxTokens ? defaultMaxTokens : budget + defaultMaxTokens, budget };
  const clamped = Math.min(budget, ir.maxTokens - 1);
  return clamped >= MIN_BUDGET ? { maxTokens: ir.maxTokens, budget: clamped } : { maxTokens: ir.maxTokens };
}

/** IR → Anthropic request body; `defaultMaxTokens` fills the required max_tokens when the IR has none. */
export function anthropicRequestFromIR(ir: IRRequest, defaultMaxTokens = DEFAULT_MAX_TOKENS): AnthropicRequest {
  const { maxTokens, budget } = budgetAndMax(ir, defaultMaxTokens);
  const body: AnthropicRequest = { model: ir.model, max_tokens: maxTokens };
  const system = ir.system.filter((s) => s);
  if (system.length === 1) body.system = system[0];
  else if (system.length > 1) body.system = system.map((text) => ({ type: 'text', text }));
  body.messages = messagesFromIR(ir.messages);
  if (ir.stream) body.stream = true;
  if (budget !== undefined) body.thinking = { type: 'enabled', budget_tokens: budget };
  // With thinking on, Anthropic rejects temperature and top_k changes and top_p below 0.95.
  if (ir.temperature !== undefined && budget === undefined) body.temperature = ir.temperature;
  if (ir.topP !== undefined && (budget === undefined || ir.topP >= 0.95)) body.top_p = ir.topP;
  if (ir.topK !== undefined && budget === undefined) body.top_k = ir.topK;
  if (ir.stop?.length) body.stop_sequences = ir.stop;
  if (ir.tools?.length) {
    body.tools = ir.tools.map((t) => ({
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      input_schema: t.parameters,
    }));
    if (ir.toolChoice !== undefined || ir.parallelToolCalls === false) {
      const tc = ir.toolChoice ?? 'auto';
      const choice: AnthropicToolChoice =
        tc === 'auto'
          ? { type: 'auto' }
          : tc === 'required'
            ? { type: 'any' }
            : tc === 'none'
              ? { type: 'none' }
              : { type: 'tool', name: tc.name };
      if (ir.parallelToolCalls === false && choice.type !== 'none') choice.disable_parallel_tool_use = true;
      body.tool_choice = choice;
    }
  }
  addStructuredOutput(body, ir, budget !== undefined);
  if (ir.user) body.metadata = { user_id: ir.user };
  return body;
}

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};
const knownErrorTypes = new Set(Object.values(errorTypes));

/** Anthropic's error type for an HTTP status (other 4xx: invalid_request_error; other 5xx: api_error). */
export const errorTypeFor = (status: number): string =>
  errorTypes[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');

/** Anthropic Messages (POST /v1/messages). */
export const anthropicMessages: WireFormat<AnthropicDecodeState, AnthropicEncodeState> = {
  name: 'anthropic',
  requestToIR(body) {
    const b = body as AnthropicRequest;
    const system =
      typeof b.system === 'string'
        ? b.system
          ? [b.system]
          : []
        : Array.isArray(b.system)
          ? b.system.filter((s) => s?.type === 'text').map((s) => String(s.text ?? ''))
          : [];
    const tc = b.tool_choice;
    return {
      model: String(b.model ?? ''),
      system,
      messages: messagesToIR(Array.isArray(b.messages) ? b.messages : []),
      // Tools with a `type` other than custom are Anthropic server/client built-ins (web search, bash…): not portable.
      tools: Array.isArray(b.tools)
        ? b.tools
            .filter((t) => t.type === undefined || t.type === 'custom')
            .map((t) => ({
              name: String(t.name ?? ''),
              description: t.description,
              parameters: t.input_schema ?? { type: 'object', properties: {} },
            }))
        : undefined,
      toolChoice: toolChoiceToIR(tc),
      parallelToolCalls: typeof tc?.disable_parallel_tool_use === 'boolean' ? !tc.disable_parallel_tool_use : undefined,
      maxTokens: b.max_tokens,
      temperature: b.temperature,
      topP: b.top_p,
      topK: b.top_k,
      stop: Array.isArray(b.stop_sequences) && b.stop_sequences.length ? b.stop_sequences.map(String) : undefined,
      stream: b.stream === true,
      reasoning:
        b.thinking?.type === 'enabled' && typeof b.thinking.budget_tokens === 'number'
          ? { budgetTokens: b.thinking.budget_tokens }
          : undefined,
      responseFormat: responseFormatFromAnthropic(b),
      user: typeof b.metadata?.user_id === 'string' ? b.metadata.user_id : undefined,
    };
  },
  requestFromIR: (ir) => anthropicRequestFromIR(ir),
  responseToIR(body) {
    const b = body as AnthropicResponse;
    const parts: IRPart[] = [];
    let structured = false;
    for (const c of Array.isArray(b.content) ? b.content : []) {
      // A call of the reserved structured-output tool is the answer itself: its input becomes the text.
      const kind = c?.type === 'tool_use' ? structuredTool(c.name) : undefined;
      if (kind && c.type === 'tool_use') {
        structured = true;
        parts.push({ type: 'text', text: structuredText(kind, c.input) });
        continue;
      }
      const p = blockToIR(c, new Map());
      if (p && p.type !== 'tool_result') parts.push(p);
    }
    let stopReason = stopToIR[String(b.stop_reason)] ?? 'stop';
    if (structured && stopReason === 'tool_calls' && !parts.some((p) => p.type === 'tool_call')) stopReason = 'stop';
    return { id: String(b.id ?? ''), model: String(b.model ?? ''), parts, stopReason, usage: usageToIR(b.usage) };
  },
  responseFromIR(ir: IRResponse, model) {
    const content = ir.parts.flatMap((p): AnthropicBlock[] => {
      if (p.type === 'text') return p.text ? [{ type: 'text', text: p.text }] : [];
      if (p.type === 'tool_call') return [{ type: 'tool_use', id: p.id, name: p.name, input: inputOf(p.arguments) }];
      if (p.type === 'thinking') {
        if (p.redacted) return p.signature ? [{ type: 'redacted_thinking', data: p.signature }] : [];
        return p.text || p.signature ? [{ type: 'thinking', thinking: p.text, signature: p.signature ?? '' }] : [];
      }
      return [];
    });
    return {
      id: messageId(ir.id),
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: stopFromIR[ir.stopReason],
      stop_sequence: null,
      usage: usageFromIR(ir.usage),
    } satisfies AnthropicResponse;
  },
  newDecodeState,
  decodeEvent,
  newEncodeState,
  // The prompt is counted only if message_start goes out before the upstream reported it (prompt-count.ts says why
  // it is counted with the chat framing, not held).
  prepareEncoder: (state, call) => {
    state.promptTokens = () => countPromptAsChat(call.body as AnthropicRequest);
  },
  encodeEvent,
  errorBody: (status, message, type) => ({
    type: 'error',
    error: { type: type && knownErrorTypes.has(type) ? type : errorTypeFor(status), message },
  }),
};
