import {
  ErrorCode,
  deleteLogsQuery,
  logQuery,
  logRow,
  logStat,
  logStatQuery,
  paged,
  selfLogQuery,
  selfLogStatQuery,
} from '@tollway/shared';
import { z } from 'zod';
import type { Router } from '../../http/route.js';
import { refused } from '../../lib/errors.js';
import { logsOf } from './service.js';

/** Usage logs: administrators see every user's with channels; users see their own. Root prunes old ones. */
export function logRoutes(r: Router): void {
  const tags = ['logs'];
  r.add({
    method: 'GET',
    url: '/api/log/',
    level: 'admin',
    summary: "All users' logs, newest first, with filters (type 0 = all; timestamps bound created_at, inclusive)",
    tags,
    query: logQuery,
    response: paged(logRow),
    handler: ({ ctx, query }) => logsOf(ctx).page(query),
  });
  r.add({
    method: 'GET',
    url: '/api/log/self/',
    level: 'user',
    summary: 'Own logs, newest first (no channel; ip only with the show_ip_in_logs setting)',
    tags,
    query: selfLogQuery,
    response: paged(logRow),
    handler: ({ ctx, user, query }) => logsOf(ctx).selfPage(user!.id, query),
  });
  r.add({
    method: 'GET',
    url: '/api/log/stat',
    level: 'admin',
    summary: 'Quota used by matching consumption logs; requests (rpm) and tokens (tpm) in the last 60 seconds',
    tags,
    query: logStatQuery,
    response: logStat,
    handler: ({ ctx, query }) => logsOf(ctx).stat(query),
  });
  r.add({
    method: 'GET',
    url: '/api/log/self/stat',
    level: 'user',
    summary: 'The same numbers over own logs',
    tags,
    query: selfLogStatQuery,
    response: logStat,
    handler: ({ ctx, user, query }) => logsOf(ctx).stat({ ...query, userId: user!.id }),
  });
  // new-api keeps these two routes but answers them "deprecated" (its console filters /api/log/ instead).
  for (const [url, level] of [
    ['/api/log/search', 'admin'],
    ['/api/log/self/search', 'user'],
  ] as const)
    r.add({
      method: 'GET',
      url,
      level,
      summary: 'Deprecated in new-api: answers success:false, "this API is deprecated" (filter GET /api/log/ instead)',
      tags,
      handler: () => {
        throw refused('this API is deprecated', ErrorCode.ApiDeprecated);
      },
    });
  r.add({
    method: 'DELETE',
    url: '/api/log/',
    level: 'root',
    summary: 'Delete logs created before target_timestamp (in batches); returns how many',
    tags,
    query: deleteLogsQuery,
    response: z.number().int(),
    handler: ({ ctx, query }) => logsOf(ctx).deleteBefore(query.target_timestamp),
  });
}
