import { dataRow, dataQuery, selfDataQuery, userDataRow } from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { dataOf } from './service.js';

/** Data dashboard: hourly usage per model from quota_data; administrators see every user's or one user's. */
export function dataRoutes(r: Router): void {
  const tags = ['data'];
  r.add({
    method: 'GET',
    url: '/api/data/',
    level: 'admin',
    summary: 'Hourly usage per model (calls, tokens, quota) of all users, or of the user named by username',
    tags,
    query: dataQuery,
    response: z.array(dataRow),
    handler: ({ ctx, query }) => dataOf(ctx).hourly(query),
  });
  r.add({
    method: 'GET',
    url: '/api/data/users',
    level: 'admin',
    summary: 'Hourly usage per user (calls, tokens, quota) summed over models',
    tags,
    query: selfDataQuery,
    response: z.array(userDataRow),
    handler: ({ ctx, query }) => dataOf(ctx).hourlyByUser(query),
  });
  r.add({
    method: 'GET',
    url: '/api/data/self',
    level: 'user',
    summary: 'Own hourly usage per model (calls, tokens, quota)',
    tags,
    query: selfDataQuery,
    response: z.array(dataRow),
    handler: ({ ctx, user, query }) => dataOf(ctx).hourly({ ...query, userId: user!.id }),
  });
}
