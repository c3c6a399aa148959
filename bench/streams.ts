// Streamed calls and the streaming mock, shared by the rows that open many streams (bench/scale.ts, bench/burst.ts).
import path from 'node:path';
import type { Agent } from 'undici';
import type { Target } from './measure.js';
import { start, type Proc } from './procs.js';
import { ROOT, streamBody } from './targets.js';

export interface StreamResult {
  /** ms to the first body chunk; 0 when the call failed. */
  firstMs: number;
  /** Answered 200 and ended with [DONE]. */
  complete: boolean;
}

/** One streamed chat call read to its end; `onFirst` runs at its first body chunk, or when it fails. */
export async function streamCall(client: Agent, t: Target, onFirst = () => {}): Promise<StreamResult> {
  const t0 = performance.now();
  try {
    const res = await client.request({
      origin: t.url,
      path: t.path,
      method: 'POST',
      headers: { 'content-type': 'application/json', ...t.headers },
      body: streamBody,
    });
    let firstMs = 0;
    let tail = '';
    for await (const c of res.body) {
      if (!firstMs) {
        firstMs = performance.now() - t0;
        onFirst();
      }
      tail = (tail + (c as Buffer).toString()).slice(-64);
    }
    return { firstMs, complete: res.statusCode === 200 && tail.endsWith('data: [DONE]\n\n') };
  } catch {
    onFirst();
    return { firstMs: 0, complete: false };
  }
}

/**
 * The streaming mock (bench/stream-mock-server.ts) in its own process, sending `chunks` events `chunkMs` apart; with
 * `tls` (key and certificate files) it serves HTTPS, HTTP/2 or HTTP/1.1 as the client chooses (ALPN).
 */
export async function startStreamMock(
  chunks: number,
  chunkMs: number,
  tls?: { keyFile: string; certFile: string },
): Promise<{ url: string; proc: Proc }> {
  const env = {
    STREAM_MOCK_CHUNKS: String(chunks),
    STREAM_MOCK_CHUNK_MS: String(chunkMs),
    ...(tls ? { STREAM_MOCK_KEY: tls.keyFile, STREAM_MOCK_CERT: tls.certFile } : {}),
  };
  const listening = /https?:\/\/127\.0\.0\.1:\d+/;
  const proc = await start(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/stream-mock-server.ts')],
    env,
    listening,
  );
  return { proc, url: listening.exec(proc.output())![0] };
}
