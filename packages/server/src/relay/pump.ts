import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { startKeepAlive, type KeepAliveOptions } from './keep-alive.js';

/** Turns each upstream chunk into what to write to the client now (nothing, the same bytes, or converted events). */
export interface ChunkSink {
  chunk(raw: Buffer): string | Buffer | undefined;
}

/**
 * Relays an upstream body to the client chunk by chunk: `sink.chunk` turns each chunk into what to write now
 * (nothing, the same bytes, or converted events). 'data' events, not an async iterator (one hop less per chunk);
 * while the client's socket is full the upstream pauses until it drains. Resolves when the upstream ends
 * (`cut` false), or fails, throws in `sink.chunk`, or the client leaves first (`cut` true; the upstream is destroyed).
 * With `keepAlive` (SSE answers whose response head is set), a ping goes out between writes after each idle
 * interval until then; without it no timer exists.
 */
export function pump(body: Readable, res: ServerResponse, sink: ChunkSink, keepAlive?: KeepAliveOptions): Promise<{ cut: boolean }> {
  return new Promise((resolve) => {
    let done = false;
    const pinger = keepAlive ? startKeepAlive(res, keepAlive) : undefined;
    const finish = (cut: boolean) => {
      if (done) return;
      done = true;
      pinger?.stop();
      res.off('drain', resume);
      res.off('close', onClose);
      if (cut) body.destroy();
      resolve({ cut });
    };
    const resume = () => body.resume();
    const onClose = () => {
      if (!res.writableFinished) finish(true);
    };
    res.on('drain', resume);
    res.on('close', onClose);
    body.on('data', (chunk: Buffer) => {
      let out: string | Buffer | undefined;
      try {
        out = sink.chunk(chunk);
      } catch {
        finish(true);
        return;
      }
      if (out && out.length > 0) {
        pinger?.touch();
        if (!res.write(out)) body.pause();
      }
    });
    body.on('end', () => finish(false));
    body.on('error', () => finish(true));
  });
}

/** The whole body as text, read with 'data' events; undefined when it is over `limit` bytes (the rest is not read). */
export function readText(body: Readable, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        body.destroy();
        resolve(undefined);
      } else chunks.push(c);
    });
    body.on('end', () => resolve((chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8')));
    body.on('error', reject);
  });
}
