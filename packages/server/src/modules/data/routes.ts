import { DATA_DEFAULT_SPAN, dataQuery, dataRow, selfDataQuery, type DataGranularity } from '@tollway/shared';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { Router } from '../../http/route.js';
import { nowSeconds } from '../../lib/time.js';
import { DataStore, type DataScope } from './store.js';
import { perContext } from '../../lib/per-context.js';

const dataOf = perContext((ctx) => new DataStore(ctx.db));

/**
 * The time range of a query: missing bounds default to now and to now minus the span of DataExportDefaultTime
 * (a day for hour, a week for day, 30 days for week). Hours are kept by their first second, so the start is
 * moved back to its hour's start and the hour in progress is included.
 */
function range(ctx: AppContext, q: { start_timestamp: number; end_timestamp: number }): Pick<DataScope, 'start' | 'end'> {
  const end = q.end_timestamp || nowSeconds();
  const span = DATA_DEFAULT_SPAN[ctx.options.get('DataExportDefaultTime') as DataGranularity] ?? DATA_DEFAULT_SPAN.hour;
  const start = q.start_timestamp || Math.max(0, end - span);
  return { start: start - (start % 3600), end };
}

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
    handler: ({ ctx, query }) => dataOf(ctx).hourly({ ...range(ctx, query), username: query.username || undefined }),
  });
  r.add({
    method: 'GET',
    url: '/api/data/self',
    level: 'user',
    summary: 'Own hourly usage per model (calls, tokens, quota)',
    tags,
    query: selfDataQuery,
    response: z.array(dataRow),
    handler: ({ ctx, user, query }) => dataOf(ctx).hourly({ ...range(ctx, query), userId: user!.id }),
  });
}
