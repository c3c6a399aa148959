import { emptyUsage, type IRRequest, type IRStreamEvent, type IRUsage, type UpstreamFormat } from '../../ir/types.js';
import { parseData } from '../../ir/json-data.js';
import { plainConversation } from '../plain-messages.js';
import type { SparkFrame, SparkMessage, SparkRequest, SparkUsage } from './wire.js';

/**
 * iFlytek Spark chat, upstream side. The request is one JSON frame (header, parameter.chat, payload.message.text);
 * the answer is frames of text pieces, the last (status 2) with the usage; the socket (socket.ts) hands each frame
 * on as one SSE event, so plain calls are collected from the same frames. Generations before 3.5 take no system
 * role: there the system prompt is a user turn the assistant acknowledges.
 */

/** The last frame's status. */
export const LAST_FRAME = 2;
const SYSTEM_ACK = 'OK.';
/** Domains (model generations) that take no system message. */
const NO_SYSTEM_ROLE = /^(lite|general|generalv2|generalv3)$/;
/** Spark's longest uid. */
const MAX_UID = 32;

export const sparkUsageToIR = (u: SparkUsage | undefined): IRUsage =>
  u
    ? { ...emptyUsage(), inputTokens: Number(u.prompt_tokens ?? 0), outputTokens: Number(u.completion_tokens ?? 0) }
    : emptyUsage();

/** The body without the app id (the adaptor adds it, and the domain of the call's version). */
function requestFromIR(ir: IRRequest): SparkRequest {
  const { system, turns } = plainConversation(ir);
  const text: SparkMessage[] = system ? [{ role: 'system', content: system }, ...turns] : turns;
  const chat: SparkRequest['parameter']['chat'] = { domain: '' };
  if (ir.temperature !== undefined) chat.temperature = ir.temperature;
  if (ir.topK !== undefined) chat.top_k = ir.topK;
  if (ir.maxTokens !== undefined) chat.max_tokens = ir.maxTokens;
  return {
    header: { app_id: '', ...(ir.user ? { uid: ir.user.slice(0, MAX_UID) } : {}) },
    parameter: { chat },
    payload: { message: { text } },
  };
}

/** The request for an app and domain; a domain that takes no system role gets the system prompt as a user turn. */
export function sparkRequestFor(body: SparkRequest, appId: string, domain: string): SparkRequest {
  const text = body.payload?.message?.text ?? [];
  const withoutSystem = NO_SYSTEM_ROLE.test(domain)
    ? text.flatMap((m): SparkMessage[] =>
        m.role === 'system'
          ? [
              { role: 'user', content: m.content },
              { role: 'assistant', content: SYSTEM_ACK },
            ]
          : [m],
      )
    : text;
  return {
    ...body,
    header: { ...body.header, app_id: appId },
    parameter: { ...body.parameter, chat: { ...body.parameter?.chat, domain } },
    payload: { ...body.payload, message: { ...body.payload?.message, text: withoutSystem } },
  };
}

/**
 * Spark's error codes: 10313 app id mismatch and 11200 no authorisation; 11201–11203 daily, per-second and
 * concurrency limits; 10013/10014/10019 content moderation; other 10xxx request errors; anything else the service's.
 */
export function sparkStatus(code: number): number {
  if (code === 10313 || code === 11200) return 401;
  if (code >= 11201 && code <= 11203) return 429;
  if (code >= 10000 && code < 11000) return 400;
  return 500;
}

const frameError = (h: NonNullable<SparkFrame['header']>): string =>
  `iFlytek Spark error ${Number(h.code)}: ${String(h.message ?? '')}`;

interface DecodeState {
  started: boolean;
  ended: boolean;
}

export const sparkChat: UpstreamFormat<DecodeState> = {
  name: 'spark',
  requestFromIR,
  /** One frame read as a whole answer (the socket answers in frames; this reads a single one). */
  responseToIR(body) {
    const f = body as SparkFrame;
    if (f.header?.code) throw new Error(frameError(f.header));
    const text = (f.payload?.choices?.text ?? []).map((t) => String(t.content ?? '')).join('');
    return {
      id: String(f.header?.sid ?? ''),
      model: '',
      parts: text ? [{ type: 'text', text }] : [],
      stopReason: 'stop',
      usage: sparkUsageToIR(f.payload?.usage?.text),
    };
  },
  newDecodeState: () => ({ started: false, ended: false }),
  decodeEvent(state, { data }) {
    const f = parseData(data) as SparkFrame | undefined;
    if (!f || state.ended) return [];
    const out: IRStreamEvent[] = [];
    if (!state.started) {
      state.started = true;
      out.push({ type: 'start', id: String(f.header?.sid ?? ''), model: '' });
    }
    if (f.header?.code) {
      state.ended = true;
      out.push({ type: 'error', message: frameError(f.header) }, { type: 'stop', reason: 'error' }, { type: 'end' });
      return out;
    }
    for (const t of f.payload?.choices?.text ?? []) if (t.content) out.push({ type: 'text', text: String(t.content) });
    if (f.payload?.choices?.status === LAST_FRAME || f.header?.status === LAST_FRAME) {
      state.ended = true;
      out.push({ type: 'stop', reason: 'stop' });
      const usage = f.payload?.usage?.text;
      if (usage) out.push({ type: 'usage', usage: sparkUsageToIR(usage) });
      out.push({ type: 'end' });
    }
    return out;
  },
};
