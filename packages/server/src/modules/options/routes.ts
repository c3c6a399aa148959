import { z } from 'zod';
import { optionItem, updateOptionBody } from '@tollway/shared';
import type { Router } from '../../http/route.js';

export function optionRoutes(r: Router): void {
  r.add({
    method: 'GET',
    url: '/api/option/',
    level: 'root',
    summary: 'List every option with its current value (secrets blank)',
    tags: ['options'],
    response: z.array(optionItem),
    handler: ({ ctx }) => ctx.options.list(),
  });
  r.add({
    method: 'PUT',
    url: '/api/option/',
    level: 'root',
    summary: 'Set one option',
    tags: ['options'],
    body: updateOptionBody,
    handler: async ({ ctx, body }) => {
      await ctx.options.set(body.key, body.value);
      return undefined;
    },
  });
}
