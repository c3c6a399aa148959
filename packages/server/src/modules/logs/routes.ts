import { deleteLogsQuery, logQuery, logRow, logStat, logStatQuery, paged, selfLogQuery, selfLogStatQuery } from '@tollway/shared';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { Router } from '../../http/route.js';
import { perContext } from '../../lib/per-context.js';
import { nowSeconds } from '../../lib/time.js';
import { pageWindow } from '../users/routes-admin.js';
import { LogsStore } from './store.js';
import { toAdminLog, toUserLog } from './view.js';

const logsOf = perContext((ctx) => new LogsStore(ctx.logDb));

/** The user's setting show_ip_in_logs (users.setting JSON); off when unset or unreadable. */
async function showsIp(ctx: AppContext, userId: number): Promise<boolean> {
  const u = await ctx.usersStore.findById(userId);
  try {
    return (JSON.parse(u?.setting || '{}') as { show_ip_in_logs?: unknown }).show_ip_in_logs === true;
  } catch {
    return false;
  }
}

/** Usage logs: administrators see every user's with channels; users see their own. Root prunes old ones. */
export function logRoutes(r: Router): void {
  const tags = ['logs'];
  r.add({
    method: 'GET',
    url: '/api/log/',
    level: 'admin',
    summary: 'All users\' logs, newest first, with filters (type 0 = all; timestamps bound created_at, inclusive)',
    tags,
    query: logQuery,
    response: paged(logRow),
    handler: async ({ ctx, query }) => {
      const w = pageWindow(query);
      const { items, total } = await logsOf(ctx).page(query, w.offset, w.limit);
      return { items: items.map(toAdminLog), page: w.page, total };
    },
  });
  r.add({
    method: 'GET',
    url: '/api/log/self/',
    level: 'user',
    summary: 'Own logs, newest first (no channel; ip only with the show_ip_in_logs setting)',
    tags,
    query: selfLogQuery,
    response: paged(logRow),
    handler: async ({ ctx, user, query }) => {
      const w = pageWindow(query);
      const [{ items, total }, showIp] = await Promise.all([logsOf(ctx).page({ ...query, userId: user!.id }, w.offset, w.limit), showsIp(ctx, user!.id)]);
      return { items: items.map((row) => toUserLog(row, showIp)), page: w.page, total };
    },
  });
  r.add({
    method: 'GET',
    url: '/api/log/stat',
    level: 'admin',
    summary: 'Quota used by matching consumption logs; requests (rpm) and tokens (tpm) in the last 60 seconds',
    tags,
    query: logStatQuery,
    response: logStat,
    handler: ({ ctx, query }) => logsOf(ctx).stat(query, nowSeconds()),
  });
  r.add({
    method: 'GET',
    url: '/api/log/self/stat',
    level: 'user',
    summary: 'The same numbers over own logs',
    tags,
    query: selfLogStatQuery,
    response: logStat,
    handler: async ({ ctx, user, query }) => logsOf(ctx).stat({ ...query, userId: user!.id }, nowSeconds()),
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
