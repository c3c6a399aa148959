import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { startKeepAlive, type KeepAlive, type KeepAliveOptions } from '../pipeline/keep-alive.js';
import type { CancelSignal } from '../pipeline/services.js';
import type { AttemptResult } from '../pipeline/types.js';
import { upstreamErrorMessage } from '../providers/upstream-error.js';
import { answerHeaders, type AnswerHeaders } from './answer-headers.js';

export type { AnswerHeaders };

/**
 * An answer relayed chunk by chunk: `open` writes the response head, `chunk` turns each upstream chunk into what to
 * write now (nothing, the same bytes, or converted events), `close` writes the rest, ends the response and reports
 * the attempt.
 */
export interface StreamSink {
  readonly whole: false;
  /** Keep-alive pings between events (SSE answers only). */
  readonly keepAlive: KeepAliveOptions | undefined;
  open(res: ServerResponse, status: number, headers: AnswerHeaders): void;
  chunk(raw: Buffer): string | Buffer | undefined;
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

/** Most of an error answer kept (for its message and the log). */
export const ERROR_BODY_LIMIT = 64 * 1024;

/** Where an exchange is: waiting for the answer's head, reading an error or whole answer, relaying a stream, or over. */
type Phase =
  | { kind: 'head' }
  | { kind: 'error'; status: number; text: string }
  | { kind: 'whole'; sink: WholeSink; headers: AnswerHeaders; chunks: Buffer[]; size: number }
  | { kind: 'stream'; sink: StreamSink; pinger: KeepAlive | undefined }
  | { kind: 'over' };

/** The message of an upstream error body (OpenAI, Anthropic and Gemini shapes), or its text. */
export function errorMessageOf(body: string, status: number): string {
  return upstreamErrorMessage(body) ?? (body.trim().slice(0, 500) || `upstream answered HTTP ${status}`);
}

const cancelledError = () => Object.assign(new Error('request aborted'), { code: 'UND_ERR_ABORTED' });

/**
 * One upstream call's answer, taken straight from undici's dispatcher callbacks: no response stream, promise or
 * async resource per call, and each chunk goes to the client in the callback that read it. A success answer goes to
 * the route's sink: streamed chunk by chunk (while the client's socket is full the upstream connection pauses until
 * it drains; the upstream is aborted if the client leaves or the sink throws), or gathered whole up to the sink's
 * limit. An error answer's first ERROR_BODY_LIMIT characters are kept and the rest read and dropped (the connection
 * stays reusable). With the sink's keep-alive (SSE answers), a ping goes out between writes after each idle interval.
 */
export class UpstreamExchange implements Dispatcher.DispatchHandler {
  private phase: Phase = { kind: 'head' };
  private abortUpstream: ((err?: Error) => void) | undefined;
  private resumeUpstream: (() => void) | undefined;
  private cancelled: Error | undefined;
  private paused = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly route: AnswerRoute,
    private readonly signal: CancelSignal,
    private readonly body: string | Buffer | Readable,
    /** The attempt's result, an error answer's included. */
    private readonly resolve: (r: AttemptResult) => void,
    /** A failure before any answer was complete (connection, cancel, a throwing sink). */
    private readonly reject: (err: Error) => void,
  ) {
    signal.once('abort', this.onCancel);
  }

  onConnect(abort: (err?: Error) => void): void {
    if (this.cancelled) abort(this.cancelled);
    else this.abortUpstream = abort;
  }

  onHeaders(status: number, raw: Buffer[], resume: () => void): boolean {
    if (status < 200) return true;
    this.resumeUpstream = resume;
    if (status >= 400) {
      this.phase = { kind: 'error', status, text: '' };
      return true;
    }
    const headers = answerHeaders(raw);
    try {
      const sink = this.route.sinkFor(headers);
      if (sink.whole) {
        this.phase = { kind: 'whole', sink, headers, chunks: [], size: 0 };
        return true;
      }
      sink.open(this.res, status, headers);
      this.phase = {
        kind: 'stream',
        sink,
        pinger: sink.keepAlive ? startKeepAlive(this.res, sink.keepAlive) : undefined,
      };
    } catch (err) {
      this.end();
      this.abortUpstream?.(cancelledError());
      this.reject(err as Error);
      return false;
    }
    this.res.on('drain', this.onDrain);
    this.res.on('close', this.onClientClose);
    return true;
  }

  onData(chunk: Buffer): boolean {
    const p = this.phase;
    switch (p.kind) {
      case 'error':
        if (p.text.length < ERROR_BODY_LIMIT) p.text += chunk.toString('utf8');
        return true;
      case 'whole':
        p.size += chunk.length;
        if (p.size > p.sink.limit) {
          this.end();
          this.abortUpstream?.(new Error('upstream answer too large'));
          this.resolve({ kind: 'failed', status: 502, message: 'upstream answer too large', body: '' });
          return false;
        }
        p.chunks.push(chunk);
        return true;
      case 'stream':
        return this.relayChunk(p, chunk);
      default:
        return false;
    }
  }

  onComplete(): void {
    const p = this.phase;
    if (p.kind === 'error') {
      this.end();
      const body = p.text.slice(0, ERROR_BODY_LIMIT);
      this.resolve({ kind: 'failed', status: p.status, message: errorMessageOf(body, p.status), body });
    } else if (p.kind === 'whole') {
      this.end();
      const text = (p.chunks.length === 1 ? p.chunks[0]! : Buffer.concat(p.chunks, p.size)).toString('utf8');
      this.settle(() => p.sink.answer(this.res, text, p.headers));
    } else if (p.kind === 'stream') this.endStream(p, false);
  }

  onError(err: Error): void {
    if (typeof this.body === 'object' && !Buffer.isBuffer(this.body)) this.body.destroy(err);
    const p = this.phase;
    if (p.kind === 'stream') this.endStream(p, true);
    else if (p.kind !== 'over') {
      this.end();
      this.reject(err);
    }
  }

  private relayChunk(p: Extract<Phase, { kind: 'stream' }>, chunk: Buffer): boolean {
    let out: string | Buffer | undefined;
    try {
      out = p.sink.chunk(chunk);
    } catch {
      this.endStream(p, true);
      return false;
    }
    if (out && out.length > 0) {
      p.pinger?.touch();
      if (!this.res.write(out)) {
        this.paused = true;
        return false;
      }
    }
    return true;
  }

  /** The stream is over: the upstream's end (`cut` false), or its failure, the sink's or the client leaving (`cut` true). */
  private endStream(p: Extract<Phase, { kind: 'stream' }>, cut: boolean): void {
    this.end();
    p.pinger?.stop();
    this.res.off('drain', this.onDrain);
    this.res.off('close', this.onClientClose);
    if (cut) this.abortUpstream?.(cancelledError());
    this.settle(() => p.sink.close(this.res, cut));
  }

  private settle(result: () => AttemptResult): void {
    let r: AttemptResult;
    try {
      r = result();
    } catch (err) {
      this.reject(err as Error);
      return;
    }
    this.resolve(r);
  }

  private end(): void {
    this.phase = { kind: 'over' };
    this.signal.off('abort', this.onCancel);
  }

  private readonly onDrain = (): void => {
    if (!this.paused) return;
    this.paused = false;
    this.resumeUpstream?.();
  };

  private readonly onClientClose = (): void => {
    if (this.phase.kind === 'stream' && !this.res.writableFinished) this.endStream(this.phase, true);
  };

  private readonly onCancel = (): void => {
    this.cancelled = cancelledError();
    this.abortUpstream?.(this.cancelled);
  };
}
