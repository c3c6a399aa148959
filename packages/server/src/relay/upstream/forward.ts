import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { CappedText, CHAT_CONTENT_CAP } from '../pipeline/capped-text.js';
import { openAIAnswerContent } from '../pipeline/chat-content.js';
import { withClientHeaders } from '../entry/client-headers.js';
import { withHeaderOverride } from './header-override.js';
import {
  forwardUpstream,
  type AnswerHeaders,
  type AnswerRoute,
  type AnswerSink,
  type StreamSink,
  type WholeSink,
} from './forward-upstream.js';
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
import { countAnswerTokens, countTextTokens } from '../pipeline/token-count.js';
import type { AttemptResult, ChannelAttempt } from '../pipeline/types.js';
import { usageFromJsonTail } from '../billing/usage.js';

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
}

type CountTokens = (text: string) => number;

const TAIL = 16 * 1024;
/** Most of a plain answer kept to count when it carries no usage (past it, every byte counts as a token). */
const COUNTED_ANSWER_LIMIT = 16 * 1024 * 1024;
/** Most of a clamped plain answer read whole before it is delivered. */
const METERED_ANSWER_LIMIT = 64 * 1024 * 1024;
/** How much of a plain answer is kept to read its text from (JSON escapes and other fields take room too). */
const CAPTURE_HEAD = 64 * CHAT_CONTENT_CAP;
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

  constructor(
    private readonly up: UpstreamRequest,
    private readonly countTokens: CountTokens,
    private readonly started: number,
  ) {
    this.meterLimit = up.budget?.tokens ?? Infinity;
    this.state = newStreamState(up.captureAnswer ? new CappedText() : undefined);
    const state = this.state;
    this.keepAlive = up.pingMs ? { intervalMs: up.pingMs, midEvent: () => state.midEvent } : undefined;
  }

  open(res: ServerResponse, status: number): void {
    this.status = status;
    res.writeHead(status, SSE_HEAD);
  }

  chunk(raw: Buffer): string | Buffer {
    if (!this.firstByteMs) this.firstByteMs = Date.now() - this.started;
    const state = this.state;
    const startsClean = state.partial === '' && !state.midEvent;
    const text = this.decoder.write(raw);
    const out = transformOpenAIChunk(state, text, this.up.clientWantsUsage, this.countTokens);
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
    };
  }
}

/**
 * A plain answer passed through as it arrives, its usage read from a bounded tail. The last chunk is held back
 * so the final write carries it with the end of the response (one write for the common single-chunk answer, no
 * chunked encoding when the length is known).
 */
class PassThroughJson implements StreamSink {
  readonly whole = false;
  readonly keepAlive = undefined;
  private readonly decoder = new StringDecoder('utf8');
  private held: Buffer | undefined;
  private tail = '';
  // Capturing: the answer's start, up to CAPTURE_HEAD characters (undefined when not capturing).
  private head: string | undefined;
  private headComplete = true;
  private firstByteMs = 0;
  private status = 200;
  /** The answer's chunks, kept to count its text should it carry no usage (undefined past COUNTED_ANSWER_LIMIT). */
  private kept: Buffer[] | undefined = [];
  private bytes = 0;

  constructor(
    capture: boolean,
    private readonly started: number,
    private readonly countTokens: CountTokens,
  ) {
    this.head = capture ? '' : undefined;
  }

  open(res: ServerResponse, status: number, headers: AnswerHeaders): void {
    this.status = status;
    const length = headers['content-length'] as string | undefined;
    res.writeHead(status, {
      'content-type': String(headers['content-type'] ?? 'application/json'),
      'cache-control': 'no-cache',
      ...(length ? { 'content-length': length } : {}),
    });
  }

  chunk(raw: Buffer): Buffer | undefined {
    if (!this.firstByteMs) this.firstByteMs = Date.now() - this.started;
    this.bytes += raw.length;
    if (this.kept && this.bytes <= COUNTED_ANSWER_LIMIT) this.kept.push(raw);
    else this.kept = undefined;
    const text = this.decoder.write(raw);
    this.tail = (this.tail + text).slice(-TAIL);
    const head = this.head;
    if (head !== undefined && this.headComplete) {
      if (head.length + text.length <= CAPTURE_HEAD) this.head = head + text;
      else {
        this.head = head + text.slice(0, CAPTURE_HEAD - head.length);
        this.headComplete = false;
      }
    }
    const out = this.held;
    this.held = raw;
    return out;
  }

  close(res: ServerResponse, cut: boolean): AttemptResult {
    if (!res.destroyed) res.end(this.held);
    const output = this.head !== undefined ? openAIAnswerContent(this.head, this.headComplete) : undefined;
    const usage = usageFromJsonTail(this.tail);
    // No usage (or no output in it): billed on our count of every choice's text (too large to keep: a token a byte).
    const counted = usage?.completionTokens
      ? 0
      : this.kept
        ? countedAnswer(Buffer.concat(this.kept).toString('utf8'), this.countTokens)
        : this.bytes;
    return {
      kind: 'relayed',
      status: this.status,
      usage,
      countedCompletion: counted,
      firstByteMs: this.firstByteMs,
      cut,
      output,
    };
  }
}

/** Our count of a plain answer's text; an answer that is not JSON counts a token per byte (never less than it can hold). */
function countedAnswer(text: string, countTokens: CountTokens): number {
  try {
    return countAnswerTokens(JSON.parse(text), countTokens);
  } catch {
    return Buffer.byteLength(text);
  }
}

/**
 * A plain answer to a call whose output cap was clamped to the balance: read whole and delivered only when its
 * output (reported, else counted) is within what the hold pays for; past it (the upstream ignored the cap) the
 * attempt fails and nothing is delivered or charged.
 */
class MeteredJson implements WholeSink {
  readonly whole = true;
  readonly limit = METERED_ANSWER_LIMIT;

  constructor(
    private readonly up: UpstreamRequest,
    private readonly countTokens: CountTokens,
    private readonly started: number,
  ) {}

  answer(res: ServerResponse, text: string, headers: AnswerHeaders): AttemptResult {
    const usage = usageFromJsonTail(text.slice(-TAIL));
    const counted = usage?.completionTokens ? 0 : countedAnswer(text, this.countTokens);
    if (Math.max(usage?.completionTokens ?? 0, counted) > (this.up.budget?.tokens ?? Infinity)) {
      outputCapExceeded('plain');
      return {
        kind: 'failed',
        status: 502,
        message: 'the upstream answered past the output cap it was sent',
        body: '',
      };
    }
    res.writeHead(200, {
      'content-type': String(headers['content-type'] ?? 'application/json'),
      'cache-control': 'no-cache',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
    const output = this.up.captureAnswer ? openAIAnswerContent(text, true) : undefined;
    return {
      kind: 'relayed',
      status: 200,
      usage,
      countedCompletion: counted,
      firstByteMs: Date.now() - this.started,
      cut: false,
      output,
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
    return new PassThroughJson(this.up.captureAnswer === true, this.started, this.countTokens);
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
  };
  return forwardOpenAI(ctx.relay.upstream.for(channel), up, a.res, a.signal, countTextTokens, a.started);
}
