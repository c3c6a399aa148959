import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { CappedText } from '../pipeline/capped-text.js';
import { withClientHeaders } from '../entry/client-headers.js';
import { withHeaderOverride } from './header-override.js';
import {
  forwardUpstream,
  type AnswerHeaders,
  type AnswerRoute,
  type AnswerSink,
  type StreamSink,
} from './forward-upstream.js';
import { MeteredJson, PassThroughJson } from './forward-json.js';
import { unconvertible } from '../pipeline/errors.js';
import type { KeepAliveOptions } from '../pipeline/keep-alive.js';
import {
  countedCompletionTokens,
  newStreamState,
  transformOpenAIChunk,
  type OpenAIStreamState,
} from '../providers/openai/stream.js';
import { openAIPaths, rewriteOpenAIBody, type OpenAIEndpoint } from '../providers/openai/request.js';
import type { UpstreamAdaptor } from '../providers/types.js';
import type { CancelSignal, RelayContext } from '../pipeline/services.js';
import { outputCapExceeded, type OutputBudget } from '../billing/output-hold.js';
import { countTextTokens } from '../pipeline/token-count.js';
import type { AttemptResult, ChannelAttempt, CostReceipt, RelayedAttempt } from '../pipeline/types.js';
import { withReceiptHeaders, withUsageCost } from '../billing/receipt.js';
import type { CallUsage } from '../billing/usage.js';

export interface UpstreamRequest {
  origin: string;
  path: string;
  headers: Record<string, string>;
  /** JSON text or bytes, or a stream (a spooled multipart upload) sent as it is read. */
  body: string | Buffer | Readable;
  stream: boolean;
  /** The client asked for the usage chunk (stream_options.include_usage). */
  clientWantsUsage: boolean;
  /** Keep-alive interval of an SSE answer in ms (pingIntervalMs); 0 or absent: none. */
  pingMs?: number;
  /** Keep the answer's text for the log (LogChatContentEnabled; chat and completions only). */
  captureAnswer?: boolean;
  /** The output the call's hold affords: a stream is ended past it; a clamped plain answer past it is refused. */
  budget?: OutputBudget;
  /** The call's cost receipt (billed calls): in a plain answer's head, a stream's usage chunk when asked. */
  receipt?: CostReceipt;
  /** A surface's meter of a plain answer given a receipt: the usage it bills for the usage reported. */
  meter?: (reported: CallUsage | undefined) => CallUsage;
  /** Headers of a receipt known before the answer (speech: its characters), for an answer passed on as it comes. */
  receiptHeaders?: Record<string, string>;
}

type CountTokens = (text: string) => number;

const SSE_HEAD = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

const LF = 0x0a;
const endsWithBlankLine = (b: Buffer): boolean => b.length >= 2 && b[b.length - 1] === LF && b[b.length - 2] === LF;

/** An OpenAI SSE answer passed through event by event: usage read (its chunk dropped unless asked for), text counted and captured. */
class PassThroughSse implements StreamSink {
  readonly whole = false;
  readonly keepAlive: KeepAliveOptions | undefined;
  private readonly state: OpenAIStreamState;
  // Multi-byte characters can be split between chunks; the decoder carries the partial bytes over.
  private readonly decoder = new StringDecoder('utf8');
  private firstByteMs = 0;
  private status = 200;
  /** Output tokens the hold pays for (Infinity: unmetered) and the answer's bytes so far (a token is at least one). */
  private readonly meterLimit: number;
  private meterBytes = 0;
  /** The meter ended the stream: what was delivered is within the hold, which is billed whole. */
  private meterStopped = false;
  /** The cost receipt went out in the usage chunk on this usage. */
  private receiptUsage: CallUsage | undefined;
  /** Puts the cost in the usage chunk (the client asked for it); undefined when not asked: no work per event. */
  private readonly costChunk: ((event: string) => string) | undefined;

  constructor(
    private readonly up: UpstreamRequest,
    private readonly countTokens: CountTokens,
    private readonly started: number,
  ) {
    this.meterLimit = up.budget?.tokens ?? Infinity;
    this.state = newStreamState(up.captureAnswer ? new CappedText() : undefined);
    const state = this.state;
    this.keepAlive = up.pingMs ? { intervalMs: up.pingMs, midEvent: () => state.midEvent } : undefined;
    this.costChunk = up.receipt?.inUsage ? (event) => this.withCost(event) : undefined;
  }

  open(res: ServerResponse, status: number): void {
    this.status = status;
    const upfront = this.up.receipt?.upfront();
    const known = this.up.receiptHeaders;
    res.writeHead(
      status,
      upfront ? withReceiptHeaders({ ...SSE_HEAD }, upfront) : known ? { ...SSE_HEAD, ...known } : SSE_HEAD,
    );
  }

  /** The usage chunk with the bill of the answer so far (the usage chunk ends it): the receipt settlement charges. */
  private withCost(event: string): string {
    const state = this.state;
    const usage = state.usage;
    const result: RelayedAttempt = {
      kind: 'relayed',
      status: this.status,
      usage,
      countedCompletion: !usage || usage.completionTokens === 0 ? countedCompletionTokens(state, this.countTokens) : 0,
      firstByteMs: this.firstByteMs,
      cut: false,
    };
    const receipt = this.up.receipt!.issue(result);
    this.receiptUsage = usage;
    return withUsageCost(event, receipt);
  }

