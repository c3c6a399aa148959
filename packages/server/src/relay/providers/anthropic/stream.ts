import { anthropicTokenKinds } from '../../ir/token-kinds.js';
import { structuredTextOfJson, structuredTool } from './structured.js';
import { sse } from '../../ir/sse.js';
import { emptyUsage, type IRStopReason, type IRStreamEvent, type IRUsage } from '../../ir/types.js';
import type {
  AnthropicBlock,
  AnthropicDelta,
  AnthropicResponse,
  AnthropicStopReason,
  AnthropicStreamEvent,
  AnthropicUsage,
} from './wire.js';

/** The stream event of one type. */
type EventOf<T extends AnthropicStreamEvent['type']> = Extract<AnthropicStreamEvent, { type: T }>;

export const stopToIR: Record<string, IRStopReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};
export const stopFromIR: Record<IRStopReason, AnthropicStopReason> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  error: 'end_turn',
};

const count = (v: unknown, fallback: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);

/** Anthropic usage (input_tokens exclude cache reads and writes, as in IR) → IR usage; absent fields keep `base`. */
export function usageToIR(u: Partial<AnthropicUsage> | undefined | null, base: IRUsage = emptyUsage()): IRUsage {
  if (!u) return { ...base };
  return {
    inputTokens: count(u.input_tokens, base.inputTokens),
    outputTokens: count(u.output_tokens, base.outputTokens),
    cacheReadTokens: count(u.cache_read_input_tokens, base.cacheReadTokens),
    cacheWriteTokens: count(u.cache_creation_input_tokens, base.cacheWriteTokens),
    reasoningTokens: base.reasoningTokens,
    ...toolCallsOf(u, base),
    ...kindsOf(u, base),
  };
}

/** The 1-hour part of the cache writes (cache_creation.ephemeral_1h_input_tokens); a later usage wins. */
function kindsOf(u: Partial<AnthropicUsage>, base: IRUsage): Pick<IRUsage, 'kinds'> {
  const kinds = anthropicTokenKinds(u.cache_creation) ?? base.kinds;
  return kinds ? { kinds } : {};
}

/** Anthropic's server tool use as priced tool calls (`web_search`, new-api's name for it); a later usage wins. */
function toolCallsOf(u: Partial<AnthropicUsage>, base: IRUsage): Pick<IRUsage, 'toolCalls'> {
  const searches = u.server_tool_use?.web_search_requests;
  if (typeof searches === 'number' && Number.isSafeInteger(searches) && searches > 0)
    return { toolCalls: { web_search: searches } };
  return base.toolCalls ? { toolCalls: base.toolCalls } : {};
}

export const usageFromIR = (u: IRUsage): AnthropicUsage => ({
  input_tokens: u.inputTokens,
  cache_creation_input_tokens: u.cacheWriteTokens,
  cache_read_input_tokens: u.cacheReadTokens,
  output_tokens: u.outputTokens,
});

/** Anthropic message ids start with msg_. */
export const messageId = (id: string): string =>
  !id ? `msg_${Date.now().toString(36)}` : id.startsWith('msg_') ? id : `msg_${id}`;

export interface AnthropicDecodeState {
  started: boolean;
  /** message_start's usage, completed by message_delta. */
  usage: IRUsage;
  /**
   * Content block index → its kind; tool_use blocks carry their tool-call index. 'answer': a call of the reserved
   * structured-output tool, whose input is the answer's text (`buffer`: the input of the `value` tool, sent whole
   * when the block stops).
   */
  blocks: Map<number, { kind: 'text' | 'thinking' | 'tool' | 'answer' | 'other'; tool: number; buffer?: string }>;
  /** Tool-call indexes handed out so far. */
  tools: number;
  /** The answer came as a structured-output tool call: its tool_use stop reason means an ordinary stop. */
  structured: boolean;
}

export const newDecodeState = (): AnthropicDecodeState => ({
  started: false,
  usage: emptyUsage(),
  blocks: new Map(),
  tools: 0,
  structured: false,
});

