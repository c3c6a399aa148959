import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { KeepAliveOptions } from './keep-alive.js';
import { observing, withTraceparent } from '../observability/relay-observer.js';
import { upstreamErrorMessage } from './providers/upstream-error.js';
import { pump, readText, type ChunkSink } from './pump.js';
import type { CancelSignal } from './services.js';
import type { AttemptResult } from './types.js';

/** Most of an error answer kept (for its message and the log). */
export const ERROR_BODY_LIMIT = 64 * 1024;

/** What goes upstream: where, with which headers, and the body (JSON text or bytes, or a spooled upload read as it is sent). */
export interface UpstreamCall {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string | Buffer | Readable;
}

export type AnswerHeaders = Dispatcher.ResponseData['headers'];

/**
 * An answer relayed chunk by chunk through the pump: `open` writes the response head, `chunk` turns each upstream
 * chunk into what to write now, `close` writes the rest, ends the response and reports the attempt.
 */
export interface StreamSink extends ChunkSink {
  readonly whole: false;
  /** Keep-alive pings between events (SSE answers only). */
  readonly keepAlive: KeepAliveOptions | undefined;
  open(res: ServerResponse, status: number, headers: AnswerHeaders): void;
  close(res: ServerResponse, cut: boolean): AttemptResult;
}

/** An answer that is needed whole (bounded by `limit`) before anything is written: converted or metered, then answered. */
export interface WholeSink {
  readonly whole: true;
  readonly limit: number;
  answer(res: ServerResponse, text: string, headers: AnswerHeaders): AttemptResult;
}

export type AnswerSink = StreamSink | WholeSink;

/** Chooses the sink of a success answer from its headers (an SSE or a JSON answer); created once per call. */
export interface AnswerRoute {
  sinkFor(headers: AnswerHeaders): AnswerSink;
}

/** The message of an upstream error body (OpenAI, Anthropic and Gemini shapes), or its text. */
export function errorMessageOf(body: string, status: number): string {
  return upstreamErrorMessage(body) ?? (body.trim().slice(0, 500) || `upstream answered HTTP ${status}`);
}

/** An error answer's first ERROR_BODY_LIMIT characters; the rest is read and dropped. */
async function readBounded(body: Dispatcher.ResponseData['body']): Promise<string> {
  let out = '';
  for await (const chunk of body) {
    if (out.length < ERROR_BODY_LIMIT) out += (chunk as Buffer).toString('utf8');
  }
  return out.slice(0, ERROR_BODY_LIMIT);
}

/**
 * Stages 4–5 — one upstream call and its answer. Before the upstream answers nothing is sent to the client, so an
 * error status (its body read, bounded) comes back as a failure another channel may retry. A success answer goes to
 * the route's sink: streamed through the pump (backpressure; the upstream is destroyed if the client leaves), or
 * read whole and answered at once.
 */
export async function forwardUpstream(agent: Dispatcher, up: UpstreamCall, res: ServerResponse, signal: CancelSignal, route: AnswerRoute): Promise<AttemptResult> {
  // Traced calls tell the upstream their attempt's span (W3C traceparent).
  const headers = observing.tracer ? withTraceparent(up.headers, res) : up.headers;
  const answer = await agent.request({ origin: up.origin, path: up.path, method: 'POST', headers, body: up.body, signal });
  const status = answer.statusCode;
  if (status >= 400) {
    const body = await readBounded(answer.body);
    return { kind: 'failed', status, message: errorMessageOf(body, status), body };
  }
  const sink = route.sinkFor(answer.headers);
  if (sink.whole) {
    const text = await readText(answer.body, sink.limit);
    if (text === undefined) return { kind: 'failed', status: 502, message: 'upstream answer too large', body: '' };
    return sink.answer(res, text, answer.headers);
  }
  sink.open(res, status, answer.headers);
  const { cut } = await pump(answer.body, res, sink, sink.keepAlive);
  return sink.close(res, cut);
}

/** A whole JSON answer with its length (no chunked framing; one write). */
export function sendWhole(res: ServerResponse, text: string, contentType = 'application/json'): void {
  res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
