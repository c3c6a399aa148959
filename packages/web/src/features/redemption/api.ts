import type { Page, RedemptionInput, RedemptionPublic } from '@tollway/shared';
import { apiDelete, apiGet, apiPost, apiPut } from '../../lib/api';

export { RedemptionStatus, type RedemptionInput } from '@tollway/shared';

/** A redemption code as the admin API returns it (the shared schema). */
export type Redemption = RedemptionPublic;

export const REDEMPTIONS_KEY = ['redemptions'] as const;

/** A gift code whose uses ran out stays status 1 but is shown greyed. */
export const isExhausted = (r: Redemption) => r.is_gift && r.max_uses > 0 && r.used_count >= r.max_uses;

/** GET /api/redemption/ or, with a keyword, /api/redemption/search. */
export function fetchRedemptions(q: { page: number; pageSize: number; keyword: string }): Promise<Page<Redemption>> {
  const params = new URLSearchParams({ p: String(q.page), page_size: String(q.pageSize) });
  if (q.keyword) params.set('keyword', q.keyword);
  return apiGet<Page<Redemption>>(`/api/redemption/${q.keyword ? 'search' : ''}?${params}`);
}

export const fetchRedemption = (id: number) => apiGet<Redemption>(`/api/redemption/${id}`);

/** Returns the created keys. */
export const createRedemptions = async (body: RedemptionInput & { count: number; key: string }) =>
  (await apiPost<string[]>('/api/redemption/', body)).data ?? [];

export const updateRedemption = (body: RedemptionInput & { id: number }) =>
  apiPut<Redemption>('/api/redemption/', body);

export const setRedemptionStatus = (id: number, status: number) =>
  apiPut<Redemption>('/api/redemption/?status_only=true', { id, status });

export const deleteRedemption = (id: number) => apiDelete(`/api/redemption/${id}/`);

export const countByName = (name: string) =>
  apiGet<number>(`/api/redemption/count-by-name?name=${encodeURIComponent(name)}`);

export const deleteByName = async (name: string) =>
  (await apiDelete<number>(`/api/redemption/delete-by-name?name=${encodeURIComponent(name)}`)).data ?? 0;

export const batchDisable = async (ids: number[]) =>
  (await apiPut<number>('/api/redemption/batch-disable', { ids })).data ?? 0;

export const deleteDisabled = async () => (await apiDelete<number>('/api/redemption/delete-disabled')).data ?? 0;
/** Deletes the codes nobody can redeem any more: used, disabled, expired or out of uses. */
export const deleteInvalid = async () => (await apiDelete<number>('/api/redemption/invalid')).data ?? 0;

/** Offers the keys as a text file, one per line. */
export function downloadKeys(keys: string[], name: string): void {
  const blob = new Blob([keys.join('\n') + '\n'], { type: 'text/plain;charset=utf-8' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `${name.replace(/[\\/:*?"<>|\s]+/g, '_') || 'redemption'}-codes.txt`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
