import type { ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { CappedText } from '../pipeline/capped-text.js';
import { irAnswerContent } from '../pipeline/chat-content.js';
import {
  forwardUpstream,
  sendBilled,
  type AnswerHeaders,
  type AnswerRoute,
  type AnswerSink,
  type StreamSink,
  type WholeSink,
} from './forward-upstream.js';
import { SseCollect } from '../ir/collect.js';
import { SseSplitter, type SseEvent } from '../ir/sse.js';
import type { ClientFormat, IRStreamEvent, IRUsage, UpstreamFormat } from '../ir/types.js';
import { answerText } from './answer-text.js';
import type { KeepAliveOptions } from '../pipeline/keep-alive.js';
import type { SendableRequest } from '../providers/prepare.js';
import type { StreamFramer } from '../providers/types.js';
import type { CancelSignal } from '../pipeline/services.js';
import type { AttemptResult, CostReceipt, RelayedAttempt } from '../pipeline/types.js';
import type { CallUsage } from '../billing/usage.js';
import { withReceiptHeaders, withUsageCost } from '../billing/receipt.js';
import { outputCapExceeded, plainPastCap, type OutputBudget } from '../billing/output-hold.js';

const MAX_JSON_BODY = 64 * 1024 * 1024;
/** Most of an unreadable answer kept for the log. */
const BAD_ANSWER_LIMIT = 2000;
const FAULT_BODY_LIMIT = 64 * 1024;
/** Pending answer text is counted in windows of this many characters (memory stays bounded). */
const COUNT_WINDOW = 4096;
const SSE_HEAD = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

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
  ...(u.toolCalls ? { toolCalls: u.toolCalls } : {}),
  ...(u.kinds ? { kinds: u.kinds } : {}),
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
  /** The output the call's hold affords: a stream is ended past it; a clamped plain answer past it is refused. */
  budget?: OutputBudget;
  /** The call's cost receipt (billed calls): in a plain answer's head; in an OpenAI client's usage when asked. */
  receipt?: CostReceipt;
}