/** One Anthropic SSE event → IR events. */
export function decodeEvent(
  state: AnthropicDecodeState,
  { event, data }: { event?: string; data: string },
): IRStreamEvent[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return [];
  }
  if (!parsed || typeof parsed !== 'object') return [];
  const j = parsed as AnthropicStreamEvent;
  switch (String(j.type ?? event ?? '')) {
    case 'message_start': {
      const m: Partial<AnthropicResponse> = (j as EventOf<'message_start'>).message ?? {};
      state.usage = usageToIR(m.usage);
      if (state.started) return [];
      state.started = true;
      return [{ type: 'start', id: String(m.id ?? ''), model: String(m.model ?? '') }];
    }
    case 'content_block_start': {
      const ev = j as EventOf<'content_block_start'>;
      const index = Number(ev.index ?? 0);
      const b: AnthropicBlock | { type?: undefined } = ev.content_block ?? {};
      const answer = b.type === 'tool_use' ? structuredTool(b.name) : undefined;
      if (answer && b.type === 'tool_use') {
        state.structured = true;
        const input =
          b.input && typeof b.input === 'object' && Object.keys(b.input).length ? JSON.stringify(b.input) : '';
        state.blocks.set(index, { kind: 'answer', tool: -1, ...(answer === 'value' ? { buffer: input } : {}) });
        return input && answer === 'object' ? [{ type: 'text', text: input }] : [];
      }
      if (b.type === 'tool_use') {
        const tool = state.tools++;
        state.blocks.set(index, { kind: 'tool', tool });
        const out: IRStreamEvent[] = [
          { type: 'tool_call_start', index: tool, id: String(b.id ?? ''), name: String(b.name ?? '') },
        ];
        if (b.input && typeof b.input === 'object' && Object.keys(b.input).length)
          out.push({ type: 'tool_call_args', index: tool, args: JSON.stringify(b.input) });
        return out;
      }
      if (b.type === 'text') {
        state.blocks.set(index, { kind: 'text', tool: -1 });
        return b.text ? [{ type: 'text', text: String(b.text) }] : [];
      }
      if (b.type === 'thinking') {
        state.blocks.set(index, { kind: 'thinking', tool: -1 });
        if (!b.thinking && !b.signature) return [];
        return [
          {
            type: 'thinking',
            text: String(b.thinking ?? ''),
            ...(b.signature ? { signature: String(b.signature) } : {}),
          },
        ];
      }
      // redacted_thinking has no IR stream event; server tool blocks are not the client's to run.
      state.blocks.set(index, { kind: 'other', tool: -1 });
      return [];
    }
    case 'content_block_delta': {
      const ev = j as EventOf<'content_block_delta'>;
      const d: AnthropicDelta | { type?: undefined } = ev.delta ?? {};
      if (d.type === 'text_delta') return d.text ? [{ type: 'text', text: String(d.text) }] : [];
      if (d.type === 'thinking_delta') return d.thinking ? [{ type: 'thinking', text: String(d.thinking) }] : [];
      if (d.type === 'signature_delta')
        return d.signature ? [{ type: 'thinking', text: '', signature: String(d.signature) }] : [];
      if (d.type === 'input_json_delta') {
        const block = state.blocks.get(Number(ev.index ?? 0));
        if (!d.partial_json) return [];
        if (block?.kind === 'answer') {
          if (block.buffer === undefined) return [{ type: 'text', text: String(d.partial_json) }];
          block.buffer += String(d.partial_json);
          return [];
        }
        return block?.kind === 'tool'
          ? [{ type: 'tool_call_args', index: block.tool, args: String(d.partial_json) }]
          : [];
      }
      return [];
    }
    case 'content_block_stop': {
      const block = state.blocks.get(Number((j as EventOf<'content_block_stop'>).index ?? 0));
      return block?.kind === 'answer' && block.buffer !== undefined
        ? [{ type: 'text', text: structuredTextOfJson('value', block.buffer) }]
        : [];
    }
    case 'message_delta': {
      const ev = j as EventOf<'message_delta'>;
      const out: IRStreamEvent[] = [];
      if (ev.delta?.stop_reason) {
        const reason = stopToIR[ev.delta.stop_reason] ?? 'stop';
        out.push({
          type: 'stop',
          reason: reason === 'tool_calls' && state.structured && state.tools === 0 ? 'stop' : reason,
        });
      }
      // message_delta's counts are cumulative; input/cache counts, when absent, are message_start's.
      state.usage = usageToIR(ev.usage, state.usage);
      out.push({ type: 'usage', usage: { ...state.usage } });
      return out;
    }
    case 'message_stop':
      return [{ type: 'end' }];
    case 'error':
      return [{ type: 'error', message: String((j as EventOf<'error'>).error?.message ?? 'upstream error') }];
    default:
      // ping
      return [];
  }
}

export interface AnthropicEncodeState {
  id: string;
  model: string;
  started: boolean;
  /** The open content block. */
  block: { index: number; kind: 'text' | 'thinking' | 'tool'; tool: number; signed: boolean } | null;
  nextIndex: number;
  /** Tool-call indexes whose tool_use block has been opened. */
  tools: Set<number>;
  stopReason?: AnthropicStopReason;
  usage?: IRUsage;
  /** The gateway's count of the prompt, for message_start when the upstream has not said it by then. */
  promptTokens?: () => number;
  /** message_delta sent: no more content can follow. */
  delta: boolean;
  /** message_stop or error sent. */
  done: boolean;
}

export const newEncodeState = (model: string): AnthropicEncodeState => ({
  id: messageId(''),
  model,
  started: false,
  block: null,
  nextIndex: 0,
  tools: new Set(),
  delta: false,
  done: false,
});

const closeBlock = (s: AnthropicEncodeState): string => {
  if (!s.block) return '';
  const index = s.block.index;
  s.block = null;
  return sse({ type: 'content_block_stop', index }, 'content_block_stop');
};

