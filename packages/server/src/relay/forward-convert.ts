import type { ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { CappedText } from './capped-text.js';
import { irAnswerContent } from './chat-content.js';
import { forwardUpstream, sendWhole, type AnswerHeaders, type AnswerRoute, type AnswerSink, type StreamSink, type WholeSink } from './forward-upstream.js';
import { SseCollect } from './ir/collect.js';
import { SseSplitter, type SseEvent } from './ir/sse.js';
import type { ClientFormat, IRStreamEvent, IRUsage, UpstreamFormat } from './ir/types.js';
import type { KeepAliveOptions } from './keep-alive.js';
import type { SendableRequest } from './providers/prepare.js';
import type { StreamFramer } from './providers/types.js';
import type { CancelSignal } from './services.js';
import type { AttemptResult } from './types.js';
import type { CallUsage } from './usage.js';

const MAX_JSON_BODY = 64 * 1024 * 1024;
/** Most of an unreadable answer kept for the log. */
const BAD_ANSWER_LIMIT = 2000;
const FAULT_BODY_LIMIT = 64 * 1024;
/** Pending answer text is counted in windows of this many characters (memory stays bounded). */
const COUNT_WINDOW = 4096;
const SSE_HEAD = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

type CountTokens = (t: string) => number;

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
class SseFramer implements StreamFramer {
  private readonly decoder = new StringDecoder('utf8');
  private readonly splitter = new SseSplitter();
  push(chunk: Buffer): SseEvent[] {
    return this.splitter.push(this.decoder.write(chunk));
  }
  flush(): SseEvent[] {
    return this.splitter.flush();
  }
}

/** A plain answer read whole, converted through the IR (or passed on as it is between equal formats). */
class ConvertJson implements WholeSink {
  readonly whole = true;
  readonly limit = MAX_JSON_BODY;
  constructor(
    private readonly c: ConvertedCall,
    private readonly started: number,
  ) {}

  answer(res: ServerResponse, text: string): AttemptResult {
    const c = this.c;
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return { kind: 'failed', status: 502, message: 'upstream answered with invalid JSON', body: text.slice(0, BAD_ANSWER_LIMIT) };
    }
    const fault = c.upstream.answerError?.(json) ?? (c.stream ? { status: 502, message: 'upstream answered a streamed call with JSON' } : undefined);
    if (fault) return { kind: 'failed', status: fault.status, message: fault.message, body: text.slice(0, FAULT_BODY_LIMIT) };
    const ir = c.upstream.responseToIR(json);
    sendWhole(res, c.upstream.name === c.client.name ? text : JSON.stringify(c.client.responseFromIR(ir, c.requestedModel)));
    const output = c.captureAnswer ? irAnswerContent(ir.parts) : undefined;
    return { kind: 'relayed', status: 200, usage: billingUsage(ir.usage, true), countedCompletion: 0, firstByteMs: Date.now() - this.started, cut: false, output };
  }
}

/** A plain call answered by a stream (Coze answers in full only when streaming): the events collected into one answer. */
class CollectStream implements StreamSink {
  readonly whole = false;
  readonly keepAlive = undefined;
  private readonly collect: SseCollect;
  constructor(
    private readonly c: ConvertedCall,
    private readonly started: number,
  ) {
    this.collect = new SseCollect(c.upstream);
  }

  open(): void {
    // Nothing is written before the whole answer is known.
  }

  chunk(raw: Buffer): undefined {
    this.collect.push(raw);
    return undefined;
  }

  close(res: ServerResponse, cut: boolean): AttemptResult {
    if (cut) return { kind: 'failed', status: 0, message: 'upstream unreachable: the answer stream broke off', body: '' };
    const { response, error, sawUsage, head } = this.collect.end();
    if (error) return { kind: 'failed', status: 502, message: error, body: head };
    sendWhole(res, JSON.stringify(this.c.client.responseFromIR(response, this.c.requestedModel)));
    const output = this.c.captureAnswer ? irAnswerContent(response.parts) : undefined;
    return {
      kind: 'relayed',
      status: 200,
      usage: sawUsage ? billingUsage(response.usage, true) : undefined,
      countedCompletion: 0,
      firstByteMs: Date.now() - this.started,
      cut: false,
      output,
    };
  }
}

/**
 * A streamed answer converted event by event (upstream events → IR events → client SSE), usage read from the IR
 * on the way. Events of one upstream chunk are converted together and written at once: fewer, larger socket writes.
 */
