import type { FastifyError, FastifyInstance } from 'fastify';
import { ErrorCode } from '@tollway/shared';
import { ApiError } from '../lib/errors.js';

/** The body parser's refusals: our message, and the code of the console's text (request_invalid when none fits). */
const CLIENT_ERRORS: Record<string, { message: string; code?: ErrorCode }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { message: 'request body is too large', code: ErrorCode.BodyTooLarge },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    message: 'unsupported content type; send application/json',
    code: ErrorCode.UnsupportedContentType,
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    message: 'request body is empty but content-type is application/json',
    code: ErrorCode.MalformedJson,
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { message: 'invalid content length' },
};

const HTTP_OK = 200;
const HTTP_SERVER_ERROR = 500;

/** Refusals of the gate whose status new-api's console acts on (sign in again, no permission, slow down): kept on /api. */
const KEPT_ON_API = new Set([401, 403, 429]);

const isApiPath = (url: string) => url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');

/**
 * The status of a refusal. On /api it follows new-api: the gate's 401, 403 and 429 as they are, every other
 * refusal (validation, not found, conflict, a route's own rule, an upstream's error, and the body parser's: too
 * large, wrong content type, malformed JSON) is 200 with `success:false` so its message reaches the console.
 * Elsewhere as thrown.
 */
export function refusalStatus(url: string, status: number, gate = true): number {
  if (!isApiPath(url) || (gate && KEPT_ON_API.has(status))) return status;
  return HTTP_OK;
}

/** Every failure becomes `{success:false, message}` (plus `code` and `params` when the refusal has them) (status: refusalStatus); a fault is a 500 without its stack. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError | Error, req, reply) => {
    if (err instanceof ApiError) {
      const { code, params } = err.detail;
      return reply
        .status(refusalStatus(req.url, err.status, err.gate))
        .send({ success: false, message: err.message, code, params });
    }
    const fe = err as FastifyError;
    const status = fe.statusCode ?? HTTP_SERVER_ERROR;
    if (status < HTTP_SERVER_ERROR) {
      const known = fe.code ? CLIENT_ERRORS[fe.code] : undefined;
      let message = known?.message ?? fe.message;
      let code = known?.code ?? ErrorCode.RequestInvalid;
      if (fe instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/.test(fe.message)) {
        message = `malformed JSON body: ${fe.message}`;
        code = ErrorCode.MalformedJson;
      }
      return reply.status(refusalStatus(req.url, status)).send({ success: false, message, code });
    }
    req.log.error({ err }, 'request failed');
    return reply.status(HTTP_SERVER_ERROR).send({
      success: false,
      message: 'internal server error, contact the administrator',
      code: ErrorCode.InternalError,
    });
  });
}
