// A streaming OpenAI-format upstream in its own process for the scale rows (bench/scale.ts, bench/h2-upstream.ts).
// Each streamed answer sends a chunk at once, then one every STREAM_MOCK_CHUNK_MS until STREAM_MOCK_CHUNKS, then
// the usage chunk (completion tokens = chunks) and [DONE]. With STREAM_MOCK_KEY and STREAM_MOCK_CERT it serves TLS
// with HTTP/2 and HTTP/1.1 (ALPN); else plain HTTP/1.1. GET /stats answers the connections accepted so far.
// Prints its URL on stdout.
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

const CHUNKS = Number(process.env.STREAM_MOCK_CHUNKS ?? 10);
const CHUNK_MS = Number(process.env.STREAM_MOCK_CHUNK_MS ?? 1000);
/** Streams one HTTP/2 connection may carry at once (what the server announces; providers announce 100–256). */
const MAX_STREAMS = Number(process.env.STREAM_MOCK_MAX_STREAMS ?? 100);
const PROMPT_TOKENS = 12;
/** Idle keep-alive connections from the relay stay open this long (longer than its own 30 s). */
const KEEP_ALIVE_MS = 120_000;

const chunk = (content: string) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o-mini', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
const usage = `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: PROMPT_TOKENS, completion_tokens: CHUNKS, total_tokens: PROMPT_TOKENS + CHUNKS } })}\n\n`;

let connections = 0;
/** Also an HTTP/2 compatibility request and response (same calls used here). */
function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  if (req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ connections }));
    return;
  }
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let sent = 0;
    const next = () => {
      if (res.destroyed) return;
      if (sent === CHUNKS) {
        res.write(usage);
        res.end('data: [DONE]\n\n');
        return;
      }
      // Honour backpressure: the next chunk waits for the socket to drain.
      const flushed = res.write(chunk(` t${sent++}`));
      if (flushed) setTimeout(next, CHUNK_MS);
      else res.once('drain', () => setTimeout(next, CHUNK_MS));
    };
    next();
  });
}

const tls = process.env.STREAM_MOCK_KEY && process.env.STREAM_MOCK_CERT;
const server = tls
  ? http2.createSecureServer({
      key: fs.readFileSync(process.env.STREAM_MOCK_KEY!),
      cert: fs.readFileSync(process.env.STREAM_MOCK_CERT!),
      allowHTTP1: true,
      settings: { maxConcurrentStreams: MAX_STREAMS },
    })
  : http.createServer();
if (server instanceof http.Server) server.keepAliveTimeout = KEEP_ALIVE_MS;
server.on(tls ? 'secureConnection' : 'connection', () => connections++);
server.on('request', answer as never);
// As large an accept queue as the kernel allows (net.core.somaxconn), as Tollway's: thousands of upstream connections
// open within seconds in the concurrency row.
server.listen({ port: 0, host: '127.0.0.1', backlog: 65_535 }, () =>
  process.stdout.write(`${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}\n`),
);
process.on('SIGTERM', () => process.exit(0));
