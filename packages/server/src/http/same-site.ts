import type { FastifyRequest } from 'fastify';
import type { ErrorCode, ErrorParams } from '@tollway/shared';
import { coded } from '../lib/errors.js';

/**
 * Refuses a request the browser marks as sent from another site (Sec-Fetch-Site: cross-site): for GET routes the
 * console calls itself that change the session, so a link on another site cannot trigger them.
 */
export function refuseCrossSite(req: FastifyRequest, message: string, code: ErrorCode, params?: ErrorParams): void {
  if (req.headers['sec-fetch-site'] === 'cross-site') throw coded(code, message, params, 403);
}

/** Sec-Fetch-Dest of a script's fetch; an image, frame, style, script or page load says what it loads instead. */
const SCRIPT_FETCH_DEST = 'empty';

/**
 * Refuses what is not the console's own script calling: a cross-site request, or one the browser sends to load an
 * image, frame or page (an `<img src="/api/user/logout">` in a message is same-site, but its destination is `image`).
 * Clients that send no Fetch Metadata (API tools, older browsers) pass.
 */
export function refuseUnlessScriptCall(
  req: FastifyRequest,
  message: string,
  code: ErrorCode,
  params?: ErrorParams,
): void {
  refuseCrossSite(req, message, code, params);
  const dest = req.headers['sec-fetch-dest'];
  if (dest !== undefined && dest !== SCRIPT_FETCH_DEST) throw coded(code, message, params, 403);
}
