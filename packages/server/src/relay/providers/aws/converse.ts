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
  ConverseBlock,
  ConverseMessage,
  ConverseRequest,
  ConverseResponse,
  ConverseStreamEvent,
  ConverseToolConfig,
  ConverseUsage,
} from './converse-wire.js';

/**
 * Bedrock Converse (`POST /model/{id}/converse`, `/converse-stream`), upstream side, written from the Bedrock
 * API reference: IR → request (messages of content blocks, system, inferenceConfig, toolConfig), response → IR,
 * and the stream's events (messageStart, contentBlockStart/Delta/Stop, messageStop, metadata with usage) → IR.
 * Usage: inputTokens exclude cache reads and writes (cacheRead/WriteInputTokens), as in IR.
 */

const stopToIR: Record<string, IRStopReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};

export const converseUsageToIR = (u: ConverseUsage | undefined): IRUsage => ({
  ...emptyUsage(),
  inputTokens: Number(u?.inputTokens ?? 0),
  outputTokens: Number(u?.outputTokens ?? 0),
  cacheReadTokens: Number(u?.cacheReadInputTokens ?? 0),
  cacheWriteTokens: Number(u?.cacheWriteInputTokens ?? 0),
});

const IMAGE_FORMATS = new Set(['png', 'jpeg', 'gif', 'webp']);

/** Converse takes image bytes only: inline data and data: URLs; remote URLs become a text note. */
function imageBlock(p: Extract<IRPart, { type: 'image' }>): ConverseBlock {
  let data = p.data;
  let mediaType = p.mediaType;
  const m = p.url ? /^data:([^;,]+);base64,(.*)$/s.exec(p.url) : null;
  if (m) [mediaType, data] = [m[1], m[2]];
  const format = (mediaType ?? 'image/png').replace(/^image\//, '').replace('jpg', 'jpeg');
  if (!data || !IMAGE_FORMATS.has(format)) return { text: `[image: ${p.url ?? mediaType ?? 'unsupported'}]` };
  return { image: { format, source: { bytes: data } } };
}

const inputOf = (args: string): unknown => {
  try {
    return JSON.parse(args || '{}');
  } catch {
    return {};
  }
};

function blocksFromIR(parts: IRPart[]): ConverseBlock[] {
  return parts.flatMap((p): ConverseBlock[] => {
    if (p.type === 'text') return p.text ? [{ text: p.text }] : [];
    if (p.type === 'image') return [imageBlock(p)];
    if (p.type === 'tool_call') return [{ toolUse: { toolUseId: p.id, name: p.name, input: inputOf(p.arguments) } }];
    if (p.type === 'tool_result')
      return [
        {
          toolResult: {
            toolUseId: p.toolCallId,
            content: [{ text: p.content }],
            ...(p.isError ? { status: 'error' as const } : {}),
          },
        },
      ];
    if (p.type === 'thinking' && !p.redacted && p.signature)
      return [{ reasoningContent: { reasoningText: { text: p.text, signature: p.signature } } }];
    return [];
  });
}

/** IR roles → Converse's two (tool results travel in user turns); consecutive turns of one role are merged. */
function messagesFromIR(messages: IRMessage[]): ConverseMessage[] {
  const out: ConverseMessage[] = [];
  for (const m of messages) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const content = blocksFromIR(m.parts);
    if (!content.length) continue;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  }
  return out;
}

function requestFromIR(ir: IRRequest): ConverseRequest {
  const body: ConverseRequest = { messages: messagesFromIR(ir.messages) };
  if (ir.system.length) body.system = ir.system.map((text) => ({ text }));
  const inference: NonNullable<ConverseRequest['inferenceConfig']> = {};
  if (ir.maxTokens !== undefined) inference.maxTokens = ir.maxTokens;
  if (ir.temperature !== undefined) inference.temperature = ir.temperature;
  if (ir.topP !== undefined) inference.topP = ir.topP;
  if (ir.stop?.length) inference.stopSequences = ir.stop;
  if (Object.keys(inference).length) body.inferenceConfig = inference;
  if (ir.topK !== undefined) body.additionalModelRequestFields = { top_k: ir.topK };
  if (ir.tools?.length && ir.toolChoice !== 'none') {
    const toolConfig: ConverseToolConfig = {
      tools: ir.tools.map((t) => ({
        toolSpec: {
          name: t.name,
          ...(t.description ? { description: t.description } : {}),
          inputSchema: { json: t.parameters },
        },
      })),
    };
    if (ir.toolChoice === 'required') toolConfig.toolChoice = { any: {} };
    else if (typeof ir.toolChoice === 'object') toolConfig.toolChoice = { tool: { name: ir.toolChoice.name } };
    else if (ir.toolChoice === 'auto') toolConfig.toolChoice = { auto: {} };
    body.toolConfig = toolConfig;
  }
  return body;
}

