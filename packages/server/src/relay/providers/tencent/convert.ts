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
import { joinedText, parseData } from '../../ir/json-data.js';
import type {
  HunyuanContent,
  HunyuanEnvelope,
  HunyuanMessage,
  HunyuanRequest,
  HunyuanResponse,
  HunyuanUsage,
} from './wire.js';

type Choice = NonNullable<HunyuanResponse['Choices']>[number];
type MessageFields = NonNullable<Choice['Message']>;

/**
 * Tencent Hunyuan ChatCompletions (Tencent Cloud API 3.0, PascalCase fields), upstream side: IR → request,
 * `{Response: {Choices, Usage}}` → IR, and SSE chunks (`Choices[].Delta`, a running `Usage` on every chunk,
 * read once the chunk with a FinishReason arrives) → IR events. Errors arrive as `Response.Error` (HTTP 200).
 */

const finishToIR: Record<string, IRStopReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  sensitive: 'content_filter',
};

export const hunyuanUsageToIR = (u: HunyuanUsage | undefined): IRUsage =>
  u
    ? { ...emptyUsage(), inputTokens: Number(u.PromptTokens ?? 0), outputTokens: Number(u.CompletionTokens ?? 0) }
    : emptyUsage();

function messagesFromIR(m: IRMessage): HunyuanMessage[] {
  const out: HunyuanMessage[] = [];
  for (const p of m.parts)
    if (p.type === 'tool_result') out.push({ Role: 'tool', Content: p.content, ToolCallId: p.toolCallId });
  const text = joinedText(m.parts);
  if (m.role === 'assistant') {
    const calls = m.parts.filter((p): p is Extract<IRPart, { type: 'tool_call' }> => p.type === 'tool_call');
    out.push({
      Role: 'assistant',
      Content: text,
      ...(calls.length
        ? {
            ToolCalls: calls.map((c) => ({
              Id: c.id,
              Type: 'function' as const,
              Function: { Name: c.name, Arguments: c.arguments },
            })),
          }
        : {}),
    });
  } else if (m.parts.some((p) => p.type === 'image')) {
    const contents = m.parts.flatMap((p): HunyuanContent[] =>
      p.type === 'text'
        ? [{ Type: 'text', Text: p.text }]
        : p.type === 'image'
          ? [{ Type: 'image_url', ImageUrl: { Url: imageToUrl(p) } }]
          : [],
    );
    out.push({ Role: 'user', Contents: contents });
  } else if (m.role === 'user' && text) out.push({ Role: 'user', Content: text });
  return out;
}

function requestFromIR(ir: IRRequest): HunyuanRequest {
  const messages: HunyuanMessage[] = ir.system.length ? [{ Role: 'system', Content: ir.system.join('\n\n') }] : [];
  for (const m of ir.messages) messages.push(...messagesFromIR(m));
  const body: HunyuanRequest = { Model: ir.model, Messages: messages, Stream: ir.stream };
  if (ir.temperature !== undefined) body.Temperature = ir.temperature;
  if (ir.topP !== undefined) body.TopP = ir.topP;
  if (ir.tools?.length)
    body.Tools = ir.tools.map((t) => ({
      Type: 'function' as const,
      Function: {
        Name: t.name,
        ...(t.description ? { Description: t.description } : {}),
        Parameters: JSON.stringify(t.parameters),
      },
    }));
  if (ir.toolChoice === 'none' || ir.toolChoice === 'auto') body.ToolChoice = ir.toolChoice;
  else if (typeof ir.toolChoice === 'object') {
    const tool = body.Tools?.find((t) => t.Function.Name === (ir.toolChoice as { name: string }).name);
    if (tool) Object.assign(body, { ToolChoice: 'custom', CustomTool: tool });
  }
  return body;
}

interface DecodeState {
  started: boolean;
  ended: boolean;
  announced: Set<number>;
}

export const hunyuanChat: UpstreamFormat<DecodeState> = {
  name: 'hunyuan',
  requestFromIR,
  responseToIR(body) {
    const r: HunyuanResponse = (body as HunyuanEnvelope).Response ?? body;
    if (r.Error) throw new Error(`Tencent error ${r.Error.Code}: ${r.Error.Message}`);
    const choice: Choice = r.Choices?.[0] ?? {};
    const msg: MessageFields = choice.Message ?? {};
    const parts: IRPart[] = [];
    if (msg.ReasoningContent) parts.push({ type: 'thinking', text: String(msg.ReasoningContent) });
    if (msg.Content) parts.push({ type: 'text', text: String(msg.Content) });
    for (const tc of msg.ToolCalls ?? [])
      parts.push({
        type: 'tool_call',
        id: String(tc.Id ?? ''),
        name: String(tc.Function?.Name ?? ''),
        arguments: String(tc.Function?.Arguments ?? '{}'),
      });
    return {
      id: String(r.Id ?? r.RequestId ?? ''),
      model: '',
      parts,
      stopReason: finishToIR[String(choice.FinishReason)] ?? 'stop',
      usage: hunyuanUsageToIR(r.Usage),
    };
  },
  newDecodeState: () => ({ started: false, ended: false, announced: new Set() }),
  decodeEvent(state, { data }) {
    const j = parseData(data) as HunyuanEnvelope | undefined;
    if (!j || state.ended) return [];
    const out: IRStreamEvent[] = [];
    const err = j.Response?.Error;
    if (err) {
      state.ended = true;
      return [
        { type: 'error', message: `Tencent error ${err.Code}: ${err.Message}` },
        { type: 'stop', reason: 'error' },
        { type: 'end' },
      ];
    }
    if (!state.started) {
      state.started = true;
      out.push({ type: 'start', id: String(j.Id ?? ''), model: '' });
    }
    for (const c of j.Choices ?? []) {
      const d: MessageFields = c.Delta ?? {};
      if (d.ReasoningContent) out.push({ type: 'thinking', text: String(d.ReasoningContent) });
      if (d.Content) out.push({ type: 'text', text: String(d.Content) });
      for (const tc of d.ToolCalls ?? []) {
        const index = Number(tc.Index ?? 0);
        if (!state.announced.has(index)) {
          state.announced.add(index);
          out.push({
            type: 'tool_call_start',
            index,
            id: String(tc.Id ?? `call_${index}`),
            name: String(tc.Function?.Name ?? ''),
          });
        }
        if (tc.Function?.Arguments) out.push({ type: 'tool_call_args', index, args: String(tc.Function.Arguments) });
      }
      if (c.FinishReason) {
        state.ended = true;
        out.push({ type: 'stop', reason: finishToIR[String(c.FinishReason)] ?? 'stop' });
        if (j.Usage) out.push({ type: 'usage', usage: hunyuanUsageToIR(j.Usage) });
        out.push({ type: 'end' });
      }
    }
    return out;
  },
  answerError(body) {
    const e = (body as HunyuanEnvelope).Response?.Error;
    if (!e) return undefined;
    const code = String(e.Code ?? '');
    const status = code.startsWith('AuthFailure')
      ? 401
      : code.includes('LimitExceeded')
        ? 429
        : code.startsWith('InternalError')
          ? 500
          : 400;
    return { status, message: `Tencent error ${code}: ${String(e.Message ?? '')}` };
  },
};
