import type { FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

/**
 * Refuses a request the browser marks as sent from another site (Sec-Fetch-Site: cross-site): for GET routes the
 * console calls itself that change the session, so a link on another site cannot trigger them.
 */
export function refuseCrossSite(req: FastifyRequest, message: string): void {
  if (req.headers['sec-fetch-site'] === 'cross-site') throw new ApiError(message, 403);
}
