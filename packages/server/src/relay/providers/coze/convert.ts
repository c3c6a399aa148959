import { imageToUrl } from '../openai/chat.js';
import {
  emptyUsage,
  type IRMessage,
  type IRRequest,
  type IRStreamEvent,
  type IRUsage,
  type UpstreamFormat,
} from '../../ir/types.js';
import { joinedText, parseData } from '../../ir/json-data.js';
import type { CozeAnswer, CozeMessage, CozeRequest, CozeStreamData, CozeUsage } from './wire.js';

/**
 * Coze chat v3 (`POST /v3/chat`), upstream side. The bot is the (mapped) model name; the conversation goes
 * in as additional_messages (user questions and assistant answers; a bot's persona replaces the system
 * prompt, so that is not sent). Coze only answers a chat in full when streaming, so the request always
 * streams (`auto_save_history: false`): a non-streaming client gets the stream collected into one answer.
 * Events: conversation.message.delta (answer text), conversation.chat.completed (usage),
 * conversation.chat.failed / error, done.
 */

const DEFAULT_USER = 'tollway';

export const cozeUsageToIR = (u: CozeUsage | undefined): IRUsage =>
  u
    ? {
        ...emptyUsage(),
        inputTokens: Number(u.input_count ?? u.input_tokens ?? 0),
        outputTokens: Number(u.output_count ?? u.output_tokens ?? 0),
      }
    : emptyUsage();

function messageFromIR(m: IRMessage): CozeMessage | undefined {
  if (m.role === 'tool') return undefined;
  const text = joinedText(m.parts);
  const images = m.parts.flatMap((p) => (p.type === 'image' ? [imageToUrl(p)] : []));
  if (m.role === 'assistant')
    return text ? { role: 'assistant', type: 'answer', content: text, content_type: 'text' } : undefined;
  if (!images.length) return { role: 'user', type: 'question', content: text, content_type: 'text' };
  const objects = [
    ...(text ? [{ type: 'text', text }] : []),
    ...images.map((url) => ({ type: 'image', file_url: url })),
  ];
  return { role: 'user', type: 'question', content: JSON.stringify(objects), content_type: 'object_string' };
}

function requestFromIR(ir: IRRequest): CozeRequest {
  return {
    bot_id: ir.model,
    user_id: ir.user || DEFAULT_USER,
    stream: true,
    auto_save_history: false,
    additional_messages: ir.messages.map(messageFromIR).filter((m): m is CozeMessage => m !== undefined),
  };
}

interface DecodeState {
  started: boolean;
  ended: boolean;
}

const failure = (j: CozeStreamData): string => String(j.last_error?.msg || j.msg || 'Coze chat failed');

export const cozeChat: UpstreamFormat<DecodeState> = {
  name: 'coze',
  requestFromIR,
  /** A JSON answer from /v3/chat is the chat object (or an error envelope); its text comes only by streaming. */
  responseToIR(body) {
    const b = body as CozeAnswer;
    if (b.code) throw new Error(`Coze error ${b.code}: ${b.msg ?? ''}`);
    return {
      id: String(b.data?.id ?? ''),
      model: '',
      parts: [],
      stopReason: 'stop',
      usage: cozeUsageToIR(b.data?.usage),
    };
  },
  newDecodeState: () => ({ started: false, ended: false }),
  decodeEvent(state, { event, data }) {
    if (state.ended) return [];
    const j = parseData(data) as CozeStreamData | undefined;
    const out: IRStreamEvent[] = [];
    if (!state.started && j) {
      state.started = true;
      out.push({ type: 'start', id: String(j.chat_id ?? j.id ?? ''), model: '' });
    }
    switch (event) {
      case 'conversation.message.delta':
        if (j && j.role === 'assistant' && (j.type === undefined || j.type === 'answer')) {
          if (j.reasoning_content) out.push({ type: 'thinking', text: String(j.reasoning_content) });
          if (j.content) out.push({ type: 'text', text: String(j.content) });
        }
        break;
      case 'conversation.chat.completed':
        state.ended = true;
        out.push(
          { type: 'stop', reason: 'stop' },
          { type: 'usage', usage: cozeUsageToIR(j?.usage ?? undefined) },
          { type: 'end' },
        );
        break;
      case 'conversation.chat.failed':
      case 'error':
        state.ended = true;
        out.push({ type: 'error', message: failure(j ?? {}) }, { type: 'stop', reason: 'error' }, { type: 'end' });
        break;
      case 'done':
        state.ended = true;
        out.push({ type: 'end' });
        break;
    }
    return out;
  },
  answerError(body) {
    const b = body as CozeAnswer;
    if (!b.code) return undefined;
    // 4100 / 4101: the token is invalid or lacks the permission.
    return {
      status: b.code === 4100 || b.code === 4101 ? 401 : 400,
      message: `Coze error ${b.code}: ${String(b.msg ?? '')}`,
    };
  },
};
