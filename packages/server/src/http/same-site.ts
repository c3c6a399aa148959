import type { FastifyRequest } from 'fastify';
import type { ErrorCode, ErrorParams } from '@tollway/shared';
import { coded } from './errors.js';

/**
 * Refuses a request the browser marks as sent from another site (Sec-Fetch-Site: cross-site): for GET routes the
 * console calls itself that change the session, so a link on another site cannot trigger them.
 */
export function refuseCrossSite(req: FastifyRequest, message: string, code: ErrorCode, params?: ErrorParams): void {
  if (req.headers['sec-fetch-site'] === 'cross-site') throw coded(code, message, params, 403);
}
