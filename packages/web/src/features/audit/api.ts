import type { AuditRow } from '@tollway/shared';
import { apiGet } from '../../lib/api';

export interface AuditPage {
  items: AuditRow[];
  page: number;
  total: number;
}

/** The filters a root reader can set ('' or 0: none); times are unix seconds, inclusive. */
export interface AuditFilters {
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  outcome: '' | 'ok' | 'denied';
  start_timestamp: number;
  end_timestamp: number;
}

export const EMPTY_FILTERS: AuditFilters = { actor: '', action: '', target_type: '', target_id: '', outcome: '', start_timestamp: 0, end_timestamp: 0 };

export const AUDIT_KEY = ['audit'] as const;

/** GET /api/audit/ (root only), newest first. */
export function fetchAudit(f: AuditFilters, page: number, pageSize: number): Promise<AuditPage> {
  const params = new URLSearchParams({ p: String(page), page_size: String(pageSize) });
  for (const [k, v] of Object.entries(f)) {
    if (v !== '' && v !== 0) params.set(k, String(v));
  }
  return apiGet<AuditPage>(`/api/audit/?${params.toString()}`).then((d) => ({ items: d?.items ?? [], page: d?.page ?? page, total: d?.total ?? 0 }));
}
