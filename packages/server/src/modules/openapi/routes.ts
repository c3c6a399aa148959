import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { buildOpenApi } from './document.js';

export function openapiRoutes(r: Router): void {
  let cached: Record<string, unknown> | undefined;
  r.add({
    method: 'GET',
    url: '/api/openapi.json',
    level: 'public',
    summary: 'This OpenAPI 3 document',
    tags: ['meta'],
    response: z.record(z.string(), z.unknown()),
    raw: true,
    handler: ({ ctx, reply }) => {
      cached ??= buildOpenApi(r.routes, ctx.config.version);
      return reply.send(cached);
    },
  });
}