class ConvertSse implements StreamSink {
  readonly whole = false;
  readonly keepAlive: KeepAliveOptions | undefined;
  private readonly framer: StreamFramer;
  private readonly dec: unknown;
  private readonly enc: unknown;
  /** Equal formats: the upstream's events are passed on as they came. */
  private readonly same: boolean;
  private readonly capture: CappedText | undefined;
  private usage: IRUsage | undefined;
  private pendingText = '';
  private counted = 0;
  private ended = false;
  private firstByteMs = 0;
  private out = '';

  constructor(
    private readonly c: ConvertedCall,
    private readonly countTokens: CountTokens,
    private readonly started: number,
  ) {
    this.framer = c.framer ?? new SseFramer();
    this.dec = c.upstream.newDecodeState();
    this.enc = c.client.newEncodeState(c.requestedModel);
    c.prepareEncoder?.(this.enc);
    this.same = c.upstream.name === c.client.name;
    this.capture = c.captureAnswer ? new CappedText() : undefined;
    this.keepAlive = c.pingMs ? { intervalMs: c.pingMs } : undefined;
  }

  open(res: ServerResponse): void {
    res.writeHead(200, SSE_HEAD);
  }

  chunk(raw: Buffer): string {
    for (const ev of this.framer.push(raw)) this.event(ev);
    return this.flushOut();
  }

  close(res: ServerResponse, cut: boolean): AttemptResult {
    if (!cut) {
      try {
        for (const ev of this.framer.flush()) this.event(ev);
        const upstream = this.c.upstream;
        if (!this.ended) this.take(upstream.finish ? upstream.finish(this.dec) : [{ type: 'end' }]);
      } catch {
        cut = true;
      }
    }
    // What was converted before a failure still reaches the client.
    if (!res.destroyed) res.end(this.flushOut());
    // Our own count is needed only when the upstream gave no usage or the stream was cut (the bill then uses it).
    const usage = this.usage;
    if (this.pendingText && (cut || !usage)) this.counted += this.countTokens(this.pendingText);
    return {
      kind: 'relayed',
      status: 200,
      usage: usage && !cut ? billingUsage(usage, true) : undefined,
      countedCompletion: this.counted,
      firstByteMs: this.firstByteMs,
      cut,
      output: this.capture?.value(),
    };
  }

  private event(ev: SseEvent): void {
    const events = this.c.upstream.decodeEvent(this.dec, ev);
    this.take(events);
    if (this.same) this.out += `${ev.event ? `event: ${ev.event}\n` : ''}data: ${ev.data}\n\n`;
  }

  private take(events: IRStreamEvent[]): void {
    const { c, capture, same } = this;
    for (const e of events) {
      if (e.type === 'usage') this.usage = e.usage;
      else if (e.type === 'text' || e.type === 'thinking') {
        this.pendingText += e.text;
        capture?.add(e.text, e.type);
      } else if (e.type === 'tool_call_args') {
        this.pendingText += e.args;
        capture?.add(e.args, `tool${e.index}`);
      } else if (e.type === 'end') this.ended = true;
      if (!same) this.out += c.client.encodeEvent(this.enc, e);
    }
    if (this.pendingText.length > COUNT_WINDOW) {
      this.counted += this.countTokens(this.pendingText);
      this.pendingText = '';
    }
  }

  private flushOut(): string {
    const data = this.out;
    if (data && !this.firstByteMs) this.firstByteMs = Date.now() - this.started;
    this.out = '';
    return data;
  }
}

/** Chooses how a converted call's answer is read: whole JSON, a stream collected for a plain call, or a converted stream. */
class ConvertRoute implements AnswerRoute {
  constructor(
    private readonly c: ConvertedCall,
    private readonly countTokens: CountTokens,
    private readonly started: number,
  ) {}

  sinkFor(headers: AnswerHeaders): AnswerSink {
    const c = this.c;
    const contentType = String(headers['content-type'] ?? '');
    // Upstreams that carry errors in a 200 JSON answer (Tencent, Coze) answer a streamed call with JSON to refuse it.
    const jsonFault = c.upstream.answerError !== undefined && contentType.includes('application/json');
    const isSse = contentType.includes('text/event-stream') || (c.stream && !jsonFault);
    if (!isSse) return new ConvertJson(c, this.started);
    return c.stream ? new ConvertSse(c, this.countTokens, this.started) : new CollectStream(c, this.started);
  }
}

/**
 * Forwards a call whose client format differs from the upstream's (or a non-OpenAI pass-through): the body was
 * converted through the IR; the answer is converted back — whole for plain answers, event by event for streams.
 */
export function forwardConverted(
  agent: Dispatcher,
  c: ConvertedCall,
  res: ServerResponse,
  signal: CancelSignal,
  countTokens: CountTokens,
  started: number,
): Promise<AttemptResult> {
  return forwardUpstream(agent, c.request, res, signal, new ConvertRoute(c, countTokens, started));
}
