import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { CappedText, CHAT_CONTENT_CAP } from './capped-text.js';
import { openAIAnswerContent } from './chat-content.js';
import { withClientHeaders } from './client-headers.js';
import { forwardUpstream, type AnswerHeaders, type AnswerRoute, type AnswerSink, type StreamSink } from './forward-upstream.js';
import { unconvertible } from './errors.js';
import type { KeepAliveOptions } from './keep-alive.js';
import { countedCompletionTokens, newStreamState, transformOpenAIChunk, type OpenAIStreamState } from './providers/openai/stream.js';
import { openAIPaths, rewriteOpenAIBody, type OpenAIEndpoint } from './providers/openai/request.js';
import type { UpstreamAdaptor } from './providers/types.js';
import type { CancelSignal, RelayContext } from './services.js';
import { countTextTokens } from './token-count.js';
import type { AttemptResult, ChannelAttempt } from './types.js';
import { usageFromJsonTail } from './usage.js';

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
}

type CountTokens = (text: string) => number;

const TAIL = 16 * 1024;
/** How much of a plain answer is kept to read its text from (JSON escapes and other fields take room too). */
const CAPTURE_HEAD = 64 * CHAT_CONTENT_CAP;
const SSE_HEAD = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

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

  constructor(
    private readonly up: UpstreamRequest,
    private readonly countTokens: CountTokens,
    private readonly started: number,
  ) {
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
    // Whole events in and the same events out: the bytes as they came, not encoded a second time.
    return startsClean && state.partial === '' && out.length === text.length && endsWithBlankLine(raw) ? raw : out;
  }

  close(res: ServerResponse, cut: boolean): AttemptResult {
    const state = this.state;
    if (!cut && state.partial) res.write(state.partial);
    if (!res.destroyed) res.end();
    const usage = state.usage;
    // Our own count is needed only when the upstream gave no usage or the stream was cut (the bill then uses it).
    const counted = cut || !usage ? countedCompletionTokens(state, this.countTokens) : 0;
    return { kind: 'relayed', status: this.status, usage, countedCompletion: counted, firstByteMs: this.firstByteMs, cut, output: state.capture?.value() };
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

  constructor(
    capture: boolean,
    private readonly started: number,
  ) {
    this.head = capture ? '' : undefined;
  }

  open(res: ServerResponse, status: number, headers: AnswerHeaders): void {
    this.status = status;
    const length = headers['content-length'] as string | undefined;
    res.writeHead(status, { 'content-type': String(headers['content-type'] ?? 'application/json'), 'cache-control': 'no-cache', ...(length ? { 'content-length': length } : {}) });
  }

  chunk(raw: Buffer): Buffer | undefined {
    if (!this.firstByteMs) this.firstByteMs = Date.now() - this.started;
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
    return { kind: 'relayed', status: this.status, usage: usageFromJsonTail(this.tail), countedCompletion: 0, firstByteMs: this.firstByteMs, cut, output };
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
    return isSse ? new PassThroughSse(this.up, this.countTokens, this.started) : new PassThroughJson(this.up.captureAnswer === true, this.started);
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
  return forwardUpstream(agent, { origin: up.origin, path: up.path, headers, body: up.body }, res, signal, new PassThrough(up, countTokens, started));
}

/**
 * The OpenAI path of a channel whose adaptor speaks OpenAI's format (chat, completions, embeddings, …): the body
 * rewritten for it (model, system prompt, the usage chunk asked for, overrides), the answer passed through.
 */
export function forwardOpenAIChannel(ctx: RelayContext, a: ChannelAttempt, adaptor: UpstreamAdaptor, endpoint: OpenAIEndpoint): Promise<AttemptResult> {
  const { call, channel, upstreamModel } = a;
  const target = adaptor.target({ channel, key: a.key, model: upstreamModel, stream: call.stream, openaiPath: openAIPaths[endpoint], options: ctx.options });
  let body: string | Buffer;
  try {
    body = rewriteOpenAIBody(
      call.body,
      { model: upstreamModel, forceStreamUsage: true, systemPrompt: channel.systemPrompt, paramOverride: channel.paramOverride },
      endpoint,
      call.raw,
    );
  } catch (err) {
    throw unconvertible(ctx.log, err);
  }
  const up: UpstreamRequest = {
    origin: target.url.origin,
    path: target.url.pathname + target.url.search,
    headers: target.headers,
    body,
    stream: call.stream,
    clientWantsUsage: call.includeUsage,
    pingMs: call.stream ? ctx.relay.settings.get().pingMs : 0,
    captureAnswer: a.captureAnswer && (endpoint === 'chat' || endpoint === 'completions'),
  };
  return forwardOpenAI(ctx.relay.upstream.for(channel), up, a.res, a.signal, countTextTokens, a.started);
}