const openBlock = (
  s: AnthropicEncodeState,
  kind: 'text' | 'thinking' | 'tool',
  contentBlock: AnthropicBlock,
  tool = -1,
): string => {
  const out = closeBlock(s);
  s.block = { index: s.nextIndex++, kind, tool, signed: false };
  return (
    out + sse({ type: 'content_block_start', index: s.block.index, content_block: contentBlock }, 'content_block_start')
  );
};

const blockDelta = (s: AnthropicEncodeState, delta: AnthropicDelta): string =>
  sse({ type: 'content_block_delta', index: s.block!.index, delta }, 'content_block_delta');

/** An unsigned thinking block is open: more thinking text belongs to it. */
const inThinking = (s: AnthropicEncodeState): boolean => s.block?.kind === 'thinking' && !s.block.signed;

const openTool = (s: AnthropicEncodeState, index: number, id: string, name: string): string => {
  s.tools.add(index);
  return openBlock(s, 'tool', { type: 'tool_use', id, name, input: {} }, index);
};

const messageDelta = (s: AnthropicEncodeState): string => {
  s.delta = true;
  const stop_reason: AnthropicStopReason = s.stopReason ?? (s.tools.size ? 'tool_use' : 'end_turn');
  return (
    closeBlock(s) +
    sse(
      {
        type: 'message_delta',
        delta: { stop_reason, stop_sequence: null },
        usage: usageFromIR(s.usage ?? emptyUsage()),
      },
      'message_delta',
    )
  );
};

/**
 * message_start's usage: the prompt as the upstream reported it so far (usage, or usage on its first event),
 * else the gateway's own count; no output yet.
 */
function startUsage(s: AnthropicEncodeState, e: IRStreamEvent): IRUsage {
  const known = s.usage ?? (e.type === 'start' ? e.usage : undefined);
  if (known && known.inputTokens + known.cacheReadTokens + known.cacheWriteTokens > 0)
    return { ...known, outputTokens: 0, reasoningTokens: 0 };
  return { ...emptyUsage(), inputTokens: s.promptTokens?.() ?? 0 };
}

/**
 * IR event → Anthropic SSE text. Always a valid sequence: message_start first, each block opened before its first
 * delta and closed when the next starts, message_delta (stop reason + usage) before message_stop. message_delta
 * goes out only at the end: content after a stop reason (upstreams that repeat it on every chunk) and usage after
 * it (OpenAI sends its usage chunk last) still belong to the message.
 */
export function encodeEvent(s: AnthropicEncodeState, e: IRStreamEvent): string {
  if (s.done) return '';
  let out = '';
  if (!s.started && e.type !== 'error') {
    s.started = true;
    if (e.type === 'start') s.id = messageId(e.id);
    if (e.type === 'usage') s.usage = e.usage;
    const message: AnthropicResponse = {
      id: s.id,
      type: 'message',
      role: 'assistant',
      content: [],
      model: s.model,
      stop_reason: null,
      stop_sequence: null,
      usage: usageFromIR(startUsage(s, e)),
    };
    out += sse({ type: 'message_start', message }, 'message_start');
  }
  switch (e.type) {
    case 'start':
      return out;
    case 'text':
      if (!e.text || s.delta) return out;
      if (s.block?.kind !== 'text') out += openBlock(s, 'text', { type: 'text', text: '' });
      return out + blockDelta(s, { type: 'text_delta', text: e.text });
    case 'thinking':
      if (s.delta) return out;
      if (e.text) {
        if (!inThinking(s)) out += openBlock(s, 'thinking', { type: 'thinking', thinking: '', signature: '' });
        out += blockDelta(s, { type: 'thinking_delta', thinking: e.text });
      }
      if (e.signature) {
        if (!inThinking(s)) out += openBlock(s, 'thinking', { type: 'thinking', thinking: '', signature: '' });
        out += blockDelta(s, { type: 'signature_delta', signature: e.signature });
        s.block!.signed = true;
      }
      return out;
    case 'tool_call_start':
      if (s.delta || s.tools.has(e.index)) return out;
      return out + openTool(s, e.index, e.id, e.name);
    case 'tool_call_args':
      if (s.delta || !e.args) return out;
      if (!s.tools.has(e.index)) out += openTool(s, e.index, `toolu_${s.id.slice(4)}_${e.index}`, '');
      // A tool_use block already closed cannot be reopened: arguments arriving for it then are lost.
      else if (s.block?.kind !== 'tool' || s.block.tool !== e.index) return out;
      return out + blockDelta(s, { type: 'input_json_delta', partial_json: e.args });
    case 'stop':
      s.stopReason = stopFromIR[e.reason];
      return out;
    case 'usage':
      s.usage = e.usage;
      return out;
    case 'error':
      s.done = true;
      return out + sse({ type: 'error', error: { type: 'api_error', message: e.message } }, 'error');
    case 'end':
      if (!s.delta) out += messageDelta(s);
      s.done = true;
      return out + sse({ type: 'message_stop' }, 'message_stop');
  }
}
