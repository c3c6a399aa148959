import type { Selectable } from 'kysely';
import type { Db } from '../../db/connect.js';
import { selectPage, type RowWindow, type Slice } from '../../db/paged-select.js';
import type { MidjourneysTable, TasksTable } from '../../db/schema.js';

export type MjRecord = Selectable<MidjourneysTable>;
export type TaskRecord = Selectable<TasksTable>;

/** Filters of a task list; 0 / '' means none; userId set scopes the list to one user (self views). */
export interface TaskFilter {
  userId?: number;
  channelId?: number;
  /** mj_id or task_id, exact. */
  externalId?: string;
  /** Inclusive bounds on submit_time (epoch seconds). */
  start?: number;
  end?: number;
}

/** SQL for the drawing (midjourneys) and music (tasks) lists: newest first, each filter an indexed equality or range. */
export class TasksStore {
  constructor(private readonly db: Db) {}

  private query<T extends 'midjourneys' | 'tasks'>(table: T, idColumn: 'mj_id' | 'task_id', f: TaskFilter) {
    // One builder for both tables: they share every filtered column, so the casts only name the table.
    let q = this.db.kysely.selectFrom(table as 'tasks');
    if (f.userId !== undefined) q = q.where('user_id', '=', f.userId);
    if (f.channelId) q = q.where('channel_id', '=', f.channelId);
    if (f.externalId) q = q.where(idColumn as 'task_id', '=', f.externalId);
    if (f.start) q = q.where('submit_time', '>=', f.start);
    if (f.end) q = q.where('submit_time', '<=', f.end);
    return q;
  }

  private page<R>(
    table: 'midjourneys' | 'tasks',
    idColumn: 'mj_id' | 'task_id',
    f: TaskFilter,
    window: RowWindow,
  ): Promise<Slice<R>> {
    const base = this.query(table, idColumn, f);
    return selectPage(
      base,
      (q) => q.selectAll().orderBy('submit_time', 'desc').orderBy('id', 'desc'),
      window,
    ) as Promise<Slice<R>>;
  }

  drawings(f: TaskFilter, window: RowWindow): Promise<Slice<MjRecord>> {
    return this.page<MjRecord>('midjourneys', 'mj_id', f, window);
  }

  tasks(f: TaskFilter, window: RowWindow): Promise<Slice<TaskRecord>> {
    return this.page<TaskRecord>('tasks', 'task_id', f, window);
  }
}
