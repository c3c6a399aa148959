import { useQuery } from '@tanstack/react-query';
import { LogType, type LogRow, type LogStat, type Page } from '@tollway/shared';
import { apiGet, apiGetPage } from '../../lib/api';

export type { LogRow, LogStat };

/** Filters shared by the list and the stat. username and channel are sent only by admins. */
export interface LogFilters {
  type: number;
  token_name: string;
  model_name: string;
  group: string;
  username: string;
  channel: number | null;
  /** Epoch seconds. */
  start_timestamp: number;
  end_timestamp: number;
}

export const LOGS_KEY = ['logs'] as const;
/** The log types a filter offers (every type but Unknown). */
export const LOG_TYPES = [
  LogType.Topup,
  LogType.Consume,
  LogType.Manage,
  LogType.System,
  LogType.CheckIn,
  LogType.Error,
] as const;

function filterParams(f: LogFilters, admin: boolean): URLSearchParams {
  const params = new URLSearchParams({ type: String(f.type) });
  if (f.token_name.trim()) params.set('token_name', f.token_name.trim());
  if (f.model_name.trim()) params.set('model_name', f.model_name.trim());
  if (f.group.trim()) params.set('group', f.group.trim());
  if (f.start_timestamp) params.set('start_timestamp', String(f.start_timestamp));
  if (f.end_timestamp) params.set('end_timestamp', String(f.end_timestamp));
  if (admin) {
    if (f.username.trim()) params.set('username', f.username.trim());
    if (f.channel) params.set('channel', String(f.channel));
  }
  return params;
}

/** GET /api/log/ (admins: every user) or /api/log/self/ (own logs). */
export function fetchLogs(f: LogFilters, page: number, pageSize: number, admin: boolean): Promise<Page<LogRow>> {
  const params = filterParams(f, admin);
  params.set('p', String(page));
  params.set('page_size', String(pageSize));
  return apiGetPage<LogRow>(`/api/log/${admin ? '' : 'self/'}?${params.toString()}`, page);
}

/** GET /api/log/stat or /api/log/self/stat: quota of matching consumption, rpm and tpm of the last minute. */
export function fetchLogStat(f: LogFilters, admin: boolean): Promise<LogStat> {
  const params = filterParams(f, admin);
  return apiGet<LogStat>(`/api/log/${admin ? 'stat' : 'self/stat'}?${params.toString()}`).then((d) => ({
    quota: d?.quota ?? 0,
    rpm: d?.rpm ?? 0,
    tpm: d?.tpm ?? 0,
  }));
}

/** Group names for the group filter: all groups for admins (GET /api/group/), the user's own choices otherwise. */
export function useLogGroups(admin: boolean) {
  return useQuery({
    queryKey: ['log-groups', admin],
    queryFn: async () => {
      if (admin) return (await apiGet<string[]>('/api/group/', { silent: true })) ?? [];
      return Object.keys((await apiGet<Record<string, unknown>>('/api/user/self/groups', { silent: true })) ?? {});
    },
    staleTime: 60_000,
  });
}
