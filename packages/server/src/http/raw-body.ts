import { Transform } from 'node:stream';
import type { FastifyRequest, preParsingHookHandler } from 'fastify';

/** The bytes of each request that keeps its body as sent (a signed webhook), by request. */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/**
 * A preParsing step that copies the body's bytes as the parser reads them (the parser still enforces the body limit
 * and parses JSON as usual), so a handler can check a signature over exactly the bytes that were signed.
 */
export const keepRawBody: preParsingHookHandler = (req, _reply, payload, done) => {
  const chunks: Buffer[] = [];
  let received = 0;
  const copy = new Transform({
    transform(chunk: Buffer, _encoding, next) {
      chunks.push(chunk);
      received += chunk.length;
      (copy as Transform & { receivedEncodedLength?: number }).receivedEncodedLength = received;
      next(null, chunk);
    },
    flush(next) {
      rawBodies.set(req, Buffer.concat(chunks));
      next();
    },
  });
  payload.on('error', (err) => copy.destroy(err));
  done(null, payload.pipe(copy));
};

/** The body exactly as received, for a route declared with rawBody (empty when there was none). */
export function rawBodyOf(req: FastifyRequest): Buffer {
  return rawBodies.get(req) ?? Buffer.alloc(0);
}
