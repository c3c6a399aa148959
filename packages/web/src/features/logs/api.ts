import { useQuery } from '@tanstack/react-query';
import { LogType } from '@tollway/shared';
import { apiGet } from '../../lib/api';

/**
 * A usage log row (spec 3 §3). `other` is JSON text. Administrators' rows carry channel (id), channel_name and
 * ip; a user's own rows omit the channel and carry ip only when the user's setting show_ip_in_logs is on.
 */
export interface LogRow {
  id: number;
  created_at: number;
  type: number;
  user_id: number;
  username: string;
  token_id: number;
  token_name: string;
  model_name: string;
  group: string;
  channel?: number;
  channel_name?: string;
  prompt_tokens: number;
  completion_tokens: number;
  quota: number;
  use_time: number;
  is_stream: boolean;
  content: string;
  ip?: string;
  request_id: string;
  other: string;
}

export interface LogPage {
  items: LogRow[];
  page: number;
  total: number;
}

export interface LogStat {
  quota: number;
  rpm: number;
  tpm: number;
}

/** Filters shared by the list and the stat (spec 3 §7). username and channel are sent only by admins. */
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
export const LOG_TYPES = [LogType.Topup, LogType.Consume, LogType.Manage, LogType.System, LogType.CheckIn, LogType.Error] as const;

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
export function fetchLogs(f: LogFilters, page: number, pageSize: number, admin: boolean): Promise<LogPage> {
  const params = filterParams(f, admin);
  params.set('p', String(page));
  params.set('page_size', String(pageSize));
  return apiGet<LogPage>(`/api/log/${admin ? '' : 'self/'}?${params.toString()}`).then((d) => ({
    items: d?.items ?? [],
    page: d?.page ?? page,
    total: d?.total ?? 0,
  }));
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
