import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../lib/errors.js';
import { CLIENT_CLOSED_REQUEST, RelayError } from './errors.js';
import type { ClientFormat } from '../ir/types.js';

/** The error body in the client's protocol; error types are OpenAI's words, other protocols choose theirs from the status. */
export function relayErrorBody(e: RelayError, format: ClientFormat): unknown {
  const openaiLike = format.name === 'openai' || format.name === 'responses';
  const body = format.errorBody(e.status, e.message, openaiLike ? e.type : undefined, e.code);
  if (openaiLike) {
    // The Responses shape is OpenAI's too: the code and param are set whichever of the two wrote the body.
    const error = body.error as Record<string, unknown>;
    if (e.param) error.param = e.param;
    if (e.code) error.code = e.code;
  }
  return body;
}

/** Writes an error on a raw response (relay calls own theirs), or just ends a stream that already started. */
export function writeRelayError(res: ServerResponse, e: RelayError, format: ClientFormat): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(relayErrorBody(e, format));
  if (e.headers) for (const [k, v] of Object.entries(e.headers)) if (v !== undefined) res.setHeader(k, v);
  res.writeHead(e.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Answers an error through Fastify, for the relay's plain routes and hooks (model lists, 501s, key checks). */
export function replyRelayError(reply: FastifyReply, e: RelayError, format: ClientFormat): FastifyReply {
  if (e.headers) reply.headers(e.headers);
  return reply.code(e.status).type('application/json').send(relayErrorBody(e, format));
}

/**
 * Any failure as the error the caller gets: relay refusals as they are (a client that closed its request logged
 * at info level), 4xx framework errors (body too large, bad content) with their status, everything else a 500
 * whose cause is logged and not shown.
 */
export function relayFailure(
  err: unknown,
  log: { error(obj: object, msg: string): void; info(obj: object, msg: string): void },
): RelayError {
  if (err instanceof RelayError) {
    if (err.status === CLIENT_CLOSED_REQUEST)
      log.info({ status: err.status, code: err.code }, 'relay: the client closed the request');
    return err;
  }
  // Refusals of the console session (the playground): 401 not logged in, 403 banned or not allowed.
  if (err instanceof ApiError)
    return new RelayError(err.status, err.message, 'invalid_request_error', err.status === 401 ? 'unauthorized' : null);
  const fe = err as { statusCode?: number; code?: string; message?: string };
  if (fe.statusCode && fe.statusCode < 500) {
    return new RelayError(
      fe.statusCode,
      fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'request body is too large' : (fe.message ?? 'bad request'),
      'invalid_request_error',
    );
  }
  log.error({ err }, 'relay failed');
  return new RelayError(500, 'internal server error, contact the administrator', 'tollway_error', 'internal_error');
}
