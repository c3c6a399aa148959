import { useQuery } from '@tanstack/react-query';
import type { ChannelListRow, ChannelPublic, ChannelTagRow, editTagBody, Page } from '@tollway/shared';
import type { z } from 'zod';
import { api, ApiFailure, apiDelete, apiGet, apiGetPage, apiPost, apiPut } from '../../lib/api';

export type Channel = ChannelPublic;
export type TagRow = ChannelTagRow;
export type ListRow = ChannelListRow;

export const isTagRow = (r: ListRow): r is TagRow => (r as Partial<TagRow>).is_tag === true;

export interface ChannelFilter {
  keyword: string;
  group: string;
  model: string;
}

export interface ChannelQuery extends ChannelFilter {
  page: number;
  pageSize: number;
  idSort: boolean;
  tagMode: boolean;
}

export const CHANNELS_KEY = ['channels'] as const;

/** GET /api/channel/ without filters, GET /api/channel/search with a keyword, group or model. */
export function fetchChannels(q: ChannelQuery): Promise<Page<ListRow>> {
  const params = new URLSearchParams({
    p: String(q.page),
    page_size: String(q.pageSize),
    id_sort: String(q.idSort),
    tag_mode: String(q.tagMode),
  });
  const filtered = q.keyword !== '' || q.group !== '' || q.model !== '';
  if (filtered) {
    params.set('keyword', q.keyword);
    params.set('group', q.group);
    params.set('model', q.model);
  }
  return apiGetPage<ListRow>(`/api/channel/${filtered ? 'search' : ''}?${params.toString()}`, q.page);
}

/** One channel for the editor; its key is masked (revealChannelKey shows it). */
export const fetchChannel = (id: number, silent = false) => apiGet<Channel>(`/api/channel/${id}`, { silent });

/** The editable fields as the create and update calls take them. */
export interface ChannelPayload {
  name?: string;
  type?: number;
  key?: string;
  openai_organization?: string;
  test_model?: string;
  base_url?: string;
  other?: string;
  /** Comma separated. */
  models?: string;
  /** Comma separated. */
  group?: string;
  model_mapping?: string;
  model_prefix?: string;
  max_input_tokens?: number;
  status_code_mapping?: string;
  setting?: string;
  param_override?: string;
  system_prompt?: string;
  auto_ban?: 0 | 1;
  priority?: number;
  weight?: number;
  tag?: string;
  status?: number;
}

export type CreateMode = 'single' | 'batch' | 'multi_to_single';
export type MultiKeyMode = 'random' | 'polling';

export interface CreateChannelInput {
  mode: CreateMode;
  multi_key_mode: MultiKeyMode;
  channel: ChannelPayload;
}

export const createChannel = (body: CreateChannelInput, silent = false) =>
  api<{ ids: number[] }>('POST', '/api/channel/', body, { silent }).then((e) => e.data?.ids ?? []);

export interface UpdateChannelInput extends ChannelPayload {
  id: number;
  key_mode?: 'replace' | 'append';
  multi_key_mode?: MultiKeyMode;
}

export const updateChannel = (body: UpdateChannelInput) => apiPut<Channel>('/api/channel/', body).then((e) => e.data);
export const deleteChannel = (id: number) => apiDelete(`/api/channel/${id}`);
export const deleteChannels = (ids: number[]) =>
  apiPost<number>('/api/channel/batch', { ids }).then((e) => e.data ?? 0);
export const deleteDisabledChannels = () => apiDelete<number>('/api/channel/disabled').then((e) => e.data ?? 0);
export const fixAbilities = () =>
  apiPost<{ success: number; fails: number }>('/api/channel/fix').then((e) => e.data?.success ?? 0);

export const batchSetTag = (ids: number[], tag: string) =>
  apiPost<number>('/api/channel/batch/tag', { ids, tag }).then((e) => e.data ?? 0);

/** PUT /api/channel/tag body: the tag plus what to change on every channel of it. */
export type EditTagInput = z.input<typeof editTagBody>;
export const editTag = (body: EditTagInput) => apiPut<number>('/api/channel/tag', body).then((e) => e.data ?? 0);
export const setTagStatus = (tag: string, enabled: boolean) =>
  apiPost<number>(`/api/channel/tag/${enabled ? 'enabled' : 'disabled'}`, { tag }).then((e) => e.data ?? 0);

export interface TestResult {
  success: boolean;
  message: string;
  /** Seconds. */
  time: number;
}

/**
 * GET /api/channel/test/{id}?model=: the answer is {success, message, time} at the top level. A failed test is
 * returned (not thrown) so the caller can show it next to the model; transport failures still throw.
 */
export async function testChannel(id: number, model?: string): Promise<TestResult> {
  const q = model ? `?model=${encodeURIComponent(model)}` : '';
  try {
    const env = await api<never>('GET', `/api/channel/test/${id}${q}`, undefined, { silent: true });
    const r = env as unknown as Partial<TestResult>;
    return { success: true, message: r.message ?? '', time: Number(r.time ?? 0) };
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 200) return { success: false, message: err.message, time: 0 };
    throw err;
  }
}

/** Starts a background test of all channels; resolves with the server message. */
export const testAllChannels = () => api('GET', '/api/channel/test').then((e) => e.message);

export const updateBalance = (id: number) =>
  apiGet<{ balance: number; balance_updated_time: number }>(`/api/channel/update_balance/${id}`);
export const updateAllBalances = () => apiGet<{ updated: number; failed: number }>('/api/channel/update_balance');

/** Upstream models before the channel exists (first key only) or of a saved channel (its stored key). */
export const fetchUpstreamModels = (body: { base_url: string; type: number; key: string }) =>
  apiPost<string[]>('/api/channel/fetch_models', body).then((e) => e.data ?? []);
export const fetchChannelUpstreamModels = (id: number) =>
  apiGet<string[]>(`/api/channel/fetch_models/${id}`).then((d) => d ?? []);

/** Every known model name (GET /api/channel/models). */
export function useKnownModels() {
  return useQuery({
    queryKey: ['channel-models'],
    queryFn: async () => ((await apiGet<{ id: string }[]>('/api/channel/models')) ?? []).map((m) => m.id),
    staleTime: 60_000,
  });
}

/** Channel type id → default models (GET /api/models). */
export function useTypeModels() {
  return useQuery({
    queryKey: ['type-models'],
    queryFn: async () => (await apiGet<Record<string, string[]>>('/api/models')) ?? {},
    staleTime: 5 * 60_000,
  });
}

/** Group names (GET /api/group/). */
export function useChannelGroups() {
  return useQuery({
    queryKey: ['groups'],
    queryFn: async () => (await apiGet<string[]>('/api/group/')) ?? [],
    staleTime: 60_000,
  });
}

/** POST /api/channel/:id/key (root): the full key text; refused until the session is verified (verifySession). */
export const revealChannelKey = (id: number, silent = false) =>
  api<{ key: string }>('POST', `/api/channel/${id}/key`, {}, { silent }).then((e) => e.data?.key ?? '');

/** POST /api/verify: a two-factor code (or backup code), or the password for an account without 2FA; lasts 5 minutes. */
export const verifySession = (proof: { method: '2fa'; code: string } | { method: 'password'; password: string }) =>
  apiPost<{ verified: boolean }>('/api/verify', proof);

/** POST /api/channel/copy/:id: a copy with its key and settings, named name+suffix; the new id. */
export const copyChannel = (id: number, suffix: string, silent = false) =>
  api<{ id: number }>('POST', `/api/channel/copy/${id}?suffix=${encodeURIComponent(suffix)}`, undefined, {
    silent,
  }).then((e) => e.data?.id);
