import { bearerMatches } from '../lib/bearer.js';
import { METRICS_CONTENT_TYPE, metricsText } from '../lib/metrics.js';
import type { Router } from './route.js';

/** GET /metrics in Prometheus text, for a scraper holding METRICS_TOKEN; absent (404) when no token is set. */
export function metricsRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/metrics',
    level: 'public',
    summary:
      'Prometheus metrics (Authorization: Bearer METRICS_TOKEN); 404 unless METRICS_TOKEN is set (METRICS_PORT serves them on a port of their own)',
    tags: ['meta'],
    raw: true,
    audit: false,
    handler: async ({ ctx, req, reply }) => {
      const expected = ctx.config.metricsToken;
      if (!expected) return reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
      if (!bearerMatches(req.headers.authorization, expected)) {
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer')
          .type('text/plain; charset=utf-8')
          .send('Unauthorized');
      }
      return reply
        .header('cache-control', 'no-store')
        .type(METRICS_CONTENT_TYPE)
        .send(await metricsText());
    },
  });
}
