import type { FastifyInstance } from 'fastify';

/**
 * Parses application/x-www-form-urlencoded bodies into a plain object of strings (the last value wins for a
 * repeated name). Payment providers post their notifies this way; every route still validates its body.
 */
export function acceptFormBodies(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
}