  chunk(raw: Buffer): string | Buffer {
    if (!this.firstByteMs) this.firstByteMs = Date.now() - this.started;
    const state = this.state;
    const startsClean = state.partial === '' && !state.midEvent;
    const text = this.decoder.write(raw);
    const out = transformOpenAIChunk(state, text, this.up.clientWantsUsage, this.countTokens, this.costChunk);
    if (this.meterLimit !== Infinity) this.meter(raw.length);
    // Whole events in and the same events out: the bytes as they came, not encoded a second time.
    return startsClean && state.partial === '' && out.length === text.length && endsWithBlankLine(raw) ? raw : out;
  }

  /** Ends the stream (throws) before the chunk that takes the output past what the hold pays for. */
  private meter(bytes: number): void {
    this.meterBytes += bytes;
    // Until the answer has more bytes than the hold has tokens, it cannot be past it: no count needed.
    if (this.meterBytes <= this.meterLimit) return;
    if (countedCompletionTokens(this.state, this.countTokens) > this.meterLimit) {
      this.meterStopped = true;
      throw outputCapExceeded('stream');
    }
  }

  close(res: ServerResponse, cut: boolean): AttemptResult {
    const state = this.state;
    if (!cut && state.partial) res.write(state.partial);
    if (!res.destroyed) res.end();
    const usage = state.usage;
    // Our own count is needed only when the upstream gave no usage or the stream was cut (the bill then uses it).
    const counted = this.meterStopped
      ? this.meterLimit
      : cut || !usage || usage.completionTokens === 0
        ? countedCompletionTokens(state, this.countTokens)
        : 0;
    return {
      kind: 'relayed',
      status: this.status,
      usage,
      countedCompletion: counted,
      firstByteMs: this.firstByteMs,
      cut,
      output: state.capture?.value(),
      // The bill told in a usage chunk no later usage replaced is charged. One told in the head (a per-call price)
      // is settlement's own computation again, now with the answer's usage (which may add priced tool calls).
      receipted: !this.meterStopped && this.receiptUsage !== undefined && this.receiptUsage === usage,
    };
  }
}

/** An OpenAI-format answer: SSE or plain, as the upstream's content type says (the request's stream flag when it says none). */
class PassThrough implements AnswerRoute {
  constructor(
    private readonly up: UpstreamRequest,
    private readonly countTokens: CountTokens,
    private readonly started: number,
  ) {}

  sinkFor(headers: AnswerHeaders): AnswerSink {
    const type = headers['content-type'];
    const isSse = type === undefined ? this.up.stream : String(type).includes('text/event-stream');
    if (isSse) return new PassThroughSse(this.up, this.countTokens, this.started);
    if ((this.up.budget?.tokens ?? Infinity) !== Infinity)
      return new MeteredJson(this.up, this.countTokens, this.started);
    return new PassThroughJson(this.up, this.started, this.countTokens);
  }
}

/**
 * Forwards a call to an OpenAI-format upstream and passes the answer through (SSE events whole, usage read on the
 * way). The client's allowed OpenAI headers (openai-beta) go along; the channel's own headers win.
 */
export function forwardOpenAI(
  agent: Dispatcher,
  up: UpstreamRequest,
  res: ServerResponse,
  signal: CancelSignal,
  countTokens: CountTokens,
  started: number,
): Promise<AttemptResult> {
  const headers = withClientHeaders('openai', up.headers, res.req?.headers);
  return forwardUpstream(
    agent,
    { origin: up.origin, path: up.path, headers, body: up.body },
    res,
    signal,
    new PassThrough(up, countTokens, started),
  );
}

/**
 * The OpenAI path of a channel whose adaptor speaks OpenAI's format (chat, completions, embeddings, …): the body
 * rewritten for it (model, system prompt, the usage chunk asked for, overrides), the answer passed through.
 */
export function forwardOpenAIChannel(
  ctx: RelayContext,
  a: ChannelAttempt,
  adaptor: UpstreamAdaptor,
  endpoint: OpenAIEndpoint,
): Promise<AttemptResult> {
  const { call, channel, upstreamModel } = a;
  const target = adaptor.target({
    channel,
    key: a.key,
    model: upstreamModel,
    stream: call.stream,
    openaiPath: openAIPaths[endpoint],
    options: ctx.options,
  });
  let body: string | Buffer;
  try {
    body = rewriteOpenAIBody(
      call.body,
      {
        model: upstreamModel,
        forceStreamUsage: true,
        systemPrompt: channel.systemPrompt,
        paramOverride: channel.paramOverride,
        outputCap: a.budget?.cap,
        callSettings: channel.callSettings,
      },
      endpoint,
      call.raw,
    );
  } catch (err) {
    throw unconvertible(ctx.log, err);
  }
  const up: UpstreamRequest = {
    origin: target.url.origin,
    path: target.url.pathname + target.url.search,
    headers: withHeaderOverride(target.headers, channel, a.key, a.res.req?.headers),
    body,
    stream: call.stream,
    clientWantsUsage: call.includeUsage,
    pingMs: call.stream ? ctx.relay.settings.get().pingMs : 0,
    captureAnswer: a.captureAnswer && (endpoint === 'chat' || endpoint === 'completions'),
    budget: endpoint === 'chat' || endpoint === 'completions' ? a.budget : undefined,
    receipt: a.receipt,
  };
  return forwardOpenAI(ctx.relay.upstream.for(channel), up, a.res, a.signal, countTextTokens, a.started);
}
