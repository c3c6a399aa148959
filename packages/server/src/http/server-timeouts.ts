import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';

/** How long a client may take to send a request; 0 turns a limit off. */
export interface ServerTimeouts {
  /** All of the request headers (HTTP_HEADERS_TIMEOUT). */
  headersMs: number;
  /** The whole request, headers and body (HTTP_REQUEST_TIMEOUT); a response may then take as long as it needs. */
  requestMs: number;
  /** The longest pause between two pieces of a request body (HTTP_BODY_IDLE_TIMEOUT). */
  bodyIdleMs: number;
  /** The least average rate of a request body once its grace has passed, bytes per second (HTTP_BODY_MIN_RATE). */
  bodyMinRate: number;
  /** How long a request body may take before its rate counts (HTTP_BODY_MIN_RATE_GRACE). */
  bodyMinRateGraceMs: number;
}

/** The most often Node checks the header and request deadlines (its own default). */
const MAX_CHECK_INTERVAL_MS = 30_000;
const MIN_CHECK_INTERVAL_MS = 250;

/** node:http server options that enforce the header and whole-request deadlines (answered 408 by Node). */
export function serverTimeoutOptions(t: ServerTimeouts): ServerOptions {
  const shortest = Math.min(t.headersMs || Infinity, t.requestMs || Infinity);
  const interval = Number.isFinite(shortest)
    ? Math.max(MIN_CHECK_INTERVAL_MS, Math.min(MAX_CHECK_INTERVAL_MS, Math.floor(shortest / 4)))
    : MAX_CHECK_INTERVAL_MS;
  return { headersTimeout: t.headersMs, requestTimeout: t.requestMs, connectionsCheckingInterval: interval };
}

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** Watches a request's body arriving: its pauses (watchBodyIdle) and its rate (watchBodyRate). */
export function watchBody(req: IncomingMessage, res: ServerResponse, t: ServerTimeouts): void {
  if (req.complete || !hasBody(req)) return;
  watchBodyIdle(req, res, t.bodyIdleMs);
  watchBodyRate(req, res, t.bodyMinRate, t.bodyMinRateGraceMs);
}

/**
 * Drops the connection of a request whose body stops arriving for `ms` (a trickled body); the watch ends with
 * the body, so a long streamed answer afterwards is never cut. No-op without a body or with `ms` 0.
 */
export function watchBodyIdle(req: IncomingMessage, res: ServerResponse, ms: number): void {
  if (!ms || req.complete || !hasBody(req)) return;
  const socket = req.socket;
  socket.setTimeout(ms);
  req.once('end', () => {
    // After the response, Node has set the keep-alive timeout on the socket: leave that one.
    if (!res.writableFinished) socket.setTimeout(0);
  });
}

/** A request body being received under a minimum rate. */
interface Upload {
  req: IncomingMessage;
  res: ServerResponse;
  startedAt: number;
  /** The connection's bytes read when the request began: what arrives after counts. */
  bytesAtStart: number;
  /** Bytes per second. */
  minRate: number;
  graceMs: number;
}

/** How often the bodies under way are checked (one timer for all of them, only while there are some). */
const RATE_CHECK_INTERVAL_MS = 250;
/** What Node itself answers to a request that took too long (the connection then closes). */
const REQUEST_TIMEOUT_RESPONSE = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n';

const uploads = new Set<Upload>();
let checker: NodeJS.Timeout | undefined;

/**
 * Enforces a minimum body data rate, as Apache's mod_reqtimeout does (body=20,MinRate=500): the body may take
 * `graceMs`, plus one second per `minRate` bytes received; a body slower than that is answered 408 (when no
 * answer has begun) and its connection closed, so a client trickling bytes cannot hold a socket for the whole
 * request timeout. The bytes are read off the connection's counter (nothing is added to the body's stream); the
 * watch ends with the body. No-op without a body or with `minRate` 0.
 */
export function watchBodyRate(req: IncomingMessage, res: ServerResponse, minRate: number, graceMs: number): void {
  if (!minRate || req.complete || !hasBody(req)) return;
  const upload: Upload = { req, res, startedAt: Date.now(), bytesAtStart: req.socket.bytesRead, minRate, graceMs };
  uploads.add(upload);
  req.once('close', () => uploads.delete(upload));
  checker ??= setInterval(checkUploads, RATE_CHECK_INTERVAL_MS).unref();
}

/** Whether an upload is behind its deadline: start + grace + received / rate. */
export function behindRate(elapsedMs: number, received: number, minRate: number, graceMs: number): boolean {
  return elapsedMs > graceMs + (received * 1000) / minRate;
}

function checkUploads(): void {
  const now = Date.now();
  for (const u of uploads) {
    const socket = u.req.socket;
    if (u.req.complete || socket.destroyed) uploads.delete(u);
    else if (behindRate(now - u.startedAt, socket.bytesRead - u.bytesAtStart, u.minRate, u.graceMs)) {
      uploads.delete(u);
      if (socket.writable && !u.res.headersSent) socket.write(REQUEST_TIMEOUT_RESPONSE);
      socket.destroy();
    }
  }
  if (uploads.size === 0) {
    clearInterval(checker);
    checker = undefined;
  }
}
