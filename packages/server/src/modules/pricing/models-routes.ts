import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { modelsByType } from '../channels/known-models.js';
import { modelMetaPage, modelMetaQuery } from './model-meta.js';

const modelMetaPageSchema = z.object({
  items: z.array(z.record(z.string(), z.unknown())),
  total: z.number(),
  page: z.number(),
  page_size: z.number(),
});

/** The request path ends in a slash (the router ignores trailing slashes, so one route serves both forms). */
const endsWithSlash = (url: string): boolean => (url.split('?')[0] ?? '').endsWith('/');

/**
 * `/api/models`: the channel type → default models map (Tollway's channel editor). `/api/models/` (new-api's
 * console): the paged model list with vendors, endpoints and channels; `/api/models/search` filters it.
 */
export function modelsRoutes(r: Router): void {
  const tags = ['channels'];
  r.add({
    method: 'GET',
    url: '/api/models',
    level: 'admin',
    summary:
      'Without a trailing slash: channel type id → its default model list. With one (/api/models/): the paged model list',
    tags,
    query: modelMetaQuery,
    response: z.union([z.record(z.string(), z.array(z.string())), modelMetaPageSchema]),
    handler: ({ ctx, req, query }) => (endsWithSlash(req.url) ? modelMetaPage(ctx, query) : modelsByType()),
  });
  r.add({
    method: 'GET',
    url: '/api/models/search',
    level: 'admin',
    summary: 'The paged model list filtered by keyword (in the name), vendor (id or name) and status (1 on, 0 off)',
    tags,
    query: modelMetaQuery,
    response: modelMetaPageSchema,
    handler: ({ ctx, query }) => modelMetaPage(ctx, query),
  });
}
