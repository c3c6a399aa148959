import type { AppContext } from '../context.js';
import { checkReadiness, type ReadinessContext } from '../observability/health.js';
import type { Router } from './route.js';

const NO_STORE = 'no-store';

/**
 * GET /healthz (the process answers: liveness, no I/O) and GET /readyz (the database, Redis when configured and
 * the durable writer are healthy: take traffic), for load balancers and orchestrators. No authentication; the
 * bodies say only ok/down per dependency.
 */
export function healthRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/healthz',
    level: 'public',
    summary: 'Liveness: 200 while the process serves requests',
    tags: ['meta'],
    raw: true,
    audit: false,
    handler: ({ reply }) => reply.code(200).header('cache-control', NO_STORE).send({ status: 'ok' }),
  });
  r.add({
    method: 'GET',
    url: '/readyz',
    level: 'public',
    summary: 'Readiness: 200 when the database, Redis (when configured) and the durable writer are healthy, else 503',
    tags: ['meta'],
    raw: true,
    audit: false,
    handler: async ({ ctx, reply }) => {
      const r = await checkReadiness(ctx as AppContext & ReadinessContext);
      return reply
        .code(r.ready ? 200 : 503)
        .header('cache-control', NO_STORE)
        .send({ status: r.ready ? 'ok' : 'unavailable', checks: r.checks });
    },
  });
}
