import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { PING } from '../pipeline/keep-alive.js';

type Chunk = string | Buffer | Uint8Array;

const isChunk = (c: unknown): c is Chunk => typeof c === 'string' || c instanceof Uint8Array;

function contentTypeIn(headers: unknown): string | undefined {
  if (!headers || typeof headers !== 'object' || Array.isArray(headers)) return undefined;
  for (const [k, v] of Object.entries(headers as OutgoingHttpHeaders))
    if (k.toLowerCase() === 'content-type' && v !== undefined) return String(v);
  return undefined;
}

/**
 * The answer of a cache miss, kept as the caller receives it: the response's head and body are read on their way
 * out (its write, writeHead and end, wrapped for this one call), keep-alive pings left out. Past `maxBytes` the
 * answer is not kept (too large to cache).
 */
export class AnswerCapture {
  status = 200;
  contentType: string | undefined;
  private chunks: Buffer[] = [];
  private bytes = 0;
  overflow = false;
  private ended = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly maxBytes: number,
  ) {
    // The response's own methods, called through: only this call's response is wrapped.
    const { write, end, writeHead } = res;
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      this.status = status;
      this.contentType ??= contentTypeIn(rest[rest.length - 1]);
      return (writeHead as (...a: unknown[]) => ServerResponse).call(res, status, ...rest);
    }) as ServerResponse['writeHead'];
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      this.take(chunk);
      return (write as (...a: unknown[]) => boolean).call(res, chunk, ...rest);
    }) as ServerResponse['write'];
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      this.take(chunk);
      // An end that writes its last chunk through write() (light-my-request's) must not keep it twice.
      this.ended = true;
      return (end as (...a: unknown[]) => ServerResponse).call(res, chunk, ...rest);
    }) as ServerResponse['end'];
  }

  private take(chunk: unknown): void {
    if (this.overflow || this.ended || !isChunk(chunk) || chunk === PING) return;
    // A copy: the bytes written may be a pooled buffer reused after the write.
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk);
    this.bytes += b.length;
    if (this.bytes > this.maxBytes) {
      this.overflow = true;
      this.chunks = [];
      return;
    }
    this.chunks.push(b);
  }

  /** The answer's text, or undefined when it was too large to keep. */
  body(): string | undefined {
    return this.overflow ? undefined : Buffer.concat(this.chunks).toString('utf8');
  }

  /** The answer's content type (from its head, else the headers set on the response). */
  type(): string {
    return this.contentType ?? String(this.res.getHeader('content-type') ?? 'application/json');
  }
}
