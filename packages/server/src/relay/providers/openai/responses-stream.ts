import { responsesToolCalls, withToolCalls } from '../../ir/tool-calls.js';
import { parseData } from '../../ir/json-data.js';
import { sse } from '../../ir/sse.js';
import { type IRStopReason, type IRStreamEvent, type IRUsage } from '../../ir/types.js';
import {
  functionCallItem,
  itemId,
  itemStatus,
  messageItem,
  outputText,
  reasoningItem,
  responseId,
  responseObject,
  statusOf,
  stopToIR,
  usageToIR,
  type Status,
} from './responses-object.js';
import type {
  ResponsesOutputFunctionCall,
  ResponsesOutputItem,
  ResponsesOutputMessage,
  ResponsesOutputReasoning,
  ResponsesResponseObject,
  ResponsesStreamEvent,
} from './wire.js';

/* ------------------------------------------------------------------ decode (upstream Responses SSE → IR) */

export interface DecodeState {
  started: boolean;
  /** Function-call items by output_index: their IR tool index and whether arguments were streamed. */
  calls: Map<number, { index: number; streamed: boolean }>;
  errored: boolean;
}

export const newDecodeState = (): DecodeState => ({ started: false, calls: new Map(), errored: false });

export function decodeEvent(state: DecodeState, { event, data }: { event?: string; data: string }): IRStreamEvent[] {
  const j = parseData(data) as ResponsesStreamEvent | undefined;
  if (!j) return [];
  const out: IRStreamEvent[] = [];
  const type = String(j.type ?? event ?? '');
  if (!state.started && type !== 'error') {
    state.started = true;
    out.push({ type: 'start', id: String(j.response?.id ?? ''), model: String(j.response?.model ?? '') });
  }
  /** Arguments sent whole (in .done or the item) by upstreams that skip the deltas. */
  const wholeArgs = (outputIndex: number, args: unknown) => {
    const call = state.calls.get(outputIndex);
    if (!call || call.streamed || !args) return;
    call.streamed = true;
    out.push({ type: 'tool_call_args', index: call.index, args: String(args) });
  };
  switch (type) {
    case 'response.output_item.added':
      if (j.item?.type === 'function_call') {
        const index = state.calls.size;
        state.calls.set(Number(j.output_index ?? index), { index, streamed: false });
        out.push({
          type: 'tool_call_start',
          index,
          id: String(j.item.call_id ?? j.item.id ?? `call_${index}`),
          name: String(j.item.name ?? ''),
        });
        wholeArgs(Number(j.output_index ?? index), j.item.arguments);
      }
      break;
    case 'response.function_call_arguments.delta': {
      const call = state.calls.get(Number(j.output_index));
      if (call && j.delta) {
        call.streamed = true;
        out.push({ type: 'tool_call_args', index: call.index, args: String(j.delta) });
      }
      break;
    }
    case 'response.function_call_arguments.done':
      wholeArgs(Number(j.output_index), j.arguments);
      break;
    case 'response.output_item.done':
      if (j.item?.type === 'function_call') wholeArgs(Number(j.output_index), j.item.arguments);
      break;
    case 'response.output_text.delta':
    case 'response.refusal.delta':
      if (j.delta) out.push({ type: 'text', text: String(j.delta) });
      break;
    case 'response.reasoning_summary_part.added':
      // Summary parts are separate paragraphs; keep the break between them.
      if (Number(j.summary_index ?? 0) > 0) out.push({ type: 'thinking', text: '\n\n' });
      break;
    case 'response.reasoning_summary_text.delta':
    case 'response.reasoning_text.delta':
      if (j.delta) out.push({ type: 'thinking', text: String(j.delta) });
      break;
    case 'response.completed':
    case 'response.incomplete':
      out.push({ type: 'stop', reason: stopToIR(j.response ?? {}, state.calls.size > 0) });
      if (j.response?.usage)
        out.push({
          type: 'usage',
          usage: withToolCalls(usageToIR(j.response.usage), responsesToolCalls(j.response.output)),
        });
      out.push({ type: 'end' });
      break;
    case 'response.failed':
      if (!state.errored)
        out.push({ type: 'error', message: String(j.response?.error?.message ?? 'upstream response failed') });
      state.errored = true;
      if (j.response?.usage) out.push({ type: 'usage', usage: usageToIR(j.response.usage) });
      out.push({ type: 'end' });
      break;
    case 'error':
      state.errored = true;
      out.push({ type: 'error', message: String(j.message ?? j.error?.message ?? 'upstream error') });
      break;
  }
  return out;
}

/* ------------------------------------------------------------------ encode (IR → Responses SSE for a client) */

export interface EncodeState {
  id: string;
  model: string;
  createdAt: number;
  seq: number;
  started: boolean;
  finished: boolean;
  /** Output items as they stand; text, summaries and arguments accumulate here for the final response. */
  output: ResponsesOutputItem[];
  /** Output index of the item still open (message, reasoning or function call), if any. */
  open: number | undefined;
  /** IR tool index → output index of its function_call item. */
  calls: Map<number, number>;
  stop: IRStopReason | undefined;
  usage: IRUsage | undefined;
}

export const newEncodeState = (model: string): EncodeState => ({
  id: `resp_${Date.now().toString(36)}`,
  model,
  createdAt: Math.floor(Date.now() / 1000),
  seq: 0,
  started: false,
  finished: false,
  output: [],
  open: undefined,
  calls: new Map(),
  stop: undefined,
  usage: undefined,
});

const emit = (s: EncodeState, type: string, payload: ResponsesStreamEvent): string =>
  sse({ type, ...payload, sequence_number: s.seq++ }, type);

