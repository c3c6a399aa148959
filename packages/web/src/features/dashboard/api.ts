import type { DataRow } from '@tollway/shared';
import { apiGet } from '../../lib/api';

export type { DataRow };

export const DASHBOARD_KEY = ['dashboard'] as const;

export interface DataQuery {
  /** Epoch seconds. */
  start: number;
  end: number;
  /** Administrators only; '' is every user. */
  username: string;
}

/** GET /api/data/ (administrators: all users or one) or /api/data/self: hourly usage per model. */
export function fetchUsage(q: DataQuery, admin: boolean): Promise<DataRow[]> {
  const params = new URLSearchParams({ start_timestamp: String(q.start), end_timestamp: String(q.end) });
  if (admin && q.username.trim()) params.set('username', q.username.trim());
  return apiGet<DataRow[]>(`/api/data/${admin ? '' : 'self'}?${params.toString()}`).then((d) => d ?? []);
}

/** Usernames matching a keyword, for the administrators' user picker (GET /api/user/search). */
export async function searchUsernames(keyword: string): Promise<string[]> {
  const params = new URLSearchParams({ keyword, p: '1', page_size: '10' });
  const page = await apiGet<{ items: { username: string }[] }>(`/api/user/search?${params.toString()}`, {
    silent: true,
  });
  return (page?.items ?? []).map((u) => u.username);
}
