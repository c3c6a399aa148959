import { mjQuery, mjRow, paged, selfMjQuery, selfTaskQuery, taskQuery, taskRow } from '@tollway/shared';
import type { z } from 'zod';
import type { Router } from '../../http/route.js';
import { tasksOf, type TaskQuery } from './service.js';

/** One task kind: its URLs, filters, the id column's query name, the row and the service's list. */
interface TaskKind {
  url: string;
  selfUrl: string;
  what: string;
  idName: 'mj_id' | 'task_id';
  query: z.ZodType;
  selfQuery: z.ZodType;
  row: z.ZodType;
  list: 'drawings' | 'music';
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
    list: 'drawings',
  },
  {
    url: '/api/task/',
    selfUrl: '/api/task/self',
    what: 'music tasks',
    idName: 'task_id',
    query: taskQuery,
    selfQuery: selfTaskQuery,
    row: taskRow,
    list: 'music',
  },
];

/**
 * Drawing (/api/mj) and music (/api/task) task lists, newest first by submit time: administrators see every
 * user's with the channel and can filter by channel and user; users see their own, without channels.
 */
export function taskRoutes(r: Router): void {
  const tags = ['tasks'];
  for (const k of kinds) {
    r.add({
      method: 'GET',
      url: k.url,
      level: 'admin',
      summary: `All ${k.what}; filters channel_id, ${k.idName}, user_id and a submit_time range (inclusive)`,
      tags,
      query: k.query,
      response: paged(k.row),
      handler: ({ ctx, query }) => tasksOf(ctx)[k.list](query as TaskQuery),
    });
    r.add({
      method: 'GET',
      url: k.selfUrl,
      level: 'user',
      summary: `Own ${k.what}; filters ${k.idName} and a submit_time range`,
      tags,
      query: k.selfQuery,
      response: paged(k.row),
      handler: ({ ctx, user, query }) => tasksOf(ctx)[k.list](query as TaskQuery, user!.id),
    });
  }
}
