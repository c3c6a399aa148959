import type { ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import type { CancelSignal } from './services.js';
import { SseSplitter } from './ir/sse.js';
import type { ClientFormat, IRStreamEvent, IRUsage, UpstreamFormat } from './ir/types.js';
import { errorMessageOf } from './forward.js';
import { CappedText } from './capped-text.js';
import { irAnswerContent } from './chat-content.js';
import { collectStream } from './ir/collect.js';
import { pump, readText } from './pump.js';
import type { CallUsage } from './usage.js';
import type { SendableRequest } from './providers/prepare.js';
import type { StreamFramer } from './providers/types.js';
import type { AttemptResult } from './types.js';

const MAX_JSON_BODY = 64 * 1024 * 1024;

/** IR usage (input excludes cache) as billing reads it (Anthropic semantics). */
export const billingUsage = (u: IRUsage, reported: boolean): CallUsage => ({
  promptTokens: u.inputTokens,
  completionTokens: u.outputTokens,
  cachedTokens: u.cacheReadTokens,
  cacheCreationTokens: u.cacheWriteTokens,
  reasoningTokens: u.reasoningTokens,
  reported,
  semantic: 'anthropic',
});

export interface ConvertedCall {
  /** What goes upstream, as the adaptor prepared it. */
  request: SendableRequest;
  stream: boolean;
  /** Format the upstream speaks and format the client speaks; equal formats are passed through unchanged. */
  upstream: UpstreamFormat;
  client: ClientFormat;
  /** Splits a streamed answer that is not SSE (the adaptor's framer); SSE when absent. */
  framer?: StreamFramer;
  /** Prepares the client-side encoder (e.g. whether the OpenAI usage chunk is wanted). */
  prepareEncoder?: (state: unknown) => void;
  requestedModel: string;
  /** Keep-alive interval of a streamed answer in ms (pingIntervalMs); 0 or absent: none. */
  pingMs?: number;
  /** Keep the answer's text for the log (LogChatContentEnabled). */
  captureAnswer?: boolean;
}

/** Upstream SSE bytes → whole events (UTF-8 decoded across chunk boundaries). */
function sseFramer(): StreamFramer {
  const decoder = new StringDecoder('utf8');
  const splitter = new SseSplitter();
  return { push: (chunk) => splitter.push(decoder.write(chunk)), flush: () => splitter.flush() };
}

/** A whole JSON answer with its length (no chunked framing; one write). */
function sendJson(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(body: Dispatcher.ResponseData['body']): Promise<{ text: string; json: Record<string, unknown> | undefined }> {
  const text = await readText(body, MAX_JSON_BODY);
  try {
    return { text, json: JSON.parse(text) as Record<string, unknown> };
  } catch {
    return { text, json: undefined };
  }
}

/**
 * Forwards a call whose client format differs from the upstream's (or a non-OpenAI pass-through): the body was
 * converted through the IR; the answer is converted back — whole for plain answers, event by event for streams
 * (upstream SSE → IR events → client SSE), usage read from the IR on the way.
 */
export async function forwardConverted(agent: Dispatcher, c: ConvertedCall, res: ServerResponse, signal: CancelSignal, countTokens: (t: string) => number, started: number): Promise<AttemptResult> {
  const { origin, path, headers, body } = c.request;
  const answer = await agent.request({ origin, path, method: 'POST', headers, body, signal });
  if (answer.statusCode >= 400) {
    const { text } = await readJson(answer.body);
    return { kind: 'failed', status: answer.statusCode, message: errorMessageOf(text, answer.statusCode), body: text.slice(0, 65536) };
  }
  const same = c.upstream.name === c.client.name;
  const contentType = String(answer.headers['content-type'] ?? '');
  // Upstreams that carry errors in a 200 JSON answer (Tencent, Coze) answer a streamed call with JSON to refuse it.
  const jsonFault = c.upstream.answerError !== undefined && contentType.includes('application/json');
  const isSse = contentType.includes('text/event-stream') || (c.stream && !jsonFault);
  if (!isSse) {
    const { text, json } = await readJson(answer.body);
    if (!json) return { kind: 'failed', status: 502, message: 'upstream answered with invalid JSON', body: text.slice(0, 2000) };
    const fault = c.upstream.answerError?.(json) ?? (c.stream ? { status: 502, message: 'upstream answered a streamed call with JSON' } : undefined);
    if (fault) return { kind: 'failed', status: fault.status, message: fault.message, body: text.slice(0, 65536) };
    const ir = c.upstream.responseToIR(json);
    const out = same ? text : JSON.stringify(c.client.responseFromIR(ir, c.requestedModel));
    sendJson(res, out);
    const output = c.captureAnswer ? irAnswerContent(ir.parts) : undefined;
    return { kind: 'relayed', status: 200, usage: billingUsage(ir.usage, true), countedCompletion: 0, firstByteMs: Date.now() - started, cut: false, output };
  }
  if (!c.stream) {
    // A plain call answered by a stream (Coze answers in full only when streaming): one collected answer.
    const { response, error, sawUsage, head } = await collectStream(answer.body, c.upstream);
    if (error) return { kind: 'failed', status: 502, message: error, body: head };
    sendJson(res, JSON.stringify(c.client.responseFromIR(response, c.requestedModel)));
    const output = c.captureAnswer ? irAnswerContent(response.parts) : undefined;
    return { kind: 'relayed', status: 200, usage: sawUsage ? billingUsage(response.usage, true) : undefined, countedCompletion: 0, firstByteMs: Date.now() - started, cut: false, output };
  }
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
  const framer = c.framer ?? sseFramer();
  const dec = c.upstream.newDecodeState();
  const enc = c.client.newEncodeState(c.requestedModel);
  c.prepareEncoder?.(enc);
  let usage: IRUsage | undefined;
  let pendingText = '';
  let counted = 0;
  let ended = false;
  let firstByteMs = 0;
  const capture = c.captureAnswer ? new CappedText() : undefined;
  // Events of one upstream chunk are converted together and written at once: fewer, larger socket writes.
  let out = '';
  const take = (events: IRStreamEvent[], raw?: string) => {
    for (const e of events) {
      if (e.type === 'usage') usage = e.usage;
      else if (e.type === 'text' || e.type === 'thinking') {
        pendingText += e.text;
        capture?.add(e.text, e.type);
      } else if (e.type === 'tool_call_args') {
        pendingText += e.args;
        capture?.add(e.args, `tool${e.index}`);
      }
      else if (e.type === 'end') ended = true;
      if (!same) out += c.client.encodeEvent(enc, e);
    }
    if (same && raw) out += raw;
    if (pendingText.length > 4096) {
      counted += countTokens(pendingText);
      pendingText = '';
    }
  };
  const flushOut = (): string => {
    if (out && !firstByteMs) firstByteMs = Date.now() - started;
    const data = out;
    out = '';
    return data;
  };
  const rawOf = (ev: { event?: string; data: string }) => (same ? `${ev.event ? `event: ${ev.event}\n` : ''}data: ${ev.data}\n\n` : undefined);
  let { cut } = await pump(answer.body, res, (chunk) => {
    for (const ev of framer.push(chunk)) take(c.upstream.decodeEvent(dec, ev), rawOf(ev));
    return flushOut();
  }, c.pingMs ? { intervalMs: c.pingMs } : undefined);
  if (!cut) {
    try {
      for (const ev of framer.flush()) take(c.upstream.decodeEvent(dec, ev), rawOf(ev));
      if (!ended) take(c.upstream.finish ? c.upstream.finish(dec) : [{ type: 'end' }]);
    } catch {
      cut = true;
    }
  }
  // What was converted before a failure still reaches the client.
  if (!res.destroyed) res.end(flushOut());
  // Our own count is needed only when the upstream gave no usage or the stream was cut (the bill then uses it).
  if (pendingText && (cut || !usage)) counted += countTokens(pendingText);
  return { kind: 'relayed', status: 200, usage: usage && !cut ? billingUsage(usage, true) : undefined, countedCompletion: counted, firstByteMs, cut, output: capture?.value() };
}
