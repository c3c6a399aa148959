import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import type { CancelSignal } from './services.js';
import { withClientHeaders } from './client-headers.js';
import { CappedText, CHAT_CONTENT_CAP } from './capped-text.js';
import { openAIAnswerContent } from './chat-content.js';
import type { AttemptResult } from './types.js';
import { countedCompletionTokens, newStreamState, transformOpenAIChunk } from './providers/openai/stream.js';
import { pump } from './pump.js';
import { usageFromJsonTail } from './usage.js';

export interface UpstreamRequest {
  origin: string;
  path: string;
  headers: Record<string, string>;
  /** JSON text, or a stream (a spooled multipart upload) sent as it is read. */
  body: string | Readable;
  stream: boolean;
  /** The client asked for the usage chunk (stream_options.include_usage). */
  clientWantsUsage: boolean;
  /** Keep-alive interval of an SSE answer in ms (pingIntervalMs); 0 or absent: none. */
  pingMs?: number;
  /** Keep the answer's text for the log (LogChatContentEnabled; chat and completions only). */
  captureAnswer?: boolean;
}

const ERROR_BODY_LIMIT = 64 * 1024;
const TAIL = 16 * 1024;
/** How much of a plain answer is kept to read its text from (JSON escapes and other fields take room too). */
const CAPTURE_HEAD = 64 * CHAT_CONTENT_CAP;

async function readBounded(body: Dispatcher.ResponseData['body']): Promise<string> {
  let out = '';
  for await (const chunk of body) {
    if (out.length < ERROR_BODY_LIMIT) out += (chunk as Buffer).toString('utf8');
  }
  return out.slice(0, ERROR_BODY_LIMIT);
}

/** The message of an upstream error body (OpenAI, Anthropic and Gemini shapes), or its text. */
export function errorMessageOf(body: string, status: number): string {
  try {
    const j = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
    const m = typeof j.error === 'string' ? j.error : (j.error?.message ?? j.message);
    if (m) return m;
  } catch {
    // not JSON
  }
  return body.trim().slice(0, 500) || `upstream answered HTTP ${status}`;
}

/** Writes with backpressure: waits for 'drain' when the socket buffer is full, or for the client to go away. */
export function write(res: ServerResponse, data: string | Buffer): Promise<void> | undefined {
  if (res.write(data)) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Stages 4–5 — forward via the adaptor and stream back. Before the upstream answers nothing is sent to the
 * client, so an error status can be retried elsewhere. After a success status the bytes go to the client as
 * they arrive (SSE events whole, usage read on the way); the upstream call is aborted if the client leaves.
 */
export async function forwardOpenAI(
  agent: Dispatcher,
  up: UpstreamRequest,
  res: ServerResponse,
  signal: CancelSignal,
  countTokens: (text: string) => number,
  started: number,
): Promise<AttemptResult> {
  // The client's allowed OpenAI headers (openai-beta) go along; the channel's own headers win.
  const headers = withClientHeaders('openai', up.headers, res.req?.headers);
  const answer = await agent.request({ origin: up.origin, path: up.path, method: 'POST', headers, body: up.body, signal });
  if (answer.statusCode >= 400) {
    const body = await readBounded(answer.body);
    return { kind: 'failed', status: answer.statusCode, message: errorMessageOf(body, answer.statusCode), body };
  }
  const contentType = String(answer.headers['content-type'] ?? (up.stream ? 'text/event-stream' : 'application/json'));
  const isSse = contentType.includes('text/event-stream');
  const length = isSse ? undefined : (answer.headers['content-length'] as string | undefined);
  res.writeHead(answer.statusCode, {
    'content-type': isSse ? 'text/event-stream; charset=utf-8' : contentType,
    'cache-control': 'no-cache',
    ...(isSse ? { 'x-accel-buffering': 'no' } : {}),
    ...(length ? { 'content-length': length } : {}),
  });
  // A plain answer keeps its last chunk back so the final write carries it with the end of the response
  // (one write for the common single-chunk answer, no chunked encoding when the length is known).
  let held: Buffer | undefined;
  let firstByteMs = 0;
  const state = newStreamState(up.captureAnswer && isSse ? new CappedText() : undefined);
  let tail = '';
  // Capturing a plain answer: its start, up to CAPTURE_HEAD characters (undefined when not capturing).
  let head = up.captureAnswer && !isSse ? '' : undefined;
  let headComplete = true;
  // Multi-byte characters can be split between chunks; the decoder carries the partial bytes over.
  const decoder = new StringDecoder('utf8');
  const { cut } = await pump(answer.body, res, (raw) => {
    if (!firstByteMs) firstByteMs = Date.now() - started;
    if (isSse) return transformOpenAIChunk(state, decoder.write(raw), up.clientWantsUsage, countTokens);
    const text = decoder.write(raw);
    tail = (tail + text).slice(-TAIL);
    if (head !== undefined && headComplete) {
      if (head.length + text.length <= CAPTURE_HEAD) head += text;
      else {
        head += text.slice(0, CAPTURE_HEAD - head.length);
        headComplete = false;
      }
    }
    const out = held;
    held = raw;
    return out;
  }, isSse && up.pingMs ? { intervalMs: up.pingMs, midEvent: () => state.midEvent } : undefined);
  if (!cut && isSse && state.partial) res.write(state.partial);
  if (!res.destroyed) res.end(held);
  const usage = isSse ? state.usage : usageFromJsonTail(tail);
  // Our own count is needed only when the upstream gave no usage or the stream was cut (the bill then uses it).
  const counted = isSse && (cut || !usage) ? countedCompletionTokens(state, countTokens) : 0;
  const output = state.capture ? state.capture.value() : head !== undefined ? openAIAnswerContent(head, headComplete) : undefined;
  return { kind: 'relayed', status: answer.statusCode, usage, countedCompletion: counted, firstByteMs, cut, output };
}
