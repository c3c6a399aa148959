import { emptyUsage, type IRRequest, type IRStreamEvent, type IRUsage, type UpstreamFormat } from '../../ir/types.js';
import { joinedText, parseData } from '../../ir/json-data.js';
import type { DifyAnswer, DifyRequest, DifyStreamEvent, DifyUsage } from './wire.js';

/**
 * Dify chat apps (`POST /v1/chat-messages`), upstream side. Dify keeps a conversation's history itself (by
 * conversation_id), so a stateless call carries only the query: the last user message's text. The system
 * prompt goes in as the `system` input variable (apps that do not declare it ignore it). The request always
 * streams (agent apps refuse blocking mode); a plain client call gets the stream collected into one answer.
 * SSE events: `message` / `agent_message` chunks, `message_end` with metadata.usage, `error`; a blocking
 * JSON answer is read too.
 */

const DEFAULT_USER = 'tollway';

export const difyUsageToIR = (u: DifyUsage | undefined): IRUsage =>
  u
    ? { ...emptyUsage(), inputTokens: Number(u.prompt_tokens ?? 0), outputTokens: Number(u.completion_tokens ?? 0) }
    : emptyUsage();

function requestFromIR(ir: IRRequest): DifyRequest {
  const lastUser = [...ir.messages].reverse().find((m) => m.role === 'user');
  const files = (lastUser?.parts ?? []).flatMap((p) =>
    p.type === 'image' && p.url ? [{ type: 'image' as const, transfer_method: 'remote_url' as const, url: p.url }] : [],
  );
  return {
    inputs: ir.system.length ? { system: ir.system.join('\n\n') } : {},
    query: lastUser ? joinedText(lastUser.parts) : '',
    response_mode: 'streaming',
    user: ir.user || DEFAULT_USER,
    ...(files.length ? { files } : {}),
  };
}

const ANSWER_EVENTS = new Set(['message', 'agent_message', 'message_end', 'error']);

interface DecodeState {
  started: boolean;
  ended: boolean;
}

export const difyChat: UpstreamFormat<DecodeState> = {
  name: 'dify',
  requestFromIR,
  responseToIR(body) {
    const b = body as DifyAnswer;
    return {
      id: String(b.message_id ?? b.id ?? ''),
      model: '',
      parts: [{ type: 'text', text: String(b.answer ?? '') }],
      stopReason: 'stop',
      usage: difyUsageToIR(b.metadata?.usage),
    };
  },
  newDecodeState: () => ({ started: false, ended: false }),
  decodeEvent(state, { data }) {
    const j = parseData(data) as DifyStreamEvent | undefined;
    if (!j || state.ended) return [];
    const out: IRStreamEvent[] = [];
    // Workflow and agent-thought events come first in some apps; the answer starts with the first message event.
    if (!state.started && typeof j.event === 'string' && ANSWER_EVENTS.has(j.event)) {
      state.started = true;
      out.push({ type: 'start', id: String(j.message_id ?? j.id ?? ''), model: '' });
    }
    switch (j.event) {
      case 'message':
      case 'agent_message':
        if (j.answer) out.push({ type: 'text', text: String(j.answer) });
        break;
      case 'message_end':
        state.ended = true;
        out.push(
          { type: 'stop', reason: 'stop' },
          { type: 'usage', usage: difyUsageToIR(j.metadata?.usage) },
          { type: 'end' },
        );
        break;
      case 'error':
        state.ended = true;
        out.push(
          { type: 'error', message: String(j.message ?? 'Dify error') },
          { type: 'stop', reason: 'error' },
          { type: 'end' },
        );
        break;
    }
    return out;
  },
};
