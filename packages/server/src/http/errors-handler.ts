import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';

const CLIENT_ERRORS: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported content type; send application/json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'request body is empty but content-type is application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid content length',
};

/** Every failure becomes `{success:false, message}` with a 4xx for client mistakes; never a stack trace. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError | Error, req, reply) => {
    if (err instanceof ApiError) {
      return reply.status(err.status).send({ success: false, message: err.message });
    }
    const fe = err as FastifyError;
    const status = fe.statusCode ?? 500;
    if (status < 500) {
      let message = (fe.code && CLIENT_ERRORS[fe.code]) || fe.message;
      if (fe instanceof SyntaxError || fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || /JSON/.test(fe.message)) message = `malformed JSON body: ${fe.message}`;
      return reply.status(status).send({ success: false, message });
    }
    req.log.error({ err }, 'request failed');
    return reply.status(500).send({ success: false, message: 'internal server error, contact the administrator' });
  });
}
