import type { IncomingMessage } from 'node:http';
import { Dispatcher } from 'undici';
import { WebSocket, type RawData } from 'ws';
import { parseData } from '../../ir/json-data.js';
import { LAST_FRAME, sparkStatus } from './convert.js';
import type { SparkFrame } from './wire.js';

/** How long the socket's opening handshake may take. */
const HANDSHAKE_MS = 15_000;
/** Largest frame accepted. */
const MAX_FRAME = 8 * 1024 * 1024;
/** Longest wait for the next frame once the question is sent. */
const IDLE_MS = 120_000;
/** Most of a refused handshake's answer read. */
const MAX_REFUSAL = 64 * 1024;

const header = (name: string, value: string): Buffer[] => [Buffer.from(name), Buffer.from(value)];
const SSE_HEADERS = header('content-type', 'text/event-stream');
const JSON_HEADERS = header('content-type', 'application/json');

/**
 * Carries one Spark call over its WebSocket as if it were an HTTP exchange, so the relay reads it like any
 * upstream: the request body is the one frame sent; a refused handshake becomes that HTTP answer; an error in the
 * first frame becomes an error answer with its status; otherwise each frame is passed on as one SSE event
 * (`data: {frame}`) until the last. Backpressure pauses the socket.
 */
class SparkExchange {
  private ws: WebSocket | undefined;
  private done = false;
  private started = false;
  private idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly body: string,
    private readonly handler: Dispatcher.DispatchHandler,
  ) {}

  start(): void {
    this.handler.onConnect?.(this.abort);
    if (this.done) return;
    const ws = (this.ws = new WebSocket(this.url, { handshakeTimeout: HANDSHAKE_MS, maxPayload: MAX_FRAME }));
    ws.on('open', () => {
      ws.send(this.body);
      this.touch();
    });
    ws.on('unexpected-response', (_req, res) => this.handshakeAnswered(res));
    ws.on('message', (data: RawData) => this.frame(data));
    ws.on('error', (err) => this.fail(err));
    ws.on('close', () => this.fail(new Error('iFlytek Spark closed the connection before the answer ended')));
  }

  private readonly abort = (err?: Error): void => {
    this.fail(err ?? new Error('request aborted'));
  };

  /** (Re)starts the wait for the next frame; a silent upstream fails the call. */
  private touch(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.fail(new Error('iFlytek Spark sent nothing for too long')), IDLE_MS);
    this.idle.unref();
  }

  /** The client is slow: frames wait in the socket (the idle wait stops meanwhile). */
  private pause(): void {
    clearTimeout(this.idle);
    this.ws?.pause();
  }

  private readonly resume = (): void => {
    if (this.done) return;
    this.touch();
    this.ws?.resume();
  };

  private finish(): void {
    this.done = true;
    clearTimeout(this.idle);
  }

  private fail(err: Error): void {
    if (this.done) return;
    this.finish();
    this.ws?.terminate();
    this.handler.onError?.(err);
  }

  /** The handshake answered with an HTTP status (a bad signature: 401 or 403): that answer is passed on. */
  private handshakeAnswered(res: IncomingMessage): void {
    let text = '';
    res.on('data', (chunk: Buffer) => {
      if (text.length < MAX_REFUSAL) text += chunk.toString('utf8');
    });
    res.on('error', (err) => this.fail(err));
    res.on('end', () => {
      const type = String(res.headers['content-type'] ?? 'text/plain');
      this.answer(res.statusCode ?? 502, header('content-type', type), text);
    });
  }

  /** A whole answer (an error) in place of the stream. */
  private answer(status: number, headers: Buffer[], text: string): void {
    if (this.done) return;
    this.finish();
    const h = this.handler;
    h.onHeaders?.(status, headers, () => undefined, '');
    h.onData?.(Buffer.from(text));
    h.onComplete?.([]);
    this.ws?.terminate();
  }

  private frame(data: RawData): void {
    if (this.done) return;
    const raw = Buffer.isBuffer(data) ? data : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]);
    const f = parseData(raw.toString('utf8')) as SparkFrame | undefined;
    if (!f) return this.fail(new Error('iFlytek Spark sent a frame that is not JSON'));
    this.touch();
    const code = Number(f.header?.code ?? 0);
    const h = this.handler;
    if (!this.started) {
      if (code !== 0) {
        const message = `iFlytek Spark error ${code}: ${String(f.header?.message ?? '')}`;
        return this.answer(sparkStatus(code), JSON_HEADERS, JSON.stringify({ error: { message, code } }));
      }
      this.started = true;
      if (h.onHeaders?.(200, SSE_HEADERS, this.resume, 'OK') === false) this.pause();
    }
    const more = h.onData?.(Buffer.from(`data: ${JSON.stringify(f)}\n\n`));
    if (code !== 0 || f.header?.status === LAST_FRAME || f.payload?.choices?.status === LAST_FRAME) {
      this.finish();
      h.onComplete?.([]);
      this.ws?.close();
    } else if (more === false) this.pause();
  }
}

/** The dispatcher of Spark calls: each call its own WebSocket (Spark answers one question per connection). */
export class SparkSocketDispatcher extends Dispatcher {
  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    const origin = typeof options.origin === 'string' ? options.origin : String(options.origin ?? '');
    const body =
      typeof options.body === 'string'
        ? options.body
        : Buffer.isBuffer(options.body)
          ? options.body.toString('utf8')
          : '';
    new SparkExchange(origin.replace(/\/+$/, '') + options.path, body, handler).start();
    return true;
  }

  close(): Promise<void>;
  close(callback: () => void): void;
  close(callback?: () => void): Promise<void> | void {
    if (callback) return callback();
    return Promise.resolve();
  }

  destroy(): Promise<void>;
  destroy(err: Error | null): Promise<void>;
  destroy(callback: () => void): void;
  destroy(err: Error | null, callback: () => void): void;
  destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
    const callback = typeof a === 'function' ? a : b;
    if (callback) return callback();
    return Promise.resolve();
  }
}

export const sparkSockets = new SparkSocketDispatcher();