const snapshot = (s: EncodeState, status: Status | 'in_progress', error?: string): ResponsesResponseObject =>
  responseObject({
    id: s.id,
    model: s.model,
    createdAt: s.createdAt,
    output: s.output,
    status,
    reason: s.stop,
    usage: status === 'in_progress' ? null : (s.usage ?? null),
    error,
  });

function begin(s: EncodeState): string {
  if (s.started) return '';
  s.started = true;
  return (
    emit(s, 'response.created', { response: snapshot(s, 'in_progress') }) +
    emit(s, 'response.in_progress', { response: snapshot(s, 'in_progress') })
  );
}

/** Closes the open item with its .done events. */
function close(s: EncodeState): string {
  if (s.open === undefined) return '';
  const output_index = s.open;
  const item = s.output[output_index]!;
  s.open = undefined;
  let out = '';
  if (item.type === 'message') {
    const text = String(item.content[0]!.text);
    out += emit(s, 'response.output_text.done', {
      item_id: item.id,
      output_index,
      content_index: 0,
      text,
      logprobs: [],
    });
    out += emit(s, 'response.content_part.done', {
      item_id: item.id,
      output_index,
      content_index: 0,
      part: outputText(text),
    });
  } else if (item.type === 'reasoning') {
    const text = String(item.summary[0]!.text);
    out += emit(s, 'response.reasoning_summary_text.done', { item_id: item.id, output_index, summary_index: 0, text });
    out += emit(s, 'response.reasoning_summary_part.done', {
      item_id: item.id,
      output_index,
      summary_index: 0,
      part: { type: 'summary_text', text },
    });
  } else {
    out += emit(s, 'response.function_call_arguments.done', {
      item_id: item.id,
      output_index,
      arguments: item.arguments,
    });
  }
  if (item.type !== 'reasoning') item.status = itemStatus(s.stop);
  return out + emit(s, 'response.output_item.done', { output_index, item });
}

/** Opens a new output item (closing the previous one) and announces it. */
function open(s: EncodeState, item: ResponsesOutputItem): string {
  let out = begin(s) + close(s);
  const output_index = s.output.length;
  s.output.push(item);
  s.open = output_index;
  out += emit(s, 'response.output_item.added', { output_index, item });
  if (item.type === 'message') {
    out += emit(s, 'response.content_part.added', {
      item_id: item.id,
      output_index,
      content_index: 0,
      part: outputText(''),
    });
    item.content.push(outputText(''));
  } else if (item.type === 'reasoning') {
    out += emit(s, 'response.reasoning_summary_part.added', {
      item_id: item.id,
      output_index,
      summary_index: 0,
      part: { type: 'summary_text', text: '' },
    });
    item.summary.push({ type: 'summary_text', text: '' });
  }
  return out;
}

const openKind = (s: EncodeState): string | undefined => (s.open === undefined ? undefined : s.output[s.open]!.type);

function finish(s: EncodeState): string {
  const out = begin(s) + close(s);
  s.finished = true;
  const status = statusOf(s.stop);
  return (
    out +
    emit(
      s,
      status === 'completed'
        ? 'response.completed'
        : status === 'incomplete'
          ? 'response.incomplete'
          : 'response.failed',
      { response: snapshot(s, status) },
    )
  );
}

export function encodeEvent(s: EncodeState, e: IRStreamEvent): string {
  if (s.finished) return '';
  switch (e.type) {
    case 'start':
      if (!s.started && e.id) s.id = responseId(e.id);
      return begin(s);
    case 'text': {
      if (!e.text) return '';
      let out =
        openKind(s) === 'message' ? '' : open(s, messageItem(itemId('msg', s.id, s.output.length), [], 'in_progress'));
      const output_index = s.open!;
      const item = s.output[output_index] as ResponsesOutputMessage;
      item.content[0]!.text += e.text;
      out += emit(s, 'response.output_text.delta', {
        item_id: item.id,
        output_index,
        content_index: 0,
        delta: e.text,
        logprobs: [],
      });
      return out;
    }
    case 'thinking': {
      if (!e.text) return ''; // a bare signature has no Responses form
      let out = openKind(s) === 'reasoning' ? '' : open(s, reasoningItem(itemId('rs', s.id, s.output.length), []));
      const output_index = s.open!;
      const item = s.output[output_index] as ResponsesOutputReasoning;
      item.summary[0]!.text += e.text;
      out += emit(s, 'response.reasoning_summary_text.delta', {
        item_id: item.id,
        output_index,
        summary_index: 0,
        delta: e.text,
      });
      return out;
    }
    case 'tool_call_start': {
      const out = open(s, functionCallItem(itemId('fc', s.id, s.output.length), e.id, e.name, '', 'in_progress'));
      s.calls.set(e.index, s.open!);
      return out;
    }
    case 'tool_call_args': {
      const output_index = s.calls.get(e.index);
      if (output_index === undefined || !e.args) return '';
      // Arguments of a call already closed (interleaved upstream calls) still go out under its own output_index.
      const item = s.output[output_index] as ResponsesOutputFunctionCall;
      item.arguments += e.args;
      return emit(s, 'response.function_call_arguments.delta', { item_id: item.id, output_index, delta: e.args });
    }
    // Kept for the end (which closes the open item with the status it implies): content may still follow.
    case 'stop':
      s.stop = e.reason;
      return '';
    case 'usage':
      s.usage = e.usage;
      return '';
    case 'error': {
      const out = begin(s) + emit(s, 'error', { code: null, message: e.message, param: null });
      s.finished = true;
      return out + emit(s, 'response.failed', { response: snapshot(s, 'failed', e.message) });
    }
    case 'end':
      return finish(s);
  }
}
