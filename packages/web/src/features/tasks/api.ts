import type { MjRow, Page, TaskRow } from '@tollway/shared';
import { apiGetPage } from '../../lib/api';

export type { MjRow, TaskRow };

/** Filters of both task lists; channel only for administrators. Times are epoch seconds, 0 = open. */
export interface TaskFilters {
  /** mj_id or task_id. */
  id: string;
  channel: number | null;
  start_timestamp: number;
  end_timestamp: number;
}

export const TASKS_KEY = ['tasks'] as const;

/** Which list: drawing tasks (/api/mj) or music tasks (/api/task). */
export type TaskKind = 'drawing' | 'music';

const PATHS: Record<TaskKind, { admin: string; self: string; id: string }> = {
  drawing: { admin: '/api/mj/', self: '/api/mj/self/', id: 'mj_id' },
  music: { admin: '/api/task/', self: '/api/task/self', id: 'task_id' },
};

/** One page of a task list: every user's for administrators, else the caller's own. */
export async function fetchTaskPage<T>(
  kind: TaskKind,
  f: TaskFilters,
  page: number,
  pageSize: number,
  admin: boolean,
): Promise<Page<T>> {
  const path = PATHS[kind];
  const params = new URLSearchParams({ p: String(page), page_size: String(pageSize) });
  if (f.id.trim()) params.set(path.id, f.id.trim());
  if (f.start_timestamp) params.set('start_timestamp', String(f.start_timestamp));
  if (f.end_timestamp) params.set('end_timestamp', String(f.end_timestamp));
  if (admin && f.channel) params.set('channel_id', String(f.channel));
  return apiGetPage<T>(`${admin ? path.admin : path.self}?${params.toString()}`, page);
}
