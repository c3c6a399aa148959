import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Identified } from './authenticate.js';

/** Callers identified by a route's onRequest hook, before Fastify reads their body. */
const identified = new WeakMap<IncomingMessage, Identified>();

/**
 * An onRequest hook that checks the caller's key from the headers before the body is read: a refusal is
 * answered by `refuse` in the route's own shape, closing the connection when the body is still coming, so a
 * bad key costs no upload.
 */
export function keyFirst(
  check: (req: FastifyRequest) => Promise<Identified>,
  refuse: (reply: FastifyReply, err: unknown) => unknown,
) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    try {
      identified.set(req.raw, await check(req));
      return undefined;
    } catch (err) {
      if (!req.raw.complete) reply.header('connection', 'close');
      return refuse(reply, err);
    }
  };
}

/** The caller a keyFirst hook identified for this request. */
export const identifiedCaller = (req: FastifyRequest): Identified | undefined => identified.get(req.raw);
