import { chatUsageFromIR, chatUsageNames, openAIUsageToIR, type OpenAIUsage } from './usage.js';
import { parseData } from '../../ir/json-data.js';
import { reasoningEffortOf } from './reasoning.js';
import { sse } from '../../ir/sse.js';
import {
  type IRMessage,
  type IRPart,
  type IRRequest,
  type IRStopReason,
  type IRStreamEvent,
  type IRUsage,
  type WireFormat,
} from '../../ir/types.js';
import type {
  ChatAnswerMessage,
  ChatCompletion,
  ChatCompletionChunk,
  ChatContent,
  ChatContentPart,
  ChatDelta,
  ChatFinishReason,
  ChatMessage,
  ChatRequest,
  ChatUsage,
} from './wire.js';

const textOf = (content: ChatContent | null | undefined): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p) => (p?.type === 'text' ? String(p.text ?? '') : '')).join('')
      : '';

function partsOf(content: ChatContent | null | undefined): IRPart[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  const out: IRPart[] = [];
  for (const p of content) {
    if (p?.type === 'text') out.push({ type: 'text', text: String(p.text ?? '') });
    else if (p?.type === 'image_url')
      out.push(imageFromUrl(typeof p.image_url === 'string' ? p.image_url : String(p.image_url?.url ?? '')));
    else if (p?.type === 'input_audio')
      out.push({
        type: 'audio',
        data: String(p.input_audio?.data ?? ''),
        format: String(p.input_audio?.format ?? 'wav'),
      });
  }
  return out;
}

/** data: URLs become inline data; other URLs stay URLs. */
export function imageFromUrl(url: string): IRPart {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { type: 'image', data: m[2]!, mediaType: m[1]! } : { type: 'image', url };
}

export const imageToUrl = (p: Extract<IRPart, { type: 'image' }>): string =>
  p.url ?? `data:${p.mediaType ?? 'image/png'};base64,${p.data ?? ''}`;

const finishToIR: Record<string, IRStopReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
};
const finishFromIR: Record<IRStopReason, ChatFinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  content_filter: 'content_filter',
  error: 'stop',
};

/** OpenAI Chat usage (prompt_tokens include cached tokens) → IR usage, and back. */
export const usageToIR = (u: OpenAIUsage | undefined | null): IRUsage => openAIUsageToIR(u, chatUsageNames);
export const usageFromIR = (u: IRUsage): ChatUsage => chatUsageFromIR(u);

/** Models that take max_completion_tokens instead of max_tokens. */
export const usesMaxCompletionTokens = (model: string): boolean => /^(o\d|gpt-5)/.test(model);

function messagesToIR(messages: ChatMessage[]): { system: string[]; messages: IRMessage[] } {
  const system: string[] = [];
  const out: IRMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system' || m.role === 'developer') system.push(textOf(m.content));
    else if (m.role === 'tool')
      out.push({
        role: 'tool',
        parts: [{ type: 'tool_result', toolCallId: String(m.tool_call_id ?? ''), content: textOf(m.content) }],
      });
    else if (m.role === 'assistant') {
      const parts: IRPart[] = [];
      if (m.reasoning_content) parts.push({ type: 'thinking', text: String(m.reasoning_content) });
      parts.push(...partsOf(m.content));
      for (const tc of m.tool_calls ?? [])
        parts.push({
          type: 'tool_call',
          id: String(tc.id ?? ''),
          name: String(tc.function?.name ?? ''),
          arguments: String(tc.function?.arguments ?? '{}'),
        });
      out.push({ role: 'assistant', parts });
    } else out.push({ role: 'user', parts: partsOf(m.content) });
  }
  return { system, messages: out };
}