function blockToIR(b: ConverseBlock): IRPart | undefined {
  if (typeof b.text === 'string') return { type: 'text', text: b.text };
  if (b.toolUse)
    return {
      type: 'tool_call',
      id: String(b.toolUse.toolUseId ?? ''),
      name: String(b.toolUse.name ?? ''),
      arguments: JSON.stringify(b.toolUse.input ?? {}),
    };
  const r = b.reasoningContent;
  if (r?.reasoningText)
    return {
      type: 'thinking',
      text: String(r.reasoningText.text ?? ''),
      ...(r.reasoningText.signature ? { signature: String(r.reasoningText.signature) } : {}),
    };
  if (r?.redactedContent) return { type: 'thinking', text: '', signature: String(r.redactedContent), redacted: true };
  return undefined;
}

export interface ConverseDecodeState {
  started: boolean;
  /** contentBlockIndex → tool-call index, for toolUse blocks. */
  tools: Map<number, number>;
  nextTool: number;
  ended: boolean;
}

function decodeEvent(state: ConverseDecodeState, { event, data }: { event?: string; data: string }): IRStreamEvent[] {
  const j = parseData(data) as ConverseStreamEvent | undefined;
  if (!j || state.ended) return [];
  const out: IRStreamEvent[] = [];
  if (!state.started && event !== 'exception') {
    state.started = true;
    out.push({ type: 'start', id: '', model: '' });
  }
  switch (event) {
    case 'contentBlockStart': {
      const tool = j.start?.toolUse;
      if (tool) {
        const index = state.nextTool++;
        state.tools.set(Number(j.contentBlockIndex ?? 0), index);
        out.push({ type: 'tool_call_start', index, id: String(tool.toolUseId ?? ''), name: String(tool.name ?? '') });
      }
      break;
    }
    case 'contentBlockDelta': {
      const d: NonNullable<ConverseStreamEvent['delta']> = j.delta ?? {};
      if (typeof d.text === 'string' && d.text) out.push({ type: 'text', text: d.text });
      if (d.toolUse && typeof d.toolUse.input === 'string') {
        const index = state.tools.get(Number(j.contentBlockIndex ?? 0));
        if (index !== undefined && d.toolUse.input) out.push({ type: 'tool_call_args', index, args: d.toolUse.input });
      }
      if (d.reasoningContent) {
        const r = d.reasoningContent;
        if (r.text || r.signature)
          out.push({
            type: 'thinking',
            text: String(r.text ?? ''),
            ...(r.signature ? { signature: String(r.signature) } : {}),
          });
      }
      break;
    }
    case 'messageStop':
      out.push({ type: 'stop', reason: stopToIR[String(j.stopReason)] ?? 'stop' });
      break;
    case 'metadata':
      // The last event: usage for the whole answer.
      state.ended = true;
      out.push({ type: 'usage', usage: converseUsageToIR(j.usage) }, { type: 'end' });
      break;
    case 'exception':
      out.push({ type: 'error', message: String(j.message ?? 'upstream error') });
      break;
    default:
      // messageStart, contentBlockStop
      break;
  }
  return out;
}

/** The Bedrock Converse wire format (upstream side only). */
export const bedrockConverse: UpstreamFormat<ConverseDecodeState> = {
  name: 'converse',
  requestFromIR,
  responseToIR(answer) {
    const body = answer as ConverseResponse;
    const content = (body.output?.message?.content ?? []).map(blockToIR).filter((p): p is IRPart => p !== undefined);
    return {
      id: '',
      model: '',
      parts: content,
      stopReason: stopToIR[String(body.stopReason)] ?? 'stop',
      usage: converseUsageToIR(body.usage),
    };
  },
  newDecodeState: (): ConverseDecodeState => ({ started: false, tools: new Map(), nextTool: 0, ended: false }),
  decodeEvent,
};
