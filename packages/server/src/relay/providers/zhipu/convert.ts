import { emptyUsage, type IRRequest, type IRStreamEvent, type IRUsage, type UpstreamFormat } from '../../ir/types.js';
import { parseData } from '../../ir/json-data.js';
import { plainConversation } from '../plain-messages.js';
import type {
  ChatGLMFramedEvent,
  ChatGLMMessage,
  ChatGLMMeta,
  ChatGLMRequest,
  ChatGLMResponse,
  ChatGLMUsage,
} from './wire.js';

/**
 * Zhipu ChatGLM v3 (`invoke` / `sse-invoke`), upstream side. The prompt is user and assistant turns only: a system
 * prompt goes first as a user turn the assistant acknowledges. An answer's `content` is a JSON string literal. The
 * stream (read by the framer in stream.ts) is `add` events of text, then `finish` with the usage in its `meta:`
 * line, or `error` / `interrupted`. Refusals come as `success: false` with a code (HTTP 200).
 */

const SYSTEM_ACK = 'OK.';
/** v3 takes top_p in (0, 1). */
const MAX_TOP_P = 0.99;

export const chatGLMUsageToIR = (u: ChatGLMUsage | undefined): IRUsage =>
  u
    ? { ...emptyUsage(), inputTokens: Number(u.prompt_tokens ?? 0), outputTokens: Number(u.completion_tokens ?? 0) }
    : emptyUsage();

/** A v3 answer's content: a JSON string literal, else the text with its quotes trimmed. */
export function chatGLMContent(raw: string): string {
  if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) {
    try {
      const s = JSON.parse(raw) as unknown;
      if (typeof s === 'string') return s;
    } catch {
      return raw.slice(1, -1);
    }
  }
  return raw;
}

function requestFromIR(ir: IRRequest): ChatGLMRequest {
  const { system, turns } = plainConversation(ir);
  const prompt: ChatGLMMessage[] = system
    ? [
        { role: 'user', content: system },
        { role: 'assistant', content: SYSTEM_ACK },
      ]
    : [];
  prompt.push(...turns);
  const body: ChatGLMRequest = { prompt };
  if (ir.temperature !== undefined) body.temperature = ir.temperature;
  if (ir.topP !== undefined) body.top_p = Math.min(ir.topP, MAX_TOP_P);
  return body;
}

/** Zhipu's error codes: 1000–1004 authentication, 1300s policy and rate limits (1301 sensitive content). */
function statusOf(code: number): number {
  if (code >= 1000 && code <= 1004) return 401;
  if (code === 1302 || code === 1303 || code === 1305) return 429;
  if (code >= 500 && code < 600) return code;
  return 400;
}

interface DecodeState {
  started: boolean;
  ended: boolean;
}

export const chatGLMChat: UpstreamFormat<DecodeState> = {
  name: 'chatglm',
  requestFromIR,
  responseToIR(body) {
    const b = body as ChatGLMResponse;
    if (b.success === false) throw new Error(`Zhipu error ${b.code}: ${b.msg}`);
    const d = b.data ?? {};
    const text = (d.choices ?? []).map((c) => chatGLMContent(String(c.content ?? ''))).join('');
    return {
      id: String(d.task_id ?? d.request_id ?? ''),
      model: '',
      parts: text ? [{ type: 'text', text }] : [],
      stopReason: 'stop',
      usage: chatGLMUsageToIR(d.usage),
    };
  },
  newDecodeState: () => ({ started: false, ended: false }),
  decodeEvent(state, { event, data }) {
    const framed = parseData(data) as ChatGLMFramedEvent | undefined;
    if (!framed || state.ended) return [];
    const out: IRStreamEvent[] = [];
    if (!state.started) {
      state.started = true;
      out.push({ type: 'start', id: '', model: '' });
    }
    const text = String(framed.data ?? '');
    if (event === 'error' || event === 'interrupted') {
      state.ended = true;
      out.push({ type: 'error', message: `Zhipu stream ${event}: ${text}` }, { type: 'stop', reason: 'error' });
      out.push({ type: 'end' });
      return out;
    }
    if (text) out.push({ type: 'text', text });
    if (event === 'finish') {
      state.ended = true;
      const meta = (framed.meta ? parseData(framed.meta) : undefined) as ChatGLMMeta | undefined;
      out.push({ type: 'stop', reason: 'stop' });
      if (meta?.usage) out.push({ type: 'usage', usage: chatGLMUsageToIR(meta.usage) });
      out.push({ type: 'end' });
    }
    return out;
  },
  answerError(body) {
    const b = body as ChatGLMResponse;
    if (b.success !== false) return undefined;
    const code = Number(b.code ?? 0);
    return { status: statusOf(code), message: `Zhipu error ${code}: ${String(b.msg ?? '')}` };
  },
};