function messagesFromIR(ir: IRRequest): ChatMessage[] {
  const out: ChatMessage[] = ir.system.length ? [{ role: 'system', content: ir.system.join('\n\n') }] : [];
  for (const m of ir.messages) {
    if (m.role === 'tool' || m.parts.some((p) => p.type === 'tool_result')) {
      for (const p of m.parts)
        if (p.type === 'tool_result') out.push({ role: 'tool', tool_call_id: p.toolCallId, content: p.content });
      const rest = m.parts.filter((p) => p.type !== 'tool_result');
      if (rest.length) out.push({ role: 'user', content: contentFromParts(rest) });
      continue;
    }
    if (m.role === 'assistant') {
      const calls = m.parts.filter((p): p is Extract<IRPart, { type: 'tool_call' }> => p.type === 'tool_call');
      const thinking = m.parts
        .filter((p) => p.type === 'thinking')
        .map((p) => (p as { text: string }).text)
        .join('');
      const text = m.parts
        .filter((p) => p.type === 'text')
        .map((p) => (p as { text: string }).text)
        .join('');
      out.push({
        role: 'assistant',
        content: text || (calls.length ? null : ''),
        ...(thinking ? { reasoning_content: thinking } : {}),
        ...(calls.length
          ? {
              tool_calls: calls.map((c) => ({
                id: c.id,
                type: 'function' as const,
                function: { name: c.name, arguments: c.arguments },
              })),
            }
          : {}),
      });
      continue;
    }
    out.push({ role: 'user', content: contentFromParts(m.parts) });
  }
  return out;
}

function contentFromParts(parts: IRPart[]): ChatContent {
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => (p as { text: string }).text).join('');
  return parts.flatMap((p): ChatContentPart[] => {
    if (p.type === 'text') return [{ type: 'text', text: p.text }];
    if (p.type === 'image') return [{ type: 'image_url', image_url: { url: imageToUrl(p) } }];
    if (p.type === 'audio') return [{ type: 'input_audio', input_audio: { data: p.data, format: p.format } }];
    return [];
  });
}

interface DecodeState {
  started: boolean;
  /** Tool-call indexes already announced. */
  announced: Set<number>;
}

interface EncodeState {
  id: string;
  model: string;
  created: number;
  sentRole: boolean;
  includeUsage: boolean;
  toolIndex: number;
  /** The stop reason, sent in one finish_reason chunk before the usage chunk or at the end. */
  stop?: IRStopReason;
  finished: boolean;
}

/** The one finish_reason chunk, once a stop reason is known. */
const finishChunk = (s: EncodeState): string => {
  if (s.finished || !s.stop) return '';
  s.finished = true;
  return chunk(s, {}, finishFromIR[s.stop]);
};

const chunk = (s: EncodeState, delta: ChatDelta, finish: ChatFinishReason | null = null): string =>
  sse({
    id: s.id,
    object: 'chat.completion.chunk',
    created: s.created,
    model: s.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  } satisfies ChatCompletionChunk);

