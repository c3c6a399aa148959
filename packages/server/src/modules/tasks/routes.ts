import { mjQuery, mjRow, paged, selfMjQuery, selfTaskQuery, taskQuery, taskRow } from '@tollway/shared';
import type { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { Router } from '../../http/route.js';
import { perContext } from '../../lib/per-context.js';
import { pageWindow } from '../users/routes-admin.js';
import { TasksStore, type TaskFilter } from './store.js';
import { toMjRow, toTaskRow } from './view.js';

const tasksOf = perContext((ctx) => new TasksStore(ctx.db));

/** The parsed query of any of the four lists (self lists lack channel_id and user_id). */
type Query = { p: number; page_size: number; start_timestamp: number; end_timestamp: number; channel_id?: number; user_id?: number } & Record<string, unknown>;

/** One task kind: its URLs, filters, the id column's query name, the list and the row view. */
interface TaskKind {
  url: string;
  selfUrl: string;
  what: string;
  idName: 'mj_id' | 'task_id';
  query: z.ZodType;
  selfQuery: z.ZodType;
  row: z.ZodType;
  /** `admin`: rows carry the channel. */
  list(ctx: AppContext, f: TaskFilter, offset: number, limit: number, admin: boolean): Promise<{ items: unknown[]; total: number }>;
}

const kinds: TaskKind[] = [
  {
    url: '/api/mj/',
    selfUrl: '/api/mj/self/',
    what: 'drawing tasks',
    idName: 'mj_id',
    query: mjQuery,
    selfQuery: selfMjQuery,
    row: mjRow,
    list: async (ctx, f, offset, limit, admin) => {
      const { items, total } = await tasksOf(ctx).drawings(f, offset, limit);
      return { items: items.map((r) => toMjRow(r, admin)), total };
    },
  },
  {
    url: '/api/task/',
    selfUrl: '/api/task/self',
    what: 'music tasks',
    idName: 'task_id',
    query: taskQuery,
    selfQuery: selfTaskQuery,
    row: taskRow,
    list: async (ctx, f, offset, limit, admin) => {
      const { items, total } = await tasksOf(ctx).tasks(f, offset, limit);
      return { items: items.map((r) => toTaskRow(r, admin)), total };
    },
  },
];

/** The filter of a query; a self list (selfId) is pinned to the caller and has no channel or user filter. */
function filterOf(q: Query, idName: TaskKind['idName'], selfId?: number): TaskFilter {
  const base: TaskFilter = { start: q.start_timestamp, end: q.end_timestamp, externalId: String(q[idName] ?? '') };
  if (selfId !== undefined) return { ...base, userId: selfId };
  return { ...base, channelId: q.channel_id ?? 0, userId: q.user_id || undefined };
}

/**
 * Drawing (/api/mj) and music (/api/task) task lists, newest first by submit time: administrators see every
 * user's with the channel and can filter by channel and user; users see their own, without channels (spec 3 §6).
 */
export function taskRoutes(r: Router): void {
  const tags = ['tasks'];
  for (const k of kinds) {
    const page = async (ctx: AppContext, q: Query, selfId?: number) => {
      const w = pageWindow(q);
      const { items, total } = await k.list(ctx, filterOf(q, k.idName, selfId), w.offset, w.limit, selfId === undefined);
      return { items, page: w.page, total };
    };
    r.add({
      method: 'GET',
      url: k.url,
      level: 'admin',
      summary: `All ${k.what}; filters channel_id, ${k.idName}, user_id and a submit_time range (inclusive)`,
      tags,
      query: k.query,
      response: paged(k.row),
      handler: ({ ctx, query }) => page(ctx, query as Query),
    });
    r.add({
      method: 'GET',
      url: k.selfUrl,
      level: 'user',
      summary: `Own ${k.what}; filters ${k.idName} and a submit_time range`,
      tags,
      query: k.selfQuery,
      response: paged(k.row),
      handler: ({ ctx, user, query }) => page(ctx, query as Query, user!.id),
    });
  }
}