/** Clients whose answer's usage can carry the cost (`"usage": {"include": true}`): OpenAI chat and Responses. */
const costInUsageOf = (client: string): boolean => client === 'openai' || client === 'responses';

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
    private readonly countTokens: CountTokens,
  ) {}

  answer(res: ServerResponse, text: string): AttemptResult {
    const c = this.c;
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return {
        kind: 'failed',
        status: 502,
        message: 'upstream answered with invalid JSON',
        body: text.slice(0, BAD_ANSWER_LIMIT),
      };
    }
    const fault =
      c.upstream.answerError?.(json) ??
      (c.stream ? { status: 502, message: 'upstream answered a streamed call with JSON' } : undefined);
    if (fault)
      return { kind: 'failed', status: fault.status, message: fault.message, body: text.slice(0, FAULT_BODY_LIMIT) };
    const ir = c.upstream.responseToIR(json);
    // An answer without usage (or with no output in it) is billed on our count of its text.
    const reported = ir.usage.inputTokens > 0 || ir.usage.outputTokens > 0;
    const counted = ir.usage.outputTokens > 0 ? 0 : this.countTokens(answerText(json, ir.parts));
    if (Math.max(ir.usage.outputTokens, counted) > (c.budget?.tokens ?? Infinity)) {
      return plainPastCap();
    }
    const result: RelayedAttempt = {
      kind: 'relayed',
      status: 200,
      usage: reported ? billingUsage(ir.usage, true) : undefined,
      countedCompletion: counted,
      firstByteMs: Date.now() - this.started,
      cut: false,
      output: c.captureAnswer ? irAnswerContent(ir.parts) : undefined,
    };
    const answer =
      c.upstream.name === c.client.name ? text : JSON.stringify(c.client.responseFromIR(ir, c.requestedModel));
    sendBilled(res, answer, result, c.receipt, costInUsageOf(c.client.name));
    return result;
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
    if (cut)
      return { kind: 'failed', status: 0, message: 'upstream unreachable: the answer stream broke off', body: '' };
    const { response, error, sawUsage, head } = this.collect.end();
    if (error) return { kind: 'failed', status: 502, message: error, body: head };
    const result: RelayedAttempt = {
      kind: 'relayed',
      status: 200,
      usage: sawUsage ? billingUsage(response.usage, true) : undefined,
      countedCompletion: 0,
      firstByteMs: Date.now() - this.started,
      cut: false,
      output: this.c.captureAnswer ? irAnswerContent(response.parts) : undefined,
    };
    const answer = JSON.stringify(this.c.client.responseFromIR(response, this.c.requestedModel));
    sendBilled(res, answer, result, this.c.receipt, costInUsageOf(this.c.client.name));
    return result;
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
  /** Output tokens the hold pays for (Infinity: unmetered), and the text's characters so far (at most 3 tokens each). */
  private readonly meterLimit: number;
  private meterChars = 0;
  private ended = false;
  private stopped = false;
  private firstByteMs = 0;
  private out = '';
  /** The cost receipt went out in the answer's usage, on this usage. */
  private receiptGiven = false;
  private receiptUsage: IRUsage | undefined;
  /** An OpenAI client asked for the cost in its usage: the event whose encoding carries the usage, if any. */
  private readonly costAt: 'usage' | 'end' | 'same' | undefined;

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
    this.meterLimit = c.budget?.tokens ?? Infinity;
    this.costAt =
      c.receipt?.inUsage !== true || !costInUsageOf(c.client.name)
        ? undefined
        : this.same
          ? 'same'
          : c.client.name === 'openai'
            ? 'usage'
            : 'end';
  }

  open(res: ServerResponse): void {
    const upfront = this.c.receipt?.upfront();
    res.writeHead(200, upfront ? withReceiptHeaders({ ...SSE_HEAD }, upfront) : SSE_HEAD);
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
    // What was converted before a failure still reaches the client (not what a meter stop held back).
    if (!res.destroyed) res.end(this.stopped ? '' : this.flushOut());
    // Our own count is needed only when the upstream gave no usage or the stream was cut (the bill then uses it).
    const usage = this.usage;
    if (this.pendingText && (cut || !usage || usage.outputTokens === 0))
      this.counted += this.countTokens(this.pendingText);
    this.pendingText = '';
    return {
      kind: 'relayed',
      status: 200,
      // A cut stream's usage so far still names its prompt; its output is our count (or the usage's, if more). A
      // stream the meter ended delivered no more than its hold's output, which it is billed whole.
      usage: usage
        ? billingUsage(
            this.stopped ? { ...usage, outputTokens: Math.min(usage.outputTokens, this.meterLimit) } : usage,
            true,
          )
        : undefined,
      // A whole answer with its output reported is billed on the report (the meter's count is only a bound).
      countedCompletion: this.stopped ? this.meterLimit : !cut && usage && usage.outputTokens > 0 ? 0 : this.counted,
      firstByteMs: this.firstByteMs,
      cut,
      output: this.capture?.value(),
      // The bill told to the client is charged: in the head, or in a usage chunk no later usage replaced.
      // The bill told in the answer's usage is charged (unless a later usage replaced it). One told in the head (a
      // per-call price) is settlement's own computation again, now with the usage (which may add priced tool calls).
      receipted: !this.stopped && this.receiptGiven && this.receiptUsage === usage,
    };
  }

  private event(ev: SseEvent): void {
    const events = this.c.upstream.decodeEvent(this.dec, ev);
    this.take(events);
    if (!this.same) return;
    // Passed on as it came; the event that carries the usage (Responses' response.completed) with the cost when asked.
    const data =
      this.costAt === 'same' && events.some((e) => e.type === 'usage') ? this.withCost(ev.data, this.usage) : ev.data;
    this.out += `${ev.event ? `event: ${ev.event}\n` : ''}data: ${data}\n\n`;
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
      if (same) continue;
      const encoded = c.client.encodeEvent(this.enc, e);
      this.out += e.type === this.costAt ? this.withCost(encoded, this.usage) : encoded;
    }
    if (this.meterLimit !== Infinity) this.meter();
    else if (this.pendingText.length > COUNT_WINDOW) {
      this.counted += this.countTokens(this.pendingText);
      this.pendingText = '';
    }
  }

  /** The usage chunk with the bill of the answer so far (the usage ends it): the receipt settlement charges. */
  private withCost(encoded: string, usage: IRUsage | undefined): string {
    const counted = usage && usage.outputTokens > 0 ? 0 : this.counted + this.countTokens(this.pendingText);
    const result: RelayedAttempt = {
      kind: 'relayed',
      status: 200,
      usage: usage && billingUsage(usage, true),
      countedCompletion: counted,
      firstByteMs: this.firstByteMs,
      cut: false,
    };
    this.receiptGiven = true;
    this.receiptUsage = usage;
    return withUsageCost(encoded, this.c.receipt!.issue(result));
  }

  /** Ends the stream (throws) at the event that takes the output past what the hold pays for. */
  private meter(): void {
    const chars = this.meterChars + this.pendingText.length;
    // Until 3 tokens per character could pass the limit, nothing can be past it: no count needed.
    if (3 * chars <= this.meterLimit && this.pendingText.length <= COUNT_WINDOW) return;
    this.meterChars = chars;
    this.counted += this.countTokens(this.pendingText);
    this.pendingText = '';
    if (Math.max(this.counted, this.usage?.outputTokens ?? 0) > this.meterLimit) {
      this.stopped = true;
      this.out = '';
      throw outputCapExceeded('stream');
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
    if (!isSse) return new ConvertJson(c, this.started, this.countTokens);
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