/** OpenAI Chat Completions. */
export const openAIChat: WireFormat<DecodeState, EncodeState> & {
  includeUsage(state: EncodeState, on: boolean): void;
} = {
  name: 'openai',
  requestToIR(body) {
    const b = body as ChatRequest;
    const { system, messages } = messagesToIR(Array.isArray(b.messages) ? b.messages : []);
    const tc = b.tool_choice;
    return {
      model: String(b.model ?? ''),
      system,
      messages,
      tools: Array.isArray(b.tools)
        ? b.tools
            .filter((t) => t.type === 'function')
            .map((t) => ({
              name: String(t.function?.name ?? ''),
              description: t.function?.description,
              parameters: t.function?.parameters ?? { type: 'object', properties: {} },
            }))
        : undefined,
      toolChoice:
        tc === undefined ? undefined : typeof tc === 'string' ? tc : { name: String(tc?.function?.name ?? '') },
      parallelToolCalls: b.parallel_tool_calls,
      maxTokens: b.max_completion_tokens ?? b.max_tokens,
      temperature: b.temperature,
      topP: b.top_p,
      stop: b.stop === undefined ? undefined : Array.isArray(b.stop) ? b.stop : [String(b.stop)],
      stream: b.stream === true,
      reasoning: b.reasoning_effort ? { effort: b.reasoning_effort } : undefined,
      responseFormat:
        b.response_format?.type === 'json_schema'
          ? {
              type: 'json_schema',
              name: String(b.response_format.json_schema?.name ?? 'output'),
              schema: b.response_format.json_schema?.schema ?? {},
              strict: b.response_format.json_schema?.strict,
            }
          : b.response_format?.type === 'json_object'
            ? { type: 'json_object' }
            : undefined,
      user: b.user,
      serviceTier: typeof b.service_tier === 'string' ? b.service_tier : undefined,
      safetyIdentifier: typeof b.safety_identifier === 'string' ? b.safety_identifier : undefined,
    };
  },
  requestFromIR(ir) {
    const body: ChatRequest = { model: ir.model, messages: messagesFromIR(ir) };
    if (ir.stream) body.stream = true;
    if (ir.maxTokens !== undefined)
      body[usesMaxCompletionTokens(ir.model) ? 'max_completion_tokens' : 'max_tokens'] = ir.maxTokens;
    if (ir.temperature !== undefined) body.temperature = ir.temperature;
    if (ir.topP !== undefined) body.top_p = ir.topP;
    if (ir.stop?.length) body.stop = ir.stop;
    if (ir.tools?.length)
      body.tools = ir.tools.map((t) => ({
        type: 'function' as const,
        function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters },
      }));
    if (ir.toolChoice)
      body.tool_choice =
        typeof ir.toolChoice === 'string'
          ? ir.toolChoice
          : { type: 'function', function: { name: ir.toolChoice.name } };
    if (ir.parallelToolCalls !== undefined) body.parallel_tool_calls = ir.parallelToolCalls;
    const effort = reasoningEffortOf(ir.reasoning);
    if (effort) body.reasoning_effort = effort;
    if (ir.responseFormat)
      body.response_format =
        ir.responseFormat.type === 'json_object'
          ? { type: 'json_object' }
          : {
              type: 'json_schema',
              json_schema: {
                name: ir.responseFormat.name,
                schema: ir.responseFormat.schema,
                ...(ir.responseFormat.strict !== undefined ? { strict: ir.responseFormat.strict } : {}),
              },
            };
    if (ir.user) body.user = ir.user;
    if (ir.serviceTier) body.service_tier = ir.serviceTier;
    if (ir.safetyIdentifier) body.safety_identifier = ir.safetyIdentifier;
    return body;
  },
  responseToIR(body) {
    const b = body as ChatCompletion;
    const choice: Partial<ChatCompletion['choices'][number]> = b.choices?.[0] ?? {};
    const msg: Partial<ChatAnswerMessage> = choice.message ?? {};
    const parts: IRPart[] = [];
    if (msg.reasoning_content) parts.push({ type: 'thinking', text: String(msg.reasoning_content) });
    if (msg.content) parts.push({ type: 'text', text: textOf(msg.content) });
    for (const tc of msg.tool_calls ?? [])
      parts.push({
        type: 'tool_call',
        id: String(tc.id ?? ''),
        name: String(tc.function?.name ?? ''),
        arguments: String(tc.function?.arguments ?? '{}'),
      });
    return {
      id: String(b.id ?? ''),
      model: String(b.model ?? ''),
      parts,
      stopReason: finishToIR[String(choice.finish_reason)] ?? 'stop',
      usage: usageToIR(b.usage),
    };
  },
  responseFromIR(ir, model) {
    const text = ir.parts
      .filter((p) => p.type === 'text')
      .map((p) => (p as { text: string }).text)
      .join('');
    const thinking = ir.parts
      .filter((p) => p.type === 'thinking')
      .map((p) => (p as { text: string }).text)
      .join('');
    const calls = ir.parts.filter((p): p is Extract<IRPart, { type: 'tool_call' }> => p.type === 'tool_call');
    return {
      id: ir.id.startsWith('chatcmpl-') ? ir.id : `chatcmpl-${ir.id}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: text || (calls.length ? null : ''),
            ...(thinking ? { reasoning_content: thinking } : {}),
            ...(calls.length
              ? {
                  tool_calls: calls.map((c) => ({
                    id: c.id,
                    type: 'function' as const,
                    function: { name: c.name, arguments: c.arguments },
                  })),
                }
              : {}),
          },
          finish_reason: finishFromIR[ir.stopReason],
        },
      ],
      usage: usageFromIR(ir.usage),
    } satisfies ChatCompletion;
  },
  newDecodeState: () => ({ started: false, announced: new Set() }),
  decodeEvent(state, { data }) {
    if (data === '[DONE]') return [{ type: 'end' }];
    const j = parseData(data) as ChatCompletionChunk | undefined;
    if (!j) return [];
    const out: IRStreamEvent[] = [];
    if (!state.started) {
      state.started = true;
      out.push({
        type: 'start',
        id: String(j.id ?? ''),
        model: String(j.model ?? ''),
        ...(j.usage ? { usage: usageToIR(j.usage) } : {}),
      });
    }
    if (j.error) out.push({ type: 'error', message: String(j.error.message ?? 'upstream error') });
    for (const c of j.choices ?? []) {
      const d: ChatDelta = c.delta ?? {};
      if (d.reasoning_content) out.push({ type: 'thinking', text: String(d.reasoning_content) });
      if (d.content) out.push({ type: 'text', text: String(d.content) });
      for (const tc of d.tool_calls ?? []) {
        const index = Number(tc.index ?? 0);
        if (!state.announced.has(index) && (tc.id || tc.function?.name)) {
          state.announced.add(index);
          out.push({
            type: 'tool_call_start',
            index,
            id: String(tc.id ?? `call_${index}`),
            name: String(tc.function?.name ?? ''),
          });
        }
        if (tc.function?.arguments) out.push({ type: 'tool_call_args', index, args: String(tc.function.arguments) });
      }
      if (c.finish_reason) out.push({ type: 'stop', reason: finishToIR[c.finish_reason] ?? 'stop' });
    }
    if (j.usage) out.push({ type: 'usage', usage: usageToIR(j.usage) });
    return out;
  },
  newEncodeState: (model) => ({
    id: `chatcmpl-${Date.now().toString(36)}`,
    model,
    created: Math.floor(Date.now() / 1000),
    sentRole: false,
    includeUsage: false,
    toolIndex: -1,
    finished: false,
  }),
  includeUsage(state, on) {
    state.includeUsage = on;
  },
  prepareEncoder(state, call) {
    state.includeUsage = call.includeUsage;
  },
  encodeEvent(s, e) {
    const role = () => {
      if (s.sentRole) return '';
      s.sentRole = true;
      return chunk(s, { role: 'assistant', content: '' });
    };
    switch (e.type) {
      case 'start':
        if (e.id) s.id = e.id.startsWith('chatcmpl-') ? e.id : `chatcmpl-${e.id}`;
        return role();
      case 'text':
        return role() + chunk(s, { content: e.text });
      case 'thinking':
        return role() + chunk(s, { reasoning_content: e.text });
      case 'tool_call_start':
        s.toolIndex = e.index;
        return (
          role() +
          chunk(s, {
            tool_calls: [{ index: e.index, id: e.id, type: 'function', function: { name: e.name, arguments: '' } }],
          })
        );
      case 'tool_call_args':
        return chunk(s, { tool_calls: [{ index: e.index, function: { arguments: e.args } }] });
      // A stop reason is remembered (some upstreams repeat it on every chunk): content may still follow it.
      case 'stop':
        if (!s.finished) s.stop = e.reason;
        return role();
      case 'usage':
        return (
          finishChunk(s) +
          (s.includeUsage
            ? sse({
                id: s.id,
                object: 'chat.completion.chunk',
                created: s.created,
                model: s.model,
                choices: [],
                usage: usageFromIR(e.usage),
              } satisfies ChatCompletionChunk)
            : '')
        );
      case 'error':
        return sse({ error: { message: e.message, type: 'upstream_error' } });
      case 'end':
        return finishChunk(s) + 'data: [DONE]\n\n';
    }
  },
  errorBody: (_status, message, type = 'tollway_error', code = null) => ({
    error: { message, type, param: null, code },
  }),
};
