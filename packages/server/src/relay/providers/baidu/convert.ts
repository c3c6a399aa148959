import {
  emptyUsage,
  type IRRequest,
  type IRStopReason,
  type IRStreamEvent,
  type IRUsage,
  type UpstreamFormat,
} from '../../ir/types.js';
import { parseData } from '../../ir/json-data.js';
import { plainConversation } from '../plain-messages.js';
import type { ErnieRequest, ErnieResponse, ErnieUsage } from './wire.js';

/**
 * Baidu ERNIE v1 chat (`/rpc/2.0/ai_custom/v1/wenxinworkshop/chat/{endpoint}`), upstream side: the system prompt
 * in `system`, text turns in `messages`; the answer's `result` and `usage`; SSE chunks of `result` pieces whose
 * last (`is_end`) carries the usage. Refusals come as `error_code`/`error_msg` (HTTP 200).
 */

/** ERNIE's smallest max_output_tokens. */
const MIN_OUTPUT_TOKENS = 2;

const finishToIR: Record<string, IRStopReason> = {
  normal: 'stop',
  stop: 'stop',
  length: 'length',
  content_filter: 'content_filter',
  function_call: 'tool_calls',
};

/** Completion tokens are the total less the prompt when only those two are given. */
export function ernieUsageToIR(u: ErnieUsage | undefined): IRUsage {
  if (!u) return emptyUsage();
  const input = Number(u.prompt_tokens ?? 0);
  const output = u.completion_tokens !== undefined ? Number(u.completion_tokens) : Number(u.total_tokens ?? 0) - input;
  return { ...emptyUsage(), inputTokens: input, outputTokens: Math.max(0, output) };
}

function requestFromIR(ir: IRRequest): ErnieRequest {
  const { system, turns } = plainConversation(ir);
  const body: ErnieRequest = { messages: turns };
  if (system) body.system = system;
  if (ir.stream) body.stream = true;
  if (ir.temperature !== undefined) body.temperature = ir.temperature;
  if (ir.topP !== undefined) body.top_p = ir.topP;
  if (ir.stop?.length) body.stop = ir.stop;
  if (ir.maxTokens !== undefined) body.max_output_tokens = Math.max(MIN_OUTPUT_TOKENS, ir.maxTokens);
  if (ir.user) body.user_id = ir.user;
  return body;
}

/**
 * Baidu's error codes: 110/111 access token invalid or expired, 13–15 and 6 authentication and permission,
 * 4, 17–19 and 336501/336502 rate and quota limits, 1–2 and 336100 the service's own failures.
 */
function statusOf(code: number): number {
  if ([6, 13, 14, 15, 110, 111].includes(code)) return 401;
  if ([4, 17, 18, 19, 336501, 336502].includes(code)) return 429;
  if ([1, 2, 336100].includes(code)) return 500;
  return 400;
}

interface DecodeState {
  started: boolean;
  ended: boolean;
}

export const ernieChat: UpstreamFormat<DecodeState> = {
  name: 'ernie',
  requestFromIR,
  responseToIR(body) {
    const b = body as ErnieResponse;
    if (b.error_code) throw new Error(`Baidu error ${b.error_code}: ${b.error_msg}`);
    return {
      id: String(b.id ?? ''),
      model: '',
      parts: b.result ? [{ type: 'text', text: String(b.result) }] : [],
      stopReason: finishToIR[String(b.finish_reason)] ?? (b.is_truncated ? 'length' : 'stop'),
      usage: ernieUsageToIR(b.usage),
    };
  },
  newDecodeState: () => ({ started: false, ended: false }),
  decodeEvent(state, { data }) {
    const j = parseData(data) as ErnieResponse | undefined;
    if (!j || state.ended) return [];
    if (j.error_code) {
      state.ended = true;
      return [
        { type: 'error', message: `Baidu error ${j.error_code}: ${String(j.error_msg ?? '')}` },
        { type: 'stop', reason: 'error' },
        { type: 'end' },
      ];
    }
    const out: IRStreamEvent[] = [];
    if (!state.started) {
      state.started = true;
      out.push({ type: 'start', id: String(j.id ?? ''), model: '' });
    }
    if (j.result) out.push({ type: 'text', text: String(j.result) });
    if (j.is_end) {
      state.ended = true;
      out.push({ type: 'stop', reason: finishToIR[String(j.finish_reason)] ?? 'stop' });
      if (j.usage) out.push({ type: 'usage', usage: ernieUsageToIR(j.usage) });
      out.push({ type: 'end' });
    }
    return out;
  },
  answerError(body) {
    const b = body as ErnieResponse;
    if (!b.error_code) return undefined;
    const code = Number(b.error_code);
    return { status: statusOf(code), message: `Baidu error ${code}: ${String(b.error_msg ?? '')}` };
  },
};
