import { ServerResponse, type IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';

/** A socket that takes every byte and keeps none: the round's answer is kept by RoundResponse itself. */
const nullSocket = () =>
  new Writable({
    write(_chunk, _encoding, done) {
      done();
    },
  });

/** One model round's answer as the relay wrote it. */
export interface RoundAnswer {
  status: number;
  body: Buffer;
}

/**
 * The response a model round of a remote-MCP Responses call is relayed into: a real node ServerResponse (the
 * relay's pipeline sets headers, writes and ends it as it does for a caller) whose bytes are kept in memory for
 * the loop to read instead of going to a socket. It ends with 'close' as a served response does (the concurrency
 * limiter gives the call's place back then); `abandon` closes it unfinished, which cancels the round upstream.
 */
export class RoundResponse extends ServerResponse {
  private readonly chunks: Buffer[] = [];
  private ended = false;
  /** Resolves once the relay ended the response (or it was abandoned). */
  readonly answered: Promise<RoundAnswer>;
  private settle!: (a: RoundAnswer) => void;
  /** Resolves once 'close' was emitted (the round's place under the concurrency limits is given back by then). */
  readonly released: Promise<void>;
  private closedNow!: () => void;

  constructor(req: IncomingMessage) {
    super(req);
    this.answered = new Promise((resolve) => (this.settle = resolve));
    this.released = new Promise((resolve) => (this.closedNow = resolve));
    this.assignSocket(nullSocket() as unknown as Parameters<ServerResponse['assignSocket']>[0]);
    this.once('finish', () => {
      this.settle({ status: this.statusCode, body: Buffer.concat(this.chunks) });
      this.closeOnce();
    });
  }

  private keep(chunk: unknown, encoding?: unknown): void {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    this.chunks.push(
      Buffer.isBuffer(chunk)
        ? chunk
        : typeof chunk === 'string'
          ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
          : Buffer.from(chunk as Uint8Array),
    );
  }

  override write(chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
    this.keep(chunk, encoding);
    return (super.write as (...a: unknown[]) => boolean)(chunk, encoding, cb);
  }

  override end(chunk?: unknown, encoding?: unknown, cb?: unknown): this {
    this.keep(chunk, encoding);
    return (super.end as (...a: unknown[]) => this)(chunk, encoding, cb);
  }

  private closeOnce(): void {
    if (this.ended) return;
    this.ended = true;
    setImmediate(() => {
      this.emit('close');
      this.closedNow();
    });
  }

  /**
   * Closes the response if it is not yet: unfinished, the relay cancels the round upstream and refunds it (the caller
   * went away); a round that threw before answering gives its concurrency place back.
   */
  abandon(): void {
    this.settle({ status: 499, body: Buffer.alloc(0) });
    this.closeOnce();
  }
}
