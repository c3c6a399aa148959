import { setupBody } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';

export function setupRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/setup',
    level: 'public',
    summary: 'Setup state: whether setup is done, whether a root user exists, and the database type',
    tags: ['setup'],
    response: z.object({ status: z.boolean(), root_init: z.boolean(), database_type: z.string() }),
    handler: ({ ctx }) => ctx.setup.state(),
  });
  r.add({
    method: 'POST',
    url: '/api/setup',
    level: 'public',
    rateLimit: 'critical',
    summary: 'First-run setup: creates the root user (role 100) once; refused afterwards',
    tags: ['setup'],
    body: setupBody,
    successMessage: 'system initialized',
    handler: async ({ ctx, body }) => {
      await ctx.setup.run(body);
      return undefined;
    },
  });
}
