import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/**
 * What the relay reads of an inbound request. A Fastify request is one; so is the hot-path entry's view of a
 * plain node:http request, and the realtime upgrade's.
 */
export interface RelayRequest {
  headers: IncomingHttpHeaders;
  url: string;
  ip: string;
  /** The parsed query string (`?key=` authenticates Gemini-style callers). */
  query: unknown;
  /** The whole body as a Buffer for JSON endpoints; the unread stream for multipart ones. */
  body: unknown;
  raw: IncomingMessage;
}
