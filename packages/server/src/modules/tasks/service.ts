import type { MjRow, TaskRow } from '@tollway/shared';
import type { Db } from '../../db/connect.js';
import { readPage, type Page, type PageQuery } from '../../db/paging.js';
import { perContext } from '../../per-context.js';
import { TasksStore, type TaskFilter } from './store.js';
import { toMjRow, toTaskRow } from './view.js';

/** The parsed query of any of the four lists (self lists lack channel_id and user_id). */
export type TaskQuery = PageQuery & {
  start_timestamp: number;
  end_timestamp: number;
  channel_id?: number;
  user_id?: number;
} & Record<string, unknown>;

/** The filter of a query; a self list (selfId) is pinned to the caller and has no channel or user filter. */
function filterOf(q: TaskQuery, idName: 'mj_id' | 'task_id', selfId?: number): TaskFilter {
  const base: TaskFilter = { start: q.start_timestamp, end: q.end_timestamp, externalId: String(q[idName] ?? '') };
  if (selfId !== undefined) return { ...base, userId: selfId };
  return { ...base, channelId: q.channel_id ?? 0, userId: q.user_id || undefined };
}

/**
 * Drawing and music task lists, newest first by submit time: administrators see every user's with the channel;
 * a self list (selfId) shows the caller's own, without channels.
 */
export class TasksService {
  readonly store: TasksStore;

  constructor(db: Db) {
    this.store = new TasksStore(db);
  }

  drawings(q: TaskQuery, selfId?: number): Promise<Page<MjRow>> {
    return readPage(
      q,
      (w) => this.store.drawings(filterOf(q, 'mj_id', selfId), w),
      (r) => toMjRow(r, selfId === undefined),
    );
  }

  music(q: TaskQuery, selfId?: number): Promise<Page<TaskRow>> {
    return readPage(
      q,
      (w) => this.store.tasks(filterOf(q, 'task_id', selfId), w),
      (r) => toTaskRow(r, selfId === undefined),
    );
  }
}

export const tasksOf = perContext((ctx) => new TasksService(ctx.db));
