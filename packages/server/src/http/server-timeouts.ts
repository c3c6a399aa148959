import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';

/** How long a client may take to send a request; 0 turns a limit off. */
export interface ServerTimeouts {
  /** All of the request headers (HTTP_HEADERS_TIMEOUT). */
  headersMs: number;
  /** The whole request, headers and body (HTTP_REQUEST_TIMEOUT); a response may then take as long as it needs. */
  requestMs: number;
  /** The longest pause between two pieces of a request body (HTTP_BODY_IDLE_TIMEOUT). */
  bodyIdleMs: number;
}

/** The most often Node checks the header and request deadlines (its own default). */
const MAX_CHECK_INTERVAL_MS = 30_000;
const MIN_CHECK_INTERVAL_MS = 250;

/** node:http server options that enforce the header and whole-request deadlines (answered 408 by Node). */
export function serverTimeoutOptions(t: ServerTimeouts): ServerOptions {
  const shortest = Math.min(t.headersMs || Infinity, t.requestMs || Infinity);
  const interval = Number.isFinite(shortest) ? Math.max(MIN_CHECK_INTERVAL_MS, Math.min(MAX_CHECK_INTERVAL_MS, Math.floor(shortest / 4))) : MAX_CHECK_INTERVAL_MS;
  return { headersTimeout: t.headersMs, requestTimeout: t.requestMs, connectionsCheckingInterval: interval };
}

/**
 * Drops the connection of a request whose body stops arriving for `ms` (a trickled body); the watch ends with
 * the body, so a long streamed answer afterwards is never cut. No-op without a body or with `ms` 0.
 */
export function watchBodyIdle(req: IncomingMessage, res: ServerResponse, ms: number): void {
  if (!ms || req.complete) return;
  if (req.headers['transfer-encoding'] === undefined && (req.headers['content-length'] === undefined || req.headers['content-length'] === '0')) return;
  const socket = req.socket;
  socket.setTimeout(ms);
  req.once('end', () => {
    // After the response, Node has set the keep-alive timeout on the socket: leave that one.
    if (!res.writableFinished) socket.setTimeout(0);
  });
}
